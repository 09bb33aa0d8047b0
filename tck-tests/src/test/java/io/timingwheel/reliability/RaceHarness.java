package io.timingwheel.reliability;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A deterministic-as-possible race harness: two long-lived threads, A and B, are released together by a
 * {@link CyclicBarrier} for each of many iterations; each first waits a spin delay drawn from a seeded random source
 * (so a run can be repeated with {@code -Dtimingwheel.race.seed}), then runs its action. When both are done the test
 * classifies the iteration into a named outcome. The result is a histogram of outcomes, which the test checks against
 * the outcomes it allows and the ones it forbids.
 *
 * <p>The spin delays are what moves the two actions across each other's critical windows; they are busy-waits, not
 * sleeps, because the windows are microseconds wide. Each action also gets its delay as an argument, for actions that
 * aim at a point in time (a deadline) rather than at the other thread.
 *
 * @param <C> the state of one iteration
 */
final class RaceHarness<C> {

    /** Creates the state of one iteration (on the test's thread, before A and B are released). */
    interface Setup<C> {
        C create(int iteration) throws Exception;
    }

    /** One side of the race; {@code spinNanos} is its seeded delay, already waited unless the action uses it. */
    interface Action<C> {
        void run(C state, long spinNanos) throws Exception;
    }

    /** Names what happened in one iteration, once both sides are done (on the test's thread; it may wait). */
    interface Classifier<C> {
        String classify(C state, Timing timing) throws Exception;
    }

    /** When each side ran, to tell "A finished before B started" from an overlap. */
    static final class Timing {
        long aStart;
        long aEnd;
        long bStart;
        long bEnd;
        Throwable aFailure;
        Throwable bFailure;

        /** @return "A<B" if A ended before B started, "B<A" for the reverse, "A~B" if they overlapped */
        String order() {
            if (aEnd - bStart < 0) {
                return "A<B";
            }
            if (bEnd - aStart < 0) {
                return "B<A";
            }
            return "A~B";
        }
    }

    private final String name;
    private final int iterations;
    private final long maxSpinA;
    private final long maxSpinB;
    private final boolean spinBeforeActions;

    /**
     * @param maxSpinA A's delays are uniform in [0, maxSpinA)
     * @param maxSpinB B's delays are uniform in [0, maxSpinB)
     * @param spinBeforeActions true: the harness waits the delays; false: the actions use them as they see fit
     */
    RaceHarness(String name, int iterations, long maxSpinA, long maxSpinB, boolean spinBeforeActions) {
        this.name = name;
        this.iterations = iterations;
        this.maxSpinA = maxSpinA;
        this.maxSpinB = maxSpinB;
        this.spinBeforeActions = spinBeforeActions;
    }

    /** Runs every iteration. @return the histogram of outcomes */
    Result run(long seed, Setup<C> setup, Action<C> a, Action<C> b, Classifier<C> classifier) throws Exception {
        SplittableRandom rnd = new SplittableRandom(seed);
        CyclicBarrier start = new CyclicBarrier(3);
        CyclicBarrier end = new CyclicBarrier(3);
        Result result = new Result(name, seed, iterations);
        Side<C> sideA = new Side<>(a, start, end, true);
        Side<C> sideB = new Side<>(b, start, end, false);
        Thread ta = new Thread(sideA, "race-A");
        Thread tb = new Thread(sideB, "race-B");
        ta.setDaemon(true);
        tb.setDaemon(true);
        ta.start();
        tb.start();
        try {
            for (int i = 0; i < iterations; i++) {
                C state = setup.create(i);
                Timing timing = new Timing();
                sideA.prepare(state, timing, rnd.nextLong(Math.max(1, maxSpinA)));
                sideB.prepare(state, timing, rnd.nextLong(Math.max(1, maxSpinB)));
                await(start);
                await(end);
                String outcome;
                if (timing.aFailure != null || timing.bFailure != null) {
                    Throwable t = timing.aFailure != null ? timing.aFailure : timing.bFailure;
                    outcome = "an action threw " + t.getClass().getSimpleName();
                    result.example(outcome, t.toString());
                } else {
                    outcome = classifier.classify(state, timing);
                }
                result.count(outcome, "iteration " + i);
            }
        } finally {
            sideA.stop = true;
            sideB.stop = true;
            ta.interrupt();
            tb.interrupt();
        }
        return result;
    }

    private static void await(CyclicBarrier barrier) throws InterruptedException, BrokenBarrierException {
        try {
            barrier.await(30, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("a side of the race is stuck for 30 s; threads:" + dumpThreads(), e);
        }
    }

    /** @return the stacks of the racers and of the executors' threads, for a diagnosis */
    static String dumpThreads() {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            String name = e.getKey().getName();
            if (name.startsWith("race-") || name.startsWith("timingwheel-") || name.startsWith("pool-")) {
                sb.append("\n\"").append(name).append("\" ").append(e.getKey().getState());
                for (StackTraceElement f : e.getValue()) {
                    sb.append("\n    at ").append(f);
                }
            }
        }
        return sb.toString();
    }

    /** A racing thread: waits at the start barrier, spins, acts, and meets the others at the end barrier. */
    private final class Side<S> implements Runnable {
        private final Action<S> action;
        private final CyclicBarrier start;
        private final CyclicBarrier end;
        private final boolean isA;
        private S state;
        private Timing timing;
        private long spin;
        volatile boolean stop;

        Side(Action<S> action, CyclicBarrier start, CyclicBarrier end, boolean isA) {
            this.action = action;
            this.start = start;
            this.end = end;
            this.isA = isA;
        }

        /** Called by the test's thread before the start barrier, which publishes these fields to this side. */
        void prepare(S state, Timing timing, long spin) {
            this.state = state;
            this.timing = timing;
            this.spin = spin;
        }

        @Override
        public void run() {
            while (!stop) {
                try {
                    start.await();
                } catch (InterruptedException | BrokenBarrierException e) {
                    return;
                }
                Thread.interrupted(); // an interrupt meant for a task must not stay with the racer
                if (spinBeforeActions) {
                    Threads.spin(spin);
                }
                long t0 = System.nanoTime();
                Throwable failure = null;
                try {
                    action.run(state, spin);
                } catch (Throwable t) {
                    failure = t;
                }
                long t1 = System.nanoTime();
                if (isA) {
                    timing.aStart = t0;
                    timing.aEnd = t1;
                    timing.aFailure = failure;
                } else {
                    timing.bStart = t0;
                    timing.bEnd = t1;
                    timing.bFailure = failure;
                }
                try {
                    end.await();
                } catch (InterruptedException | BrokenBarrierException e) {
                    return;
                }
            }
        }
    }

    /** The histogram of one race. */
    static final class Result {
        final String name;
        final long seed;
        final int iterations;
        final Map<String, Integer> histogram = new TreeMap<>();
        final Map<String, String> examples = new LinkedHashMap<>();

        Result(String name, long seed, int iterations) {
            this.name = name;
            this.seed = seed;
            this.iterations = iterations;
        }

        void count(String outcome, String example) {
            histogram.merge(outcome, 1, Integer::sum);
            examples.putIfAbsent(outcome, example);
        }

        /** Moves one iteration from one outcome to another, when a later check tells more. */
        void recount(String from, String to, String example) {
            histogram.computeIfPresent(from, (k, v) -> v == 1 ? null : v - 1);
            count(to, example);
        }

        void example(String outcome, String example) {
            examples.putIfAbsent(outcome, example);
        }

        /** Prints the histogram, one outcome a line. */
        Result print() {
            StringBuilder sb = new StringBuilder("[reliability] race " + name + " (" + iterations
                    + " iterations, seed " + seed + "):");
            histogram.forEach((k, v) -> sb.append(String.format("%n    %6d  %s", v, k)));
            System.out.println(sb);
            return this;
        }

        /**
         * Asserts that no forbidden outcome occurred, that every outcome is either allowed or forbidden (an
         * unforeseen one fails too), and that at least {@code minDistinctAllowed} allowed outcomes occurred (so the
         * race really crossed its windows).
         */
        void assertOutcomes(Set<String> allowed, Set<String> forbidden, int minDistinctAllowed) {
            StringBuilder bad = new StringBuilder();
            int distinctAllowed = 0;
            for (Map.Entry<String, Integer> e : histogram.entrySet()) {
                String outcome = e.getKey();
                if (allowed.contains(outcome)) {
                    distinctAllowed++;
                } else {
                    bad.append(String.format("%n  %s: %d time(s)%s, e.g. %s", outcome, e.getValue(),
                            forbidden.contains(outcome) ? " (forbidden)" : " (unforeseen)", examples.get(outcome)));
                }
            }
            for (String f : forbidden) {
                if (allowed.contains(f)) {
                    fail("outcome both allowed and forbidden: " + f);
                }
            }
            if (bad.length() > 0) {
                fail("race " + name + " (seed " + seed + "): outcomes that must not happen:" + bad
                        + "\nhistogram: " + histogram);
            }
            int seen = distinctAllowed;
            assertTrue(seen >= minDistinctAllowed, () -> "race " + name + " did not cross its window: only "
                    + seen + " distinct outcome(s): " + histogram);
        }
    }
}
