package io.timingwheel;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * A task accepted by a {@link TimingWheelExecutor}: the future returned to the user, the message to the master and
 * the node of the wheel, all in one object, so scheduling allocates nothing else (but a share of a queue chunk).
 *
 * <p>Its life is one {@code int} state, changed only by CAS:
 * <pre>
 *   NEW -> RUNNING -> COMPLETING -> NORMAL | EXCEPTIONAL     (a run that ends)
 *   NEW -> RUNNING -> NEW                                    (a periodic run that ends well: the next run is due)
 *   NEW -> CANCELLED                                         (cancelled before it started)
 *   RUNNING -> CANCELLED | INTERRUPTING -> INTERRUPTED       (cancelled while running, as FutureTask allows)
 * </pre>
 * The race between {@code cancel} and firing is decided by one CAS on {@code NEW}: a task whose cancel won never
 * starts, and one whose run won is cancelled only "while running", exactly as the JDK's futures behave.
 *
 * <p>{@code outcome} holds the running thread while RUNNING (so that {@code cancel(true)} can interrupt it without a
 * field of its own), then the result or the exception. Waiters of {@code get} form a Treiber stack.
 */
abstract class ScheduledTask<V> extends TimerNode implements TimerFuture<V> {
    static final int NEW = 0;
    static final int RUNNING = 1;
    static final int COMPLETING = 2;
    static final int NORMAL = 3;
    static final int EXCEPTIONAL = 4;
    static final int CANCELLED = 5;
    static final int INTERRUPTING = 6;
    static final int INTERRUPTED = 7;

    private static final VarHandle STATE;
    private static final VarHandle OUTCOME;
    private static final VarHandle WAITERS;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            STATE = lookup.findVarHandle(ScheduledTask.class, "state", int.class);
            OUTCOME = lookup.findVarHandle(ScheduledTask.class, "outcome", Object.class);
            WAITERS = lookup.findVarHandle(ScheduledTask.class, "waiters", WaitNode.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The executor that accepted the task. */
    final TimingWheelExecutor owner;

    private volatile int state;

    /** The running thread while RUNNING; the result or the Throwable once done. Published by {@code state}. */
    private Object outcome;

    /** Threads blocked in {@code get}. */
    private volatile WaitNode waiters;

    ScheduledTask(TimingWheelExecutor owner, long deadline) {
        this.owner = owner;
        this.deadline = deadline;
    }

    /** Runs the user's action once. */
    abstract V compute() throws Exception;

    /** The user's action, for {@code toString}; null once the task is done. */
    abstract Object action();

    /** Drops the reference to the user's action once the task is done, so what it captured can be collected. */
    abstract void releaseAction();

    /** Called after a run of a periodic task returned normally: sets the next deadline. */
    void advanceDeadline() {
        throw new AssertionError("not periodic");
    }

    // -- running ----------------------------------------------------------------------------------------------------

    /**
     * Runs the task once, unless it is done, cancelled or already running, or its executor's state forbids it (then
     * it is cancelled, as the JDK does with tasks run after {@code shutdownNow}). A task that was rejected and is run
     * by its handler waits for its deadline first.
     */
    @Override
    public final void run() {
        if (!owner.awaitDeadlineIfRejected(this)) {
            return;
        }
        if (!owner.canRunInCurrentState(this)) {
            cancel(false);
            return;
        }
        if (claim()) {
            runClaimed();
        }
    }

    /** Runs the task once; the current thread has {@link #claim claimed} it. */
    final void runClaimed() {
        if (state != RUNNING) {
            awaitCancellationInterrupt(); // cancelled between the claim and now: the action never starts
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
            owner.reservePendingForNextRun(); // before NEW: a cancel of the next run releases it
            if (STATE.compareAndSet(this, RUNNING, NEW)) {
                OUTCOME.setRelease(this, null);
                advanceDeadline();
                owner.reschedulePeriodic(this);
            } else {
                owner.releasePending(this);
                awaitCancellationInterrupt();
            }
        } else if (failure == null) {
            finish(NORMAL, result);
        } else {
            finish(EXCEPTIONAL, failure);
        }
    }

    /** Moves NEW to RUNNING for the current thread. @return false if the task was not NEW */
    final boolean claim() {
        if (!STATE.compareAndSet(this, NEW, RUNNING)) {
            return false;
        }
        OUTCOME.setRelease(this, Thread.currentThread());
        owner.releasePending(this);
        return true;
    }

    private void finish(int finalState, Object value) {
        if (STATE.compareAndSet(this, RUNNING, COMPLETING)) {
            outcome = value;
            STATE.setRelease(this, finalState);
            finishCompletion();
            if (finalState == EXCEPTIONAL) {
                owner.onTaskFailed(this, (Throwable) value);
            }
        } else {
            awaitCancellationInterrupt();
        }
    }

    /**
     * A cancel(true) that won against this run may still be about to interrupt the runner; wait until it has, so
     * that the interrupt lands here and not in the worker's next task (the worker clears it before the next one).
     */
    private void awaitCancellationInterrupt() {
        while (state == INTERRUPTING) {
            Thread.yield();
        }
    }

    /** Ends the task with an exception that did not come from a run, e.g. an external executor's rejection. */
    final boolean failUnstarted(Throwable cause) {
        if (!STATE.compareAndSet(this, NEW, COMPLETING)) {
            return false;
        }
        owner.releasePending(this);
        outcome = cause;
        STATE.setRelease(this, EXCEPTIONAL);
        finishCompletion();
        owner.onTaskFailed(this, cause);
        return true;
    }

    private void finishCompletion() {
        for (WaitNode q; (q = waiters) != null; ) {
            if (WAITERS.weakCompareAndSet(this, q, null)) {
                while (q != null) {
                    Object waiter = q.waiter;
                    if (waiter != null) {
                        q.waiter = null;
                        if (waiter instanceof Thread) {
                            LockSupport.unpark((Thread) waiter);
                        } else {
                            ((CompletionView<?>) waiter).follow();
                        }
                    }
                    WaitNode following = q.next;
                    q.next = null;
                    q = following;
                }
                break;
            }
        }
        releaseAction();
    }

    // -- Future -----------------------------------------------------------------------------------------------------

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        for (;;) {
            int s = state;
            if (s == NEW) {
                if (STATE.compareAndSet(this, NEW, CANCELLED)) {
                    owner.onCancelled();
                    owner.releasePending(this);
                    finishCompletion();
                    owner.onCancelledPending(this);
                    return true;
                }
            } else if (s == RUNNING) {
                if (!mayInterruptIfRunning) {
                    if (STATE.compareAndSet(this, RUNNING, CANCELLED)) {
                        owner.onCancelled();
                        finishCompletion();
                        return true;
                    }
                } else if (STATE.compareAndSet(this, RUNNING, INTERRUPTING)) {
                    owner.onCancelled();
                    try {
                        interruptRunner();
                    } finally {
                        STATE.setRelease(this, INTERRUPTED);
                        finishCompletion();
                    }
                    return true;
                }
            } else {
                return false;
            }
        }
    }

    /** Cancels the task only if it has not started. @return true if this call cancelled it */
    final boolean cancelIfPending() {
        if (STATE.compareAndSet(this, NEW, CANCELLED)) {
            owner.onCancelled();
            owner.releasePending(this);
            finishCompletion();
            owner.onCancelledPending(this);
            return true;
        }
        return false;
    }

    private void interruptRunner() {
        Object runner;
        // The runner publishes itself right after its claim; wait out that short window.
        while (!((runner = OUTCOME.getAcquire(this)) instanceof Thread)) {
            Thread.onSpinWait();
        }
        ((Thread) runner).interrupt();
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

    /** @return true if the task has neither started its (current) run nor ended */
    final boolean isPending() {
        return state == NEW;
    }

    @Override
    public V get() throws InterruptedException, ExecutionException {
        int s = state;
        if (s <= COMPLETING) {
            try {
                s = awaitDone(false, 0L);
            } catch (TimeoutException impossible) {
                throw new AssertionError(impossible);
            }
        }
        return report(s);
    }

    @Override
    public V get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        long nanos = unit.toNanos(timeout);
        int s = state;
        if (s <= COMPLETING) {
            s = awaitDone(true, nanos);
        }
        return report(s);
    }

    @SuppressWarnings("unchecked")
    private V report(int s) throws ExecutionException {
        if (s == NORMAL) {
            return (V) outcome;
        }
        if (s >= CANCELLED) {
            throw new CancellationException();
        }
        throw new ExecutionException((Throwable) outcome);
    }

    private int awaitDone(boolean timed, long nanos) throws InterruptedException, TimeoutException {
        long startTime = 0L;
        WaitNode node = null;
        boolean queued = false;
        for (;;) {
            int s = state;
            if (s > COMPLETING) {
                if (node != null) {
                    node.waiter = null;
                }
                return s;
            } else if (s == COMPLETING) {
                Thread.yield(); // the outcome is being written: a matter of nanoseconds
            } else if (Thread.interrupted()) {
                removeWaiter(node);
                throw new InterruptedException();
            } else if (node == null) {
                if (timed && nanos <= 0L) {
                    throw new TimeoutException();
                }
                node = new WaitNode(Thread.currentThread());
            } else if (!queued) {
                node.next = waiters;
                queued = WAITERS.weakCompareAndSet(this, node.next, node);
            } else if (timed) {
                long parkNanos;
                if (startTime == 0L) {
                    startTime = System.nanoTime();
                    if (startTime == 0L) {
                        startTime = 1L;
                    }
                    parkNanos = nanos;
                } else {
                    long elapsed = System.nanoTime() - startTime;
                    if (elapsed >= nanos) {
                        removeWaiter(node);
                        if (state > COMPLETING) {
                            return state;
                        }
                        throw new TimeoutException();
                    }
                    parkNanos = nanos - elapsed;
                }
                if (state < COMPLETING) {
                    LockSupport.parkNanos(this, parkNanos);
                }
            } else {
                LockSupport.park(this);
            }
        }
    }

    /** Unlinks a timed-out or interrupted waiter, and any other node whose thread is gone, from the stack. */
    private void removeWaiter(WaitNode node) {
        if (node == null) {
            return;
        }
        node.waiter = null;
        retry:
        for (;;) {
            for (WaitNode pred = null, q = waiters, s; q != null; q = s) {
                s = q.next;
                if (q.waiter != null) {
                    pred = q;
                } else if (pred != null) {
                    pred.next = s;
                    if (pred.waiter == null) {
                        continue retry; // pred was removed concurrently
                    }
                } else if (!WAITERS.compareAndSet(this, q, s)) {
                    continue retry;
                }
            }
            break;
        }
    }

    // -- Delayed ----------------------------------------------------------------------------------------------------

    @Override
    public long getDelay(TimeUnit unit) {
        return unit.convert(deadline - owner.now(), TimeUnit.NANOSECONDS);
    }

    /** Orders by deadline, as the JDK's scheduled futures do; delays of foreign {@link Delayed}s are compared. */
    @Override
    public int compareTo(Delayed other) {
        if (other == this) {
            return 0;
        }
        if (other instanceof ScheduledTask && ((ScheduledTask<?>) other).owner == owner) {
            return Long.compare(deadline, ((ScheduledTask<?>) other).deadline);
        }
        return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
    }

    @Override
    public String toString() {
        String status;
        switch (state) {
            case NORMAL:
                status = "[Completed normally]";
                break;
            case EXCEPTIONAL:
                status = "[Completed exceptionally: " + outcome + "]";
                break;
            case CANCELLED:
            case INTERRUPTING:
            case INTERRUPTED:
                status = "[Cancelled]";
                break;
            default:
                Object action = action();
                status = action == null ? "[Not completed]" : "[Not completed, task = " + action + "]";
        }
        return super.toString() + status;
    }

    // -- completion views -------------------------------------------------------------------------------------------

    @Override
    public CompletableFuture<V> toCompletableFuture() {
        CompletionView<V> view = new CompletionView<>(this);
        WaitNode node = new WaitNode(view);
        for (;;) {
            if (isDone()) {
                view.follow();
                return view;
            }
            node.next = waiters;
            if (WAITERS.compareAndSet(this, node.next, node)) {
                // finishCompletion may have swapped the stack out just before our push: look again
                if (isDone() && node.waiter != null) {
                    node.waiter = null;
                    view.follow();
                }
                return view;
            }
        }
    }

    /** Waits out the nanoseconds in which a completing task writes its outcome. */
    private void awaitOutcome() {
        while (state == COMPLETING) {
            Thread.yield();
        }
    }

    /** Completes {@code view} as this done task completed. */
    @SuppressWarnings("unchecked")
    final void completeInto(CompletableFuture<V> view) {
        awaitOutcome();
        int s = state;
        if (s == NORMAL) {
            view.complete((V) outcome);
        } else if (s == EXCEPTIONAL) {
            view.completeExceptionally((Throwable) outcome);
        } else {
            view.completeExceptionally(new CancellationException());
        }
    }

    /** A {@link CompletableFuture} that follows a task; cancelling it cancels the task. */
    static final class CompletionView<V> extends CompletableFuture<V> {
        private final ScheduledTask<V> task;

        CompletionView(ScheduledTask<V> task) {
            this.task = task;
        }

        /** Completes this view as its task, which is done, completed. */
        void follow() {
            task.completeInto(this);
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

    /** A thread waiting in {@code get}, or a {@link CompletionView} to complete; null once served or abandoned. */
    private static final class WaitNode {
        volatile Object waiter;
        volatile WaitNode next;

        WaitNode(Object waiter) {
            this.waiter = waiter;
        }
    }
}
