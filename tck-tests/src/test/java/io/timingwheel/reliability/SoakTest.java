package io.timingwheel.reliability;

import io.timingwheel.reliability.InvariantChecker.Report;
import io.timingwheel.reliability.StressRound.Ending;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The stress rounds of {@link StressTest}, back to back against {@code TimingWheelExecutor} for
 * {@code -Dtimingwheel.soak.seconds} (2 s by default, so CI runs it briefly), cycling through the endings and with and
 * without a pending limit, each round with a new seed. Long soak:
 * {@code mvn -B -o -pl tck-tests test -Dtest='io.timingwheel.reliability.SoakTest' -Dtimingwheel.soak.seconds=600}.
 */
class SoakTest {
    private static final long ROUND_MILLIS = 2_500;

    /** Round after round for the soak's duration, no accepted task is lost and no invariant is violated. */
    @Test
    // Each round bounds its own waits; the soak's length is the knob, so this is only a last resort.
    @Timeout(value = 24, unit = TimeUnit.HOURS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void noTaskLostInAnyRound() throws Exception {
        long seconds = Budget.soakSeconds();
        long start = System.nanoTime();
        long end = start + TimeUnit.SECONDS.toNanos(seconds);
        long rounds = 0;
        long ops = 0;
        long accepted = 0;
        long rejected = 0;
        long runs = 0;
        long injected = 0;
        long lost = 0;
        long longestRound = 0;
        List<String> violations = new ArrayList<>();
        Ending[] endings = Ending.values();
        do {
            Ending ending = endings[(int) (rounds % endings.length)];
            long limit = (rounds / endings.length) % 2 == 0 ? 0 : 2_000;
            long seed = Budget.seed() + 1_000_003L * rounds;
            long left = TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime());
            long millis = Math.max(200, Math.min(ROUND_MILLIS, left));
            long roundStart = System.nanoTime();
            Report r = StressRound.run(Subject.TWE, ending, limit, millis, seed);
            longestRound = Math.max(longestRound, System.nanoTime() - roundStart);
            rounds++;
            ops += r.operations();
            accepted += r.accepted;
            rejected += r.rejected;
            runs += r.runs;
            injected += r.injectedFailures;
            lost += r.lost;
            for (String v : r.violations) {
                violations.add("round " + rounds + " (" + ending + ", limit " + limit + ", seed " + seed + "): " + v);
            }
        } while (System.nanoTime() < end && violations.size() < 100);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.printf("[reliability] soak TWE: %d rounds in %d ms (longest %d ms): ops=%d accepted=%d "
                        + "rejected=%d runs=%d injected failures=%d lost=%d violations=%d%n",
                rounds, millis, TimeUnit.NANOSECONDS.toMillis(longestRound), ops, accepted, rejected, runs,
                injected, lost, violations.size());

        assertEquals(0, lost, () -> "lost tasks: " + String.join("\n", violations.subList(0,
                Math.min(20, violations.size()))));
        assertTrue(violations.isEmpty(), () -> String.join("\n", violations.subList(0,
                Math.min(20, violations.size()))));
    }
}
