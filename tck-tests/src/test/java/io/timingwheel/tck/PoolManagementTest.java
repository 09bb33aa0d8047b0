package io.timingwheel.tck;

import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.timingwheel.tck.ExecutorKind.Subject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * ThreadPoolExecutor's pool management on a live executor, as STPE does it: growing and shrinking the core size,
 * prestarting threads, the largest pool size, the maximum pool size (kept, without effect), the keep-alive time and
 * core thread time-out, and the counts. Only for the executors with threads of their own: with an external executor
 * the pool settings are only remembered. (ManagementTest covers the counts of single tasks and the core size given
 * to the constructor; PoolSizeTest the extreme sizes.)
 */
class PoolManagementTest extends TckTestCase {

    /**
     * setCorePoolSize to a larger size starts workers for the tasks already waiting: with one worker busy and three
     * tasks queued, a core size of 4 runs all four at once; getPoolSize and getLargestPoolSize follow.
     */
    @ForEachPooledKind
    void setCorePoolSizeGrowsThePoolForWaitingTasks(ExecutorKind kind) throws Exception {
        try (Subject s = kind.create(1)) {
            ScheduledThreadPoolExecutor e = s.executor;
            CountDownLatch arrived = new CountDownLatch(4);
            CountDownLatch firstStarted = new CountDownLatch(1);
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                futures.add(e.submit(task(() -> {
                    firstStarted.countDown();
                    arrived.countDown();
                    await(arrived);
                })));
            }
            await(firstStarted);
            assertEquals(1, e.getPoolSize());
            assertEquals(1, e.getActiveCount());
            assertEquals(3, e.getQueue().size());
            e.setCorePoolSize(4);
            assertEquals(4, e.getCorePoolSize());
            await(arrived); // all four ran at the same time
            for (Future<?> f : futures) {
                get(f);
            }
            assertEquals(4, e.getPoolSize());
            assertEquals(4, e.getLargestPoolSize());
        }
    }

    /**
     * setCorePoolSize to a smaller size lets the excess workers leave once idle for the keep-alive time (STPE's
     * default: a few milliseconds); getLargestPoolSize never decreases, stays at least getPoolSize, and tasks still run.
     */
    @ForEachPooledKind
    void setCorePoolSizeShrinksThePoolOnceWorkersAreIdle(ExecutorKind kind) throws Exception {
        try (Subject s = kind.create(4)) {
            ScheduledThreadPoolExecutor e = s.executor;
            assertEquals(4, e.prestartAllCoreThreads());
            assertEquals(4, e.getPoolSize());
            assertEquals(4, e.getLargestPoolSize());
            e.setCorePoolSize(1);
            assertEquals(1, e.getCorePoolSize());
            AtomicInteger largestSeen = new AtomicInteger(4);
            eventually().until(() -> {
                int largest = e.getLargestPoolSize();
                int size = e.getPoolSize();
                assertTrue(largest >= largestSeen.get(), "getLargestPoolSize decreased");
                assertTrue(largest >= size, "getLargestPoolSize < getPoolSize");
                largestSeen.set(largest);
                return size == 1;
            });
            assertEquals(4, e.getLargestPoolSize());
            assertEquals("runs", get(e.submit(() -> "runs")));
            assertEquals(1, e.getPoolSize());
        }
    }

    /**
     * setCorePoolSize rejects a negative size and one greater than getMaximumPoolSize() with
     * IllegalArgumentException, and keeps the size it had.
     */
    @ForEachPooledKind
    void setCorePoolSizeRejectsBadValues(ExecutorKind kind) {
        try (Subject s = kind.create(2)) {
            ScheduledThreadPoolExecutor e = s.executor;
            assertThrows(IllegalArgumentException.class, () -> e.setCorePoolSize(-1));
            assertThrows(IllegalArgumentException.class, () -> e.setCorePoolSize(Integer.MIN_VALUE));
            e.setMaximumPoolSize(3);
            assertThrows(IllegalArgumentException.class, () -> e.setCorePoolSize(4));
            assertEquals(2, e.getCorePoolSize());
            e.setCorePoolSize(3);
            assertEquals(3, e.getCorePoolSize());
            e.setCorePoolSize(0);
            assertEquals(0, e.getCorePoolSize());
        }
    }

    /**
     * Each schedule call starts at most one thread until the core size is reached, as STPE's does: getPoolSize() counts
     * the calls, also for the first, which with us also starts the master thread (not a pool thread), and also for
     * tasks due at once.
     */
    @ForEachPooledKind
    void eachScheduleStartsOneThreadUpToTheCoreSize(ExecutorKind kind) {
        try (Subject s = kind.create(4)) {
            ScheduledThreadPoolExecutor e = s.executor;
            assertEquals(0, e.getPoolSize());
            for (int i = 1; i <= 3; i++) {
                e.schedule(() -> { }, 1, HOURS);
                assertEquals(i, e.getPoolSize(), "after delayed schedule " + i);
            }
            e.schedule(() -> { }, 1, HOURS);
            e.schedule(() -> { }, 1, HOURS);
            assertEquals(4, e.getPoolSize());
            assertEquals(4, e.getLargestPoolSize());
        }
    }

    /** prestartCoreThread starts a thread and returns true until the core size is reached, then returns false. */
    @ForEachPooledKind
    void prestartCoreThreadStartsThreadsUpToTheCoreSize(ExecutorKind kind) throws Exception {
        try (Subject s = kind.create(3)) {
            ScheduledThreadPoolExecutor e = s.executor;
            assertEquals(0, e.getPoolSize());
            for (int i = 1; i <= 3; i++) {
                assertTrue(e.prestartCoreThread());
                assertEquals(i, e.getPoolSize());
            }
            assertFalse(e.prestartCoreThread());
            assertEquals(3, e.getPoolSize());
            assertEquals(3, e.getLargestPoolSize());
            assertEquals("runs", get(e.schedule(() -> "runs", 1, MILLISECONDS)));
            assertEquals(3, e.getPoolSize());
        }
    }

    /**
     * prestartAllCoreThreads returns the number of threads it started: all of them at first, none the second time,
     * and after the core size grew with nothing queued (which starts no thread) the missing ones.
     */
    @ForEachPooledKind
    void prestartAllCoreThreadsReturnsTheNumberStarted(ExecutorKind kind) {
        try (Subject s = kind.create(3)) {
            ScheduledThreadPoolExecutor e = s.executor;
            assertEquals(3, e.prestartAllCoreThreads());
            assertEquals(3, e.getPoolSize());
            assertEquals(0, e.prestartAllCoreThreads());
            e.setCorePoolSize(5);
            assertEquals(3, e.getPoolSize());
            assertEquals(2, e.prestartAllCoreThreads());
            assertEquals(5, e.getPoolSize());
            assertEquals(5, e.getLargestPoolSize());
        }
    }

    /**
     * getMaximumPoolSize is Integer.MAX_VALUE by default; setMaximumPoolSize accepts any value not less than the core
     * size and rejects non-positive ones and those below the core size with IllegalArgumentException. It has no
     * effect on the pool: with the maximum at the core size, the core threads all run tasks at once.
     */
    @ForEachPooledKind
    void maximumPoolSizeIsCheckedAndKeptWithoutEffect(ExecutorKind kind) throws Exception {
        try (Subject s = kind.create(2)) {
            ScheduledThreadPoolExecutor e = s.executor;
            assertEquals(Integer.MAX_VALUE, e.getMaximumPoolSize());
            assertThrows(IllegalArgumentException.class, () -> e.setMaximumPoolSize(0));
            assertThrows(IllegalArgumentException.class, () -> e.setMaximumPoolSize(-1));
            assertThrows(IllegalArgumentException.class, () -> e.setMaximumPoolSize(1));
            assertEquals(Integer.MAX_VALUE, e.getMaximumPoolSize());
            e.setMaximumPoolSize(5);
            assertEquals(5, e.getMaximumPoolSize());
            e.setMaximumPoolSize(2);
            assertEquals(2, e.getMaximumPoolSize());
            CountDownLatch arrived = new CountDownLatch(2);
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                futures.add(e.schedule(task(() -> {
                    arrived.countDown();
                    await(arrived);
                }), i, MILLISECONDS));
            }
            for (Future<?> f : futures) {
                get(f);
            }
            assertEquals(2, e.getPoolSize());
            assertEquals(2, e.getCorePoolSize());
        }
    }

    /**
     * getKeepAliveTime is the JDK's default; setKeepAliveTime keeps what it is given, and rejects a negative time
     * (IllegalArgumentException), a null unit (NullPointerException), and 0 while core threads may time out
     * (IllegalArgumentException), which allowCoreThreadTimeOut(true) with a zero keep-alive time rejects too.
     */
    @ForEachPooledKind
    void keepAliveTimeHasTheJdkDefaultAndIsChecked(ExecutorKind kind) throws Exception {
        ScheduledThreadPoolExecutor jdk = new ScheduledThreadPoolExecutor(1);
        long jdkDefault = jdk.getKeepAliveTime(NANOSECONDS);
        jdk.shutdown();
        assertTrue(jdk.awaitTermination(LONG_DELAY_MS, MILLISECONDS));
        try (Subject s = kind.create(2)) {
            ScheduledThreadPoolExecutor e = s.executor;
            assertEquals(jdkDefault, e.getKeepAliveTime(NANOSECONDS));
            assertFalse(e.allowsCoreThreadTimeOut());
            assertThrows(IllegalArgumentException.class, () -> e.setKeepAliveTime(-1, MILLISECONDS));
            assertThrows(NullPointerException.class, () -> e.setKeepAliveTime(1, null));
            assertEquals(jdkDefault, e.getKeepAliveTime(NANOSECONDS));
            e.setKeepAliveTime(5, SECONDS);
            assertEquals(5000, e.getKeepAliveTime(MILLISECONDS));
            e.allowCoreThreadTimeOut(true);
            assertTrue(e.allowsCoreThreadTimeOut());
            assertThrows(IllegalArgumentException.class, () -> e.setKeepAliveTime(0, MILLISECONDS));
            assertEquals(5000, e.getKeepAliveTime(MILLISECONDS));
            e.allowCoreThreadTimeOut(false);
            e.setKeepAliveTime(0, MILLISECONDS);
            assertEquals(0, e.getKeepAliveTime(NANOSECONDS));
            assertThrows(IllegalArgumentException.class, () -> e.allowCoreThreadTimeOut(true));
            assertFalse(e.allowsCoreThreadTimeOut());
            e.allowCoreThreadTimeOut(false); // always allowed
            assertEquals("runs", get(e.submit(() -> "runs")));
        }
    }

    /**
     * allowCoreThreadTimeOut(true) lets idle core workers leave after the keep-alive time: with nothing pending the
     * pool empties, a new task starts a worker again, and the pool empties again after it.
     */
    @ForEachPooledKind
    void allowCoreThreadTimeOutLetsIdleCoreWorkersLeave(ExecutorKind kind) throws Exception {
        try (Subject s = kind.create(2)) {
            ScheduledThreadPoolExecutor e = s.executor;
            assertEquals(2, e.prestartAllCoreThreads());
            e.allowCoreThreadTimeOut(true);
            eventually().until(() -> e.getPoolSize() == 0);
            assertEquals("runs", get(e.submit(() -> "runs")));
            eventually().until(() -> e.getPoolSize() == 0);
            assertEquals(2, e.getLargestPoolSize());
        }
    }

    /**
     * With core thread time-out, the last worker stays while a delayed task is pending, as in the JDK (which must
     * have a thread to run it); once the task is cancelled (and, for STPE, removed: remove-on-cancel policy), it
     * leaves too.
     */
    @ForEachPooledKind
    void lastWorkerStaysWhileADelayedTaskIsPending(ExecutorKind kind) throws Exception {
        try (Subject s = kind.create(2)) {
            ScheduledThreadPoolExecutor e = s.executor;
            e.setRemoveOnCancelPolicy(true);
            ScheduledFuture<?> pending = e.schedule(NOOP, 1, HOURS);
            e.prestartAllCoreThreads();
            e.allowCoreThreadTimeOut(true);
            eventually().until(() -> e.getPoolSize() == 1);
            spin(MEDIUM_DELAY_MS); // twenty keep-alive times
            assertEquals(1, e.getPoolSize());
            assertTrue(pending.cancel(false));
            eventually().until(() -> e.getPoolSize() == 0);
        }
    }

    /**
     * getCompletedTaskCount and getTaskCount agree with the work done: each run of a periodic task counts, a task that
     * failed counts as completed, and getActiveCount is 0 once all is done.
     */
    @ForEachPooledKind
    void countsAgreeWithTheWorkDone(ExecutorKind kind) throws Exception {
        try (Subject s = kind.create(2)) {
            ScheduledThreadPoolExecutor e = s.executor;
            CountDownLatch ownFutureSet = new CountDownLatch(1);
            AtomicInteger runs = new AtomicInteger();
            List<ScheduledFuture<?>> periodic = new ArrayList<>(1);
            periodic.add(e.scheduleWithFixedDelay(task(() -> {
                await(ownFutureSet);
                if (runs.incrementAndGet() == 5) {
                    periodic.get(0).cancel(false); // from its own run: the fifth run is the last
                }
            }), 0, 1, MILLISECONDS));
            ownFutureSet.countDown();
            Future<?> failing = e.submit(() -> {
                throw new IllegalStateException("a failing task");
            });
            List<Future<?>> plain = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                plain.add(e.schedule(NOOP, i, MILLISECONDS));
            }
            assertThrows(ExecutionException.class, () -> get(failing));
            for (Future<?> f : plain) {
                get(f);
            }
            eventually().until(() -> periodic.get(0).isDone());
            eventually().until(() -> e.getCompletedTaskCount() == 9);
            assertEquals(5, runs.get());
            assertEquals(9, e.getTaskCount());
            eventually().until(() -> e.getActiveCount() == 0); // the JDK's worker unlocks after counting its run
            assertTrue(e.getQueue().isEmpty());
        }
    }
}
