package io.timingwheel.reliability;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Tasks that block forever, and tasks that ignore interrupts. Expected, as in the JDK: {@code shutdownNow()} still
 * returns at once (it interrupts, it does not wait), {@code awaitTermination} honestly reports false while such a task
 * holds a worker, and the executor terminates once they are released. Each test releases its tasks before it ends so
 * that no thread outlives it.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
@SuppressWarnings("try") // the resource only shuts the executor down; the body uses the executor
class BlockingTaskTest {

    /**
     * With every worker held by a task that ignores interrupts, {@code shutdownNow()} returns promptly with the
     * queued tasks, the blocked tasks see its interrupt, {@code awaitTermination} says false and
     * {@code isTerminated()} stays false; after the release they complete and the executor terminates.
     */
    @ParameterizedTest
    @EnumSource(Subject.class)
    void shutdownNowReturnsWhileTasksIgnoreInterrupts(Subject subject) throws Exception {
        ScheduledExecutorService e = subject.create(2);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch bothStarted = new CountDownLatch(2);
        AtomicInteger interruptsSeen = new AtomicInteger();
        try (TaskThreadFailures failures = new TaskThreadFailures(); Closing<?> c = Closing.of(e)) {
            List<Future<String>> blocked = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                blocked.add(e.submit(() -> {
                    bothStarted.countDown();
                    awaitIgnoringInterrupts(release, interruptsSeen);
                    return "released";
                }));
            }
            assertTrue(bothStarted.await(10, TimeUnit.SECONDS));
            List<Future<?>> queued = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                queued.add(e.submit(() -> { }));
                queued.add(e.schedule(() -> { }, 1, TimeUnit.HOURS));
            }

            List<Runnable> returned = callWithin(5, e::shutdownNow, failures);
            assertNotNull(returned, "shutdownNow did not return within 5 s");
            assertEquals(queued.size(), returned.size(), "every queued task comes back");
            assertTrue(returned.containsAll(queued));
            assertFalse(e.awaitTermination(200, TimeUnit.MILLISECONDS), "two tasks still hold the workers");
            assertFalse(e.isTerminated());
            assertTrue(e.isShutdown());
            Threads.await(() -> interruptsSeen.get() >= 2);

            release.countDown();
            assertTrue(e.awaitTermination(10, TimeUnit.SECONDS), "released: it must terminate");
            for (Future<String> f : blocked) {
                assertEquals("released", f.get(0, TimeUnit.SECONDS));
            }
        } finally {
            release.countDown();
        }
    }

    /**
     * A task blocked forever holds one worker only: the other worker keeps running due tasks on time, and
     * {@code shutdown()} (which does not interrupt) leaves it blocked: {@code awaitTermination} is false until it is
     * released.
     */
    @ParameterizedTest
    @EnumSource(Subject.class)
    void blockedTaskHoldsOnlyItsOwnWorker(Subject subject) throws Exception {
        ScheduledExecutorService e = subject.create(2);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(1);
        try (Closing<?> c = Closing.of(e)) {
            Future<?> blocked = e.submit(() -> {
                started.countDown();
                release.await();
                return null;
            });
            assertTrue(started.await(10, TimeUnit.SECONDS));
            List<ScheduledFuture<Integer>> others = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                int value = i;
                others.add(e.schedule(() -> value, i % 10, TimeUnit.MILLISECONDS));
            }
            for (int i = 0; i < others.size(); i++) {
                assertEquals(i, others.get(i).get(10, TimeUnit.SECONDS));
            }
            e.shutdown();
            assertFalse(e.awaitTermination(200, TimeUnit.MILLISECONDS), "the blocked task holds a worker");
            assertFalse(blocked.isDone());
            release.countDown();
            assertTrue(e.awaitTermination(10, TimeUnit.SECONDS));
            assertTrue(blocked.isDone());
        } finally {
            release.countDown();
        }
    }

    /**
     * A task blocked interruptibly (sleeping forever) is ended by {@code shutdownNow()}: it sees the interrupt, its
     * future fails with the {@link InterruptedException}, and the executor terminates without any release.
     */
    @ParameterizedTest
    @EnumSource(Subject.class)
    void shutdownNowEndsInterruptiblyBlockedTasks(Subject subject) throws Exception {
        ScheduledExecutorService e = subject.create(2);
        CountDownLatch started = new CountDownLatch(2);
        try (Closing<?> c = Closing.of(e)) {
            List<Future<?>> sleepers = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                sleepers.add(e.submit(() -> {
                    started.countDown();
                    Thread.sleep(Long.MAX_VALUE);
                    return null;
                }));
            }
            assertTrue(started.await(10, TimeUnit.SECONDS));
            assertTrue(e.shutdownNow().isEmpty());
            assertTrue(e.awaitTermination(10, TimeUnit.SECONDS));
            for (Future<?> f : sleepers) {
                ExecutionException ex = assertThrows(ExecutionException.class, () -> f.get(0, TimeUnit.SECONDS));
                assertInstanceOf(InterruptedException.class, ex.getCause());
            }
        }
    }

    /**
     * A periodic task that ignores interrupts and is running when {@code shutdownNow()} is called finishes its run
     * and is not run again; the executor terminates once the run ends.
     */
    @ParameterizedTest
    @EnumSource(Subject.class)
    void periodicTaskIgnoringInterruptsEndsAfterItsRun(Subject subject) throws Exception {
        ScheduledExecutorService e = subject.create(1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch inSecondRun = new CountDownLatch(1);
        AtomicInteger runs = new AtomicInteger();
        AtomicInteger interruptsSeen = new AtomicInteger();
        try (Closing<?> c = Closing.of(e)) {
            ScheduledFuture<?> f = e.scheduleAtFixedRate(() -> {
                if (runs.incrementAndGet() == 2) {
                    inSecondRun.countDown();
                    awaitIgnoringInterrupts(release, interruptsSeen);
                }
            }, 0, 1, TimeUnit.MILLISECONDS);
            assertTrue(inSecondRun.await(10, TimeUnit.SECONDS));
            assertTrue(e.shutdownNow().isEmpty(), "the only task is running, not queued");
            assertFalse(e.awaitTermination(100, TimeUnit.MILLISECONDS));
            release.countDown();
            assertTrue(e.awaitTermination(10, TimeUnit.SECONDS));
            assertEquals(2, runs.get(), "no run after shutdownNow");
            assertTrue(f.isDone(), "the series ended");
            assertEquals(1, interruptsSeen.get());
        } finally {
            release.countDown();
        }
    }

    /**
     * {@code shutdown()} and {@code shutdownNow()} called again on a terminated executor return at once, as in the
     * JDK (cleanup code calls them freely): 200 calls take well under 200 ms.
     */
    @ParameterizedTest
    @EnumSource(Subject.class)
    void shutdownCallsOnATerminatedExecutorReturnAtOnce(Subject subject) throws Exception {
        ScheduledExecutorService e = subject.create(1);
        try (Closing<?> c = Closing.of(e)) {
            e.schedule(() -> { }, 1, TimeUnit.MILLISECONDS).get(10, TimeUnit.SECONDS); // master and worker started
            e.shutdown();
            assertTrue(e.awaitTermination(10, TimeUnit.SECONDS));
            long start = System.nanoTime();
            for (int i = 0; i < 100; i++) {
                e.shutdown();
                assertTrue(e.shutdownNow().isEmpty());
            }
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(millis < 200, () -> "200 calls on a terminated executor took " + millis + " ms");
        }
    }

    // -- helpers ----------------------------------------------------------------------------------------------------

    /** Waits for the latch, counting and swallowing interrupts: the kind of task shutdownNow cannot stop. */
    private static void awaitIgnoringInterrupts(CountDownLatch latch, AtomicInteger interruptsSeen) {
        for (;;) {
            try {
                latch.await();
                return;
            } catch (InterruptedException e) {
                interruptsSeen.incrementAndGet();
            }
        }
    }

    /** Calls {@code call} on another thread. @return its result, or null if it did not return within the time */
    private static <T> T callWithin(long seconds, java.util.concurrent.Callable<T> call, TaskThreadFailures failures)
            throws InterruptedException {
        AtomicReference<T> result = new AtomicReference<>();
        Thread t = new Thread(failures.guard(() -> result.set(call.call())), "caller");
        t.start();
        t.join(TimeUnit.SECONDS.toMillis(seconds));
        return result.get();
    }
}
