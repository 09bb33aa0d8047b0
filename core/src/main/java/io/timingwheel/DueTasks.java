package io.timingwheel;

import java.util.List;
import java.util.function.Predicate;

/**
 * The tasks handed to the worker pool that wait to start, and how a worker takes the first of them: the
 * {@link DueQueue}, in deadline order, and the workers' {@link Hand}s, which hold the due tasks a worker took behind
 * the one it starts. NOT thread safe: the pool's lock guards it.
 *
 * <p>A worker takes from another's hand before it takes from the queue: a hand's tasks were the queue's first ones
 * when it was filled, so tasks are taken in deadline order across workers, and none waits in a hand behind a long run
 * while a worker is free. A worker that takes the queue's first task, due, a one-shot task that runs directly, takes
 * the due ones right behind it into its hand under the same hold of the lock: one acquisition for a batch of tasks due
 * at once. With one worker the hand changes no order: its tasks are the queue's first ones, due, and run in that order.
 */
final class DueTasks {
    /** The queue; the pool adds to it directly (hand-overs, arrivals). */
    final DueQueue queue = new DueQueue();

    /** How many workers' hands hold tasks (filled and not yet emptied). */
    private int filledHands;

    private final DispatcherHost host;
    private final TaskRunner runner;
    private final WorkerRoster roster;

    DueTasks(DispatcherHost host, TaskRunner runner, WorkerRoster roster) {
        this.host = host;
        this.runner = runner;
        this.roster = roster;
    }

    /**
     * Takes the task due first that the gate lets pass ({@code open}), claimed for the worker's thread, if there is
     * one: from another worker's hand, else the queue's first if it is due. @return it, or null
     */
    ScheduledTask<?> take(Worker worker, long open) {
        ScheduledTask<?> task = filledHands > 0 ? stealFromHands(worker) : null;
        return task != null ? task : takeFromQueue(worker, open);
    }

    /** @return whether tasks wait here, due or not */
    boolean workLeft() {
        return filledHands > 0 || !queue.isEmpty();
    }

    /**
     * The claim of a task taken from another worker's hand, for {@code worker}. A class, not a lambda: a lambda's call
     * site is linked on its first call, which in a fresh JVM held a lone worker for milliseconds under the pool's lock
     * while its due tasks waited (docs/design.md, "A fresh JVM").
     */
    private final class ClaimFor implements Predicate<ScheduledTask<?>> {
        private final Worker worker;

        ClaimFor(Worker worker) {
            this.worker = worker;
        }

        @Override
        public boolean test(ScheduledTask<?> task) {
            return host.mayRun(task) && claimDirect(worker, task);
        }
    }

    /** Claims, for {@code worker}, the first pending task of another worker's hand that may run. @return it, or null */
    private ScheduledTask<?> stealFromHands(Worker worker) {
        for (Worker holder : roster.snapshot()) {
            if (holder != worker && holder.hand.isFilled()) {
                ScheduledTask<?> task = holder.hand.steal(new ClaimFor(worker));
                if (task != null) {
                    worker.userTask = task;
                    worker.direct = true;
                    worker.claimed = true;
                    return task;
                }
            }
        }
        return null;
    }

    /** Claims a task that runs directly for {@code worker}, counted active once claimed. */
    private static boolean claimDirect(Worker worker, ScheduledTask<?> task) {
        if (TaskRunner.claim(task, true)) {
            worker.beginRun();
            return true;
        }
        return false;
    }

    /**
     * Takes the queue's first task if it is due and the gate lets it pass; drops a first task that is no longer
     * pending on the way (cancelled, returned or taken back since it came: the JDK's queue, which removes a cancelled
     * task at once under {@code setRemoveOnCancelPolicy(true)}, never hands such a task to a worker). @return it, or
     * null
     */
    private ScheduledTask<?> takeFromQueue(Worker worker, long open) {
        ScheduledTask<?> task;
        for (;;) {
            long deadline = queue.peekDeadline();
            if (!isDue(deadline, worker) || deadline >= open) {
                return null; // not due, or the gate is shut for it (an empty queue's deadline is never due)
            }
            task = queue.peek();
            if (task.isPending()) {
                break;
            }
            queue.poll();
            worker.droppedStraggler = true; // maybe the last work: once shut down, the worker asks for the decision
        }
        boolean mayRun = host.mayRun(task);
        if (!mayRun && host.isStopping()) {
            // shutdownNow began since the pool's look: the task stays queued for its drain, which takes the lock after
            // this worker lets go of it, to return (taken and cancelled here, it would be neither run nor returned;
            // jcstress found it: ScheduleVersusShutdownNowStress)
            return null;
        }
        queue.poll();
        claimFor(worker, task, mayRun);
        if (worker.direct && !task.isPeriodic()) {
            fillHand(worker, open);
        }
        return task;
    }

    /**
     * Takes a task that falls due now for the worker that steps a virtual clock, as {@link #takeFromQueue} would take
     * it once queued: only if nothing waits here, so that it would be the queue's first task. The lock is held.
     *
     * @return whether the worker took it; if not (something waits here, the task is no longer pending, or
     *     shutdownNow's drain must find it), the caller hands it over as any other
     */
    boolean takeForStepper(Worker worker, ScheduledTask<?> task) {
        if (workLeft() || !task.isPending()) {
            return false;
        }
        boolean mayRun = host.mayRun(task);
        if (!mayRun && host.isStopping()) {
            return false; // as in takeFromQueue: it waits for shutdownNow's drain
        }
        claimFor(worker, task, mayRun);
        return true;
    }

    /** Gives {@code task}, taken from here, to {@code worker}: claimed, if it may run, and counted active. */
    private void claimFor(Worker worker, ScheduledTask<?> task, boolean mayRun) {
        worker.userTask = runner.userTask(task);
        worker.direct = runner.runsDirectly(task, worker.userTask);
        worker.claimed = mayRun && TaskRunner.claim(task, worker.direct);
        worker.beginRun(); // as the JDK's worker counts a task it took, claimed or not: its hooks run for it
    }

    /**
     * @return whether a task with this deadline is due for the worker: by the time it saw last, or else by the clock,
     *     read only then
     */
    private boolean isDue(long deadline, Worker worker) {
        return deadline <= worker.timeSeen || deadline <= (worker.timeSeen = host.now());
    }

    /**
     * Takes the due tasks that follow into the worker's hand, unclaimed, while they are one-shot, run directly, may
     * run, and the gate lets them pass. Due means due by the time the worker saw last: the clock is not read again for
     * the hand, nor the gate.
     */
    private void fillHand(Worker worker, long open) {
        Hand hand = worker.hand;
        while (queue.peekDeadline() <= worker.timeSeen && queue.peekDeadline() < open) {
            ScheduledTask<?> task = queue.peek();
            if (task.isPeriodic() || !runner.runsDirectly(task) || !host.mayRun(task) || !hand.add(task)) {
                break;
            }
            queue.poll();
        }
        if (hand.isFilled()) {
            filledHands++;
        }
    }

    /** Empties a hand its owner has gone through: what is still pending in it goes back to the queue. */
    void emptyHand(Worker worker) {
        if (worker.hand.isFilled()) {
            filledHands--;
            worker.hand.emptyInto(queue);
        }
    }

    /** Copies the pending tasks of the hands, then of the queue, into {@code sink}. */
    void copyPendingTo(List<ScheduledTask<?>> sink) {
        if (filledHands > 0) {
            for (Worker w : roster.snapshot()) {
                w.hand.forEachPending(sink::add);
            }
        }
        queue.copyPendingTo(sink);
    }

    /** @return whether a task here is still pending (the others are stragglers that left NEW) */
    boolean hasPending() {
        if (queue.hasPending()) {
            return true;
        }
        if (filledHands > 0) {
            for (Worker w : roster.snapshot()) {
                if (w.hand.isFilled() && w.hand.firstPending() != null) {
                    return true;
                }
            }
        }
        return false;
    }
}
