package io.timingwheel.tck;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.timingwheel.tck.ExecutorKind.Subject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The four counts code written for the JDK reads ({@code getTaskCount}, {@code getCompletedTaskCount},
 * {@code getActiveCount}, {@code getQueue().size()}), read as the JDK's read them wherever a task waits inside the
 * executor: behind a busy worker, straight from its producer, handed over by the master ahead of its deadline. The JDK
 * counts a run as completed once it and its {@code afterExecute} have returned, as active from just before
 * {@code beforeExecute}, and every task it accepted and has not started as queued; so inside the runs of tasks that
 * waited behind one another on one worker the counts are exact, and they are what these tests expect.
 */
class CountsTest extends TckTestCase {

    /** What a task read of the four counts inside its run. */
    record Counts(long tasks, long completed, int active, int queued) {
        static Counts of(ScheduledThreadPoolExecutor e) {
            // the order in which the JDK's getTaskCount adds them up: a run that ends between two reads moves from
            // the queue to the active count to the completed one, never backwards, so only a later read can be higher
            return new Counts(e.getTaskCount(), e.getCompletedTaskCount(), e.getActiveCount(), e.getQueue().size());
        }
    }

    /** How a task behind the busy worker is submitted. */
    enum Submission {
        EXECUTE, SCHEDULE_ZERO, SCHEDULE_SOON, SCHEDULE_PAST_THE_STRAIGHT_REACH
    }

    /** Tasks due at once, queued by execute behind a busy lone worker: each reads the counts the JDK's reads. */
    @ForEachPooledKind
    void threeExecutedTasksBehindABusyWorker(ExecutorKind kind) throws Exception {
        checkCountsInsideRuns(kind, 3, Submission.EXECUTE);
    }

    /** The same with forty tasks: more than a worker takes at once. */
    @ForEachPooledKind
    void fortyExecutedTasksBehindABusyWorker(ExecutorKind kind) throws Exception {
        checkCountsInsideRuns(kind, 40, Submission.EXECUTE);
    }

    /** The same with {@code schedule(task, 0)}. */
    @ForEachPooledKind
    void fortyTasksScheduledWithoutDelayBehindABusyWorker(ExecutorKind kind) throws Exception {
        checkCountsInsideRuns(kind, 40, Submission.SCHEDULE_ZERO);
    }

    /** The same with timers due within a few milliseconds (they come straight to the workers, past the master). */
    @ForEachPooledKind
    void fortyTimersDueSoonBehindABusyWorker(ExecutorKind kind) throws Exception {
        checkCountsInsideRuns(kind, 40, Submission.SCHEDULE_SOON);
    }

    /** The same with timers due later than the straight reach: the master hands them over ahead of their deadlines. */
    @ForEachPooledKind
    void fortyTimersHandedOverByTheMasterBehindABusyWorker(ExecutorKind kind) throws Exception {
        checkCountsInsideRuns(kind, 40, Submission.SCHEDULE_PAST_THE_STRAIGHT_REACH);
    }

    /**
     * With one worker held busy, {@code count} tasks submitted as {@code how} wait until all are due; then the worker
     * is let go, and the task in place {@code i} reads, inside its run: {@code count + 1} tasks, {@code i + 1}
     * completed, 1 active, {@code count - 1 - i} queued. Read from the test thread before the release: the same with
     * 0 completed and all queued.
     */
    private void checkCountsInsideRuns(ExecutorKind kind, int count, Submission how) throws Exception {
        try (Subject s = kind.create(1)) {
            ScheduledThreadPoolExecutor e = s.executor;
            CountDownLatch release = holdTheWorker(s);
            AtomicReferenceArray<Counts> read = new AtomicReferenceArray<>(count);
            CountDownLatch ran = new CountDownLatch(count);
            List<java.util.concurrent.Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                int place = i;
                Runnable reader = () -> {
                    read.set(place, Counts.of(e));
                    ran.countDown();
                };
                switch (how) {
                    case EXECUTE -> e.execute(reader);
                    case SCHEDULE_ZERO -> futures.add(e.schedule(reader, 0, MILLISECONDS));
                    case SCHEDULE_SOON -> futures.add(e.schedule(reader, 5, MILLISECONDS));
                    case SCHEDULE_PAST_THE_STRAIGHT_REACH -> futures.add(e.schedule(reader, 120, MILLISECONDS));
                    default -> throw new AssertionError(how);
                }
            }
            // every task is due before the worker is let go, so they run one after another, in submission order
            eventually().until(() -> futures.stream().allMatch(f -> ((java.util.concurrent.Delayed) f)
                    .getDelay(MILLISECONDS) <= 0));
            // a task handed over ahead of its deadline has reached the worker's queue by now; read from outside
            assertEquals(new Counts(count + 1, 0, 1, count), Counts.of(e), kind + ": counts with the worker busy");
            release.countDown();
            await(ran);
            for (int i = 0; i < count; i++) {
                assertEquals(new Counts(count + 1, i + 1, 1, count - 1 - i), read.get(i),
                        kind + ": the counts that task " + i + " of " + count + " (" + how + ") read in its run");
            }
            eventually().until(() -> e.getCompletedTaskCount() == count + 1);
            assertEquals(new Counts(count + 1, count + 1, 0, 0), Counts.of(e), kind + ": counts once all ran");
        }
    }

    /**
     * With several workers, each held busy and tasks queued behind them: read from outside, every worker counts as
     * active, every waiting task as queued; once all have run, every run as completed.
     */
    @ForEachPooledKind
    void countsWithEveryOneOfFourWorkersBusy(ExecutorKind kind) throws Exception {
        int workers = 4;
        int queued = 50;
        try (Subject s = kind.create(workers)) {
            ScheduledThreadPoolExecutor e = s.executor;
            CountDownLatch release = new CountDownLatch(1);
            CyclicBarrier allBusy = new CyclicBarrier(workers + 1);
            for (int i = 0; i < workers; i++) {
                e.execute(task(() -> {
                    allBusy.await();
                    await(release);
                }));
            }
            allBusy.await();
            CountDownLatch ran = new CountDownLatch(queued);
            for (int i = 0; i < queued; i++) {
                if (i % 2 == 0) {
                    e.execute(ran::countDown);
                } else {
                    e.schedule(ran::countDown, 0, MILLISECONDS);
                }
            }
            assertEquals(new Counts(workers + queued, 0, workers, queued), Counts.of(e), kind + ": all workers busy");
            release.countDown();
            await(ran);
            eventually().until(() -> e.getCompletedTaskCount() == workers + queued && e.getActiveCount() == 0);
            assertEquals(new Counts(workers + queued, workers + queued, 0, 0), Counts.of(e), kind + ": all ran");
        }
    }
}
