package io.timingwheel.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** {@code execute} and the three forms of {@code submit}: immediate tasks run once, results and failures surface. */
class ExecuteSubmitTest extends TckTestCase {

    /** execute(Runnable) runs the task. */
    @ForEachExecutor
    void executeRunsTheTask(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            CountDownLatch ran = new CountDownLatch(1);
            s.executor().execute(countDowner(ran));
            await(ran);
        }
    }

    /** submit(Runnable) runs the task and its future yields null. */
    @ForEachExecutor
    void submitRunnableYieldsNull(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            AtomicInteger runs = new AtomicInteger();
            Future<?> future = s.executor().submit(() -> {
                runs.incrementAndGet();
            });
            assertNull(get(future));
            assertEquals(1, runs.get());
            assertTrue(future.isDone());
        }
    }

    /** submit(Runnable, result) runs the task and its future yields the given result. */
    @ForEachExecutor
    void submitRunnableWithResultYieldsResult(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            Object result = new Object();
            Future<Object> future = s.executor().submit(NOOP, result);
            assertSame(result, get(future));
        }
    }

    /** submit(Callable) runs the task and its future yields the Callable's result. */
    @ForEachExecutor
    void submitCallableYieldsResult(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            Future<String> future = s.executor().submit(() -> "result");
            assertEquals("result", get(future));
        }
    }

    /** A submitted Callable's exception comes out of get() as the cause of an ExecutionException. */
    @ForEachExecutor
    void submitCallableFailureSurfacesInGet(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            Exception failure = new java.io.IOException("expected by the test");
            Future<Object> future = s.executor().submit(() -> {
                throw failure;
            });
            ExecutionException e = assertThrows(ExecutionException.class, () -> get(future));
            assertSame(failure, e.getCause());
        }
    }

    /** A task that throws does not stop the executor: later tasks still run, on every worker. */
    @ForEachExecutor
    void throwingTasksDoNotStopTheExecutor(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            for (int i = 0; i < 10; i++) {
                s.executor().execute(() -> {
                    throw new RuntimeException("expected by the test");
                });
            }
            CountDownLatch ran = new CountDownLatch(10);
            for (int i = 0; i < 10; i++) {
                s.executor().execute(countDowner(ran));
            }
            await(ran);
        }
    }

    /** Many executed tasks each run exactly once. */
    @ForEachExecutor
    void manyExecutedTasksEachRunOnce(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            int n = 2_000;
            AtomicInteger[] runs = new AtomicInteger[n];
            CountDownLatch done = new CountDownLatch(n);
            for (int i = 0; i < n; i++) {
                AtomicInteger count = runs[i] = new AtomicInteger();
                s.executor().execute(() -> {
                    count.incrementAndGet();
                    done.countDown();
                });
            }
            await(done);
            for (AtomicInteger count : runs) {
                assertEquals(1, count.get());
            }
        }
    }

    /** The futures submit returns are ScheduledFutures with no delay left, as STPE's are. */
    @ForEachExecutor
    void submitReturnsScheduledFutures(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            List<Future<?>> futures = new ArrayList<>();
            futures.add(s.executor().submit(NOOP));
            futures.add(s.executor().submit(NOOP, "x"));
            futures.add(s.executor().submit(() -> "y"));
            for (Future<?> future : futures) {
                ScheduledFuture<?> scheduled = assertInstanceOf(ScheduledFuture.class, future);
                get(future);
                assertTrue(scheduled.getDelay(TimeUnit.NANOSECONDS) <= 0);
            }
        }
    }

    /** A task may submit another task and wait for it when a second worker is free. */
    @ForEachExecutor
    void taskCanSubmitAndAwaitAnotherTask(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create(2)) {
            ScheduledExecutorService e = s.executor();
            Future<String> outer = e.submit(callable(() -> get(e.submit(() -> "inner")) + " outer"));
            assertEquals("inner outer", get(outer));
        }
    }

    /** With n workers, n immediate tasks run at the same time. */
    @ForEachExecutor
    void immediateTasksRunConcurrentlyUpToPoolSize(SchedulerFactory f) throws Exception {
        int n = 3;
        try (ManagedScheduler s = f.create(n)) {
            CyclicBarrier barrier = new CyclicBarrier(n);
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                futures.add(s.executor().submit(task(() -> barrier.await(LONG_DELAY_MS, TimeUnit.MILLISECONDS))));
            }
            for (Future<?> future : futures) {
                get(future);
            }
        }
    }
}
