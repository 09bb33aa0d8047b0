package io.timingwheel;

import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;

/**
 * The executor side of a dispatcher, as the stress tests need it: running until {@code shutdown} or {@code stopping}
 * is set; once shut down, both policies keep their tasks; once stopping, nothing may run. The time stands at one
 * second, so every task the tests make is due, except for {@link #laterThread}, which sees two seconds: time that passed
 * between another thread's look at the clock and its own. The dispatchers it makes share its {@link OrderGate}, open for every
 * deadline until a test or a master moves it; it holds no timers, and the notifications go nowhere: the tests make
 * the decisions themselves.
 */
final class StressDispatcherHost implements DispatcherHost {
    volatile boolean shutdown;
    volatile boolean stopping;

    /** The thread that reads the time as two seconds, later than the others (see the class comment); or null. */
    volatile Thread laterThread;

    /** The order gate of the dispatchers made here (and of a master over one of them). */
    final OrderGate gate = new OrderGate();

    /** @return a real {@link ExternalDispatcher} over this host, handing its tasks to {@code executor} */
    ExternalDispatcher externalDispatcher(Executor executor) {
        return new ExternalDispatcher(this, runner(), executor);
    }

    /**
     * @return a real {@link WorkerPool} over this host with one core worker; its threads come from {@code threads}
     */
    WorkerPool workerPool(ThreadFactory threads) {
        return workerPool(new PoolSettings(1, threads));
    }

    /**
     * @return a real {@link WorkerPool} over this host with one core worker whose thread never starts: the test's
     *     actor runs the worker's steps itself
     */
    WorkerPool workerPoolWithoutThreads() {
        return workerPool(r -> new Thread(r) {
            @Override
            public void start() {
                // no thread of the pool runs: the worker's steps run on the test's actor
            }
        });
    }

    /** @return the same with these settings (a test that lets its workers retire sets the keep-alive) */
    WorkerPool workerPool(PoolSettings settings) {
        WorkerPool pool = new WorkerPool("stress", this, runner(), gate, settings);
        pool.listenToGate();
        return pool;
    }

    private static TaskRunner runner() {
        Instrumentation instrumentation = new Instrumentation("stress", Clock.startingNow(), -1);
        return new TaskRunner(new StressHooks(), new Decorations(), instrumentation);
    }

    @Override
    public boolean mayRun(ScheduledTask<?> task) {
        return !stopping;
    }

    @Override
    public boolean keptAfterShutdown(ScheduledTask<?> task) {
        return true;
    }

    @Override
    public boolean isShutdown() {
        return shutdown || stopping;
    }

    @Override
    public boolean isStopping() {
        return stopping;
    }

    @Override
    public long now() {
        return Thread.currentThread() == laterThread ? 2_000_000_000 : 1_000_000_000;
    }

    @Override
    public boolean timersPending() {
        return false;
    }

    @Override
    public boolean tryTerminate() {
        return false;
    }

    @Override
    public void threadsGone() {
    }
}
