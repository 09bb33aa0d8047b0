package io.timingwheel.tck;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** The clean-up and close() logic shared by both adapters. */
abstract class AbstractManagedScheduler implements ManagedScheduler {

    private final SchedulerFactory factory;
    private final ScheduledExecutorService executor;
    /** A pool the executor runs its tasks on, stopped after it; null if none. */
    private final ExecutorService workerPool;
    private final List<CountDownLatch> latches = new CopyOnWriteArrayList<>();

    AbstractManagedScheduler(SchedulerFactory factory, ScheduledExecutorService executor, ExecutorService workerPool) {
        this.factory = factory;
        this.executor = executor;
        this.workerPool = workerPool;
    }

    @Override
    public ScheduledExecutorService executor() {
        return executor;
    }

    @Override
    public SchedulerFactory factory() {
        return factory;
    }

    @Override
    public void releaseOnClose(CountDownLatch latch) {
        latches.add(latch);
    }

    /**
     * Releases the registered latches, then shuts down with both shutdown policies off, so pending tasks are cancelled
     * and running ones may finish: no interrupt can hit a task that was just released (AQS may report an interrupt
     * that arrives between the release and the waiter's return). A task still running after LONG_DELAY_MS is stuck:
     * the executor is then stopped with shutdownNow() and the test fails.
     */
    @Override
    public void close() {
        for (CountDownLatch latch : latches) {
            while (latch.getCount() > 0) {
                latch.countDown();
            }
        }
        setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
        executor.shutdown();
        boolean interrupted = false;
        try {
            awaitTermination(executor);
            if (workerPool != null) {
                workerPool.shutdown();
                awaitTermination(workerPool);
            }
        } catch (InterruptedException e) {
            interrupted = true;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void awaitTermination(ExecutorService e) throws InterruptedException {
        if (!e.awaitTermination(TckTestCase.LONG_DELAY_MS, TimeUnit.MILLISECONDS)) {
            e.shutdownNow();
            fail(factory.name() + ": executor did not terminate within " + TckTestCase.LONG_DELAY_MS + " ms after "
                    + "shutdown() with both shutdown policies off: " + e);
        }
    }

    /**
     * {@code ExecutorService.close()} as JDK 19 defines it: shutdown, then await termination; if interrupted while
     * waiting, shutdownNow once, keep waiting, and restore the interrupt status at the end.
     */
    static void jdk19Close(ExecutorService e) {
        boolean terminated = e.isTerminated();
        if (!terminated) {
            e.shutdown();
            boolean interrupted = false;
            while (!terminated) {
                try {
                    terminated = e.awaitTermination(1L, TimeUnit.DAYS);
                } catch (InterruptedException ie) {
                    if (!interrupted) {
                        e.shutdownNow();
                        interrupted = true;
                    }
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String toString() {
        return factory.name() + ": " + executor;
    }
}
