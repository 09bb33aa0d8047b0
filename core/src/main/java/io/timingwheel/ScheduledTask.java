package io.timingwheel;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * A task accepted by a {@link TimingWheelExecutor}: the future returned to the user, the message to the master and
 * the node of the wheel, all in one object, so scheduling allocates nothing else (but a share of a queue chunk).
 *
 * <p>Its life is one {@code int} state, changed only by CAS:
 * <pre>
 *   NEW -> CLAIMED -> STARTED -> COMPLETING -> NORMAL | EXCEPTIONAL   a run that ends
 *                     STARTED -> NEW                                 a periodic run that ended well: the next is due
 *   NEW | REJECTED | RETURNED | CLAIMED -> CANCELLED                 cancelled before its action started
 *   STARTED -> CANCELLED | INTERRUPTING -> INTERRUPTED              cancelled while running, as FutureTask allows
 *   NEW -> REJECTED -> NEW                                           not accepted (or taken back by its producer as
 *                                                                    the executor shut down): given to the rejection
 *                                                                    handler, which may hand it back
 *   NEW -> RETURNED -> NEW                                           handed to the caller (shutdownNow, or the poll,
 *                                                                    take or drainTo of getQueue()), uncancelled; the
 *                                                                    caller may run it, or put it back in the queue
 *   NEW | CLAIMED -> COMPLETING -> EXCEPTIONAL                       failed before its action started (a hook threw,
 *                                                                    an external executor refused it)
 * </pre>
 * The race between {@code cancel}, firing, taking back and {@code shutdownNow} is decided by one CAS on {@code NEW}:
 * whoever moves the task out of {@code NEW} owns it. {@code CLAIMED} separates taking a task from starting its action,
 * so that a worker can run hooks (and a decorated task's own {@code run}) in between, and so that a task a worker took
 * is never returned by {@code shutdownNow} as well. ({@code STARTED} is a task's state; {@code RUNNING} is an
 * executor's, in {@link Lifecycle}.)
 *
 * <h2>Waiting</h2>
 * Threads in {@code get} wait on a {@link CompletableFuture} that the first of them installs, and that the thread
 * ending the task completes. This is correct without a lock: every step into the done states ({@code COMPLETING} and
 * above) is a CAS, after which the ending thread reads the signal field; a waiter installs the signal by CAS, then
 * reads the state. Both pairs are ordered (a CAS is a full fence), so at least one of the two sees the other's write:
 * either the ending thread completes the signal, or the waiter sees the task done (or completing, for the
 * nanoseconds it takes to store the outcome) and completes it itself; completing twice is harmless. A task nobody
 * waits for never allocates a signal, and its final state is a plain release store. Timeouts and interrupts are the
 * {@code CompletableFuture}'s, whose waiters clean up after themselves.
 *
 * <h2>What comes from FutureTask</h2>
 * The shape of the state set follows {@link java.util.concurrent.FutureTask}'s: one int, the done states after the
 * running ones so that {@code s >= COMPLETING} means done or finishing, an outcome field that holds a result or a
 * {@code Throwable} by state, and a cancel-with-interrupt that passes through INTERRUPTING. Two methods are its
 * counterparts under other names: {@link #resultOrThrow} is its {@code report}, and
 * {@link #letInterruptingCancelFinish} its {@code handlePossibleCancellationInterrupt}. Ours adds the states of a
 * task in a scheduler (CLAIMED, REJECTED, RETURNED, the periodic return to NEW) and waits differently (above).
 */
abstract class ScheduledTask<V> extends TimerNode implements TimerFuture<V> {
    static final int NEW = 0;
    static final int REJECTED = 1;
    static final int RETURNED = 2;
    static final int CLAIMED = 3;
    static final int STARTED = 4;
    static final int COMPLETING = 5;
    static final int NORMAL = 6;
    static final int EXCEPTIONAL = 7;
    static final int CANCELLED = 8;
    static final int INTERRUPTING = 9;
    static final int INTERRUPTED = 10;

    private static final VarHandle STATE;
    private static final VarHandle OUTCOME;
    private static final VarHandle COMPLETION;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            STATE = lookup.findVarHandle(ScheduledTask.class, "state", int.class);
            OUTCOME = lookup.findVarHandle(ScheduledTask.class, "outcome", Object.class);
            COMPLETION = lookup.findVarHandle(ScheduledTask.class, "completion", CompletableFuture.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The executor that accepted the task; the task's only way back to it. */
    final TaskHost host;

    private volatile int state;

    /**
     * While CLAIMED or STARTED: the thread running the task (so that {@code cancel(true)} can interrupt it without a
     * field of its own). Once done: the result or the Throwable. Published by the {@code state} transitions.
     */
    private Object outcome;

    /** Completed when the task is done, for the threads in {@code get}; null until someone waits. */
    private volatile CompletableFuture<Void> completion;

    ScheduledTask(TaskHost host, long deadline) {
        this.host = host;
        this.deadline = deadline;
    }

    /** Runs the user's action once. */
    abstract V compute() throws Exception;

    /** The user's action, for {@code toString}; null once the task is done. */
    abstract Object action();

    /** Drops the reference to the user's action once the task is done, so what it captured can be collected. */
    abstract void releaseAction();

    /** The deadline of the run after the one that just ended normally (periodic tasks only). */
    long nextDeadline() {
        throw new AssertionError("not periodic");
    }

    // -- running ----------------------------------------------------------------------------------------------------

    /**
     * Runs the task's action once. On a worker (directly, or from a decorated task's {@code run}) the worker has
     * claimed it. Called by anyone else, it runs if it has not started and the executor's state allows (otherwise it
     * is cancelled, as the JDK does with a task run after {@code shutdownNow}); a rejected task run by its handler
     * ({@code CallerRunsPolicy}) first waits for its deadline, so it never runs early either.
     */
    @Override
    public final void run() {
        int s = state;
        if (s == CLAIMED) {
            if (outcome == Thread.currentThread()) {
                startClaimed();
            }
            return;
        }
        if (s > CLAIMED || (s == REJECTED && !awaitDeadline())) {
            return;
        }
        if (!host.mayRun(this)) {
            cancel(false);
        } else if (claimFrom(s)) {
            startClaimed();
        }
    }

    /**
     * NEW to CLAIMED for the current thread, which runs the task next (through {@link #run()}, once its hooks have
     * run). @return false if the task was not NEW
     */
    final boolean claim() {
        return claimFrom(NEW);
    }

    /**
     * NEW to STARTED for the current thread, which calls {@link #runAction()} next with nothing in between (no hooks,
     * no decoration): one CAS per run instead of two. @return false if the task was not NEW
     */
    final boolean claimAndStart() {
        if (!STATE.compareAndSet(this, NEW, STARTED)) {
            return false;
        }
        OUTCOME.setRelease(this, Thread.currentThread()); // cancel(true) waits for it: see interruptRunner
        host.leftPending(this);
        return true;
    }

    private boolean claimFrom(int s) {
        if (!STATE.compareAndSet(this, s, CLAIMED)) {
            return false;
        }
        outcome = Thread.currentThread(); // published to other threads by the CAS to STARTED
        if (s == NEW) {
            host.leftPending(this);
        }
        return true;
    }

    private void startClaimed() {
        if (STATE.compareAndSet(this, CLAIMED, STARTED)) {
            runAction();
        } // else cancelled since the claim: the action never starts
    }

    /** Runs the action of a task this thread moved to STARTED, unless a cancel has won since. */
    final void runAction() {
        if (state != STARTED) {
            letInterruptingCancelFinish(); // cancelled between the claim and now: the action never starts
            return;
        }
        V result = null;
        Throwable failure = null;
        try {
            result = compute();
        } catch (Throwable t) {
            failure = t;
        }
        if (failure == null && isPeriodic()) {
            host.rearm(this);
            letInterruptingCancelFinish(); // a cancel(true) that won against the re-arm may still be interrupting
        } else if (failure == null) {
            finish(STARTED, NORMAL, result);
        } else {
            finish(STARTED, EXCEPTIONAL, failure);
        }
    }

    /** STARTED to NEW with the next deadline, after a periodic run that ended well. @return false if cancelled */
    final boolean resetForNextRun() {
        if (!STATE.compareAndSet(this, STARTED, NEW)) {
            return false;
        }
        outcome = null;
        deadline = nextDeadline();
        return true;
    }

    /**
     * Ends a task that the current thread claimed but whose action never started: a hook threw ({@code cause}), or a
     * decorated task's {@code run} did not call ours (no cause: it is cancelled). Does nothing if the action started,
     * even if the task is claimed again since (a periodic task's next run, by another worker).
     */
    final void endIfNeverStarted(Throwable cause) {
        if (state != CLAIMED || outcome != Thread.currentThread()) {
            return;
        }
        if (cause == null) {
            if (STATE.compareAndSet(this, CLAIMED, CANCELLED)) {
                host.cancelled(this, false);
                finishCompletion(null);
            }
        } else {
            finish(CLAIMED, EXCEPTIONAL, cause);
        }
    }

    /** Ends a task that never started with an exception, e.g. an external executor's rejection. */
    final boolean failUnstarted(Throwable cause) {
        return finish(NEW, EXCEPTIONAL, cause);
    }

    private boolean finish(int from, int finalState, Object value) {
        if (!STATE.compareAndSet(this, from, COMPLETING)) {
            letInterruptingCancelFinish();
            return false;
        }
        if (from == NEW) {
            host.leftPending(this);
        }
        outcome = value;
        STATE.setRelease(this, finalState); // the CAS to COMPLETING ordered the signal's read: see the class comment
        finishCompletion(finalState == EXCEPTIONAL ? (Throwable) value : null);
        return true;
    }

    /**
     * Returns once no {@code cancel(true)} is between its CAS to INTERRUPTING and the interrupt it then sends, so that
     * the interrupt lands in this task's run, which the worker ends next, and never in the worker's next task (the
     * worker clears what is left before taking one). The window is a few instructions wide; spinning is right.
     */
    private void letInterruptingCancelFinish() {
        for (int spins = 0; state == INTERRUPTING; spins++) {
            if (spins < 64) {
                Thread.onSpinWait();
            } else {
                Thread.yield(); // the cancelling thread was preempted: let it run
            }
        }
    }

    private void finishCompletion(Throwable failure) {
        CompletableFuture<Void> signal = completion;
        if (signal != null) {
            signal.complete(null);
        }
        releaseAction();
        host.ended(this, failure);
    }

    /**
     * A rejected task that a handler runs itself still never runs before its delay: the calling thread waits for the
     * deadline, which is the back-pressure that policy is chosen for.
     *
     * @return false if the wait was interrupted (the task is then cancelled and the interrupt status kept)
     */
    private boolean awaitDeadline() {
        for (long wait; (wait = deadline - host.now()) > 0 && state == REJECTED; ) {
            LockSupport.parkNanos(this, wait);
            if (Thread.interrupted()) {
                cancel(false);
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    // -- ownership changes that are not runs ------------------------------------------------------------------------

    /**
     * NEW to REJECTED: the executor did not accept the task (it was never published, or its dispatcher closed as it
     * arrived) and hands it to the handler. @return false if it was not NEW (a worker took it first: it was accepted)
     */
    final boolean markRejected() {
        return STATE.compareAndSet(this, NEW, REJECTED);
    }

    /**
     * NEW to REJECTED for a task its producer published as the executor shut down (see {@link Lifecycle}): it was
     * not accepted after all and leaves wherever it waits.
     *
     * @return false if someone else took it first (a worker, shutdownNow, a cancel): it was accepted
     */
    final boolean takeBack() {
        if (!STATE.compareAndSet(this, NEW, REJECTED)) {
            return false;
        }
        host.leftPending(this);
        return true;
    }

    /**
     * REJECTED or RETURNED to NEW: a task handed back to the executor (by a rejection handler, or through
     * {@code getQueue()}), to be accepted again. @return false if it is in neither state
     */
    final boolean reaccept() {
        int s = state;
        return (s == REJECTED || s == RETURNED) && STATE.compareAndSet(this, s, NEW);
    }

    /** @return true if the task is in the rejection handler's hands */
    final boolean isRejected() {
        return state == REJECTED;
    }

    /** @return true if the task was handed to a caller (shutdownNow, or getQueue's poll, take or drainTo) */
    final boolean isReturned() {
        return state == RETURNED;
    }

    /**
     * NEW to RETURNED: handed to a caller (shutdownNow, or getQueue's poll, take or drainTo), uncancelled.
     *
     * @return true if the task had not started and now belongs to the caller
     */
    final boolean markReturned() {
        if (!STATE.compareAndSet(this, NEW, RETURNED)) {
            return false;
        }
        host.leftPending(this); // no longer pending here
        return true;
    }

    // -- Future -----------------------------------------------------------------------------------------------------

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        for (;;) {
            int s = state;
            if (s == STARTED && mayInterruptIfRunning) {
                if (STATE.compareAndSet(this, STARTED, INTERRUPTING)) {
                    try {
                        interruptRunner();
                    } finally {
                        STATE.setRelease(this, INTERRUPTED);
                        host.cancelled(this, false);
                        finishCompletion(null);
                    }
                    return true;
                }
            } else if (s > STARTED) {
                return false;
            } else if (cancelFrom(s)) {
                return true;
            }
        }
    }

    /**
     * Interrupts the thread running the task. A task started by {@link #claimAndStart()} publishes its runner just
     * after the CAS to STARTED; wait out that short window.
     */
    private void interruptRunner() {
        Object runner;
        while (!((runner = OUTCOME.getAcquire(this)) instanceof Thread)) {
            Thread.onSpinWait();
        }
        ((Thread) runner).interrupt();
    }

    /**
     * Cancels the task only if it is pending here: accepted, neither claimed nor returned by shutdownNow.
     *
     * @return true if this call cancelled it
     */
    final boolean cancelIfPending() {
        return cancelFrom(NEW);
    }

    private boolean cancelFrom(int s) {
        if (!STATE.compareAndSet(this, s, CANCELLED)) {
            return false;
        }
        host.cancelled(this, s == NEW);
        finishCompletion(null);
        return true;
    }

    @Override
    public boolean isCancelled() {
        return state >= CANCELLED;
    }

    @Override
    public boolean isDone() {
        return state >= COMPLETING;
    }

    /** @return true if the task's last run ended with an exception */
    final boolean isFailed() {
        return state == EXCEPTIONAL;
    }

    /** @return true if the task is accepted and waits for its (next) run: the only state counted as pending */
    final boolean isPending() {
        return state == NEW;
    }

    @Override
    public V get() throws InterruptedException, ExecutionException {
        int s = state;
        if (s <= COMPLETING) {
            completionSignal().get();
            s = state;
        }
        return resultOrThrow(s);
    }

    @Override
    public V get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        long nanos = unit.toNanos(timeout);
        int s = state;
        if (s <= COMPLETING) {
            try {
                completionSignal().get(nanos, TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                if (state <= COMPLETING) {
                    throw e;
                }
            }
            s = state;
        }
        return resultOrThrow(s);
    }

    /** The signal that completes when the task is done; installed by the first caller, completed at once if done. */
    @SuppressWarnings("unchecked")
    private CompletableFuture<Void> completionSignal() {
        CompletableFuture<Void> signal = completion;
        if (signal == null) {
            CompletableFuture<Void> fresh = new CompletableFuture<>();
            signal = (CompletableFuture<Void>) COMPLETION.compareAndExchange(this, (CompletableFuture<Void>) null, fresh);
            if (signal == null) {
                signal = fresh;
            }
        }
        if (state >= COMPLETING) {
            // Ended before the signal existed, or at the same time (see the class comment): complete it here, once
            // the outcome is stored.
            while (state == COMPLETING) {
                Thread.yield();
            }
            signal.complete(null);
        }
        return signal;
    }

    /** @return the result of a task that is done, or throws what {@code get} throws for it */
    @SuppressWarnings("unchecked")
    private V resultOrThrow(int s) throws ExecutionException {
        if (s >= CANCELLED) {
            throw new CancellationException();
        }
        if (s == EXCEPTIONAL) {
            throw new ExecutionException((Throwable) outcome);
        }
        return (V) outcome;
    }

    // -- Delayed ----------------------------------------------------------------------------------------------------

    @Override
    public long getDelay(TimeUnit unit) {
        return unit.convert(deadline - host.now(), TimeUnit.NANOSECONDS);
    }

    /** Orders by deadline, as the JDK's scheduled futures do; delays of foreign {@link Delayed}s are compared. */
    @Override
    public int compareTo(Delayed other) {
        if (other == this) {
            return 0;
        }
        if (other instanceof ScheduledTask<?> task && task.host == host) {
            return Long.compare(deadline, task.deadline);
        }
        return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
    }

    /** @return what {@code Object.toString} gives, then the state in the words of the JDK's futures, in brackets */
    @Override
    public String toString() {
        return super.toString() + "[" + describeState() + "]";
    }

    /** The state as {@code FutureTask.toString} words it, which logs and tools written for the JDK may rely on. */
    private String describeState() {
        int s = state;
        if (s >= CANCELLED) {
            return "Cancelled";
        }
        if (s == NORMAL) {
            return "Completed normally";
        }
        if (s == EXCEPTIONAL) {
            return "Completed exceptionally: " + outcome;
        }
        Object action = action();
        return action == null ? "Not completed" : "Not completed, task = " + action;
    }

    // -- completion views -------------------------------------------------------------------------------------------

    @Override
    public CompletableFuture<V> toCompletableFuture() {
        CompletionView<V> view = new CompletionView<>(this);
        completionSignal().thenRun(view::follow);
        return view;
    }

    /** A {@link CompletableFuture} that follows a task; cancelling it cancels the task. */
    private static final class CompletionView<V> extends CompletableFuture<V> {
        private final ScheduledTask<V> task;

        CompletionView(ScheduledTask<V> task) {
            this.task = task;
        }

        /** Completes this view as its task, which is done, completed. */
        @SuppressWarnings("unchecked")
        void follow() {
            int s = task.state;
            if (s == NORMAL) {
                complete((V) task.outcome);
            } else if (s == EXCEPTIONAL) {
                completeExceptionally((Throwable) task.outcome);
            } else {
                completeExceptionally(new CancellationException());
            }
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            task.cancel(mayInterruptIfRunning);
            return super.cancel(mayInterruptIfRunning);
        }

        @Override
        public <U> CompletableFuture<U> newIncompleteFuture() {
            return new CompletableFuture<>();
        }
    }
}
