package io.timingwheel.tck;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.Scheduler;
import com.google.common.util.concurrent.FutureCallback;
import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.ListenableScheduledFuture;
import com.google.common.util.concurrent.ListeningScheduledExecutorService;
import com.google.common.util.concurrent.MoreExecutors;
import com.google.common.util.concurrent.SettableFuture;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.scheduling.concurrent.ConcurrentTaskScheduler;
import org.springframework.scheduling.support.CronTrigger;

/** Libraries that take a ScheduledExecutorService work unchanged on ours: Spring, Guava and Caffeine, for real. */
class RealCallersTest extends TckTestCase {

    /** Spring's ConcurrentTaskScheduler runs a CronTrigger task every second, firing at least twice. */
    @ForEachExecutor
    void springCronTriggerFiresRepeatedly(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            ConcurrentTaskScheduler scheduler = new ConcurrentTaskScheduler(s.executor());
            CountDownLatch fired = new CountDownLatch(2);
            ScheduledFuture<?> future = scheduler.schedule(countDowner(fired), new CronTrigger("* * * * * *"));
            await(fired);
            assertTrue(future.cancel(false));
        }
    }

    /** Spring's ConcurrentTaskScheduler runs a fixed-rate task repeatedly and stops it on cancel. */
    @ForEachExecutor
    void springFixedRateTaskRuns(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            ConcurrentTaskScheduler scheduler = new ConcurrentTaskScheduler(s.executor());
            CountDownLatch runs = new CountDownLatch(3);
            ScheduledFuture<?> future = scheduler.scheduleAtFixedRate(countDowner(runs), Duration.ofMillis(5));
            await(runs);
            assertTrue(future.cancel(false));
            assertTrue(future.isCancelled());
        }
    }

    /** Guava's listeningDecorator: a ListenableScheduledFuture calls back with the result, not before the delay. */
    @ForEachExecutor
    void guavaListenableScheduledFutureCallsBack(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            ListeningScheduledExecutorService les = MoreExecutors.listeningDecorator(s.executor());
            long t0 = System.nanoTime();
            ListenableScheduledFuture<String> future = les.schedule(() -> "value", SHORT_DELAY_MS, MILLISECONDS);
            AtomicReference<Object> outcome = new AtomicReference<>();
            CountDownLatch called = new CountDownLatch(1);
            Futures.addCallback(future, new FutureCallback<String>() {
                @Override
                public void onSuccess(String result) {
                    outcome.set(result);
                    called.countDown();
                }

                @Override
                public void onFailure(Throwable t) {
                    outcome.set(t);
                    called.countDown();
                }
            }, MoreExecutors.directExecutor());
            await(called);
            assertNotEarly(t0, SHORT_DELAY_MS, MILLISECONDS);
            assertEquals("value", outcome.get());
        }
    }

    /** Guava's listeningDecorator: cancelling a periodic ListenableScheduledFuture notifies its listeners. */
    @ForEachExecutor
    void guavaPeriodicCancelNotifiesListeners(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            ListeningScheduledExecutorService les = MoreExecutors.listeningDecorator(s.executor());
            CountDownLatch runs = new CountDownLatch(2);
            ListenableScheduledFuture<?> future = les.scheduleAtFixedRate(countDowner(runs), 0, 1, MILLISECONDS);
            CountDownLatch notified = new CountDownLatch(1);
            future.addListener(notified::countDown, MoreExecutors.directExecutor());
            await(runs);
            assertTrue(future.cancel(false));
            await(notified);
            assertTrue(future.isCancelled());
            assertThrows(CancellationException.class, future::get);
        }
    }

    /** Guava's Futures.withTimeout, which schedules its timeout on the executor, fails a stuck future in time. */
    @ForEachExecutor
    void guavaWithTimeoutFailsStuckFuture(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            SettableFuture<String> stuck = SettableFuture.create();
            long t0 = System.nanoTime();
            ListenableFuture<String> bounded = Futures.withTimeout(stuck, SHORT_DELAY_MS, MILLISECONDS, s.executor());
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> get(bounded));
            assertInstanceOf(TimeoutException.class, e.getCause());
            assertNotEarly(t0, SHORT_DELAY_MS, MILLISECONDS);
            eventually().until(stuck::isCancelled); // Guava cancels it after failing the bounded future
            boolean terminated = MoreExecutors.shutdownAndAwaitTermination(s.executor(), LONG_DELAY);
            assertFalse(Thread.currentThread().isInterrupted(), "the caller was interrupted: " + s.executor());
            assertTrue(terminated, s.executor().toString());
        }
    }

    /**
     * Caffeine with {@code Scheduler.forScheduledExecutorService}: an expireAfterWrite(200 ms) entry is evicted, and
     * its removal listener called, without any further access to the cache.
     */
    @ForEachExecutor
    void caffeineEvictsExpiredEntryWithoutAccess(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            AtomicReference<RemovalCause> cause = new AtomicReference<>();
            AtomicLong removedAt = new AtomicLong();
            CountDownLatch removed = new CountDownLatch(1);
            Cache<String, String> cache = Caffeine.newBuilder()
                    .expireAfterWrite(Duration.ofMillis(200))
                    .scheduler(Scheduler.forScheduledExecutorService(s.executor()))
                    .executor(s.executor())
                    .removalListener((String key, String value, RemovalCause c) -> {
                        cause.set(c);
                        removedAt.set(System.nanoTime());
                        removed.countDown();
                    })
                    .build();
            long t0 = System.nanoTime();
            cache.put("key", "value");
            await(removed); // no cache access until the listener ran
            assertEquals(RemovalCause.EXPIRED, cause.get());
            assertTrue(removedAt.get() - t0 >= MILLISECONDS.toNanos(200), "evicted before it expired");
            assertNull(cache.getIfPresent("key"));
        }
    }
}
