package io.timingwheel.reliability;

import io.timingwheel.reliability.InvariantChecker.Report;
import io.timingwheel.reliability.InvariantChecker.Tracked;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The races between {@code schedule} and {@code shutdown()}/{@code shutdownNow()}, and between {@code cancel} and
 * {@code shutdownNow()}, driven by the {@link RaceHarness} with a new executor for each iteration (half of them with
 * their threads already started, half cold, so that thread start-up races too). Each iteration's task is watched by
 * an {@link InvariantChecker}; any violation is a forbidden outcome.
 *
 * <p>Outcomes carry the order in which the two calls ran: {@code [A<B]} (A returned before B was called),
 * {@code [B<A]}, or {@code [A~B]} (they overlapped). A schedule that returned before the shutdown was called must
 * have been accepted, and one called after the shutdown returned must have been rejected.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ShutdownRaceTest {
    private static final long US = 1_000;

    /** The task raced against the shutdown. */
    enum Kind {
        DUE_NOW, DELAYED_1MS, FIXED_RATE
    }

    /** The shutdown it races. */
    enum Stop {
        SHUTDOWN, SHUTDOWN_NOW
    }

    static final String REJECTED = "rejected";
    static final String RAN = "accepted, ran to completion";
    static final String RETURNED = "accepted, returned by shutdownNow, never started";
    static final String RAN_THEN_RETURNED = "accepted, ran, then returned by shutdownNow between runs";
    static final String CANCELLED_UNRUN = "accepted, cancelled by the shutdown before it ran";
    static final String RAN_THEN_CANCELLED = "accepted, ran, then cancelled by the shutdown";
    static final String LOST = "FORBIDDEN: lost";
    static final String NOT_TERMINATED = "FORBIDDEN: not terminated";

    static Stream<Arguments> races() {
        List<Arguments> args = new ArrayList<>();
        for (Stop stop : Stop.values()) {
            for (Subject s : Subject.values()) {
                for (Kind k : Kind.values()) {
                    args.add(Arguments.of(s, k, stop));
                }
            }
        }
        return args.stream();
    }

    /** One iteration: a fresh executor and one task. */
    static final class Iteration {
        final ScheduledExecutorService executor;
        final InvariantChecker checker;
        final Tracked task;
        volatile boolean accepted;
        volatile List<Runnable> returned = Collections.emptyList();

        Iteration(ScheduledExecutorService executor, InvariantChecker checker, Tracked task) {
            this.executor = executor;
            this.checker = checker;
            this.task = task;
        }
    }

    /**
     * {@code schedule} racing {@code shutdown()} or {@code shutdownNow()}: the task is rejected, or it is accepted
     * and then ends exactly once (runs, is cancelled by the shutdown policy, or is returned by shutdownNow); it is
     * never lost, the executor always terminates, and the order of the two calls is respected.
     */
    @ParameterizedTest(name = "{0}, {1}, {2}")
    @MethodSource("races")
    void scheduleRacesShutdown(Subject subject, Kind kind, Stop stop) throws Exception {
        RaceHarness<Iteration> race = new RaceHarness<>("schedule(" + kind + ") vs " + stop + ", " + subject,
                Budget.iterations(250), 100 * US, 100 * US, true);
        List<ScheduledExecutorService> created = new ArrayList<>();
        RaceHarness.Result r;
        try {
            r = race.run(Budget.seed() + kind.ordinal() * 10 + stop.ordinal(),
                    i -> {
                        InvariantChecker checker = new InvariantChecker(InvariantChecker.contractOf(subject));
                        ScheduledExecutorService e = subject.create(Subject.config().threads(1)
                                .handler(checker.handler(true)));
                        created.add(e);
                        if (i % 2 == 0) {
                            e.schedule(() -> { }, 1, TimeUnit.NANOSECONDS).get(10, TimeUnit.SECONDS); // warm
                        }
                        return new Iteration(e, checker, task(checker, kind));
                    },
                    (it, spin) -> it.accepted = it.checker.schedule(it.executor, it.task),
                    (it, spin) -> {
                        if (stop == Stop.SHUTDOWN) {
                            it.executor.shutdown();
                        } else {
                            it.returned = it.checker.shutdownNow(it.executor);
                        }
                    },
                    (it, timing) -> classify(it, timing));
        } finally {
            shutDownSurvivors(created);
        }
        r.print().assertOutcomes(allowed(subject, kind, stop), inAnyOrder(LOST, NOT_TERMINATED), 1);
    }

    /**
     * A cancel of a pending task racing {@code shutdownNow()} always wins, and ours returns the task only if the cancel
     * had not returned before shutdownNow was called (the JDK also returns tasks cancelled long before, which stay in
     * its queue: allowed for it only).
     */
    @ParameterizedTest
    @EnumSource(Subject.class)
    void cancelRacesShutdownNow(Subject subject) throws Exception {
        String cancelledOnly = "cancelled, not returned";
        String both = "cancelled, and returned by shutdownNow";
        String cancelLost = "FORBIDDEN: cancel returned false";
        RaceHarness<Iteration> race = new RaceHarness<>("cancel vs shutdownNow, " + subject,
                Budget.iterations(300), 100 * US, 100 * US, true);
        List<ScheduledExecutorService> created = new ArrayList<>();
        RaceHarness.Result r;
        try {
            r = race.run(Budget.seed() + 99,
                    i -> {
                        InvariantChecker checker = new InvariantChecker(InvariantChecker.contractOf(subject));
                        ScheduledExecutorService e = subject.create(1);
                        created.add(e);
                        Tracked t = checker.oneShot(TimeUnit.HOURS.toNanos(1), 0, false);
                        Iteration it = new Iteration(e, checker, t);
                        it.accepted = checker.schedule(e, it.task);
                        return it;
                    },
                    (it, spin) -> it.checker.cancel(it.task, false),
                    (it, spin) -> it.returned = it.checker.shutdownNow(it.executor),
                    (it, timing) -> {
                        String verdict = verdict(it);
                        if (verdict != null) {
                            return "[" + timing.order() + "] " + verdict;
                        }
                        String what = it.task.cancel.get() == null ? cancelLost
                                : it.returned.contains(it.task.future) ? both : cancelledOnly;
                        return "[" + timing.order() + "] " + what;
                    });
        } finally {
            shutDownSurvivors(created);
        }
        Set<String> allowed = new HashSet<>(Set.of("[A<B] " + cancelledOnly, "[A~B] " + cancelledOnly,
                "[A~B] " + both, "[B<A] " + both));
        if (subject == Subject.STPE) {
            allowed.add("[A<B] " + both); // the JDK's queue keeps a cancelled task until its deadline
        }
        r.print().assertOutcomes(allowed, Set.of("[A<B] " + both, "[B<A] " + cancelledOnly,
                "[A<B] " + cancelLost, "[A~B] " + cancelLost, "[B<A] " + cancelLost).stream()
                .filter(o -> !allowed.contains(o)).collect(java.util.stream.Collectors.toSet()), 2);
    }

    /**
     * shutdownNow() right after a few schedules on a cold executor, whose master is still taking its first tasks
     * while the state changes under it: every task that schedule returned before shutdownNow was called is returned,
     * uncancelled, as the JDK returns the tasks of its queue. (It once cancelled a task that the master drained just
     * as the state went to STOP.)
     */
    @ParameterizedTest
    @EnumSource(Subject.class)
    void shutdownNowReturnsEveryTaskScheduledBeforeIt(Subject subject) throws Exception {
        SplittableRandom random = new SplittableRandom(Budget.seed());
        int iterations = Budget.iterations(2_000);
        for (int i = 0; i < iterations; i++) {
            ScheduledExecutorService e = subject.create(1);
            try {
                List<ScheduledFuture<?>> futures = new ArrayList<>();
                int count = 1 + random.nextInt(4);
                for (int k = 0; k < count; k++) {
                    futures.add(k % 2 == 0
                            ? e.schedule(() -> { }, 1, TimeUnit.HOURS)
                            : e.scheduleAtFixedRate(() -> { }, 1, 1, TimeUnit.HOURS));
                }
                Threads.spin(random.nextLong(200 * US));
                List<Runnable> returned = e.shutdownNow();
                for (ScheduledFuture<?> f : futures) {
                    if (!returned.contains(f) || f.isCancelled()) {
                        throw new AssertionError("iteration " + i + ": " + f + " was " + (f.isCancelled()
                                ? "cancelled" : "not returned") + "; returned " + returned);
                    }
                }
                if (returned.size() != futures.size()) {
                    throw new AssertionError("iteration " + i + ": returned " + returned + " for " + futures);
                }
            } finally {
                e.shutdownNow();
                if (!e.awaitTermination(10, TimeUnit.SECONDS)) {
                    throw new AssertionError("iteration " + i + ": not terminated: " + e);
                }
            }
        }
    }

    /**
     * shutdown() with the periodic policy set: the periodic tasks keep running, and the executor does not terminate
     * while one is left. Four tasks 200 µs apart on four workers re-arm all the time, so the shutdown's termination
     * decision keeps meeting runs that end as it looks. (It once read the master's inbox before it saw the runs
     * ended, missed a task re-armed in between, and terminated with it in the inbox: ShutdownTest's policy matrix
     * failed 2 runs in 40, and this test on that core 1 iteration in about 130: 7 runs of 7.)
     */
    @ParameterizedTest
    @EnumSource(Subject.class)
    void periodicTasksKeptAfterShutdownKeepRunning(Subject subject) throws Exception {
        int iterations = Budget.iterations(300);
        for (int i = 0; i < iterations; i++) {
            ScheduledThreadPoolExecutor e = (ScheduledThreadPoolExecutor) subject.create(4);
            try {
                e.setContinueExistingPeriodicTasksAfterShutdownPolicy(true);
                AtomicInteger[] runs = new AtomicInteger[4];
                List<ScheduledFuture<?>> futures = new ArrayList<>();
                for (int k = 0; k < runs.length; k++) {
                    AtomicInteger count = runs[k] = new AtomicInteger();
                    futures.add(k % 2 == 0
                            ? e.scheduleAtFixedRate(count::incrementAndGet, 0, 200, TimeUnit.MICROSECONDS)
                            : e.scheduleWithFixedDelay(count::incrementAndGet, 0, 200, TimeUnit.MICROSECONDS));
                }
                await().atMost(10, TimeUnit.SECONDS).pollInterval(1, TimeUnit.MILLISECONDS).until(() -> Arrays.stream(runs).allMatch(r -> r.get() > 0));
                e.shutdown();
                int[] atShutdown = Arrays.stream(runs).mapToInt(AtomicInteger::get).toArray();
                await().atMost(10, TimeUnit.SECONDS).pollInterval(1, TimeUnit.MILLISECONDS)
                        .failFast("iteration " + i + ": terminated while periodic tasks were kept", e::isTerminated)
                        .until(() -> IntStream.range(0, runs.length).allMatch(k -> runs[k].get() >= atShutdown[k] + 3));
                assertFalse(e.isTerminated(), "iteration " + i);
                futures.forEach(f -> f.cancel(false));
                assertTrue(e.awaitTermination(10, TimeUnit.SECONDS), "iteration " + i);
            } finally {
                e.shutdownNow();
            }
        }
    }

    /**
     * A periodic run ends, re-arming its task, while {@code shutdown()} runs, with the default policies: once both the
     * run and {@code shutdown()} have returned, the task is cancelled. The JDK's re-arm queues the task and then
     * looks at the run state again; ours publishes and then looks (ExecutorCore.rearm), where otherwise the task
     * would wait in the master's inbox, pending, until its next turn. This samples the race (without that look it
     * passed 1 500 iterations); jcstress's RearmVersusShutdownStress catches its removal.
     */
    @ParameterizedTest
    @EnumSource(Subject.class)
    void periodicRunEndingDuringShutdownLeavesItsTaskCancelled(Subject subject) throws Exception {
        int iterations = Budget.iterations(500);
        for (int i = 0; i < iterations; i++) {
            ScheduledThreadPoolExecutor e = (ScheduledThreadPoolExecutor) subject.create(1);
            try {
                CyclicBarrier runAndShutdown = new CyclicBarrier(2);
                ScheduledFuture<?> future = e.scheduleAtFixedRate(() -> {
                    try {
                        runAndShutdown.await(10, TimeUnit.SECONDS);
                    } catch (Exception interruptedOrBroken) {
                        throw new IllegalStateException(interruptedOrBroken);
                    }
                }, 0, 1, TimeUnit.HOURS);
                runAndShutdown.await(10, TimeUnit.SECONDS); // the run's end and the shutdown now race
                e.shutdown();
                await().atMost(10, TimeUnit.SECONDS).pollInterval(100, TimeUnit.MICROSECONDS)
                        .until(() -> e.getActiveCount() == 0);
                assertTrue(future.isCancelled(), "iteration " + i + ": pending after its run and shutdown() returned");
            } finally {
                e.shutdownNow();
            }
        }
    }

    // -- helpers ----------------------------------------------------------------------------------------------------

    /** Every iteration ends with its executor terminated; this is the safety net for a race that failed midway. */
    private static void shutDownSurvivors(List<ScheduledExecutorService> created) throws InterruptedException {
        for (ScheduledExecutorService e : created) {
            if (!e.isTerminated()) {
                shutdownNowWithin(e, 5);
            }
        }
    }

    /**
     * Calls {@code shutdownNow()} on a daemon thread, so that an executor that deadlocked cannot hang the test.
     *
     * @return null if it returned in time, else the stacks of the executor's threads and the caller
     */
    private static String shutdownNowWithin(ScheduledExecutorService e, int seconds) throws InterruptedException {
        Thread t = new Thread(e::shutdownNow, "race-cleanup");
        t.setDaemon(true);
        t.start();
        t.join(TimeUnit.SECONDS.toMillis(seconds));
        return t.isAlive() ? RaceHarness.dumpThreads() : null;
    }

    private static Tracked task(InvariantChecker checker, Kind kind) {
        switch (kind) {
            case DUE_NOW:
                return checker.oneShot(0, 0, false);
            case DELAYED_1MS:
                return checker.oneShot(TimeUnit.MILLISECONDS.toNanos(1), 0, false);
            default:
                return checker.fixedRate(0, 300 * US, 0, 0);
        }
    }

    /** Waits for termination and checks the invariants. @return a forbidden outcome, or null if all is well */
    private static String verdict(Iteration it) throws InterruptedException {
        boolean terminated = it.executor.awaitTermination(10, TimeUnit.SECONDS);
        long terminatedAt = System.nanoTime();
        if (!terminated) {
            System.out.println("[reliability] not terminated 10 s after the race: " + it.executor + ", task "
                    + it.task + " accepted=" + it.accepted + " runs=" + it.task.starts.get() + " future="
                    + it.task.future + "; threads:" + RaceHarness.dumpThreads());
            String stuck = shutdownNowWithin(it.executor, 5);
            return stuck == null ? NOT_TERMINATED : NOT_TERMINATED + "; shutdownNow blocked too" + stuck;
        }
        Report report = it.checker.verify(it.returned, true, terminatedAt);
        if (report.lost > 0) {
            System.out.println("[reliability] lost after termination: " + it.executor + ", task " + it.task
                    + " accepted=" + it.accepted + " runs=" + it.task.starts.get() + " future=" + it.task.future
                    + " delay=" + it.task.future.getDelay(TimeUnit.MICROSECONDS) + " us, returned="
                    + it.returned.size() + "; threads:" + RaceHarness.dumpThreads());
            return LOST;
        }
        if (!report.violations.isEmpty()) {
            return "FORBIDDEN: " + report.violations.get(0).replaceAll("task#\\d+\\([^)]*\\): ", "");
        }
        return null;
    }

    private static String classify(Iteration it, RaceHarness.Timing timing) throws InterruptedException {
        String order = "[" + timing.order() + "] ";
        String verdict = verdict(it);
        if (verdict != null) {
            return order + verdict;
        }
        Tracked t = it.task;
        if (!it.accepted) {
            return order + REJECTED;
        }
        if (it.returned.contains(t.future)) {
            return order + (t.starts.get() == 0 ? RETURNED : RAN_THEN_RETURNED);
        }
        if (t.future.isCancelled()) {
            return order + (t.starts.get() == 0 ? CANCELLED_UNRUN : RAN_THEN_CANCELLED);
        }
        return order + RAN; // the checker has verified that it completed after one run
    }

    /** @return each outcome with each order prefix */
    private static Set<String> inAnyOrder(String... outcomes) {
        Set<String> all = new HashSet<>();
        for (String o : outcomes) {
            for (String order : new String[] {"[A<B] ", "[B<A] ", "[A~B] "}) {
                all.add(order + o);
            }
        }
        return all;
    }

    /** What may happen to a task of {@code kind} racing {@code stop}, per order of the two calls. */
    private static Set<String> allowed(Subject subject, Kind kind, Stop stop) {
        Set<String> whenAccepted = new HashSet<>();
        if (stop == Stop.SHUTDOWN) {
            // Delayed one-shot tasks still run after shutdown(); periodic ones are cancelled, maybe after runs.
            if (kind == Kind.FIXED_RATE) {
                whenAccepted.add(CANCELLED_UNRUN);
                whenAccepted.add(RAN_THEN_CANCELLED);
            } else {
                whenAccepted.add(RAN);
            }
        } else {
            whenAccepted.add(RETURNED);
            whenAccepted.add(CANCELLED_UNRUN); // it reached the executor as it stopped
            if (kind == Kind.FIXED_RATE) {
                whenAccepted.add(RAN_THEN_RETURNED);
                whenAccepted.add(RAN_THEN_CANCELLED);
            } else {
                whenAccepted.add(RAN);
            }
        }
        Set<String> allowed = new HashSet<>();
        for (String o : whenAccepted) {
            allowed.add("[A<B] " + o); // scheduled before the shutdown: accepted
            allowed.add("[A~B] " + o);
        }
        if (subject == Subject.STPE && stop == Stop.SHUTDOWN && kind != Kind.FIXED_RATE) {
            // The JDK's delayedExecute queues the task after its state check and cancels it if the pool reached
            // TIDYING in between (its last worker left on an empty queue): a narrow window that ours closes (the
            // producer takes its task back and rejects it, or termination waits for it to run).
            allowed.add("[A~B] " + CANCELLED_UNRUN);
        }
        allowed.add("[A~B] " + REJECTED);
        allowed.add("[B<A] " + REJECTED); // scheduled after the shutdown: rejected
        return allowed;
    }
}
