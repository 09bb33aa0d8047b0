package io.timingwheel;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The master thread: the only owner of the {@link TimingWheel}. It drains the inbox (new tasks, periodic tasks due
 * again, cancelled tasks to unlink) into the wheel, runs commands (shutdown policies, snapshots, the termination
 * decision), advances the wheel, hands due tasks to the {@link Dispatcher}, and sleeps until the next deadline.
 *
 * <h2>Sleeping and waking</h2>
 * Producers never unpark the master for work that can wait; that would cost more than the schedule itself.
 * <ul>
 *   <li>{@code wakeAt} is the time the master will wake by itself ({@link #AWAKE} while it is running). A producer
 *       whose task is due earlier swaps it to AWAKE and unparks the master: one producer per sleep does.</li>
 *   <li>Work that can wait (a far deadline, a cancellation) is drained at the next wake-up, but a master in a long
 *       sleep ({@code deepSleep}) is woken once for it, so cancelled tasks never wait for a far deadline to become
 *       garbage. After draining such work the master looks again within {@code lazyWakeNanos} instead of sleeping
 *       deeply, so a steady stream of schedules costs one wake-up per interval, not one per schedule.</li>
 *   <li>Before parking, the master publishes {@code wakeAt} and {@code deepSleep} and then checks the inbox; a
 *       producer offers and then reads them. All four are sequentially consistent, so either the master sees the
 *       new task or the producer sees that it must wake the master: no wake-up is lost.</li>
 * </ul>
 * With nothing pending the master parks without a timeout: an idle executor costs no CPU.
 */
final class MasterLoop implements Runnable {
    /** {@link #wakeAt} while the master is awake: no producer needs to wake it. */
    static final long AWAKE = Long.MIN_VALUE;

    /** How long the master naps while producers keep the inbox busy; bounds the lateness it may add then. */
    private static final long BUSY_NAP_NANOS = TimeUnit.MICROSECONDS.toNanos(50);

    /** How often the master retries to start a worker while due tasks wait and no worker could be started. */
    private static final long WORKER_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private static final VarHandle WAKE_AT;
    private static final VarHandle DEEP_SLEEP;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            WAKE_AT = lookup.findVarHandle(MasterLoop.class, "wakeAt", long.class);
            DEEP_SLEEP = lookup.findVarHandle(MasterLoop.class, "deepSleep", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final ExecutorCore core;
    private final TimingWheel<ScheduledTask<?>> wheel;
    private final Dispatcher dispatcher;
    private final StripedInbox<ScheduledTask<?>> inbox =
            new StripedInbox<>(Runtime.getRuntime().availableProcessors());
    private final ConcurrentLinkedQueue<Command> commands = new ConcurrentLinkedQueue<>();
    private final long lazyWakeNanos;

    private volatile long wakeAt = AWAKE;
    private volatile boolean deepSleep;
    private volatile Thread thread;

    /** Set when the master thread has left its loop for good; commands posted later never run. */
    private volatile boolean exited;

    /** The wheel's size as of the master's last turn: a cheap hint for other threads, never a count to rely on. */
    private volatile int wheelSizeHint;

    /** Due tasks collected by one advance, handed to the dispatcher in one batch. */
    private final DueBatch due = new DueBatch();

    /** Set once shutdownNow has drained the wheel; before that, a stopping master keeps tasks for the drain. */
    private boolean drainedForShutdownNow;

    /** Set once the master has decided that the executor terminates. */
    private boolean terminating;

    MasterLoop(ExecutorCore core, TimingWheel<ScheduledTask<?>> wheel, Dispatcher dispatcher, long lazyWakeNanos) {
        this.core = core;
        this.wheel = wheel;
        this.dispatcher = dispatcher;
        this.lazyWakeNanos = lazyWakeNanos;
    }

    void setThread(Thread thread) {
        this.thread = thread;
    }

    /** @return true if the wheel held tasks at the master's last turn */
    boolean hadPendingTasks() {
        return wheelSizeHint > 0;
    }

    /**
     * Runs {@code action} on the master thread and waits for it (at once if called on the master thread). An
     * interrupt while waiting is remembered, not thrown.
     *
     * @return false if the master has exited, so the action did not run
     */
    boolean runCommand(Consumer<MasterLoop> action) {
        if (Thread.currentThread() == thread) {
            action.accept(this);
            return true;
        }
        if (exited) {
            return false;
        }
        Command command = new Command(action);
        commands.add(command);
        wake();
        return command.await(this);
    }

    // -- producer side ----------------------------------------------------------------------------------------------

    /** Publishes a task whose deadline is in the future (any thread). */
    void submit(ScheduledTask<?> task) {
        inbox.offer(task);
        long sleepsUntil = wakeAt;
        if (task.deadline < sleepsUntil) {
            if (WAKE_AT.compareAndSet(this, sleepsUntil, AWAKE)) {
                LockSupport.unpark(thread);
            }
        } else if (deepSleep) {
            wakeFromDeepSleep();
        }
    }

    /**
     * Publishes work that can wait a little: a task that left NEW while linked into the wheel, for the master to
     * unlink (any thread).
     */
    void postUnlink(ScheduledTask<?> task) {
        inbox.offer(task);
        if (deepSleep) {
            wakeFromDeepSleep();
        }
    }

    /** Wakes the master at once, e.g. to decide on termination (any thread). */
    void wake() {
        wakeAt = AWAKE;
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    private void wakeFromDeepSleep() {
        if (DEEP_SLEEP.compareAndSet(this, true, false)) {
            LockSupport.unpark(thread);
        }
    }

    // -- master thread ----------------------------------------------------------------------------------------------

    @Override
    public void run() {
        try {
            for (;;) {
                try {
                    if (turn()) {
                        return;
                    }
                } catch (Throwable t) {
                    // The master must never die: whatever went wrong was one task's business, not the loop's.
                    core.reportInternalFailure("master loop", t);
                }
            }
        } finally {
            exited = true;
            for (Command c; (c = commands.poll()) != null; ) {
                c.skip();
            }
        }
    }

    /** One turn of the loop. @return true when the executor has terminated and the master leaves */
    private boolean turn() {
        // The master has nothing interruptible; an interrupt from user code would only make every park return at
        // once and turn the loop into a spin.
        Thread.interrupted();
        wakeAt = AWAKE;
        deepSleep = false;
        runCommands();
        boolean drained = drainInbox();
        long now = core.now();
        if (now >= wheel.nextDeadlineBound() && !core.isStopped()) {
            wheel.advance(now, due);
            due.flushTo(dispatcher);
        }
        wheelSizeHint = wheel.size();
        if (core.isShutdown() && tryTerminate()) {
            return true;
        }
        boolean starved = dispatcher.isStarved();
        if (starved) {
            dispatcher.prestart(); // the thread factory failed before; try again, at most once per retry interval
            starved = dispatcher.isStarved();
        }
        sleep(now, drained, starved);
        return false;
    }

    private void runCommands() {
        for (Command c; (c = commands.poll()) != null; ) {
            c.run(this);
        }
    }

    private boolean drainInbox() {
        boolean drained = false;
        for (ScheduledTask<?> task; (task = inbox.poll()) != null; ) {
            drained = true;
            accept(task);
        }
        return drained;
    }

    private void accept(ScheduledTask<?> task) {
        if (task.isInWheel()) {
            // Posted because it left NEW while linked (a cancel, or a run that no worker started): unlink it. If it
            // is NEW again (a periodic task re-armed since), its deadline changed: link it anew.
            wheel.remove(task);
            if (!task.isPending()) {
                return;
            }
        } else if (!task.isPending()) {
            return; // cancelled before the master linked it, or a post for a task that has left the wheel
        }
        if (core.mayRun(task) || (core.isStopped() && !drainedForShutdownNow)) {
            // When stopping, shutdownNow's drain, on its way, returns it. The order of the two reads matters:
            // the run state only grows, so one that said "cannot run" is followed by one that sees STOP if it
            // was the cause; the reverse order could see RUNNING, then STOP, and cancel what must be returned.
            link(task);
        } else {
            task.cancel(false);
        }
    }

    private void sleep(long now, boolean drained, boolean starved) {
        // Stopping: nothing in the wheel fires any more (shutdownNow's drain takes it), so its deadlines are no
        // reason to wake; the drain's command wakes the master.
        long next = core.isStopped() ? TimingWheel.NONE : wheel.nextDeadlineBound();
        long until = drained ? Math.min(next, now + lazyWakeNanos) : next;
        if (starved) {
            until = Math.min(until, now + WORKER_RETRY_NANOS);
        }
        wakeAt = until;
        deepSleep = until - now > lazyWakeNanos;
        if (!commands.isEmpty()) {
            return;
        }
        if (!inbox.isEmpty()) {
            // Producers are busy. Tasks offered before wakeAt was published woke nobody, even if due soon, so the
            // nap is short; but not zero: draining at the producers' heels would fetch every task's cache line
            // while its producer still writes it, and a short nap lets a batch build up instead.
            LockSupport.parkNanos(this, BUSY_NAP_NANOS);
            return;
        }
        if (until == TimingWheel.NONE) {
            LockSupport.park(this);
        } else {
            long nanos = until - core.now();
            if (nanos > 0) {
                LockSupport.parkNanos(this, nanos);
            }
        }
    }

    /**
     * Terminates once nothing can run any more: the wheel and inbox are empty and the dispatcher is idle. Called on
     * the master thread after shutdown, each turn and whenever a thread asks for the decision.
     *
     * @return true if the executor terminates: the master then leaves its loop
     */
    boolean tryTerminate() {
        if (terminating) {
            return true;
        }
        if (core.isStopped() && drainedForShutdownNow) {
            // Queued for the workers after shutdownNow's drain (a due-now task that raced with it): it will never
            // start and was not returned, so it is cancelled.
            dispatcher.cancelUnstarted();
        }
        // The dispatcher is asked before the inbox: a worker that went idle has already published any periodic task
        // it re-armed. The dispatcher's own decision then re-checks under its lock that nothing came since.
        if (wheel.size() != 0 || !dispatcher.isQuiescent() || !inbox.isEmpty()
                || !dispatcher.tryTerminate(core::finishTermination)) {
            return false;
        }
        terminating = true;
        core.enterTidying();
        // Producers that passed the run-state check before termination may still offer: cancel what arrived. What
        // arrives later, its producer cancels itself after seeing TIDYING.
        for (ScheduledTask<?> task; (task = inbox.poll()) != null || !inbox.isEmpty(); ) {
            if (task != null) {
                task.cancelIfPending();
            }
        }
        return true;
    }

    /**
     * Links a task into the wheel. A thread that takes a task out of NEW posts it only if it sees it linked
     * ({@code prev != null}); linking, a full fence, then re-reading the state closes the race: either that thread
     * sees the link, or we see the new state and unlink the task ourselves.
     */
    private void link(ScheduledTask<?> task) {
        wheel.add(task);
        VarHandle.fullFence();
        if (!task.isPending()) {
            wheel.remove(task);
        }
    }

    // -- commands, run on the master thread -------------------------------------------------------------------------

    /** Cancels the tasks in the wheel that {@code keep} rejects (the shutdown policies). */
    void cancelUnless(Predicate<ScheduledTask<?>> keep) {
        drainInbox();
        wheel.removeIf(task -> !keep.test(task), task -> task.cancel(false));
    }

    /** Removes every task from the inbox and the wheel; those still pending go to {@code sink}, as returned. */
    void drainPending(List<ScheduledTask<?>> sink) {
        drainInbox();
        drainedForShutdownNow = true;
        wheel.removeIf(task -> true, task -> {
            if (task.markReturned()) {
                sink.add(task);
            }
        });
    }

    /** Copies every pending task of the inbox and the wheel into {@code sink}. */
    void snapshotPending(List<ScheduledTask<?>> sink) {
        drainInbox();
        wheel.forEach(task -> {
            if (task.isPending()) {
                sink.add(task);
            }
        });
    }

    /** @return the number of tasks in the inbox and the wheel */
    int pendingCount() {
        drainInbox();
        return wheel.size();
    }

    /** Processes what is in the inbox now, so that cancelled tasks leave the wheel. */
    void purge() {
        drainInbox();
    }

    /** Due tasks collected by one advance, handed to the workers in one batch; reused from turn to turn. */
    private static final class DueBatch implements Consumer<ScheduledTask<?>> {
        private ScheduledTask<?>[] tasks = new ScheduledTask<?>[64];
        private int size;

        @Override
        public void accept(ScheduledTask<?> task) {
            if (!task.isPending()) {
                return; // cancelled: its cancel has posted it to the master, which finds it out of the wheel
            }
            if (size == tasks.length) {
                tasks = Arrays.copyOf(tasks, size * 2);
            }
            tasks[size++] = task;
        }

        void flushTo(Dispatcher dispatcher) {
            if (size > 0) {
                int count = size;
                size = 0;
                dispatcher.dispatchAll(tasks, count);
                Arrays.fill(tasks, 0, count, null); // the batch must not keep what it handed over alive
            }
        }
    }

    /** Work that must run on the master thread; the caller waits for it. */
    private static final class Command {
        private final Consumer<MasterLoop> action;
        private final CountDownLatch done = new CountDownLatch(1);
        private volatile boolean ran;

        Command(Consumer<MasterLoop> action) {
            this.action = action;
        }

        void run(MasterLoop master) {
            try {
                action.accept(master);
                ran = true;
            } finally {
                done.countDown();
            }
        }

        /** The master left without running it. */
        void skip() {
            done.countDown();
        }

        /** Waits until the master ran the command or left; an interrupt is remembered, not thrown. */
        boolean await(MasterLoop master) {
            boolean interrupted = false;
            for (;;) {
                try {
                    if (done.await(10, TimeUnit.MILLISECONDS) || master.exited) {
                        break;
                    }
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            return ran;
        }
    }
}
