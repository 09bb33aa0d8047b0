package io.timingwheel;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * The master thread: the only owner of the {@link TimingWheel}. It drains the inbox (new tasks, periodic tasks due
 * again, cancellations and commands) into the wheel, advances the wheel, hands due tasks to the {@link Dispatcher},
 * and sleeps until the next deadline.
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
 *       new node or the producer sees that it must wake the master: no wake-up is lost.</li>
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

    private final TimingWheelExecutor owner;
    private final TimingWheel wheel;
    private final Dispatcher dispatcher;
    private final MpscChunkedQueue inbox = new MpscChunkedQueue();
    private final long lazyWakeNanos;

    private volatile long wakeAt = AWAKE;
    private volatile boolean deepSleep;
    private volatile Thread thread;

    /** Set when the master thread has left its loop for good; commands posted later never run. */
    private volatile boolean exited;

    /** The wheel's size as of the master's last turn, for cheap approximate counts. */
    private volatile int wheelSizeApprox;

    /** Due tasks collected by one advance; an object of its own, so that its writes stay off the producers' line. */
    private final DueBatch due = new DueBatch();

    /** Set once shutdownNow has drained the wheel; before that, a stopping master keeps tasks for the drain. */
    private boolean drainedForShutdownNow;

    MasterLoop(TimingWheelExecutor owner, TimingWheel wheel, Dispatcher dispatcher, long lazyWakeNanos) {
        this.owner = owner;
        this.wheel = wheel;
        this.dispatcher = dispatcher;
        this.lazyWakeNanos = lazyWakeNanos;
    }

    void setThread(Thread thread) {
        this.thread = thread;
    }

    int wheelSizeApprox() {
        return wheelSizeApprox;
    }

    /**
     * Runs a command on the master thread and waits for it.
     *
     * @return false if the master had already exited, so the command did not run
     */
    boolean runCommand(Command command) {
        if (exited) {
            return false;
        }
        postUrgent(command);
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
     * Publishes work that can wait a little: a task that was cancelled while linked into the wheel, for the master to
     * unlink (any thread).
     */
    void postCancelled(ScheduledTask<?> task) {
        inbox.offer(task);
        if (deepSleep) {
            wakeFromDeepSleep();
        }
    }

    /** Publishes a command and wakes the master at once (any thread). */
    void postUrgent(TimerNode node) {
        inbox.offer(node);
        wake();
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
                    // The master must never die: whatever went wrong was one node's business, not the loop's.
                    owner.reportInternalFailure("master loop", t);
                }
            }
        } finally {
            exited = true;
        }
    }

    /** One turn of the loop. @return true when the executor has terminated */
    private boolean turn() {
        // The master has nothing interruptible; an interrupt from user code would only make every park return at
        // once and turn the loop into a spin.
        Thread.interrupted();
        wakeAt = AWAKE;
        deepSleep = false;
        boolean drained = drainInbox();
        long now = owner.now();
        if (now >= wheel.nextDeadlineBound() && !owner.isStopped()) {
            wheel.advance(now, due);
            due.flushTo(dispatcher);
        }
        wheelSizeApprox = wheel.size();
        if (owner.isShutdown() && tryTerminate()) {
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

    private boolean drainInbox() {
        boolean drained = false;
        for (TimerNode node; (node = inbox.poll()) != null; ) {
            drained = true;
            accept(node);
        }
        return drained;
    }

    private void accept(TimerNode node) {
        if (node instanceof ScheduledTask) {
            ScheduledTask<?> task = (ScheduledTask<?>) node;
            if (task.isInWheel()) {
                // Posted by a cancel: a task comes here to be linked only while out of the wheel, and a producer
                // posts a linked task only after its cancel won.
                if (!task.isPending()) {
                    wheel.remove(task);
                }
            } else if (!task.isPending()) {
                return; // cancelled before the master linked it, or a cancel's post for a task that left the wheel
            } else if (owner.canRunInCurrentState(task) || (owner.isStopped() && !drainedForShutdownNow)) {
                // When stopping, shutdownNow's drain, on its way, returns it. The order of the two reads matters:
                // the run state only grows, so one that said "cannot run" is followed by one that sees STOP if it
                // was the cause; the reverse order could see RUNNING, then STOP, and cancel what must be returned.
                link(task);
            } else {
                task.cancel(false);
            }
        } else {
            ((Command) node).run(this);
        }
    }

    private void sleep(long now, boolean drained, boolean starved) {
        long next = wheel.nextDeadlineBound();
        long until = drained ? Math.min(next, now + lazyWakeNanos) : next;
        if (starved) {
            until = Math.min(until, now + WORKER_RETRY_NANOS);
        }
        wakeAt = until;
        deepSleep = until - now > lazyWakeNanos;
        if (!inbox.isEmpty()) {
            // Producers are busy. Nodes offered before wakeAt was published woke nobody, even if due soon, so the
            // nap is short; but not zero: draining at the producers' heels would fetch every node's cache line
            // while its producer still writes it, and a short nap lets a batch build up instead.
            LockSupport.parkNanos(this, BUSY_NAP_NANOS);
            return;
        }
        if (until == TimingWheel.NONE) {
            LockSupport.park(this);
        } else {
            long nanos = until - owner.now();
            if (nanos > 0) {
                LockSupport.parkNanos(this, nanos);
            }
        }
    }

    /**
     * Terminates once nothing can run any more: the wheel and inbox are empty and the workers are idle. The workers
     * are checked before the inbox: a worker that goes idle has already published any periodic task it re-queued.
     */
    private boolean tryTerminate() {
        if (owner.isStopped() && drainedForShutdownNow) {
            // Queued for the workers after shutdownNow's drain (a due-now task that raced with it): it will never
            // start and was not returned, so it is cancelled.
            dispatcher.cancelUnstarted();
        }
        if (wheel.size() != 0 || !dispatcher.isQuiescent() || !inbox.isEmpty()) {
            return false;
        }
        if (!dispatcher.tryTerminate(true)) {
            return false;
        }
        owner.enterTerminatedState();
        // Producers that passed the state check before termination may still offer: cancel what arrives now;
        // whatever arrives later, its producer cancels itself after seeing TERMINATED.
        for (TimerNode node; (node = inbox.poll()) != null || !inbox.isEmpty(); ) {
            if (node instanceof ScheduledTask) {
                ((ScheduledTask<?>) node).cancel(false);
            } else if (node instanceof Command) {
                ((Command) node).run(this);
            }
        }
        owner.signalTerminated(); // last: once awaitTermination returns, every accepted task has ended
        return true;
    }

    /**
     * Links a task into the wheel. A producer's cancel posts the task only if it sees it linked ({@code prev != null});
     * linking, a full fence, then re-reading the state closes the race: either that producer sees the link, or we see
     * its cancel and unlink the task ourselves.
     */
    private void link(ScheduledTask<?> task) {
        wheel.add(task);
        VarHandle.fullFence();
        if (!task.isPending()) {
            wheel.remove(task);
        }
    }

    // -- commands, run on the master thread -------------------------------------------------------------------------

    /** Cancels what the shutdown policies say must not run, in the wheel. */
    void applyShutdownPolicy() {
        // The SHUTDOWN rule even if shutdownNow has been called since: what the policies keep, its drain returns.
        wheel.removeIf(node -> !owner.keptAfterShutdown((ScheduledTask<?>) node), node -> {
            ScheduledTask<?> task = (ScheduledTask<?>) node;
            task.cancel(false);
        });
    }

    /** Removes every task from the inbox and the wheel; those still pending go to {@code sink}. */
    void drainPending(List<ScheduledTask<?>> sink) {
        drainInbox();
        drainedForShutdownNow = true;
        wheel.removeIf(node -> true, node -> {
            ScheduledTask<?> task = (ScheduledTask<?>) node;
            if (task.isPending()) {
                sink.add(task);
            }
        });
    }

    /** Copies every pending task of the inbox and the wheel into {@code sink}. */
    void snapshotPending(List<ScheduledTask<?>> sink) {
        drainInbox();
        Consumer<TimerNode> add = node -> {
            ScheduledTask<?> task = (ScheduledTask<?>) node;
            if (task.isPending()) {
                sink.add(task);
            }
        };
        wheel.forEach(add);
    }

    /** Processes what is in the inbox now, so that cancelled tasks leave the wheel. */
    void purge() {
        drainInbox();
    }

    /** Due tasks collected by one advance, linked through {@code next}, handed to the workers in one batch. */
    private static final class DueBatch implements TimingWheel.NodeSink {
        private ScheduledTask<?> head;
        private ScheduledTask<?> tail;
        private int size;

        @Override
        public void accept(TimerNode node) {
            ScheduledTask<?> task = (ScheduledTask<?>) node;
            if (!task.isPending()) {
                return; // cancelled: its cancel has posted it to the master, which finds it out of the wheel
            }
            if (tail == null) {
                head = task;
            } else {
                tail.next = task;
            }
            tail = task;
            size++;
        }

        void flushTo(Dispatcher dispatcher) {
            if (head != null) {
                ScheduledTask<?> first = head;
                ScheduledTask<?> last = tail;
                int count = size;
                head = tail = null;
                size = 0;
                dispatcher.dispatchAll(first, last, count);
            }
        }
    }

    /** Work that must run on the master thread; the caller may wait for it. */
    abstract static class Command extends TimerNode {
        private final CountDownLatch done = new CountDownLatch(1);

        final void run(MasterLoop master) {
            try {
                execute(master);
            } finally {
                done.countDown();
            }
        }

        abstract void execute(MasterLoop master);

        /**
         * Waits until the master ran the command, or exited without running it; an interrupt is remembered, not
         * thrown. @return true if the command ran
         */
        final boolean await(MasterLoop master) {
            boolean interrupted = false;
            boolean ran = false;
            for (;;) {
                try {
                    if (done.await(10, TimeUnit.MILLISECONDS)) {
                        ran = true;
                        break;
                    }
                    if (master.exited) {
                        ran = done.getCount() == 0;
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
