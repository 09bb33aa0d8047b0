package io.timingwheel.tck;

import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;

/**
 * STPE's management methods: counts, pool sizes, the thread factory, getQueue, remove, purge, the policies and
 * toString. Where ours is deliberately better (cancelled tasks leave the queue at once, remove() cancels, the queue
 * is read-only) the test states both behaviours.
 */
class ManagementTest extends TckTestCase {

    /** A ThreadFactory that remembers the threads it made. */
    static final class RecordingThreadFactory implements ThreadFactory {
        final Set<Thread> threads = ConcurrentHashMap.newKeySet();
        private final ThreadFactory delegate = Executors.defaultThreadFactory();

        @Override
        public Thread newThread(Runnable r) {
            Thread t = delegate.newThread(r);
            t.setDaemon(true);
            threads.add(t);
            return t;
        }
    }

    /** getActiveCount is 0 when idle and counts the tasks running. */
    @ForEachExecutor
    void activeCountCountsRunningTasks(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create(2)) {
            assertEquals(0, s.getActiveCount());
            CountDownLatch started = new CountDownLatch(2);
            CountDownLatch release = new CountDownLatch(1);
            s.releaseOnClose(release);
            for (int i = 0; i < 2; i++) {
                s.executor().execute(task(() -> {
                    started.countDown();
                    await(release);
                }));
            }
            await(started);
            assertEquals(2, s.getActiveCount());
            release.countDown();
            eventually().until(() -> s.getActiveCount() == 0);
        }
    }

    /** getCompletedTaskCount counts finished tasks once they have finished. */
    @ForEachExecutor
    void completedTaskCountCountsFinishedTasks(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            assertEquals(0, s.getCompletedTaskCount());
            for (int i = 0; i < 3; i++) {
                get(s.executor().schedule(NOOP, i, MILLISECONDS));
            }
            eventually().until(() -> s.getCompletedTaskCount() == 3);
        }
    }

    /** getCorePoolSize returns the pool size the executor was made with, including 0. */
    @ForEachExecutor
    void corePoolSizeIsTheConstructorArgument(SchedulerFactory f) {
        for (int n : new int[] {0, 1, 3}) {
            try (ManagedScheduler s = f.create(n)) {
                assertEquals(n, s.getCorePoolSize());
            }
        }
    }

    /** getPoolSize starts small (STPE: 0, threads start lazily) and counts the thread running a task. */
    @ForEachExecutor
    void poolSizeCountsWorkerThreads(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create(1)) {
            if (s.isReference()) {
                assertEquals(0, s.getPoolSize()); // STPE starts its threads on demand
            } else {
                assertTrue(s.getPoolSize() <= 1, "pool size " + s.getPoolSize()); // the contract: at most the workers
            }
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            s.releaseOnClose(release);
            s.executor().execute(task(() -> {
                started.countDown();
                await(release);
            }));
            await(started);
            assertEquals(1, s.getPoolSize());
        }
    }

    /** getTaskCount counts every accepted task: running, pending (delayed too) and completed. */
    @ForEachExecutor
    void taskCountCountsEveryAcceptedTask(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create(1)) {
            ScheduledExecutorService e = s.executor();
            assertEquals(0, s.getTaskCount());
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            s.releaseOnClose(release);
            e.execute(task(() -> {
                started.countDown();
                await(release);
            }));
            await(started);
            assertEquals(1, s.getTaskCount());
            List<ScheduledFuture<?>> delayed = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                delayed.add(e.schedule(NOOP, 1, HOURS));
            }
            assertEquals(4, s.getTaskCount());
            release.countDown();
            eventually().until(() -> s.getCompletedTaskCount() == 1);
            assertEquals(4, s.getTaskCount());
            for (ScheduledFuture<?> future : delayed) {
                future.cancel(false);
            }
        }
    }

    /** getThreadFactory returns the factory given to the constructor, and tasks run on threads it made. */
    @ForEachExecutor
    void threadFactoryIsTheConstructorArgumentAndMakesTheWorkers(SchedulerFactory f) throws Exception {
        RecordingThreadFactory threads = new RecordingThreadFactory();
        try (ManagedScheduler s = f.create(SchedulerFactory.Options.DEFAULTS.threadFactory(threads))) {
            assertSame(threads, s.getThreadFactory());
            Thread ranOn = get(s.executor().submit(Thread::currentThread));
            assertTrue(threads.threads.contains(ranOn), "task ran on " + ranOn + ", not a thread of the factory");
        }
    }

    /** A default thread factory exists; setThreadFactory replaces it; setThreadFactory(null) throws NPE. */
    @ForEachExecutor
    void setThreadFactoryReplacesTheFactoryAndRejectsNull(SchedulerFactory f) {
        try (ManagedScheduler s = f.create()) {
            assertNotNull(s.getThreadFactory());
            ThreadFactory threads = new RecordingThreadFactory();
            s.setThreadFactory(threads);
            assertSame(threads, s.getThreadFactory());
            assertThrows(NullPointerException.class, () -> s.setThreadFactory(null));
            assertSame(threads, s.getThreadFactory());
        }
    }

    /** getQueue holds the pending tasks, as the very futures schedule returned, and not the ones that ran. */
    @ForEachExecutor
    void queueHoldsThePendingFutures(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            ScheduledExecutorService e = s.executor();
            List<ScheduledFuture<?>> pending = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                pending.add(e.schedule(NOOP, 1 + i, HOURS));
            }
            pending.add(e.scheduleAtFixedRate(NOOP, 1, 1, HOURS));
            get(e.schedule(NOOP, 1, MILLISECONDS));
            BlockingQueue<Runnable> q = s.getQueue();
            assertEquals(4, q.size());
            assertFalse(q.isEmpty());
            for (ScheduledFuture<?> future : pending) {
                assertTrue(q.contains(future));
            }
            List<Runnable> elements = new ArrayList<>(q);
            assertEquals(4, elements.size());
            for (Runnable r : elements) {
                assertTrue(pending.contains(r), "queue holds an unknown task " + r);
            }
            for (ScheduledFuture<?> future : pending) {
                future.cancel(false);
            }
        }
    }

    /** getQueue() holds only RunnableScheduledFutures: a plain Runnable offered to it is a ClassCastException. */
    @ForEachExecutor
    void queueRejectsPlainRunnables(SchedulerFactory f) {
        try (ManagedScheduler s = f.create()) {
            BlockingQueue<Runnable> q = s.getQueue();
            // Both: the queue holds RunnableScheduledFutures; a plain Runnable is not one.
            assertThrows(ClassCastException.class, () -> q.offer(NOOP));
            assertThrows(ClassCastException.class, () -> q.add(NOOP));
            assertThrows(ClassCastException.class, () -> q.put(NOOP));
            assertTrue(q.isEmpty());
        }
    }

    /**
     * remove() takes a pending task out of the queue so it never runs. Deliberate difference: STPE leaves the removed
     * future NEW forever (get() would hang); ours cancels it.
     */
    @ForEachExecutor
    void removeTakesPendingTaskOut(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            CountDownLatch ran = new CountDownLatch(1);
            ScheduledFuture<?> future = s.executor().schedule(countDowner(ran), MEDIUM_DELAY_MS, MILLISECONDS);
            assertTrue(s.getQueue().contains(future));
            assertTrue(s.remove((Runnable) future));
            assertFalse(s.getQueue().contains(future));
            assertFalse(s.remove((Runnable) future));
            if (s.isReference()) {
                assertFalse(future.isDone()); // STPE: NEW forever
            } else {
                assertTrue(future.isCancelled()); // ours: cancelled, so get() does not hang
            }
            get(s.executor().schedule(NOOP, MEDIUM_DELAY_MS + SHORT_DELAY_MS, MILLISECONDS)); // past its deadline
            assertNotReleased(ran);
        }
    }

    /** remove() of a task that is not pending (never submitted, already run, or null) returns false. */
    @ForEachExecutor
    void removeOfUnknownOrFinishedTaskReturnsFalse(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            assertFalse(s.remove(NOOP));
            assertFalse(s.remove(null)); // STPE: false, no NullPointerException
            ScheduledFuture<?> done = s.executor().schedule(NOOP, 0, MILLISECONDS);
            get(done);
            assertFalse(s.remove((Runnable) done));
        }
    }

    /** purge() leaves only the live tasks in the queue; cancelled ones go. */
    @ForEachExecutor
    void purgeRemovesCancelledTasks(SchedulerFactory f) {
        try (ManagedScheduler s = f.create()) {
            List<ScheduledFuture<?>> futures = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                futures.add(s.executor().schedule(NOOP, 1 + i, HOURS));
            }
            for (int i = 0; i < 6; i += 2) {
                assertTrue(futures.get(i).cancel(false));
            }
            s.purge();
            BlockingQueue<Runnable> q = s.getQueue();
            assertEquals(3, q.size());
            for (int i = 0; i < 6; i++) {
                assertEquals(i % 2 == 1, q.contains(futures.get(i)));
            }
            for (ScheduledFuture<?> future : futures) {
                future.cancel(false);
            }
        }
    }

    /**
     * Deliberate difference: ours removes a cancelled task from the queue at once, whatever the remove-on-cancel
     * policy; STPE keeps it until its deadline unless setRemoveOnCancelPolicy(true).
     */
    @ForEachExecutor
    void cancelledTaskLeavesTheQueue(SchedulerFactory f) {
        try (ManagedScheduler s = f.create()) {
            assertFalse(s.getRemoveOnCancelPolicy());
            ScheduledFuture<?> kept = s.executor().schedule(NOOP, 1, HOURS);
            ScheduledFuture<?> periodic = s.executor().scheduleWithFixedDelay(NOOP, 1, 1, HOURS);
            assertTrue(kept.cancel(false));
            assertTrue(periodic.cancel(false));
            if (s.isReference()) {
                // STPE, default policy: cancelled tasks stay queued (and referenced) until their deadline.
                assertTrue(s.getQueue().contains(kept));
                assertTrue(s.getQueue().contains(periodic));
            } else {
                assertFalse(s.getQueue().contains(kept));
                assertFalse(s.getQueue().contains(periodic));
            }
            s.setRemoveOnCancelPolicy(true);
            assertTrue(s.getRemoveOnCancelPolicy());
            ScheduledFuture<?> removed = s.executor().schedule(NOOP, 1, HOURS);
            assertTrue(removed.cancel(false));
            assertFalse(s.getQueue().contains(removed)); // both, with the policy on
            s.setRemoveOnCancelPolicy(false);
            assertFalse(s.getRemoveOnCancelPolicy());
        }
    }

    /** The shutdown policies have STPE's defaults and keep what they are set to. */
    @ForEachExecutor
    void shutdownPoliciesRoundTrip(SchedulerFactory f) {
        try (ManagedScheduler s = f.create()) {
            assertTrue(s.getExecuteExistingDelayedTasksAfterShutdownPolicy());
            assertFalse(s.getContinueExistingPeriodicTasksAfterShutdownPolicy());
            assertFalse(s.getRemoveOnCancelPolicy());
            s.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
            s.setContinueExistingPeriodicTasksAfterShutdownPolicy(true);
            assertFalse(s.getExecuteExistingDelayedTasksAfterShutdownPolicy());
            assertTrue(s.getContinueExistingPeriodicTasksAfterShutdownPolicy());
            s.setExecuteExistingDelayedTasksAfterShutdownPolicy(true);
            s.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
            assertTrue(s.getExecuteExistingDelayedTasksAfterShutdownPolicy());
            assertFalse(s.getContinueExistingPeriodicTasksAfterShutdownPolicy());
        }
    }

    /** toString names the run state (Running, Shutting down, Terminated) as ThreadPoolExecutor's does. */
    @ForEachExecutor
    void toStringShowsTheRunState(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            ScheduledExecutorService e = s.executor();
            assertTrue(e.toString().contains("Running"), e.toString());
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            s.releaseOnClose(release);
            e.execute(task(() -> {
                started.countDown();
                await(release);
            }));
            await(started);
            e.shutdown();
            assertTrue(e.toString().contains("Shutting down"), e.toString());
            release.countDown();
            assertTrue(e.awaitTermination(LONG_DELAY_MS, MILLISECONDS));
            assertTrue(e.toString().contains("Terminated"), e.toString());
        }
    }

    /** getQueue reflects tasks as they are scheduled and as they run: a view, or a fresh snapshot per call. */
    @ForEachExecutor
    void queueFollowsTheTasks(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            assertTrue(s.getQueue().isEmpty());
            ScheduledFuture<?> soon = s.executor().schedule(NOOP, MEDIUM_DELAY_MS, MILLISECONDS);
            assertTrue(s.getQueue().contains(soon));
            assertTrue(soon instanceof RunnableScheduledFuture);
            get(soon);
            eventually().until(() -> s.getQueue().isEmpty());
        }
    }
}
