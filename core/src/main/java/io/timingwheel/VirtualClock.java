package io.timingwheel;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongPredicate;
import java.util.function.LongSupplier;

/**
 * A clock that a test moves, for testing code that takes a {@link java.util.concurrent.ScheduledExecutorService}
 * without waiting: an executor built with {@link TimingWheelExecutor.Builder#clock(VirtualClock)} takes its time from
 * this clock instead of {@link System#nanoTime()}, and is otherwise the same executor, with its own threads, its
 * shutdown policies, its queue and every guarantee it gives in real time.
 *
 * <pre>{@code
 * VirtualClock clock = new VirtualClock();                          // time 0
 * TimingWheelExecutor timers = TimingWheelExecutor.builder().clock(clock).workerThreads(2).build();
 * ScheduledFuture<?> timeout = timers.schedule(onTimeout, 30, TimeUnit.SECONDS);
 * clock.advance(29, TimeUnit.SECONDS);       // nothing due: returns at once, time is now 29 s
 * clock.advance(Duration.ofSeconds(1));      // onTimeout runs on a worker; advance returns once it has ended
 * assert timeout.isDone();
 * }</pre>
 *
 * <p><b>Time.</b> The clock starts at 0 and moves only in {@link #advance}. The executors it drives read it for
 * everything they time: deadlines, {@code getDelay}, the periods of fixed-rate and fixed-delay tasks, the lateness in
 * their statistics. The code under test reads the same time with {@link #nanoTime()} (or {@link #nanoTimeSupplier()}
 * where it takes a {@code LongSupplier}). Waiting callers are not the executor's time: {@code awaitTermination}, a timed
 * {@code get}, a timed {@code poll} of {@code getQueue()} and the keep-alive time of idle threads keep waiting in real
 * time.
 *
 * <p><b>Advancing.</b> {@link #advance} moves time to each deadline that falls within the amount in turn, in deadline
 * order, runs what is due there on the executors' own threads (ties in the order the executor takes them: submission
 * order), and moves on only once those runs have ended; what a run schedules within the amount runs within the same
 * call, and a run that reads the clock sees its own deadline. It returns once nothing due at or before the new time
 * waits or runs. So with distinct deadlines the order of the runs is exact even with several worker threads. Time
 * moves also when nothing is pending, and {@code advance(0)} waits for what is due now. One clock may drive several
 * executors: each advance steps all of them through time together. Calls to {@code advance} may overlap (from
 * several threads, or from a run, below): time only goes forward, and each returns once its own amount is reached.
 *
 * <p><b>A run that takes time.</b> A run may call {@code advance} itself, to let time pass while it runs (a slow
 * run, in the clock's time): its own run does not hold that advance back, tasks that fall due meanwhile run on the
 * executor's other threads, or, where none is free, wait and start late, as behind a slow run in real time (a
 * fixed-rate task then catches up). An {@code advance} of the test that is under way waits for that run to end, and
 * goes on from the time it reached.
 *
 * <p><b>A run that blocks for real</b> (on a lock, a latch, I/O) does not hang the test: {@code advance} waits at most
 * {@link #realTimeLimit()} (default 10 seconds, {@link #setRealTimeLimit}) for the runs due at one time to end, and
 * then throws an {@link IllegalStateException} that names the tasks still running.
 *
 * <p><b>Cost.</b> When the clock drives one executor of its own worker threads, the executor's threads step the
 * advance themselves: the worker that ends the last run under way moves time to the next deadline and starts what
 * falls due there, with no other thread woken; a run then costs a microsecond of real time or less, and each call of
 * {@code advance} some tens of microseconds more (a worker woken for its first run, the caller woken once the last has
 * ended; the master thread is not woken for it: the caller does the master's turn as the advance ends). With several
 * executors on one clock, an executor on an external {@code workerExecutor}, two advances at once, or an advance
 * called from a run, each step is a look at every executor instead, some tens of microseconds.
 *
 * <p>Tasks scheduled from threads other than the executors' own while an {@code advance} is under way are taken as
 * they come: one that reads the time before a step and is accepted after it is due at once and runs at once, but the
 * advance that was under way may have returned before it runs. Schedule from the test's thread, or from tasks.
 *
 * <p>Thread-safe.
 */
public final class VirtualClock {
    private static final long DEFAULT_REAL_TIME_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** Looks at executors not settled yet that {@link #advance} makes with only a yield between them, before it parks. */
    private static final int YIELDING_LOOKS = 32;

    /** How long {@link #advance} waits between two looks at executors that are not settled yet, at most. */
    private static final long MAX_LOOK_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /** The time; only {@link #moveTo} writes it, and only forward. */
    private volatile long time;

    private volatile long realTimeLimitNanos = DEFAULT_REAL_TIME_LIMIT_NANOS;

    /** The executors this clock drives, until they have terminated. */
    private final List<Driven> executors = new CopyOnWriteArrayList<>();

    /** The advance under way whose steps the executor's own threads take, or null (see {@link #advanceStepped}). */
    private volatile SteppedAdvance stepped;

    private static final VarHandle STEPPED;

    static {
        try {
            STEPPED = MethodHandles.lookup().findVarHandle(VirtualClock.class, "stepped", SteppedAdvance.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Held for a step: a look at whether the executor is settled, and the move of time that follows it. */
    private final ReentrantLock stepLock = new ReentrantLock();

    /** Creates a clock at time 0. */
    public VirtualClock() {
    }

    /**
     * @return the clock's time in nanoseconds: 0 at first, then the sum of the amounts advanced (while an advance is
     *     under way, the deadline it has reached)
     */
    public long nanoTime() {
        return time;
    }

    /** @return {@link #nanoTime()} as a {@code LongSupplier}, for code under test that takes its time from one */
    public LongSupplier nanoTimeSupplier() {
        return this::nanoTime;
    }

    /**
     * Moves time forward by {@code amount}, running what falls due on the way, as the class comment says.
     *
     * @param amount how far, at least 0; an amount beyond the end of time stops at {@code Long.MAX_VALUE} nanoseconds
     * @param unit the unit of {@code amount}
     * @throws NullPointerException if {@code unit} is null
     * @throws IllegalArgumentException if {@code amount} is negative
     * @throws IllegalStateException if the runs due at one time did not end within {@link #realTimeLimit()} of real
     *     time; the message names the tasks still running. Time stands at their deadline.
     */
    public void advance(long amount, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        if (amount < 0) {
            throw new IllegalArgumentException("a clock cannot go back: advance(" + amount + ", " + unit + ")");
        }
        advanceNanos(unit.toNanos(amount));
    }

    /**
     * Moves time forward by {@code amount}: {@link #advance(long, TimeUnit)}.
     *
     * @param amount how far, not negative
     * @throws NullPointerException if {@code amount} is null
     * @throws IllegalArgumentException if {@code amount} is negative
     * @throws IllegalStateException as {@link #advance(long, TimeUnit)}
     */
    public void advance(Duration amount) {
        Objects.requireNonNull(amount, "amount");
        if (amount.isNegative()) {
            throw new IllegalArgumentException("a clock cannot go back: advance(" + amount + ")");
        }
        advanceNanos(saturatedNanos(amount));
    }

    /**
     * Sets how long {@link #advance} waits, in real time, for the runs due at one time to end before it gives up.
     *
     * @param limit a positive duration
     * @throws NullPointerException if {@code limit} is null
     * @throws IllegalArgumentException if {@code limit} is zero or negative
     */
    public void setRealTimeLimit(Duration limit) {
        Objects.requireNonNull(limit, "limit");
        if (limit.isZero() || limit.isNegative()) {
            throw new IllegalArgumentException("the real-time limit must be positive: " + limit);
        }
        realTimeLimitNanos = saturatedNanos(limit);
    }

    /** @return {@code d} in nanoseconds, or {@code Long.MAX_VALUE} beyond that (a non-negative {@code d}) */
    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException beyondLong) {
            return Long.MAX_VALUE;
        }
    }

    /** @return how long {@link #advance} waits in real time for the runs due at one time to end (default 10 s) */
    public Duration realTimeLimit() {
        return Duration.ofNanos(realTimeLimitNanos);
    }

    @Override
    public String toString() {
        return "VirtualClock[" + time + " ns, driving " + executors.size() + " executor(s)]";
    }

    // -- the executors' side ----------------------------------------------------------------------------------------

    /** Drives {@code executor} from now on, until it has terminated. */
    void drive(Driven executor) {
        executors.removeIf(Driven::hasTerminated);
        executors.add(executor);
    }

    /** An executor this clock drives, as the clock sees it. */
    interface Driven {
        /**
         * Looks whether the executor is settled at the clock's time: no task runs, none that is due waits, and every
         * task it was given is where its deadline is kept. Blocks briefly (the executor's master thread answers).
         *
         * @param advancing the thread that advances the clock: when it runs a task of this executor (a run that lets
         *     time pass), that run does not count, nor do due tasks that no other thread of it is free to take
         *
         * @return null if not settled; otherwise the first deadline it holds ({@link Long#MAX_VALUE} for none), and
         *     the count of runs it has ended
         */
        Settled settled(Thread advancing);

        /**
         * @return whether its own threads step the clock as their runs end ({@link #advanceStepped}): an executor
         *     with its own pool of workers
         */
        boolean stepsOnItsThreads();

        /** @return whether {@code thread} is one of the executor's threads (a run that advances the clock itself) */
        boolean runsOn(Thread thread);

        /**
         * Steps, on the calling thread, if no task runs and none that is due waits: the master's work done here (the
         * inbox drained into the wheel, what is due by now handed over); while nothing is handed over, it offers the
         * first deadline it holds to {@code moveTimeTo}, which moves time there (true) or refuses (false), and steps
         * again.
         *
         * @param callerTakesOne whether the caller is a worker of the executor, which takes a task it hands over
         * @param mayWait whether the caller may wait for the executor's locks; if not (it holds one that comes after
         *     them), the step is taken only if they are free
         * @return {@link #STEP_NOT_IDLE}, {@link #STEP_HANDED_OVER}, {@link #STEP_WOULD_WAIT}, or, settled, the first
         *     deadline it holds, as {@link Settled#firstDeadline}, that {@code moveTimeTo} refused
         */
        long stepIfIdle(boolean callerTakesOne, boolean mayWait, LongPredicate moveTimeTo);

        /**
         * The advance its threads stepped is over: its master takes its own work back, the turn and the sleep that
         * follow done on the calling thread where the master thread need not wake for them.
         */
        void stepsEnded();

        /** No step was taken in a while during an advance its threads step: its master thread looks (wakes). */
        void stepsStalled();

        /** @return true once the executor has terminated: nothing more is ever due there */
        boolean hasTerminated();

        /** @return a description of each task running now, for the message of an advance that gives up */
        List<String> runningTasks();
    }

    /**
     * An executor found settled.
     *
     * @param firstDeadline a time at or before which the first task it holds is due, later than the clock's time;
     *     {@link Long#MAX_VALUE} if it holds none. A bound, not always a deadline: a step there may run nothing, and
     *     the next look then gives a later one, up to the deadline itself.
     * @param runsEnded the runs that have ended there so far
     */
    record Settled(long firstDeadline, long runsEnded) {
    }

    /** {@link Driven#stepIfIdle}: a task runs, or one that is due waits; the step was not taken. */
    static final long STEP_NOT_IDLE = -1;

    /** {@link Driven#stepIfIdle}: tasks due now were handed over. */
    static final long STEP_HANDED_OVER = -2;

    /** {@link Driven#stepIfIdle}: not taken, for one of the executor's locks was held and the caller may not wait. */
    static final long STEP_WOULD_WAIT = -3;

    // -- advancing --------------------------------------------------------------------------------------------------

    /**
     * Steps to each first deadline within the amount, settling at each; then moves to the end of the amount. Calls may
     * overlap (a run that advances the clock within an advance of the test, or two threads): each steps through the
     * same deadlines, time only goes forward, and each returns once its own amount is reached and settled.
     */
    private void advanceNanos(long nanos) {
        long start = time;
        long target = start + nanos < start ? Long.MAX_VALUE : start + nanos;
        if (advanceStepped(target)) {
            moveTo(target);
            return;
        }
        for (;;) {
            long next = settle();
            if (next == Long.MAX_VALUE || next > target) { // MAX_VALUE: none (no deadline is that late)
                break;
            }
            moveTo(next); // later than the time settled at: a settled executor holds nothing due by then
        }
        moveTo(target); // nothing falls due on the rest of the way
    }

    // -- advancing, stepped by the executor's threads ------------------------------------------------------------

    /**
     * An advance whose steps the executor's own threads take as their runs end; as a predicate, the move of time to a
     * deadline within it (under the step lock: see {@link Driven#stepIfIdle}).
     */
    private final class SteppedAdvance implements LongPredicate {
        final Driven executor;
        final long target;
        final Thread advancer;
        /** Set by the step that found the executor settled with nothing due by the target: the advance is over. */
        volatile boolean reached;
        /** Set by a step that found the clock driving other executors too: the advance goes on as a polling one. */
        volatile boolean abandoned;
        /** Steps taken: time moved. Written under the step lock, read by the advancer. */
        volatile long steps;

        SteppedAdvance(Driven executor, long target, Thread advancer) {
            this.executor = executor;
            this.target = target;
            this.advancer = advancer;
        }

        /** Moves time to {@code deadline} if it is within the advance (later than now: the executor is settled). */
        @Override
        public boolean test(long deadline) {
            if (deadline > target) {
                return false;
            }
            moveTo(deadline);
            steps++;
            return true;
        }
    }

    /**
     * Advances to {@code target} with the steps taken where they are cheapest, when the clock drives one executor of
     * its own workers, no other such advance is under way and the caller is not one of its threads. The caller
     * registers the advance, then takes the first step; from then on the executor's threads take every step: the worker
     * that ends the last run under way, with nothing left to take, steps and takes what it hands over, so that a run's
     * end leads to the next run with no other thread woken and no look at the master thread. The step that finds
     * nothing due by the target wakes the caller. The registration comes before the caller's step, a worker's look at
     * it after its run has ended, each under the pool's lock (in the step's look at the pool, and in the worker's wait):
     * so either that step sees the run ended, or the worker sees the advance and steps.
     *
     * <p>While it waits the caller looks once per {@link #MAX_LOOK_INTERVAL_NANOS} at whether a step was taken since;
     * after one such interval without, it wakes the master, whose turn does what no step does (a worker's start to
     * retry, the termination decision); after the real-time limit without one, it gives up. It never steps itself
     * again: a step no thread of the executor takes would be a lost one, and the advance then gives up, loudly.
     *
     * @return true once the advance has reached {@code target}, settled, or the executor has terminated; false if it
     *     was not taken this way, or stopped being so (the caller then goes on polling, from the time reached)
     */
    private boolean advanceStepped(long target) {
        executors.removeIf(Driven::hasTerminated);
        Driven only = executors.size() == 1 ? executors.get(0) : null;
        Thread caller = Thread.currentThread();
        if (only == null || !only.stepsOnItsThreads() || only.runsOn(caller)) {
            return false;
        }
        SteppedAdvance advance = new SteppedAdvance(only, target, caller);
        if (!STEPPED.compareAndSet(this, null, advance)) {
            return false; // another advance is stepped now: this one polls
        }
        boolean interrupted = Thread.interrupted(); // else every park below would return at once
        try {
            if (step(advance, false, true) == STEP_REACHED) {
                return true;
            }
            long limit = realTimeLimitNanos;
            long stepsSeen = advance.steps;
            long lastStepAt = System.nanoTime();
            while (!advance.reached) {
                if (advance.abandoned) {
                    return false;
                }
                if (only.hasTerminated()) {
                    return true; // nothing is due there any more
                }
                LockSupport.parkNanos(this, MAX_LOOK_INTERVAL_NANOS);
                interrupted |= Thread.interrupted();
                long steps = advance.steps;
                long now = System.nanoTime();
                if (steps != stepsSeen) {
                    stepsSeen = steps;
                    lastStepAt = now;
                } else if (now - lastStepAt > limit) {
                    throw gaveUp(List.of(only));
                } else if (!advance.reached && now - lastStepAt >= MAX_LOOK_INTERVAL_NANOS) {
                    // No step in a while: the master looks. Measured from the last step, not from the park, which a
                    // permit left by the last advance's wake-up ends at once: that misfire woke the master for a turn
                    // in 6 to 12 % of the advances (200 000 advances of 1 ms, one and two workers).
                    only.stepsStalled();
                }
            }
            return true;
        } finally {
            stepped = null;
            only.stepsEnded();
            if (interrupted) {
                caller.interrupt();
            }
        }
    }

    /** {@link #step}: the executor is settled with nothing due by the advance's target. */
    private static final int STEP_REACHED = 0;
    /** {@link #step}: a task runs or waits, or the step handed tasks over. */
    private static final int STEP_BUSY = 1;
    /** {@link #step}: no step taken: the advance is over, or it polls now. */
    private static final int STEP_NONE = 2;
    /** {@link #step}: no step taken: a lock was held, and the caller may not wait for it. */
    private static final int STEP_DEFERRED = 3;

    /**
     * Steps the advance from the executor's state now: while it is settled, to its first deadline, until tasks are
     * handed over or nothing is due by the target; if {@code mayWait} is false, only if no lock it takes is held.
     * @return one of the {@code STEP_} outcomes
     */
    private int step(SteppedAdvance advance, boolean byWorker, boolean mayWait) {
        if (mayWait) {
            stepLock.lock();
        } else if (!stepLock.tryLock()) {
            return STEP_DEFERRED;
        }
        try {
            if (stepped != advance || advance.reached) {
                return STEP_NONE;
            }
            if (executors.size() != 1 || executors.get(0) != advance.executor) {
                advance.abandoned = true; // an executor joined: every step must look at all of them
                LockSupport.unpark(advance.advancer);
                return STEP_NONE;
            }
            long first = advance.executor.stepIfIdle(byWorker, mayWait, advance);
            if (first == STEP_WOULD_WAIT) {
                return STEP_DEFERRED;
            }
            if (first == STEP_NOT_IDLE || first == STEP_HANDED_OVER) {
                return STEP_BUSY;
            }
            advance.reached = true; // settled, nothing due by the target
            if (byWorker) {
                LockSupport.unpark(advance.advancer);
            }
            return STEP_REACHED;
        } finally {
            stepLock.unlock();
        }
    }

    /**
     * @return whether {@code executor}'s workers step an advance under way ({@link #stepFromWorker}), as their runs
     *     end (any thread)
     */
    boolean isSteppedBy(Driven executor) {
        SteppedAdvance advance = stepped;
        return advance != null && advance.executor == executor && !advance.reached;
    }

    /**
     * A worker of {@code executor} with nothing to take, and no other one running, steps the advance under way; it
     * then takes one of the tasks handed over, if any, itself.
     */
    void stepFromWorker(Driven executor) {
        SteppedAdvance advance = stepped;
        if (advance != null && advance.executor == executor) {
            step(advance, true, true);
        }
    }

    /**
     * The same, from a worker that holds its pool's lock, which comes after the step's locks: the step is taken only
     * if they are free. @return false if it was not, for a lock was held (the worker then lets go of its own and steps
     * as {@link #stepFromWorker} does)
     */
    boolean tryStepFromWorker(Driven executor) {
        SteppedAdvance advance = stepped;
        return advance == null || advance.executor != executor || step(advance, true, false) != STEP_DEFERRED;
    }

    /** Moves time forward to {@code to}, unless another advance has moved it further already. */
    private synchronized void moveTo(long to) {
        if (to > time) {
            time = to;
        }
    }

    /**
     * Waits until every executor is settled at the current time, and at once: with more than one, two looks in a row
     * find each settled with the same count of ended runs, so no run went on between them that gave another executor
     * work after that one's look. An interrupt does not end the wait (the real-time limit bounds it): the status is
     * set again on the way out.
     *
     * @return the first deadline any of them holds
     */
    private long settle() {
        boolean interrupted = Thread.interrupted(); // else every park below would return at once
        long startedAt = System.nanoTime();
        long limit = realTimeLimitNanos;
        long pause = 0;
        int looks = 0;
        long[] lastEnded = null;
        try {
            for (;;) {
                executors.removeIf(Driven::hasTerminated);
                List<Driven> driven = new ArrayList<>(executors);
                long[] ended = new long[driven.size()];
                long first = Long.MAX_VALUE;
                boolean allSettled = true;
                for (int i = 0; i < driven.size() && allSettled; i++) {
                    Settled settled = driven.get(i).settled(Thread.currentThread());
                    if (settled == null) {
                        allSettled = false;
                    } else {
                        ended[i] = settled.runsEnded();
                        first = Math.min(first, settled.firstDeadline());
                    }
                }
                if (allSettled) {
                    if (driven.size() <= 1 || Arrays.equals(ended, lastEnded)) {
                        return first;
                    }
                    lastEnded = ended;
                    continue;
                }
                lastEnded = null;
                if (System.nanoTime() - startedAt > limit) {
                    throw gaveUp(driven);
                }
                if (++looks <= YIELDING_LOOKS) {
                    Thread.yield(); // a step's runs are mostly short: a park would sleep longer than they take
                } else {
                    pause = pause == 0 ? 1_000 : Math.min(pause * 2, MAX_LOOK_INTERVAL_NANOS);
                    LockSupport.parkNanos(this, pause);
                    interrupted |= Thread.interrupted();
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private IllegalStateException gaveUp(List<Driven> driven) {
        List<String> running = new ArrayList<>();
        for (Driven executor : driven) {
            running.addAll(executor.runningTasks());
        }
        return new IllegalStateException("VirtualClock.advance gave up at " + time + " ns after "
                + Duration.ofNanos(realTimeLimitNanos) + " of real time: the runs due by then have not ended; "
                + (running.isEmpty() ? "no task runs, but due tasks wait (can the executor start threads?)"
                        : "still running: " + running));
    }
}
