package io.timingwheel.tck;

import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.timingwheel.tck.ExecutorKind.Subject;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Delayed;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What code written for the JDK's pools does with {@code getQueue()}: every {@code BlockingQueue} method, on both
 * executors. Deliberate difference, strictly better for such code: a task removed from our queue (remove, clear,
 * removeIf, removeAll, retainAll, the iterator's remove) is cancelled, so its future completes; the JDK's is left
 * incomplete for ever, and a thread in its {@code get()} waits for ever. Taking out ({@code poll}, {@code take},
 * {@code drainTo}) behaves as the JDK's delay queue: only due tasks, those due first, handed to the caller uncancelled.
 * The tests that hold the one worker busy run for the kinds with threads of their own.
 */
class QueueIdiomsTest extends TckTestCase {

    /** clear() before shutdownNow(): the far timers are dropped, none is returned, the executor terminates. */
    @ForEachKind
    void clearDropsEveryPendingTask(ExecutorKind kind) throws Exception {
        try (Subject s = kind.create(1)) {
            ScheduledThreadPoolExecutor e = s.executor;
            List<ScheduledFuture<?>> far = scheduleFar(e, 100);
            e.getQueue().clear();
            assertTrue(e.getQueue().isEmpty());
            assertEquals(0, e.getQueue().size());
            assertTrue(e.shutdownNow().isEmpty());
            assertTrue(e.awaitTermination(LONG_DELAY_MS, MILLISECONDS));
            assertRemovedFutures(s, far);
        }
    }

    /** remove(task): true once, then false; the removed task never runs; the others do. */
    @ForEachKind
    void removeTakesOneTaskOut(ExecutorKind kind) throws Exception {
        try (Subject s = kind.create(1)) {
            ScheduledThreadPoolExecutor e = s.executor;
            AtomicInteger removedRuns = new AtomicInteger();
            ScheduledFuture<?> removed = e.schedule(removedRuns::incrementAndGet, SHORT_DELAY_MS, MILLISECONDS);
            ScheduledFuture<?> kept = e.schedule(NOOP, 2 * SHORT_DELAY_MS, MILLISECONDS);
            BlockingQueue<Runnable> q = e.getQueue();
            assertTrue(q.remove(removed));
            assertFalse(q.remove(removed));
            assertFalse(q.contains(removed));
            assertFalse(q.remove(NOOP));
            get(kept);
            assertEquals(0, removedRuns.get());
            assertRemovedFutures(s, List.of(removed));
        }
    }

    /** removeIf, removeAll, retainAll: exactly the chosen tasks leave the queue, the others stay. */
    @ForEachKind
    void bulkRemovalsTakeOutExactlyTheChosenTasks(ExecutorKind kind) throws Exception {
        try (Subject s = kind.create(1)) {
            ScheduledThreadPoolExecutor e = s.executor;
            List<ScheduledFuture<?>> oneShots = scheduleFar(e, 6);
            ScheduledFuture<?> periodic = e.scheduleAtFixedRate(NOOP, 1, 1, HOURS);
            BlockingQueue<Runnable> q = e.getQueue();

            assertTrue(q.removeIf(r -> ((RunnableScheduledFuture<?>) r).isPeriodic()));
            assertFalse(q.removeIf(r -> ((RunnableScheduledFuture<?>) r).isPeriodic()));
            assertEquals(identitySet(oneShots), identitySet(q));

            assertTrue(q.removeAll(oneShots.subList(0, 2)));
            assertEquals(identitySet(oneShots.subList(2, 6)), identitySet(q));

            assertTrue(q.retainAll(oneShots.subList(2, 4)));
            assertFalse(q.retainAll(oneShots.subList(2, 4)));
            assertEquals(identitySet(oneShots.subList(2, 4)), identitySet(q));

            List<ScheduledFuture<?>> removed = new ArrayList<>(oneShots.subList(0, 2));
            removed.addAll(oneShots.subList(4, 6));
            removed.add(periodic);
            assertRemovedFutures(s, removed);
            for (ScheduledFuture<?> f : oneShots.subList(2, 4)) {
                assertFalse(f.isDone());
            }
        }
    }

    /** The iterator's remove() takes out the task last returned, and only it; a second remove() is refused. */
    @ForEachKind
    void iteratorRemoveTakesOutTheLastTaskReturned(ExecutorKind kind) throws Exception {
        try (Subject s = kind.create(1)) {
            ScheduledThreadPoolExecutor e = s.executor;
            List<ScheduledFuture<?>> far = scheduleFar(e, 4);
            Iterator<Runnable> it = e.getQueue().iterator();
            assertThrows(IllegalStateException.class, it::remove);
            Runnable first = it.next();
            it.remove();
            assertThrows(IllegalStateException.class, it::remove);
            int rest = 0;
            while (it.hasNext()) {
                assertTrue(far.contains(it.next()));
                rest++;
            }
            assertEquals(3, rest);
            assertFalse(e.getQueue().contains(first));
            assertEquals(3, e.getQueue().size());
            assertRemovedFutures(s, List.of((ScheduledFuture<?>) first));
        }
    }

    /**
     * drainTo takes only the due tasks, those due first, as a delay queue does, and the caller then holds them: the
     * executor does not run them, the caller may, and the far tasks stay queued. drainTo(sink, max) takes at most max.
     */
    @ForEachPooledKind
    void drainToTakesOnlyDueTasksInDeadlineOrder(ExecutorKind kind) throws Exception {
        try (Subject s = kind.create(1)) {
            ScheduledThreadPoolExecutor e = s.executor;
            CountDownLatch release = holdTheWorker(s);
            AtomicInteger runs = new AtomicInteger();
            List<ScheduledFuture<?>> due = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                due.add(e.schedule(runs::incrementAndGet, 0, NANOSECONDS));
            }
            List<ScheduledFuture<?>> far = scheduleFar(e, 2);
            eventually().until(() -> due.stream().allMatch(f -> f.getDelay(NANOSECONDS) <= 0));
            BlockingQueue<Runnable> q = e.getQueue();
            assertThrows(IllegalArgumentException.class, () -> q.drainTo(q));
            assertEquals(0, q.drainTo(new ArrayList<>(), 0));

            List<Runnable> drained = new ArrayList<>();
            assertEquals(1, q.drainTo(drained, 1));
            assertEquals(3, q.drainTo(drained));
            assertEquals(due, drained);
            assertEquals(0, q.drainTo(drained));
            assertEquals(identitySet(far), identitySet(q));

            release.countDown();
            ScheduledFuture<?> after = e.schedule(NOOP, 0, NANOSECONDS);
            get(after);
            assertEquals(0, runs.get(), "the executor ran a drained task");
            for (Runnable r : drained) {
                assertFalse(((ScheduledFuture<?>) r).isDone());
                r.run(); // the caller's now
                assertTrue(((ScheduledFuture<?>) r).isDone());
            }
            assertEquals(4, runs.get());
        }
    }

    /**
     * The tasks due behind a running one stay the queue's, however the pool takes them ahead (ours: a lone worker takes
     * them with the one it starts, in one hold of its lock, unclaimed): the queue counts and shows them, remove takes
     * one out for good, drainTo hands the first to the caller, shutdownNow returns the last, and none of them runs.
     */
    @ForEachPooledKind
    void dueTasksBehindARunningOneStayInTheQueue(ExecutorKind kind) throws Exception {
        try (Subject s = kind.create(1)) {
            ScheduledThreadPoolExecutor e = s.executor;
            CountDownLatch releaseFirst = holdTheWorker(s);
            CountDownLatch secondStarted = new CountDownLatch(1);
            CountDownLatch releaseSecond = new CountDownLatch(1);
            e.execute(() -> {
                secondStarted.countDown();
                try {
                    releaseSecond.await();
                } catch (InterruptedException interruptedByShutdownNow) {
                    Thread.currentThread().interrupt();
                }
            });
            AtomicInteger runs = new AtomicInteger();
            List<ScheduledFuture<?>> behind = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                behind.add(e.schedule(runs::incrementAndGet, 0, NANOSECONDS));
            }
            eventually().until(() -> behind.stream().allMatch(f -> f.getDelay(NANOSECONDS) <= 0));
            releaseFirst.countDown(); // the worker takes the second task, the three due behind it
            await(secondStarted);

            BlockingQueue<Runnable> q = e.getQueue();
            assertEquals(3, q.size());
            assertEquals(identitySet(behind), identitySet(q));
            assertTrue(q.remove(behind.get(0)));
            assertFalse(q.contains(behind.get(0)));
            List<Runnable> drained = new ArrayList<>();
            assertEquals(1, q.drainTo(drained, 1));
            assertEquals(List.of(behind.get(1)), drained);
            assertEquals(List.of(behind.get(2)), e.shutdownNow());
            releaseSecond.countDown();
            assertTrue(e.awaitTermination(LONG_DELAY_MS, MILLISECONDS));
            assertEquals(0, runs.get(), "the executor ran a task taken out of its queue");
        }
    }

    /** poll(): null while nothing is due, and the far task is left as it was; a due task, taken out, once it is. */
    @ForEachPooledKind
    void pollTakesADueTaskOrGivesNull(ExecutorKind kind) throws Exception {
        try (Subject s = kind.create(1)) {
            ScheduledThreadPoolExecutor e = s.executor;
            BlockingQueue<Runnable> q = e.getQueue();
            assertNull(q.poll());
            ScheduledFuture<?> far = e.schedule(NOOP, 1, HOURS);
            assertNull(q.poll());
            assertFalse(far.isDone());
            assertTrue(q.contains(far));

            CountDownLatch release = holdTheWorker(s);
            ScheduledFuture<?> due = e.schedule(NOOP, 0, NANOSECONDS);
            eventually().until(() -> due.getDelay(NANOSECONDS) <= 0);
            assertSame(due, q.poll());
            assertFalse(due.isDone());
            assertFalse(q.contains(due));
            assertNull(q.poll());
            release.countDown();
        }
    }

    /** poll(timeout): null after the timeout (never early) when nothing falls due; the task once it falls due. */
    @ForEachPooledKind
    void timedPollWaitsForADueTask(ExecutorKind kind) throws Exception {
        try (Subject s = kind.create(1)) {
            ScheduledThreadPoolExecutor e = s.executor;
            BlockingQueue<Runnable> q = e.getQueue();
            e.schedule(NOOP, 1, HOURS);
            long start = System.nanoTime();
            assertNull(q.poll(SHORT_DELAY_MS, MILLISECONDS));
            assertNotEarly(start, SHORT_DELAY_MS, MILLISECONDS);

            CountDownLatch release = holdTheWorker(s);
            start = System.nanoTime();
            ScheduledFuture<?> soon = e.schedule(NOOP, SHORT_DELAY_MS, MILLISECONDS);
            assertSame(soon, q.poll(LONG_DELAY_MS, MILLISECONDS));
            assertNotEarly(start, SHORT_DELAY_MS, MILLISECONDS);
            assertFalse(soon.isDone());
            release.countDown();
        }
    }

    /** take(): waits until a task is due and takes it out; an interrupt ends the wait with InterruptedException. */
    @ForEachPooledKind
    void takeWaitsForADueTask(ExecutorKind kind) throws Exception {
        try (Subject s = kind.create(1)) {
            ScheduledThreadPoolExecutor e = s.executor;
            BlockingQueue<Runnable> q = e.getQueue();
            CountDownLatch release = holdTheWorker(s);
            long start = System.nanoTime();
            ScheduledFuture<?> soon = e.schedule(NOOP, SHORT_DELAY_MS, MILLISECONDS);
            assertSame(soon, q.take());
            assertNotEarly(start, SHORT_DELAY_MS, MILLISECONDS);

            e.schedule(NOOP, 1, HOURS);
            Thread.currentThread().interrupt();
            assertThrows(InterruptedException.class, q::take);
            assertFalse(Thread.interrupted());
            release.countDown();
        }
    }

    /** peek(): the task due first, due or not, left in place; null when nothing is pending. */
    @ForEachKind
    void peekShowsTheTaskDueFirst(ExecutorKind kind) throws Exception {
        try (Subject s = kind.create(1)) {
            ScheduledThreadPoolExecutor e = s.executor;
            BlockingQueue<Runnable> q = e.getQueue();
            assertNull(q.peek());
            e.schedule(NOOP, 3, HOURS);
            ScheduledFuture<?> first = e.schedule(NOOP, 1, HOURS);
            e.schedule(NOOP, 2, HOURS);
            assertSame(first, q.peek());
            assertSame(first, q.peek());
            assertSame(first, q.element());
            assertEquals(3, q.size());
        }
    }

    /** size, isEmpty, contains, toArray (both forms): the pending tasks as schedule returned them. */
    @ForEachKind
    void lookingShowsThePendingTasks(ExecutorKind kind) throws Exception {
        try (Subject s = kind.create(1)) {
            ScheduledThreadPoolExecutor e = s.executor;
            BlockingQueue<Runnable> q = e.getQueue();
            assertTrue(q.isEmpty());
            assertEquals(0, q.toArray().length);
            List<ScheduledFuture<?>> far = scheduleFar(e, 5);
            assertEquals(5, q.size());
            assertFalse(q.isEmpty());
            for (ScheduledFuture<?> f : far) {
                assertTrue(q.contains(f));
            }
            assertFalse(q.contains(NOOP));
            assertFalse(q.contains(null));
            assertEquals(identitySet(far), identitySet(List.of(q.toArray())));
            Runnable[] typed = q.toArray(new Runnable[0]);
            assertEquals(identitySet(far), identitySet(List.of(typed)));
            assertEquals(Integer.MAX_VALUE, q.remainingCapacity());
        }
    }

    /**
     * A task put back after poll() runs when its delay has elapsed, as in the JDK; so does a RunnableScheduledFuture
     * the executor never made (its own getDelay says when it is due); add, offer and put do the same.
     */
    @ForEachPooledKind
    void addedScheduledFuturesRunWhenDue(ExecutorKind kind) throws Exception {
        try (Subject s = kind.create(1)) {
            ScheduledThreadPoolExecutor e = s.executor;
            BlockingQueue<Runnable> q = e.getQueue();
            CountDownLatch release = holdTheWorker(s);
            AtomicInteger runs = new AtomicInteger();
            ScheduledFuture<?> own = e.schedule(runs::incrementAndGet, 0, NANOSECONDS);
            eventually().until(() -> own.getDelay(NANOSECONDS) <= 0);
            Runnable taken = q.poll();
            assertSame(own, taken);
            assertTrue(q.add(taken));
            ForeignScheduledFuture offered = new ForeignScheduledFuture(runs::incrementAndGet, SHORT_DELAY_MS);
            ForeignScheduledFuture put = new ForeignScheduledFuture(runs::incrementAndGet, 0);
            assertTrue(q.offer(offered));
            q.put(put);
            assertTrue(q.contains(offered));
            release.countDown();
            get(own);
            offered.get(LONG_DELAY_MS, MILLISECONDS);
            put.get(LONG_DELAY_MS, MILLISECONDS);
            assertNotEarly(offered.start, SHORT_DELAY_MS, MILLISECONDS);
            assertEquals(3, runs.get());
        }
    }

    /**
     * After shutdown(), with the default policy keeping delayed tasks, a task added to the queue of an executor that
     * has not terminated still runs when due, as in the JDK.
     */
    @ForEachKind
    void addAfterShutdownRunsWhileTheExecutorLives(ExecutorKind kind) throws Exception {
        try (Subject s = kind.create(1)) {
            ScheduledThreadPoolExecutor e = s.executor;
            ScheduledFuture<?> keepsItAlive = e.schedule(NOOP, 1, HOURS);
            e.shutdown();
            ForeignScheduledFuture added = new ForeignScheduledFuture(NOOP, 0);
            assertTrue(e.getQueue().add(added));
            added.get(LONG_DELAY_MS, MILLISECONDS);
            assertFalse(e.isTerminated());
            keepsItAlive.cancel(false);
            e.getQueue().remove(keepsItAlive);
        }
    }

    // -- helpers ----------------------------------------------------------------------------------------------------

    /**
     * Checks what removal left of the futures: ours are cancelled, so a waiter in get() is released; the JDK's are
     * not done (a waiter waits for ever). Either way none of them ran.
     */
    private static void assertRemovedFutures(Subject s, List<ScheduledFuture<?>> removed) {
        for (ScheduledFuture<?> f : removed) {
            if (s.isReference()) {
                assertFalse(f.isDone(), "the JDK leaves a removed task's future incomplete");
            } else {
                assertTrue(f.isCancelled(), "ours cancels a removed task");
            }
        }
    }

    /** Schedules {@code n} tasks an hour or more ahead, each a minute after the one before. */
    private static List<ScheduledFuture<?>> scheduleFar(ScheduledThreadPoolExecutor e, int n) {
        List<ScheduledFuture<?>> futures = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            futures.add(e.schedule(NOOP, 60 + i, TimeUnit.MINUTES));
        }
        return futures;
    }

    private static Set<Object> identitySet(Iterable<?> items) {
        Set<Object> set = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Object o : items) {
            set.add(o);
        }
        return set;
    }

    /** A RunnableScheduledFuture made by the caller, not by the executor: due {@code delayMs} after it was made. */
    static final class ForeignScheduledFuture extends FutureTask<Void> implements RunnableScheduledFuture<Void> {
        final long start = System.nanoTime();
        private final long deadline;

        ForeignScheduledFuture(Runnable body, long delayMs) {
            super(body, null);
            this.deadline = start + MILLISECONDS.toNanos(delayMs);
        }

        @Override
        public boolean isPeriodic() {
            return false;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(deadline - System.nanoTime(), NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed other) {
            return Long.compare(getDelay(NANOSECONDS), other.getDelay(NANOSECONDS));
        }
    }
}
