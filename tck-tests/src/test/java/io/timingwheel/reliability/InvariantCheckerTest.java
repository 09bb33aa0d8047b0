package io.timingwheel.reliability;

import io.timingwheel.reliability.InvariantChecker.Report;
import io.timingwheel.reliability.InvariantChecker.ShutdownNowContract;
import io.timingwheel.reliability.InvariantChecker.Tracked;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The checker checked: executors broken on purpose (through {@link ScheduledThreadPoolExecutor#decorateTask}) must be
 * caught, each by the invariant it breaks, and the sound JDK executor must pass. Without this, a checker that never
 * complains would make every stress test pass.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
@SuppressWarnings("try") // the resource only shuts the executor down; the body uses the executor
class InvariantCheckerTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    /** The JDK's executor, driven through every kind of task and a cancel, passes the checker. */
    @Test
    void soundExecutorPasses() throws Exception {
        InvariantChecker checker = new InvariantChecker(ShutdownNowContract.MAY_INCLUDE_CANCELLED);
        ScheduledThreadPoolExecutor e = new ScheduledThreadPoolExecutor(2);
        try (Closing<?> c = Closing.of(e)) {
            Tracked once = checker.oneShot(MS, 0, false);
            Tracked fails = checker.oneShot(0, 0, true);
            Tracked rate = checker.fixedRate(0, MS, 0, 3);
            Tracked delay = checker.fixedDelay(MS, MS, 0, 0);
            Tracked cancelled = checker.oneShot(TimeUnit.HOURS.toNanos(1), 0, false);
            for (Tracked t : List.of(once, fails, rate, delay, cancelled)) {
                assertTrue(checker.schedule(e, t));
            }
            assertTrue(checker.cancel(cancelled, false));
            waitDone(once, fails, rate);
            awaitRuns(delay, 3);
            assertTrue(checker.cancel(delay, false));
            e.shutdown();
            assertTrue(e.awaitTermination(10, TimeUnit.SECONDS));
        }
        Report r = checker.verify(Collections.emptyList(), true, System.nanoTime());
        assertTrue(r.violations.isEmpty(), r::firstViolations);
        assertEquals(0, r.lost);
        assertEquals(5, r.accepted);
        assertEquals(1, r.completed);
        assertEquals(2, r.failed);
        assertEquals(2, r.cancelled);
    }

    /** A task whose run is silently dropped is reported as lost. */
    @Test
    void lostTaskIsCaught() throws Exception {
        Report r = runBroken(new BrokenExecutor(inner -> new Wrapper<>(inner) {
            @Override
            public void run() {
                // dropped: the future never completes
            }
        }), ShutdownNowContract.MAY_INCLUDE_CANCELLED, (checker, e) -> {
            Tracked t = checker.oneShot(0, 0, false);
            checker.schedule(e, t);
            e.shutdown();
        });
        assertEquals(1, r.lost);
        assertViolation(r, v -> v.contains("LOST"));
    }

    /** A future whose cancel returns true but lets the task run anyway is caught running after its cancel. */
    @Test
    void runAfterCancelIsCaught() throws Exception {
        Report r = runBroken(new BrokenExecutor(inner -> new Wrapper<>(inner) {
            volatile boolean lied;

            @Override
            public boolean cancel(boolean mayInterruptIfRunning) {
                lied = true;
                return true;
            }

            @Override
            public boolean isCancelled() {
                return lied;
            }

            @Override
            public boolean isDone() {
                return lied || super.isDone();
            }
        }), ShutdownNowContract.MAY_INCLUDE_CANCELLED, (checker, e) -> {
            // Long enough that the cancel returns before the deadline even on a loaded machine (else the checker
            // cannot tell a lying cancel from a cancel that lost the race, and rightly reports nothing).
            Tracked t = checker.oneShot(300 * MS, 0, false);
            checker.schedule(e, t);
            assertTrue(checker.cancel(t, false));
            awaitRuns(t, 1);
            e.shutdown();
        });
        assertViolation(r, v -> v.contains("started after a cancel that returned true before"));
    }

    /**
     * Runs of a fast periodic task that start while a (slow) cancel is still in progress are not counted as started
     * after it: only a run whose body sees that the cancel has returned is. Counting runs around the call, as this
     * checker once did, blamed the JDK's executor for up to five such runs on a loaded 16-core machine.
     */
    @Test
    void runsDuringASlowCancelAreNotAfterIt() throws Exception {
        Report r = runBroken(new BrokenExecutor(inner -> new Wrapper<>(inner) {
            @Override
            public boolean cancel(boolean mayInterruptIfRunning) {
                Threads.spin(20 * MS); // as if preempted inside cancel: runs of 200 us go on meanwhile
                return super.cancel(mayInterruptIfRunning);
            }
        }), ShutdownNowContract.MAY_INCLUDE_CANCELLED, (checker, e) -> {
            Tracked t = checker.fixedRate(0, MS / 5, 0, 0);
            checker.schedule(e, t);
            awaitRuns(t, 2);
            int before = t.starts.get();
            assertTrue(checker.cancel(t, false));
            assertTrue(t.starts.get() > before + 1, "runs started during the slow cancel");
            e.shutdown();
        });
        assertTrue(r.violations.isEmpty(), r::firstViolations);
    }

    /** A task that fires before its delay has elapsed is caught early. */
    @Test
    void earlyRunIsCaught() throws Exception {
        Report r = runBroken(new BrokenExecutor(inner -> new Wrapper<>(inner) {
            @Override
            public long getDelay(TimeUnit unit) {
                return super.getDelay(unit) - unit.convert(30, TimeUnit.MILLISECONDS);
            }
        }), ShutdownNowContract.MAY_INCLUDE_CANCELLED, (checker, e) -> {
            Tracked t = checker.oneShot(40 * MS, 0, false);
            checker.schedule(e, t);
            awaitRuns(t, 1);
            e.shutdown();
        });
        assertViolation(r, v -> v.contains("before its deadline"));
    }

    /** A "fixed rate" made of independent one-shot runs on several threads is caught overlapping. */
    @Test
    void overlappingRunsAreCaught() throws Exception {
        ScheduledThreadPoolExecutor overlapping = new ScheduledThreadPoolExecutor(4) {
            @Override
            public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period,
                                                          TimeUnit unit) {
                for (int k = 1; k < 6; k++) {
                    schedule(command, initialDelay + k * period, unit);
                }
                return schedule(command, initialDelay, unit);
            }
        };
        Report r = runBroken(overlapping, ShutdownNowContract.MAY_INCLUDE_CANCELLED, (checker, e) -> {
            Tracked t = checker.fixedRate(0, MS, 5 * MS, 0); // each run takes 5 periods
            checker.schedule(e, t);
            awaitRuns(t, 6);
            e.shutdown();
        });
        assertViolation(r, v -> v.contains("two runs overlap"));
    }

    /**
     * Held to our exact contract, the JDK's {@code shutdownNow()} is caught returning a task that was cancelled
     * before the call (it stays in the JDK's queue until its deadline): the checker tells the two contracts apart.
     */
    @Test
    void cancelledTaskReturnedByShutdownNowIsCaughtUnderTheExactContract() throws Exception {
        InvariantChecker checker = new InvariantChecker(ShutdownNowContract.EXACT);
        ScheduledThreadPoolExecutor e = new ScheduledThreadPoolExecutor(1);
        List<Runnable> returned;
        try (Closing<?> c = Closing.of(e)) {
            Tracked t = checker.oneShot(TimeUnit.HOURS.toNanos(1), 0, false);
            checker.schedule(e, t);
            assertTrue(checker.cancel(t, false));
            returned = checker.shutdownNow(e);
            assertTrue(e.awaitTermination(10, TimeUnit.SECONDS));
        }
        Report r = checker.verify(returned, true, System.nanoTime());
        assertViolation(r, v -> v.contains("cancelled before shutdownNow was called, yet returned by it"));
    }

    // -- helpers ----------------------------------------------------------------------------------------------------

    private interface Scenario {
        void run(InvariantChecker checker, ScheduledThreadPoolExecutor e) throws Exception;
    }

    private static Report runBroken(ScheduledThreadPoolExecutor e, ShutdownNowContract contract, Scenario scenario)
            throws Exception {
        InvariantChecker checker = new InvariantChecker(contract);
        boolean terminated;
        try (Closing<?> c = Closing.of(e)) {
            scenario.run(checker, e);
            terminated = e.awaitTermination(10, TimeUnit.SECONDS);
        }
        return checker.verify(Collections.emptyList(), terminated, System.nanoTime());
    }

    private static void assertViolation(Report r, Predicate<String> expected) {
        assertTrue(r.violations.stream().anyMatch(expected), () -> "expected violation not reported; got:"
                + r.firstViolations());
    }

    private static void waitDone(Tracked... tasks) throws InterruptedException, TimeoutException {
        for (Tracked t : tasks) {
            try {
                t.future.get(10, TimeUnit.SECONDS);
            } catch (ExecutionException expected) {
                // a failing task is done too
            }
        }
    }

    private static void awaitRuns(Tracked t, int runs) {
        Threads.await(() -> t.starts.get() >= runs
                && t.inBody.get() == 0);
    }

    /** The JDK's executor with every task wrapped by a fault. */
    private static final class BrokenExecutor extends ScheduledThreadPoolExecutor {
        private final java.util.function.Function<RunnableScheduledFuture<?>, RunnableScheduledFuture<?>> fault;
        private final AtomicInteger decorated = new AtomicInteger();

        BrokenExecutor(java.util.function.Function<RunnableScheduledFuture<?>, RunnableScheduledFuture<?>> fault) {
            super(2);
            this.fault = fault;
        }

        @Override
        @SuppressWarnings("unchecked")
        protected <V> RunnableScheduledFuture<V> decorateTask(Runnable r, RunnableScheduledFuture<V> task) {
            decorated.incrementAndGet();
            return (RunnableScheduledFuture<V>) fault.apply(task);
        }

        @Override
        @SuppressWarnings("unchecked")
        protected <V> RunnableScheduledFuture<V> decorateTask(Callable<V> c, RunnableScheduledFuture<V> task) {
            decorated.incrementAndGet();
            return (RunnableScheduledFuture<V>) fault.apply(task);
        }
    }

    /** Forwards everything to the JDK's task; faults override what they break. */
    private static class Wrapper<V> implements RunnableScheduledFuture<V> {
        private final RunnableScheduledFuture<V> inner;

        @SuppressWarnings("unchecked")
        Wrapper(RunnableScheduledFuture<?> inner) {
            this.inner = (RunnableScheduledFuture<V>) inner;
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

        @Override
        public long getDelay(TimeUnit unit) {
            return inner.getDelay(unit);
        }

        @Override
        public int compareTo(Delayed o) {
            return Long.compare(getDelay(TimeUnit.NANOSECONDS), o.getDelay(TimeUnit.NANOSECONDS));
        }
    }
}
