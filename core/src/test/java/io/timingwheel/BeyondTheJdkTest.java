package io.timingwheel;

import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What the executor offers beyond the JDK's: statistics, failure handler, catch-up policy, views, JFR events. */
class BeyondTheJdkTest {
    private static final long TIMEOUT = 30;

    /** The statistics count completed, failed, cancelled and rejected tasks and record the lateness of every run. */
    @Test
    void statisticsCountWhatHappened() throws Exception {
        TimingWheelExecutor executor = TimingWheelExecutor.builder().maxPendingTasks(3).build();
        executor.schedule(() -> 1, 1, MILLISECONDS).get(TIMEOUT, SECONDS);
        Future<?> failing = executor.submit(() -> {
            throw new IllegalStateException("x");
        });
        assertThrows(ExecutionException.class, () -> failing.get(TIMEOUT, SECONDS));
        Future<?> a = executor.schedule(() -> { }, 1, HOURS);
        Future<?> b = executor.schedule(() -> { }, 1, HOURS);
        executor.schedule(() -> { }, 1, HOURS);
        assertThrows(RejectedExecutionException.class, () -> executor.schedule(() -> { }, 1, HOURS));
        a.cancel(false);
        b.cancel(true);
        assertFalse(a.cancel(false), "a second cancel does not count");
        awaitCompleted(executor, 2);
        ExecutorStatistics stats = executor.statistics();
        assertEquals(2, stats.completedRuns());
        assertEquals(1, stats.failedRuns());
        assertEquals(2, stats.cancelledTasks());
        assertEquals(1, stats.rejectedTasks());
        assertEquals(0, stats.runningTasks());
        assertEquals(2, stats.latenessSamples());
        assertTrue(stats.latenessPercentileNanos(1.0) > 0);
        assertThrows(IllegalArgumentException.class, () -> stats.latenessPercentileNanos(1.5));
        executor.shutdownNow();
    }

    /**
     * On an external executor, runs start on many threads at once, and each run's lateness is counted, none lost: the
     * external executor's threads share one histogram, which must take concurrent records.
     */
    @Test
    void latenessCountsEveryRunOnAnExternalExecutor() throws Exception {
        int producers = 4;
        int perProducer = 25_000;
        ExecutorService pool = Executors.newFixedThreadPool(8);
        TimingWheelExecutor executor = TimingWheelExecutor.builder().workerExecutor(pool).build();
        try {
            CountDownLatch ran = new CountDownLatch(producers * perProducer);
            List<Thread> threads = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                Thread t = new Thread(() -> {
                    for (int i = 0; i < perProducer; i++) {
                        executor.execute(ran::countDown);
                    }
                });
                threads.add(t);
                t.start();
            }
            for (Thread t : threads) {
                t.join();
            }
            assertTrue(ran.await(TIMEOUT, SECONDS));
            awaitCompleted(executor, producers * perProducer);
            assertEquals(producers * perProducer, executor.statistics().latenessSamples());
        } finally {
            executor.shutdownNow();
            pool.shutdownNow();
        }
    }

    /**
     * The failure handler gets the future as the caller holds it: with a {@code decorateTask} subclass, the decorated
     * one that {@code schedule} returned, not the task inside it.
     */
    @Test
    void failureHandlerGetsTheDecoratedFuture() throws Exception {
        CompletableFuture<Future<?>> handed = new CompletableFuture<>();
        @SuppressWarnings("unchecked")
        CompletableFuture<Future<?>>[] handedTo = new CompletableFuture[] {handed};
        TimingWheelExecutor executor = new TimingWheelExecutor(TimingWheelExecutor.builder()
                .taskFailureHandler((future, failure) -> handedTo[0].complete(future))) {
            @Override
            protected <V> RunnableScheduledFuture<V> decorateTask(Runnable runnable, RunnableScheduledFuture<V> task) {
                return new Wrapped<>(task);
            }

            @Override
            protected <V> RunnableScheduledFuture<V> decorateTask(Callable<V> callable, RunnableScheduledFuture<V> task) {
                return new Wrapped<>(task);
            }
        };
        try {
            Runnable failingRunnable = () -> {
                throw new IllegalStateException("fails");
            };
            Callable<Object> failingCallable = () -> {
                throw new IllegalStateException("fails");
            };
            Future<?> returned = executor.schedule(failingRunnable, 1, MILLISECONDS);
            assertInstanceOf(Wrapped.class, returned);
            assertSame(returned, handed.get(TIMEOUT, SECONDS));
            CompletableFuture<Future<?>> second = new CompletableFuture<>();
            handedTo[0] = second;
            returned = executor.schedule(failingCallable, 1, MILLISECONDS);
            assertInstanceOf(Wrapped.class, returned);
            assertSame(returned, second.get(TIMEOUT, SECONDS));
        } finally {
            executor.shutdownNow();
        }
    }

    /** A decoration that only delegates, as a tracing or context-passing wrapper does. */
    private static final class Wrapped<V> implements RunnableScheduledFuture<V> {
        private final RunnableScheduledFuture<V> inner;

        Wrapped(RunnableScheduledFuture<V> inner) {
            this.inner = inner;
        }

        @Override
        public boolean isPeriodic() {
            return inner.isPeriodic();
        }

        @Override
        public void run() {
            inner.run();
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return inner.getDelay(unit);
        }

        @Override
        public int compareTo(Delayed other) {
            return inner.compareTo(other);
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            return inner.cancel(mayInterruptIfRunning);
        }

        @Override
        public boolean isCancelled() {
            return inner.isCancelled();
        }

        @Override
        public boolean isDone() {
            return inner.isDone();
        }

        @Override
        public V get() throws InterruptedException, ExecutionException {
            return inner.get();
        }

        @Override
        public V get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
            return inner.get(timeout, unit);
        }
    }

    private static void awaitCompleted(TimingWheelExecutor executor, long runs) throws InterruptedException {
        long deadline = System.nanoTime() + SECONDS.toNanos(TIMEOUT);
        while (executor.statistics().completedRuns() < runs) {
            assertTrue(System.nanoTime() < deadline, "runs completed in time");
            Thread.sleep(1);
        }
    }

    /** Lateness buckets double from 1 microsecond; a bound is exclusive. */
    @Test
    void latenessBuckets() {
        assertEquals(0, LatenessHistogram.bucketOf(-5));
        assertEquals(0, LatenessHistogram.bucketOf(999));
        assertEquals(1, LatenessHistogram.bucketOf(1_000));
        assertEquals(1, LatenessHistogram.bucketOf(1_999));
        assertEquals(2, LatenessHistogram.bucketOf(2_000));
        assertEquals(LatenessHistogram.BUCKETS - 1, LatenessHistogram.bucketOf(Long.MAX_VALUE));
        for (int i = 0; i < LatenessHistogram.BUCKETS - 1; i++) {
            long bound = LatenessHistogram.upperBound(i);
            assertEquals(i + 1, LatenessHistogram.bucketOf(bound));
            assertEquals(i, LatenessHistogram.bucketOf(bound - 1));
        }
    }

    /** The failure handler hears of every failed run, periodic ones included, after the future completed. */
    @Test
    void failureHandlerHearsEveryFailure() throws Exception {
        List<Future<?>> failedFutures = new CopyOnWriteArrayList<>();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        CountDownLatch heard = new CountDownLatch(2);
        TimingWheelExecutor executor = TimingWheelExecutor.builder().taskFailureHandler((f, t) -> {
            assertTrue(f.isDone(), "the future completed first");
            failedFutures.add(f);
            failures.add(t);
            heard.countDown();
        }).build();
        Future<?> oneShot = executor.schedule(() -> {
            throw new IllegalArgumentException("one-shot");
        }, 1, MILLISECONDS);
        AtomicInteger runs = new AtomicInteger();
        Future<?> periodic = executor.scheduleWithFixedDelay(() -> {
            if (runs.incrementAndGet() == 2) {
                throw new Error("periodic");
            }
        }, 1, 1, MILLISECONDS);
        executor.schedule(() -> "fine", 1, MILLISECONDS).get(TIMEOUT, SECONDS);
        assertTrue(heard.await(TIMEOUT, SECONDS));
        assertTrue(failedFutures.contains(oneShot) && failedFutures.contains(periodic));
        assertEquals(2, failures.size());
        assertInstanceOf(Error.class, assertThrows(ExecutionException.class, periodic::get).getCause());
        executor.shutdown();
        assertTrue(executor.awaitTermination(TIMEOUT, SECONDS));
    }

    /**
     * A failure handler that throws (an exception or an Error) is reported; the failed task has ended all the same,
     * and the executor keeps serving on the same worker.
     */
    @ParameterizedTest(name = "the handler throws an Error: {0}")
    @ValueSource(booleans = {false, true})
    void throwingFailureHandlerIsContained(boolean error) throws Exception {
        TimingWheelExecutor executor = TimingWheelExecutor.builder().taskFailureHandler((f, t) -> {
            if (error) {
                throw new AssertionError("handler");
            }
            throw new IllegalStateException("handler");
        }).threadFactory(r -> {
            Thread t = new Thread(r);
            t.setUncaughtExceptionHandler((thread, e) -> { });
            return t;
        }).build();
        for (int i = 0; i < 5; i++) {
            Future<?> f = executor.submit(() -> {
                throw new IllegalArgumentException();
            });
            assertThrows(ExecutionException.class, () -> f.get(TIMEOUT, SECONDS));
        }
        assertEquals("ok", executor.submit(() -> "ok").get(TIMEOUT, SECONDS));
        assertEquals(1, executor.getPoolSize());
        executor.shutdownNow();
    }

    /** With SKIP_MISSED a fixed-rate task that fell behind skips the missed runs and keeps its phase. */
    @Test
    void skipMissedKeepsPhaseWithoutBurst() throws Exception {
        assertEquals(List.of(1, 2, 3, 4, 5, 6), runsAfterStall(FixedRatePolicy.CATCH_UP).subList(0, 6),
                "the JDK's policy: every missed run happens");
        List<Integer> skipping = runsAfterStall(FixedRatePolicy.SKIP_MISSED);
        assertTrue(skipping.size() <= 3, "missed runs skipped: " + skipping);
    }

    /** Runs a 10 ms fixed-rate task whose first run takes 100 ms, and returns the runs seen in the 30 ms after. */
    private static List<Integer> runsAfterStall(FixedRatePolicy policy) throws Exception {
        TimingWheelExecutor executor = TimingWheelExecutor.builder().fixedRatePolicy(policy).build();
        List<Integer> runsSoonAfter = new CopyOnWriteArrayList<>();
        AtomicInteger runs = new AtomicInteger();
        AtomicLong stallEnd = new AtomicLong();
        CountDownLatch enough = new CountDownLatch(1);
        executor.scheduleAtFixedRate(() -> {
            int run = runs.incrementAndGet();
            if (run == 1) {
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
                stallEnd.set(System.nanoTime());
            } else if (System.nanoTime() - stallEnd.get() < MILLISECONDS.toNanos(30)) {
                runsSoonAfter.add(run);
            } else {
                enough.countDown();
            }
        }, 0, 10, MILLISECONDS);
        assertTrue(enough.await(TIMEOUT, SECONDS));
        executor.shutdownNow();
        return runsSoonAfter.isEmpty() ? runsSoonAfter : renumber(runsSoonAfter);
    }

    private static List<Integer> renumber(List<Integer> runs) {
        int first = runs.get(0);
        return runs.stream().map(r -> r - first + 1).collect(java.util.stream.Collectors.toList());
    }

    /** The CompletableFuture view completes, fails and is cancelled with its task, and cancels the task. */
    @Test
    void completableFutureView() throws Exception {
        TimingWheelExecutor executor = new TimingWheelExecutor(1);
        TimerFuture<String> ok = timer(executor.schedule(() -> "done", 5, MILLISECONDS));
        CompletableFuture<Integer> length = ok.toCompletableFuture().thenApply(String::length);
        assertEquals(4, length.get(TIMEOUT, SECONDS));
        assertEquals("done", ok.toCompletableFuture().getNow("not yet"), "a view of a done task is done");

        TimerFuture<Object> failing = timer(executor.schedule(() -> {
            throw new IllegalStateException("bad");
        }, 1, MILLISECONDS));
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> failing.toCompletableFuture().get(TIMEOUT, SECONDS));
        assertEquals("bad", e.getCause().getMessage());

        TimerFuture<?> later = timer(executor.schedule(() -> { }, 1, HOURS));
        CompletableFuture<?> view = later.toCompletableFuture();
        assertTrue(later.cancel(false));
        assertTrue(view.isCancelled());

        TimerFuture<?> other = timer(executor.schedule(() -> { }, 1, HOURS));
        CompletableFuture<?> otherView = other.toCompletableFuture();
        assertTrue(otherView.cancel(true));
        assertTrue(other.isCancelled(), "cancelling the view cancels the task");
        assertThrows(CancellationException.class, other::get);

        TimerFuture<?> periodic = timer(executor.scheduleAtFixedRate(() -> { }, 1, 1, MILLISECONDS));
        CompletableFuture<?> periodicView = periodic.toCompletableFuture();
        Thread.sleep(5);
        assertFalse(periodicView.isDone(), "a series ends only by failure or cancellation");
        periodic.cancel(false);
        assertTrue(periodicView.isCancelled());
        executor.shutdownNow();
    }

    /** The futures of an executor that does not decorate its tasks are {@link TimerFuture}s, as documented. */
    private static <T> TimerFuture<T> timer(Future<T> future) {
        return (TimerFuture<T>) future;
    }

    /** Many views registered while the task completes all complete. */
    @Test
    void viewsRaceWithCompletion() throws Exception {
        TimingWheelExecutor executor = new TimingWheelExecutor(2);
        for (int round = 0; round < 200; round++) {
            TimerFuture<Integer> f = timer(executor.submit(() -> 42));
            CompletableFuture<?>[] views = new CompletableFuture<?>[20];
            for (int i = 0; i < views.length; i++) {
                views[i] = f.toCompletableFuture();
            }
            for (CompletableFuture<?> v : views) {
                assertEquals(42, v.get(TIMEOUT, SECONDS));
            }
        }
        executor.shutdownNow();
    }

    /** With JFR events on, late runs and rejections are recorded; off by default they cost nothing. */
    @Test
    void flightRecorderEvents() throws Exception {
        Path file = Files.createTempFile("timingwheel", ".jfr");
        try (Recording recording = new Recording()) {
            recording.enable("io.timingwheel.LateRun");
            recording.enable("io.timingwheel.Rejection");
            recording.start();
            TimingWheelExecutor executor = TimingWheelExecutor.builder()
                    .flightRecorderEvents(0, TimeUnit.NANOSECONDS).maxPendingTasks(1).build();
            executor.schedule(() -> 1, 1, MILLISECONDS).get(TIMEOUT, SECONDS);
            executor.schedule(() -> { }, 1, HOURS);
            assertThrows(RejectedExecutionException.class, () -> executor.schedule(() -> { }, 1, HOURS));
            executor.shutdownNow();
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        Files.delete(file);
        assertTrue(events.stream().anyMatch(e -> e.getEventType().getName().equals("io.timingwheel.LateRun")));
        assertTrue(events.stream().anyMatch(e -> e.getEventType().getName().equals("io.timingwheel.Rejection")));
        assertThrows(IllegalArgumentException.class,
                () -> TimingWheelExecutor.builder().flightRecorderEvents(-1, MILLISECONDS));
    }

    /**
     * On a runtime without the jdk.jfr module (here: --limit-modules java.base, on the class path and with the named
     * module on the module path), build() with Flight Recorder events throws IllegalStateException naming the module,
     * instead of a NoClassDefFoundError in a worker that would leave a task unfinished; without events the executor
     * works there.
     */
    @Test
    void flightRecorderEventsNeedTheJfrModule() throws Exception {
        String classes = location(TimingWheelExecutor.class);
        String testClasses = location(io.timingwheel.nojfr.NoJfrMain.class);
        String main = io.timingwheel.nojfr.NoJfrMain.class.getName();
        String classPath = classes + java.io.File.pathSeparator + testClasses;
        for (List<String> layout : List.of(
                List.of("-cp", classPath, main),
                List.of("--module-path", classes, "--add-modules", "io.timingwheel", "-cp", testClasses, main))) {
            List<String> command = new java.util.ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(), "--limit-modules", "java.base"));
            command.addAll(layout);
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertTrue(p.waitFor(60, SECONDS), "the child JVM ended");
            assertEquals(0, p.exitValue(), () -> layout + ":\n" + output);
            assertTrue(output.contains("refused: flightRecorderEvents needs the jdk.jfr module"), output);
            assertTrue(output.contains("without events it works: 42"), output);
        }
    }

    private static String location(Class<?> c) throws Exception {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }

    /** The builder refuses nulls for the new settings. */
    @Test
    void newSettingsRefuseNull() {
        TimingWheelExecutor.Builder b = TimingWheelExecutor.builder();
        assertThrows(NullPointerException.class, () -> b.taskFailureHandler(null));
        assertThrows(NullPointerException.class, () -> b.fixedRatePolicy(null));
        assertThrows(NullPointerException.class, () -> b.flightRecorderEvents(1, null));
        assertSame(b, b.fixedRatePolicy(FixedRatePolicy.SKIP_MISSED));
    }
}
