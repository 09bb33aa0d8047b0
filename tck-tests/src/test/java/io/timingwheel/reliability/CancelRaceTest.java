package io.timingwheel.reliability;

import io.timingwheel.reliability.InvariantChecker.Report;
import io.timingwheel.reliability.InvariantChecker.Tracked;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The race between {@code cancel} and firing, driven by the {@link RaceHarness} across the window in which a worker
 * claims the task, against both executors (the JDK's futures define what is allowed: a cancel that wins against a
 * task that has started returns true too).
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
@SuppressWarnings("try") // the resource only shuts the executor down; the body uses the executor
class CancelRaceTest {
    private static final long US = 1_000;

    // One-shot outcomes.
    static final String CANCELLED_NEVER_RAN = "cancel won before the run: cancelled, body never ran";
    static final String RAN_CANCEL_LOST = "run won: cancel returned false, ran once, get() = value";
    static final String CANCELLED_WHILE_RUNNING = "cancel won while running: cancelled, body ran (allowed by the JDK)";
    static final String CANCELLED_WHILE_RUNNING_INTERRUPTED =
            "cancel(true) won while running: cancelled, body ran and saw the interrupt";
    static final String CANCELLED_AS_CLAIMED =
            "cancel won as the run was claimed: cancelled, body started after the cancel (allowed by the JDK)";
    static final String LOST = "FORBIDDEN: cancel returned false but the task never ran";
    static final String NOT_DONE = "FORBIDDEN: not done 10 s later";
    static final String RAN_TWICE = "FORBIDDEN: ran twice";
    static final String CANCEL_TRUE_NOT_CANCELLED = "FORBIDDEN: cancel returned true, future not cancelled";
    static final String CANCELLED_BUT_VALUE = "FORBIDDEN: cancel returned false, yet the future is cancelled";
    static final String STRAY_INTERRUPT = "FORBIDDEN: the body started with an interrupt nobody sent to it";
    static final String RAN_AFTER_WINNING_CANCEL =
            "FORBIDDEN: body started after a cancel that returned before the run could be claimed";
    static final String EARLY = "FORBIDDEN: ran before its deadline";

    static final Set<String> FORBIDDEN = Set.of(LOST, NOT_DONE, RAN_TWICE, CANCEL_TRUE_NOT_CANCELLED,
            CANCELLED_BUT_VALUE, STRAY_INTERRUPT, RAN_AFTER_WINNING_CANCEL, EARLY);

    static Stream<Arguments> subjectsAndInterrupt() {
        List<Arguments> args = new ArrayList<>();
        for (Subject s : Subject.values()) {
            args.add(Arguments.of(s, false));
            args.add(Arguments.of(s, true));
        }
        return args.stream();
    }

    /** One iteration of a one-shot race. */
    static final class OneShot {
        final long deadline;
        /** No worker can claim the task before this time: its deadline, or the end of the task holding the worker. */
        volatile long claimNotBefore;
        volatile long cancelReturnedAt;
        volatile long blockerStartedAt;
        volatile ScheduledFuture<Integer> future;
        volatile boolean cancelResult;
        final AtomicInteger starts = new AtomicInteger();
        volatile boolean interruptedAtStart;
        volatile boolean interruptedInBody;
        volatile long startedAt;
        final CountDownLatch bodyDone = new CountDownLatch(1);

        OneShot(long deadline) {
            this.deadline = deadline;
            this.claimNotBefore = deadline;
        }

        /** The task: notes its start, runs 20 us (noticing an interrupt), returns 42. */
        Integer body() {
            startedAt = System.nanoTime();
            interruptedAtStart = Thread.currentThread().isInterrupted();
            starts.incrementAndGet();
            interruptedInBody = Threads.spinInterruptibly(20 * US);
            bodyDone.countDown();
            return 42;
        }
    }

    /**
     * A task due now, claimed by the one worker when a 200 us task ahead of it ends, raced by a cancel 0-400 us after
     * that task started, ends in exactly one allowed way (cancelled and never ran, ran while the cancel returned false,
     * or cancelled while running) and never starts with an interrupt meant for another task.
     */
    @ParameterizedTest(name = "{0}, mayInterruptIfRunning={1}")
    @MethodSource("subjectsAndInterrupt")
    void cancelRacesATaskDueNow(Subject subject, boolean mayInterrupt) throws Exception {
        ScheduledExecutorService e = subject.create(1);
        List<OneShot> cancelledUnrun = new ArrayList<>();
        try (Closing<?> c = Closing.of(e)) {
            RaceHarness<OneShot> race = new RaceHarness<>("cancel(" + mayInterrupt + ") vs firing now, " + subject,
                    Budget.iterations(1_000), 1, 400 * US, false);
            RaceHarness.Result r = race.run(Budget.seed(),
                    i -> new OneShot(System.nanoTime()),
                    (s, spin) -> {
                        s.claimNotBefore = Long.MAX_VALUE;
                        e.execute(() -> { // holds the worker for 200 us
                            s.blockerStartedAt = System.nanoTime();
                            Threads.spin(200 * US);
                            s.claimNotBefore = System.nanoTime();
                        });
                        s.future = e.schedule(s::body, 0, TimeUnit.NANOSECONDS);
                    },
                    (s, spin) -> {
                        ScheduledFuture<Integer> f;
                        long blockerStarted;
                        while ((f = s.future) == null || (blockerStarted = s.blockerStartedAt) == 0) {
                            Thread.onSpinWait();
                        }
                        Threads.spin(blockerStarted + spin - System.nanoTime());
                        s.cancelResult = f.cancel(mayInterrupt);
                        s.cancelReturnedAt = System.nanoTime();
                    },
                    (s, timing) -> classify(s, cancelledUnrun));
            assertOutcomesOnceTerminated(e, r, cancelledUnrun, mayInterrupt);
        }
    }

    /**
     * A task due in 1 ms raced by a cancel aimed at its deadline (from 300 us before to 500 us after): the same
     * outcomes, and the task never runs before its deadline.
     */
    @ParameterizedTest(name = "{0}, mayInterruptIfRunning={1}")
    @MethodSource("subjectsAndInterrupt")
    void cancelRacesADelayedTaskAtItsDeadline(Subject subject, boolean mayInterrupt) throws Exception {
        ScheduledExecutorService e = subject.create(2);
        List<OneShot> cancelledUnrun = new ArrayList<>();
        long delay = TimeUnit.MILLISECONDS.toNanos(1);
        try (Closing<?> c = Closing.of(e)) {
            RaceHarness<OneShot> race = new RaceHarness<>("cancel(" + mayInterrupt + ") vs firing at the deadline, "
                    + subject, Budget.iterations(300), 1, 800 * US, false);
            RaceHarness.Result r = race.run(Budget.seed() + 1,
                    i -> {
                        OneShot s = new OneShot(System.nanoTime() + delay);
                        s.future = e.schedule(s::body, delay, TimeUnit.NANOSECONDS);
                        return s;
                    },
                    (s, spin) -> { }, // A only watches: the other party of this race is the executor
                    (s, spin) -> {
                        Threads.parkUntil(s.deadline - 600 * US);
                        Threads.spin(s.deadline - 300 * US + spin - System.nanoTime());
                        s.cancelResult = s.future.cancel(mayInterrupt);
                        s.cancelReturnedAt = System.nanoTime();
                    },
                    (s, timing) -> classify(s, cancelledUnrun));
            assertOutcomesOnceTerminated(e, r, cancelledUnrun, mayInterrupt);
        }
    }

    /**
     * A fixed-rate task (period 200 us, runs of 0-50 us) cancelled at a random moment in its first 2 ms, between or
     * during runs: the cancel returns true, no run starts after it except one that was already claimed (none at all
     * if no run could have been claimed), and runs never overlap nor start early (checked by the
     * {@link InvariantChecker}).
     */
    @ParameterizedTest
    @EnumSource(Subject.class)
    void cancelRacesAPeriodicTaskReArming(Subject subject) throws Exception {
        String beforeFirst = "cancelled before the first run";
        String betweenRuns = "cancelled between runs";
        String duringRun = "cancelled during a run";
        String cancelFalse = "FORBIDDEN: cancel returned false for a periodic task that never fails";
        ScheduledExecutorService e = subject.create(2);
        InvariantChecker checker = new InvariantChecker(InvariantChecker.contractOf(subject));
        Report report;
        RaceHarness.Result r;
        try (Closing<?> c = Closing.of(e)) {
            RaceHarness<Periodic> race = new RaceHarness<>("cancel vs periodic re-arm, " + subject,
                    Budget.iterations(300), 1, 2_000 * US, true);
            r = race.run(Budget.seed() + 2,
                    i -> {
                        Periodic p = new Periodic(checker.fixedRate(0, 200 * US, (i % 6) * 10 * US, 0));
                        assertTrue(checker.schedule(e, p.task));
                        return p;
                    },
                    (p, spin) -> { }, // A only watches: the other party of this race is the executor
                    (p, spin) -> {
                        p.runsBefore = p.task.starts.get();
                        p.wasRunning = p.task.inBody.get() > 0;
                        p.won = checker.cancel(p.task, false);
                    },
                    (p, timing) -> {
                        Threads.await(() -> p.task.inBody.get() == 0);
                        if (!p.won || !p.task.future.isCancelled()) {
                            return cancelFalse;
                        }
                        return p.wasRunning ? duringRun : p.runsBefore == 0 ? beforeFirst : betweenRuns;
                    });
            e.shutdown();
            assertTrue(e.awaitTermination(10, TimeUnit.SECONDS));
            report = checker.verify(Collections.emptyList(), true, System.nanoTime());
        }
        r.print();
        assertTrue(report.violations.isEmpty(), report::firstViolations);
        assertEquals(0, report.lost);
        r.assertOutcomes(Set.of(beforeFirst, betweenRuns, duringRun), Set.of(cancelFalse), 2);
    }

    /** One iteration of the periodic race. */
    static final class Periodic {
        final Tracked task;
        volatile int runsBefore;
        volatile boolean wasRunning;
        volatile boolean won;

        Periodic(Tracked task) {
            this.task = task;
        }
    }

    // -- helpers ----------------------------------------------------------------------------------------------------

    private static Set<String> allowed(boolean mayInterrupt) {
        return mayInterrupt
                ? Set.of(CANCELLED_NEVER_RAN, RAN_CANCEL_LOST, CANCELLED_WHILE_RUNNING,
                        CANCELLED_WHILE_RUNNING_INTERRUPTED, CANCELLED_AS_CLAIMED)
                : Set.of(CANCELLED_NEVER_RAN, RAN_CANCEL_LOST, CANCELLED_WHILE_RUNNING, CANCELLED_AS_CLAIMED);
    }

    private static String classify(OneShot s, List<OneShot> cancelledUnrun) throws InterruptedException {
        ScheduledFuture<Integer> f = s.future;
        try {
            Integer v = f.get(10, TimeUnit.SECONDS);
            if (s.cancelResult) {
                return CANCEL_TRUE_NOT_CANCELLED;
            }
            if (s.starts.get() == 0) {
                return LOST;
            }
            if (v != 42) {
                return "FORBIDDEN: get() returned " + v;
            }
        } catch (CancellationException ex) {
            if (!s.cancelResult) {
                return CANCELLED_BUT_VALUE;
            }
        } catch (ExecutionException ex) {
            return "FORBIDDEN: failed with " + ex.getCause();
        } catch (TimeoutException ex) {
            return NOT_DONE;
        }
        if (s.starts.get() > 0) {
            s.bodyDone.await(10, TimeUnit.SECONDS);
        }
        if (s.starts.get() > 1) {
            return RAN_TWICE;
        }
        if (s.starts.get() == 1 && s.startedAt - s.deadline < 0) {
            return EARLY;
        }
        if (s.starts.get() == 1 && s.interruptedAtStart && !s.cancelResult) {
            return STRAY_INTERRUPT;
        }
        if (!s.cancelResult) {
            return RAN_CANCEL_LOST;
        }
        if (s.starts.get() == 0) {
            cancelledUnrun.add(s); // checked again once the executor has terminated
            return CANCELLED_NEVER_RAN;
        }
        return s.interruptedAtStart || s.interruptedInBody ? CANCELLED_WHILE_RUNNING_INTERRUPTED
                : CANCELLED_WHILE_RUNNING;
    }

    /** Lets the executor finish, re-checks the cancelled tasks that never ran, and asserts the outcome histogram. */
    private static void assertOutcomesOnceTerminated(ScheduledExecutorService e, RaceHarness.Result r,
                                                     List<OneShot> cancelledUnrun, boolean mayInterrupt)
            throws InterruptedException {
        e.shutdown();
        assertTrue(e.awaitTermination(10, TimeUnit.SECONDS));
        recheck(r, cancelledUnrun);
        r.print().assertOutcomes(allowed(mayInterrupt), FORBIDDEN, 2);
    }

    /**
     * Once the executor has terminated, looks again at the tasks counted as "cancelled, never ran". One whose body
     * started after all was claimed by a worker before the cancel won: the JDK allows that, unless the cancel
     * returned before any worker could claim the task (before its deadline, or before the task holding the only
     * worker ended), which is forbidden.
     */
    private static void recheck(RaceHarness.Result r, List<OneShot> cancelledUnrun) {
        for (OneShot s : cancelledUnrun) {
            if (s.starts.get() != 0) {
                long margin = s.claimNotBefore - s.cancelReturnedAt;
                r.recount(CANCELLED_NEVER_RAN, margin > 0 ? RAN_AFTER_WINNING_CANCEL : CANCELLED_AS_CLAIMED,
                        "cancel returned " + margin / 1_000 + " us before a claim was possible");
            }
        }
    }

}
