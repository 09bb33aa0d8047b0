package io.timingwheel.tck;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.timingwheel.TimingWheelExecutor;
import io.timingwheel.tck.ExecutorKind.Subject;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import org.junit.jupiter.api.Test;

/**
 * With one worker, due tasks run in deadline order, and tasks with equal deadlines in the order they were submitted:
 * the JDK's executor takes them from a heap ordered so, and code that uses a one-thread scheduled executor as a
 * serial timer depends on it. The order is judged by the futures themselves ({@code compareTo}, which compares
 * deadlines), so no clock reading of the test's own can blur it. The tests hold the one worker busy or count on it
 * alone, so they run for the kinds with threads of their own; an external executor owns its threads, and what ours
 * promises it (due tasks handed over in deadline order) is checked with a one-thread executor at the end.
 */
class RunOrderTest extends TckTestCase {

    private static final int TASKS = 2_000;
    /** Deadlines this far apart: much finer than the wheel's tick, so ticks alone cannot order them. */
    private static final long SPACING_NANOS = 50_000;
    /** Every task is submitted before the first is due, unless the machine stalls the producer this long. */
    private static final long FIRST_DEADLINE_MS = 300;

    /** A worker that keeps up: each task runs when it is due, in deadline order, though submitted shuffled. */
    @ForEachPooledKind
    void freeWorkerRunsDueTasksInDeadlineOrder(ExecutorKind kind) throws Exception {
        for (int attempt = 1;; attempt++) {
            try (Subject s = kind.create(1)) {
                Queue<ScheduledFuture<?>> ran = new ConcurrentLinkedQueue<>();
                List<ScheduledFuture<?>> futures = scheduleShuffled(s.executor, ran, FIRST_DEADLINE_MS, 11 * attempt);
                if (anyDue(futures)) { // the producer was stalled past the first deadline: the run proves nothing
                    assertTrue(attempt < 5, "the producer was stalled past the first deadline five times");
                    continue;
                }
                awaitAll(futures);
                assertInDeadlineOrder(new ArrayList<>(ran));
                return;
            }
        }
    }

    /** A worker held busy until every task is due: it then takes them in deadline order. */
    @ForEachPooledKind
    void busyWorkerRunsDueTasksInDeadlineOrder(ExecutorKind kind) throws Exception {
        try (Subject s = kind.create(1)) {
            CountDownLatch release = holdTheWorker(s);
            Queue<ScheduledFuture<?>> ran = new ConcurrentLinkedQueue<>();
            List<ScheduledFuture<?>> futures = scheduleShuffled(s.executor, ran, 1, 7);
            eventually().until(() -> allDue(futures));
            release.countDown();
            awaitAll(futures);
            assertInDeadlineOrder(new ArrayList<>(ran));
        }
    }

    /**
     * Equal or rising deadlines from one thread: tasks run in the order they were submitted, with the worker busy while
     * they are submitted (the deadlines of {@code execute} and of one delay read the clock in turn, so many are equal
     * on a coarse clock, and the rest rise with submission).
     */
    @ForEachPooledKind
    void tiesRunInSubmissionOrder(ExecutorKind kind) throws Exception {
        try (Subject s = kind.create(1)) {
            CountDownLatch release = holdTheWorker(s);
            Queue<Integer> ran = new ConcurrentLinkedQueue<>();
            List<ScheduledFuture<?>> futures = new ArrayList<>();
            for (int i = 0; i < TASKS; i++) {
                int index = i;
                Runnable record = () -> ran.add(index);
                if (i % 2 == 0) {
                    s.executor.execute(record);
                } else {
                    futures.add(s.executor.schedule(record, 0, MILLISECONDS));
                }
            }
            release.countDown();
            eventually().until(() -> ran.size() == TASKS);
            List<Integer> order = new ArrayList<>(ran);
            for (int i = 0; i < TASKS; i++) {
                if (order.get(i) != i) {
                    fail(kind + ": task " + order.get(i) + " ran in place " + i + ": " + order.subList(0, i + 1));
                }
            }
            awaitAll(futures);
        }
    }

    /**
     * A fixed-rate task among one-shot tasks, all of them due while the worker is busy: each run of the periodic task
     * takes its place by its own deadline (its backlog of runs comes at its nominal times, interleaved with the
     * one-shot tasks due between them), not at the end and not all at once.
     */
    @ForEachPooledKind
    void periodicRunsTakeTheirPlaceByTheirOwnDeadline(ExecutorKind kind) throws Exception {
        try (Subject s = kind.create(1)) {
            ScheduledThreadPoolExecutor e = s.executor;
            CountDownLatch release = holdTheWorker(s);
            int oneShots = 60;
            long periodMs = 10;
            Queue<String> ran = new ConcurrentLinkedQueue<>();
            List<ScheduledFuture<?>> futures = new ArrayList<>();
            long[] deadlines = new long[oneShots];
            for (int i = 0; i < oneShots; i++) {
                String name = "o" + i;
                futures.add(e.schedule(() -> ran.add(name), 2 * i, MILLISECONDS));
            }
            // Its first run falls between two one-shot deadlines, a millisecond from each.
            int[] runs = new int[1];
            ScheduledFuture<?> periodic = e.scheduleAtFixedRate(() -> ran.add("p" + runs[0]++), 5, periodMs,
                    MILLISECONDS);
            for (int i = 0; i < oneShots; i++) {
                deadlines[i] = deadlineOf(futures.get(i));
            }
            long firstPeriodic = deadlineOf(periodic);
            eventually().until(() -> allDue(futures));
            release.countDown();
            awaitAll(futures);
            periodic.cancel(false);
            List<String> order = new ArrayList<>(ran);
            // Every run of the periodic task must come after the one-shot tasks due before it, and before those due
            // after it; a millisecond either way is beyond any error of the deadlines read above.
            int periodicRuns = 0;
            int oneShotsRun = 0;
            for (String name : order) {
                if (name.startsWith("o")) {
                    oneShotsRun++;
                    continue;
                }
                long due = firstPeriodic + MILLISECONDS.toNanos(periodMs) * periodicRuns++;
                int dueBefore = 0;
                for (long d : deadlines) {
                    if (d - due < 0) {
                        dueBefore++;
                    }
                }
                if (dueBefore == oneShots) {
                    break; // from here on it competes with none of them
                }
                assertEquals(dueBefore, oneShotsRun, kind + ": run " + name + " was due after " + dueBefore
                        + " one-shot tasks but ran after " + oneShotsRun + ": " + order);
            }
            assertTrue(periodicRuns >= 10, kind + ": only " + periodicRuns + " runs of the periodic task: " + order);
        }
    }

    /**
     * An external executor of one thread is handed the due tasks in deadline order, so it runs them in that order, as
     * the executor's own worker would (the JDK's executor has no external executor: this one is ours alone).
     */
    @Test
    void externalExecutorIsHandedDueTasksInDeadlineOrder() throws Exception {
        for (int attempt = 1;; attempt++) {
            ExecutorService oneThread = Executors.newSingleThreadExecutor();
            TimingWheelExecutor e = TimingWheelExecutor.builder().workerExecutor(oneThread).build();
            try {
                Queue<ScheduledFuture<?>> ran = new ConcurrentLinkedQueue<>();
                List<ScheduledFuture<?>> futures = scheduleShuffled(e, ran, FIRST_DEADLINE_MS, 5 * attempt);
                if (anyDue(futures)) { // a due task is handed over at once: the rest must not be still to come
                    assertTrue(attempt < 5, "the producer was stalled past the first deadline five times");
                    continue;
                }
                awaitAll(futures);
                assertInDeadlineOrder(new ArrayList<>(ran));
                return;
            } finally {
                e.shutdownNow();
                oneThread.shutdownNow();
                assertTrue(e.awaitTermination(LONG_DELAY_MS, MILLISECONDS));
            }
        }
    }

    /** Schedules {@link #TASKS} tasks with deadlines {@link #SPACING_NANOS} apart, in a shuffled order. */
    private static List<ScheduledFuture<?>> scheduleShuffled(ScheduledThreadPoolExecutor e,
            Queue<ScheduledFuture<?>> ran, long firstDeadlineMs, long seed) {
        List<Integer> slots = new ArrayList<>();
        for (int i = 0; i < TASKS; i++) {
            slots.add(i);
        }
        Collections.shuffle(slots, new Random(seed));
        long base = System.nanoTime() + MILLISECONDS.toNanos(firstDeadlineMs);
        List<ScheduledFuture<?>> futures = new ArrayList<>();
        for (int slot : slots) {
            ScheduledFuture<?>[] self = new ScheduledFuture<?>[1];
            CountDownLatch published = new CountDownLatch(1);
            self[0] = e.schedule(() -> {
                awaitUninterruptibly(published);
                ran.add(self[0]);
            }, base + slot * SPACING_NANOS - System.nanoTime(), NANOSECONDS);
            published.countDown();
            futures.add(self[0]);
        }
        return futures;
    }

    /** Fails unless each future's deadline is no earlier than the one before it. */
    private static void assertInDeadlineOrder(List<ScheduledFuture<?>> ran) {
        assertEquals(TASKS, ran.size());
        int inversions = 0;
        int first = -1;
        for (int i = 1; i < ran.size(); i++) {
            if (ran.get(i - 1).compareTo(ran.get(i)) > 0) {
                inversions++;
                first = first < 0 ? i : first;
            }
        }
        assertEquals(0, inversions, "neighbours in run order with inverted deadlines, the first at " + first);
    }

    private static boolean anyDue(List<ScheduledFuture<?>> futures) {
        return futures.stream().anyMatch(f -> f.getDelay(NANOSECONDS) <= 0);
    }

    private static boolean allDue(List<ScheduledFuture<?>> futures) {
        return futures.stream().allMatch(f -> f.getDelay(NANOSECONDS) <= 0);
    }

    private static void awaitAll(List<ScheduledFuture<?>> futures) throws Exception {
        for (ScheduledFuture<?> f : futures) {
            get(f);
        }
    }

    /** @return the future's deadline on the {@code System.nanoTime()} scale, read within a few microseconds */
    private static long deadlineOf(ScheduledFuture<?> f) {
        for (;;) {
            long before = System.nanoTime();
            long delay = f.getDelay(NANOSECONDS);
            long after = System.nanoTime();
            if (after - before < 100_000) {
                return before + delay;
            }
        }
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        for (;;) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
