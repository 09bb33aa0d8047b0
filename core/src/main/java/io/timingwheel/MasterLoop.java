package io.timingwheel;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * The master thread: the only owner of the {@link TimingWheel}. It drains the inbox (new tasks, periodic tasks due
 * again, cancelled tasks to unlink) into the wheel, runs commands (the shutdown policies, snapshots, getQueue's
 * operations), hands due tasks to the {@link Dispatcher} in deadline order, decides on termination once shut down,
 * and sleeps until the next deadline. It reaches the executor only through its {@link MasterHost}.
 *
 * <h2>Sleeping and waking</h2>
 * Producers never unpark the master for work that can wait; that would cost more than the schedule itself.
 * <ul>
 *   <li>{@code wakeAt} is the time the master will wake by itself ({@link #AWAKE} while it is running or napping).
 *       A producer whose task is due earlier swaps it to AWAKE and unparks the master: one producer per sleep does.</li>
 *   <li>Work that can wait (a far deadline, a cancellation) is drained at the next wake-up, but a master in a long
 *       sleep ({@code deepSleep}) is woken once for it, so cancelled tasks never wait for a far deadline to become
 *       garbage. After draining such work the master looks again within {@code lazyWakeNanos} instead of sleeping
 *       deeply, so a steady stream of schedules costs one wake-up per interval, not one per schedule.</li>
 *   <li>Before parking, the master publishes {@code wakeAt}, then looks at the inbox once more, then confirms
 *       {@code wakeAt} by a CAS that sets {@link #CONFIRMED}; a producer offers and then reads {@code wakeAt}, and
 *       swaps it to AWAKE by a CAS, read again and retried while the time changes under it (the master's
 *       confirmation is such a change). All are sequentially consistent, so either the master sees the new task or
 *       the producer sees that it must wake the master (and its CAS makes the confirmation fail, or comes after it
 *       and unparks): no wake-up is lost.</li>
 * </ul>
 * With nothing pending the master parks without a timeout: an idle executor costs no CPU.
 *
 * <h2>Order: what workers may take</h2>
 * Tasks due at once, and periodic tasks re-armed after their next time, go to the dispatcher straight; the master
 * hands over the others when they fall due. So that none of the former passes one of the latter that is due before
 * it, a worker takes a task only once {@link #hasHandedThrough} says the master has handed over everything due
 * before it: either {@code handedThrough}, the clock reading taken at the start of a turn, before its drain and its
 * hand-off, has reached the task's deadline; or the master is asleep, with {@code wakeAt} confirmed, until after it.
 * A task whose producer finished {@code schedule} before the worker looked was offered before that clock reading
 * (its deadline is later than the reading otherwise, so the first test fails), or was seen by the master's last look
 * at the inbox, or made its producer swap {@code wakeAt} to AWAKE (so the second test fails). Workers the gate holds
 * back wait until the master signals them, at the end of each hand-off and before it parks.
 */
final class MasterLoop implements Runnable {
    /** {@link #wakeAt} while the master is awake or napping: no producer needs to wake it. */
    static final long AWAKE = Long.MIN_VALUE;

    /**
     * The bit of {@link #wakeAt} that the master sets by CAS once it has looked at the inbox after publishing the
     * time: then nothing it holds is due before that time, as long as no producer has swapped the value since.
     * Times stay below it: they are at most {@link TimingWheel#MAX_DEADLINE}.
     */
    static final long CONFIRMED = 1L << 62;

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

    private final String executor;
    private final MasterHost host;
    private final TimingWheel<ScheduledTask<?>> wheel;
    private final Dispatcher dispatcher;
    private final StripedInbox<ScheduledTask<?>> inbox =
            new StripedInbox<>(Runtime.getRuntime().availableProcessors());
    private final ConcurrentLinkedQueue<Command> commands = new ConcurrentLinkedQueue<>();
    private final long lazyWakeNanos;

    /** The user's factory for the master thread, or null; the default one is the fallback. */
    private final ThreadFactory threadFactory;

    private volatile long wakeAt = AWAKE;
    private volatile boolean deepSleep;
    private volatile Thread thread;

    /** Set when the master thread has left its loop for good; commands posted later never run. */
    private volatile boolean exited;

    /** Whether the wheel held tasks at the master's last turn: a cheap hint for other threads. */
    private volatile boolean holdsTimers;

    /**
     * The clock reading taken at the start of the master's last turn, before its drain: every task offered before it
     * that was due by it has been handed to the dispatcher (see the class comment). Only grows.
     */
    private volatile long handedThrough = Long.MIN_VALUE;

    /** Due tasks collected by one advance, handed to the dispatcher in one batch. */
    private final DueBatch due = new DueBatch();

    MasterLoop(String executor, MasterHost host, TimingWheel<ScheduledTask<?>> wheel, Dispatcher dispatcher,
               long lazyWakeNanos, ThreadFactory threadFactory) {
        this.executor = executor;
        this.host = host;
        this.wheel = wheel;
        this.dispatcher = dispatcher;
        this.lazyWakeNanos = lazyWakeNanos;
        this.threadFactory = threadFactory;
    }

    /**
     * Starts the master thread: the user's factory first, if any; whatever goes wrong with its thread (null, a throw
     * from newThread or from start), the default factory next, for the master must run. Called once, by
     * {@link Lifecycle#startMaster}. @return false if no thread could be started
     */
    boolean startThread() {
        if (threadFactory != null && tryStart(threadFactory, "the master thread factory failed")) {
            return true;
        }
        return tryStart(new NamedThreadFactory(executor + "-master", true, false), "cannot start the master thread");
    }

    private boolean tryStart(ThreadFactory factory, String failure) {
        try {
            Thread t = factory.newThread(this);
            if (t == null) {
                InternalFailures.report(executor, failure, new NullPointerException("the factory returned null"));
                return false;
            }
            thread = t;
            t.start();
            return true;
        } catch (Throwable e) {
            InternalFailures.report(executor, failure, e);
            return false;
        }
    }

    /** @return true if the wheel held tasks at the master's last turn */
    boolean holdsTimers() {
        return holdsTimers;
    }

    /**
     * The order gate (see the class comment): whether every task the master holds that is due before
     * {@code deadline} has been handed to the dispatcher. Any thread.
     */
    boolean hasHandedThrough(long deadline) {
        if (deadline <= handedThrough) {
            return true;
        }
        long w = wakeAt;
        return (w & CONFIRMED) != 0 && (w & ~CONFIRMED) > deadline;
    }

    // -- producer side ----------------------------------------------------------------------------------------------

    /** Publishes a task whose deadline is in the future (any thread). */
    void submit(ScheduledTask<?> task) {
        inbox.offer(task);
        // AWAKE: the master looks at the inbox again before it sleeps.
        for (long w = wakeAt; w != AWAKE; w = wakeAt) {
            if (task.deadline >= (w & ~CONFIRMED)) {
                if (deepSleep) {
                    wakeFromDeepSleep();
                }
                return;
            }
            if (WAKE_AT.compareAndSet(this, w, AWAKE)) {
                LockSupport.unpark(thread);
                return;
            }
            // The time changed since it was read: most often the master confirmed it (its look at the inbox came
            // before our offer), and then it sleeps unless we swap the confirmed time. Giving up here lost that
            // wake-up: jcstress found it (WakeUpVersusSubmitStress).
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
                    InternalFailures.report(executor, "master loop", t);
                }
            }
        } finally {
            holdsTimers = false;
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
        long now = host.now(); // before the drain: see the class comment
        boolean drained = drainInbox();
        handDue(now);
        if (host.isShutdown() && wheel.size() == 0 && inbox.isEmpty() && host.masterHoldsNothing(inbox::isEmpty)) {
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
            return; // cancelled or taken back before the master linked it, or a post for a task that has left
        }
        if (host.mayRun(task) || host.isStopping()) {
            // When stopping: shutdownNow's drain, on its way, returns it; or, published after that drain, its
            // publisher takes it back (see Lifecycle).
            link(task);
        } else {
            task.cancel(false); // the shutdown policies
        }
    }

    /**
     * Hands every task due by {@code now} to the dispatcher, in deadline order, and publishes {@code now} as the
     * horizon of the order gate; then signals the workers that wait for it. Nothing fires while stopping.
     */
    private void handDue(long now) {
        if (!host.isStopping()) {
            if (now >= wheel.nextDeadlineBound()) {
                wheel.advance(now, due);
                due.flushTo(dispatcher);
            }
            openGateThrough(now);
        }
        holdsTimers = wheel.size() > 0;
    }

    /**
     * Publishes {@code now} as the horizon of the order gate, then signals the workers that wait for it: they raise
     * their count before they read the gate, this reads the count after it moved the gate (see
     * {@link WorkerPool#enterAwaitMaster}). Master only.
     *
     * @return whether any worker was waiting for the gate
     */
    boolean openGateThrough(long now) {
        handedThrough = now;
        return dispatcher.masterCaughtUp();
    }

    private void sleep(long now, boolean drained, boolean starved) {
        // Stopping: nothing in the wheel fires any more (shutdownNow's drain takes it), so its deadlines are no
        // reason to wake; the drain's command wakes the master.
        long next = host.isStopping() ? TimingWheel.NONE : wheel.nextDeadlineBound();
        long until = drained ? Math.min(next, now + lazyWakeNanos) : next;
        if (starved) {
            until = Math.min(until, now + WORKER_RETRY_NANOS);
        }
        if (!commands.isEmpty()) {
            return;
        }
        if (!inbox.isEmpty()) {
            if (!dispatcher.hasWorkersAwaitingMaster()) {
                napWhileProducersAreBusy();
            } // else the workers held back by the order gate come first: look again at once
            return;
        }
        long wake = Math.min(until, TimingWheel.MAX_DEADLINE);
        deepSleep = until - now > lazyWakeNanos;
        if (!confirmSleepUntil(wake)) {
            return;
        }
        dispatcher.masterCaughtUp();
        if (wakeAt != (wake | CONFIRMED)) {
            // Woken meanwhile: masterCaughtUp may take the dispatcher's lock, and a park inside it consumes the
            // waker's unpark, so this park would not return.
            return;
        }
        if (until == TimingWheel.NONE) {
            LockSupport.park(this);
        } else {
            long nanos = until - host.now();
            if (nanos > 0) {
                LockSupport.parkNanos(this, nanos);
            }
        }
    }

    /**
     * The master's half of the wake-up protocol (see the class comment): publishes the time it will wake by itself,
     * looks at its queues once more, then confirms the time by a CAS. Master thread only.
     *
     * @return true if the master may sleep until {@code wake}: nothing came, and no producer asked for an earlier
     *     wake-up (its CAS to AWAKE makes the confirmation fail, or, after it, unparks the master)
     */
    boolean confirmSleepUntil(long wake) {
        wakeAt = wake;
        if (!commands.isEmpty() || !inbox.isEmpty()) {
            wakeAt = AWAKE;
            deepSleep = false;
            return false;
        }
        return WAKE_AT.compareAndSet(this, wake, wake | CONFIRMED);
    }

    /**
     * Producers are busy: tasks offered before {@code wakeAt} was published woke nobody, even if due soon, so the nap
     * is short; but not zero: draining at the producers' heels would fetch every task's cache line while its producer
     * still writes it, and a short nap lets a batch build up instead. {@code wakeAt} stays AWAKE meanwhile.
     */
    private void napWhileProducersAreBusy() {
        LockSupport.parkNanos(this, BUSY_NAP_NANOS);
    }

    /**
     * Links a task into the wheel. A thread that takes a task out of NEW posts it only if it sees it linked
     * ({@code prev != null}); linking, a full fence, then re-reading the state closes the race: either that thread
     * sees the link, or we see the new state and unlink the task ourselves. Master thread only.
     */
    void link(ScheduledTask<?> task) {
        wheel.add(task);
        VarHandle.fullFence();
        if (!task.isPending()) {
            wheel.remove(task);
        }
    }

    // -- commands: run on the master thread, the caller waits -------------------------------------------------------

    /**
     * Cancels the tasks of the inbox and the wheel that the shutdown policies do not keep.
     *
     * @return false if the master has left (the executor has terminated)
     */
    boolean applyShutdownPolicies() {
        return runCommand(m -> {
            m.drainInbox();
            m.wheel.removeIf(task -> !m.host.keptAfterShutdown(task), task -> task.cancel(false));
        });
    }

    /**
     * Takes every task that has not started out of the inbox, the wheel and the dispatcher, in one step that nothing
     * moves tasks across; those still pending go to {@code sink}, marked as returned.
     *
     * @return false if the master has left
     */
    boolean drainUnstarted(List<ScheduledTask<?>> sink) {
        return runCommand(m -> {
            m.drainInbox();
            m.wheel.removeIf(task -> true, task -> {
                if (task.markReturned()) {
                    sink.add(task);
                }
            });
            m.dispatcher.drainUnstartedTo(sink);
        });
    }

    /** Copies every pending task of the inbox, the wheel and the dispatcher into {@code sink}. @return as above */
    boolean copyPendingTo(List<ScheduledTask<?>> sink) {
        return runCommand(m -> {
            m.drainInbox();
            m.wheel.forEach(task -> {
                if (task.isPending()) {
                    sink.add(task);
                }
            });
            m.dispatcher.copyWaitingTo(sink);
        });
    }

    /** @return the tasks in the inbox, the wheel and waiting in the dispatcher; -1 if the master has left */
    long pendingCount() {
        long[] count = {-1};
        runCommand(m -> {
            m.drainInbox();
            count[0] = m.wheel.size() + (long) m.dispatcher.waitingCount();
        });
        return count[0];
    }

    /** Processes what is in the inbox now, so that cancelled tasks leave the wheel. @return as above */
    boolean purge() {
        return runCommand(MasterLoop::drainInbox);
    }

    /**
     * Hands over what is due now, then takes up to {@code max} due tasks from the dispatcher, those due first, into
     * {@code sink}, marked as returned (getQueue's poll and drainTo). @return how many; -1 if the master has left
     */
    int takeDue(int max, List<ScheduledTask<?>> sink) {
        int[] taken = {-1};
        runCommand(m -> {
            long now = m.host.now();
            m.drainInbox();
            m.handDue(now);
            taken[0] = m.dispatcher.takeDue(max, sink);
        });
        return taken[0];
    }

    /** Cancels every task of the inbox, the wheel and the dispatcher (getQueue's clear). @return as above */
    boolean cancelAll() {
        return runCommand(m -> {
            m.drainInbox();
            m.wheel.removeIf(task -> true, task -> task.cancel(false));
            m.dispatcher.cancelWaiting();
        });
    }

    /**
     * @return a time at or before which the earliest task the master holds is due ({@link TimingWheel#NONE} if it
     *     holds none), or -1 if the master has left
     */
    long nextDeadline() {
        long[] next = {-1};
        runCommand(m -> {
            m.drainInbox();
            next[0] = m.wheel.nextDeadlineBound();
        });
        return next[0];
    }

    /**
     * Takes a task in on the master thread, atomically with the termination decision (getQueue's offer after
     * shutdown). @return false if the master has left, or is stopping: the task was not taken in
     */
    boolean insert(ScheduledTask<?> task) {
        boolean[] inserted = {false};
        runCommand(m -> {
            if (!m.host.isStopping()) {
                m.accept(task);
                inserted[0] = true;
            }
        });
        return inserted[0];
    }

    /**
     * Runs {@code action} on the master thread and waits for it (at once if called on the master thread). An
     * interrupt while waiting is remembered, not thrown.
     *
     * @return false if the master has left, so the action did not run, or if the action threw
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
        // The master sets exited and then skips what is queued; we queued and then read exited: one of the two sees
        // the other. If we see it, the command is either still queued (we take it back) or already skipped.
        if (exited && commands.remove(command)) {
            return false;
        }
        wake();
        return command.await();
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

        /** Waits until the master ran the command or skipped it; an interrupt is remembered, not thrown. */
        boolean await() {
            boolean interrupted = false;
            for (;;) {
                try {
                    done.await();
                    break;
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
