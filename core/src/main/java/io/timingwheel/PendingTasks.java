package io.timingwheel;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The accepted tasks that have not started, wherever they wait, as {@code getQueue()} and {@code remove} see them,
 * and the tasks {@code getQueue()} takes in.
 * Once the master runs, every question goes to it as a command on its thread: it sees its inbox, its wheel and the
 * dispatcher's queue in one step that moves nothing between them. Before it ever ran, or after it left (the executor
 * terminated), the dispatcher alone holds what waits. That choice is made in one place, {@link #ask}.
 */
final class PendingTasks {
    private final TaskHost owner;
    private final Lifecycle lifecycle;
    private final MasterLoop master;
    private final Dispatcher dispatcher;
    private final Decorations decorations;

    /** The pending limit, or null: with one, its count is the pending count, without a command. */
    private final PendingLimit limit;

    private final PoolControls pool;

    PendingTasks(TaskHost owner, Lifecycle lifecycle, MasterLoop master, Dispatcher dispatcher,
                 Decorations decorations, PendingLimit limit, PoolControls pool) {
        this.owner = owner;
        this.lifecycle = lifecycle;
        this.master = master;
        this.dispatcher = dispatcher;
        this.decorations = decorations;
        this.limit = limit;
        this.pool = pool;
    }

    /**
     * Takes a task in through getQueue() ({@code add}, {@code offer}, {@code put}), as the JDK's queue takes it: no
     * rejection handler, and after {@code shutdown()} too, when it then runs if the policies keep it. A task of ours
     * that is pending or done is left as it is; one that was handed out (by poll, drainTo, shutdownNow) or rejected
     * is accepted again; anything else runs as a one-shot task after its delay, shown as itself. It goes to the
     * master, by a command, atomically with the termination decision.
     *
     * @return false if the pending limit is reached (nothing changed); true otherwise, even once the executor is
     *     stopping, when the task is cancelled instead, since it could never run (the JDK's stays queued for ever)
     */
    boolean add(RunnableScheduledFuture<?> userTask) {
        ScheduledTask<?> task = taskBehind(userTask);
        if (task != null && !task.isRejected() && !task.isReturned()) {
            return true;
        }
        if (limit != null && !limit.reserve()) {
            return false;
        }
        if (task == null) {
            long delay = Math.max(0, userTask.getDelay(TimeUnit.NANOSECONDS));
            long now = owner.now();
            task = new RunnableTask(owner, userTask, delay == 0 ? now : Deadlines.after(now, delay));
            decorations.remember(task, userTask);
        } else if (!task.reaccept()) {
            if (limit != null) {
                limit.release(); // cancelled meanwhile
            }
            return true;
        }
        boolean inserted = !lifecycle.isStopping()
                && lifecycle.ensureMasterStarted()
                && master.insert(task);
        if (inserted) {
            pool.prestartWorkers();
        } else {
            task.cancelIfPending();
            if (userTask != task) {
                userTask.cancel(false);
            }
        }
        return true;
    }

    /**
     * @return the tasks accepted and not started: exact at some moment during the call (with a pending limit, the
     *     limit's own count; otherwise counted by the master, with the dispatcher's, while nothing moves between them)
     */
    long count() {
        if (limit != null) {
            return limit.count();
        }
        return ask(MasterLoop::pendingCount, () -> (long) dispatcher.waitingCount());
    }

    /** @return the tasks accepted and not started, as the master and the dispatcher hold them now */
    List<ScheduledTask<?>> list() {
        return ask(MasterLoop::pendingTasks, () -> {
            List<ScheduledTask<?>> tasks = new ArrayList<>();
            dispatcher.copyWaitingTo(tasks);
            return tasks;
        });
    }

    /** @return the pending task due first, or null */
    ScheduledTask<?> earliest() {
        ScheduledTask<?> earliest = null;
        for (ScheduledTask<?> task : list()) {
            if (earliest == null || task.deadline < earliest.deadline) {
                earliest = task;
            }
        }
        return earliest;
    }

    /** @return our task behind what the user holds (the task itself, or its decoration), in any state; else null */
    ScheduledTask<?> taskBehind(Object userTask) {
        if (userTask instanceof ScheduledTask<?> task && task.host == owner) {
            return task;
        }
        return decorations.taskBehind(userTask);
    }

    /**
     * @return our task that the queue shows as {@code shown}, in any state; else null. A decorated task is shown only
     *     as its decoration, so the task inside is not in the queue, as in the JDK's
     */
    private ScheduledTask<?> taskShownAs(Object shown) {
        ScheduledTask<?> task = taskBehind(shown);
        return task != null && decorations.userTask(task) == shown ? task : null;
    }

    /** @return whether the queue shows {@code userTask} as a pending task (O(1) for an undecorated task) */
    boolean contains(Object userTask) {
        ScheduledTask<?> task = taskShownAs(userTask);
        return task != null && task.isPending();
    }

    /** Removes (cancels) a pending task, given as the user holds it. @return true if it was pending here */
    boolean remove(Object userTask) {
        ScheduledTask<?> task = taskShownAs(userTask);
        return task != null && task.cancelIfPending();
    }

    /** Cancels every pending task (getQueue's clear). */
    void cancelAll() {
        act(MasterLoop::cancelAll, dispatcher::cancelWaiting);
    }

    /**
     * Takes up to {@code max} tasks that are due, those due first, out of the executor, marked as returned: the
     * caller owns them (getQueue's poll, take and drainTo). @return how many
     */
    int takeDue(int max, List<ScheduledTask<?>> sink) {
        return ask(m -> m.takeDue(max, sink), () -> dispatcher.takeDue(max, sink));
    }

    /** @return a time at or before which the earliest pending task is due; {@link TimingWheel#NONE} if none */
    long nextDeadlineBound() {
        long held = ask(MasterLoop::nextDeadline, () -> TimingWheel.NONE);
        return Math.min(held, dispatcher.firstWaitingDeadline());
    }

    /** Releases cancelled tasks now: waits until the master has processed the cancellations posted so far. */
    void purge() {
        act(MasterLoop::purge, () -> { });
    }

    /** Asks the master if it runs; the dispatcher alone if it never ran or has left. */
    private <T> T ask(Function<MasterLoop, Optional<T>> ofMaster, Supplier<T> ofDispatcherAlone) {
        Optional<T> answer = lifecycle.masterStarted() ? ofMaster.apply(master) : Optional.empty();
        return answer.orElseGet(ofDispatcherAlone);
    }

    /** Has the master act if it runs (the action returns false if it has left); else the dispatcher alone. */
    private void act(Predicate<MasterLoop> byMaster, Runnable byDispatcherAlone) {
        if (!lifecycle.masterStarted() || !byMaster.test(master)) {
            byDispatcherAlone.run();
        }
    }
}
