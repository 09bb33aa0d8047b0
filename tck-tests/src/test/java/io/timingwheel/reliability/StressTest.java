package io.timingwheel.reliability;

import io.timingwheel.reliability.InvariantChecker.Report;
import io.timingwheel.reliability.StressRound.Ending;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Many producers scheduling, cancelling and shutting down at once (see {@link StressRound}), checked by the
 * {@link InvariantChecker}. Each round runs against the JDK's executor too: the checker is then checked against the
 * reference, so a violation reported only for ours is ours.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class StressTest {

    static Stream<Arguments> rounds() {
        List<Arguments> rounds = new ArrayList<>();
        for (Ending ending : Ending.values()) {
            rounds.add(Arguments.of(Subject.STPE, ending, 0L));
            rounds.add(Arguments.of(Subject.TWE, ending, 0L));
            rounds.add(Arguments.of(Subject.TWE, ending, 2_000L));
        }
        return rounds.stream();
    }

    /**
     * Under random schedules, cancels and a racing shutdown, every accepted task ends exactly once, none runs after
     * a winning cancel, early, overlapping or after termination, and none is lost.
     */
    @ParameterizedTest(name = "{0}, {1}, pending limit {2}")
    @MethodSource("rounds")
    void everyAcceptedTaskEndsExactlyOnce(Subject subject, Ending ending, long maxPending) throws Exception {
        long seed = Budget.seed() + subject.ordinal() * 7919L + ending.ordinal() * 104729L + maxPending;
        long start = System.nanoTime();
        Report report = StressRound.run(subject, ending, maxPending, Budget.stressMillis(), seed);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        String name = "stress " + subject + " " + ending + (maxPending > 0 ? " limit " + maxPending : "")
                + " seed " + seed;
        System.out.println(report.summary(name, millis));

        assertEquals(0, report.lost, () -> "lost tasks:" + report.firstViolations());
        assertTrue(report.violations.isEmpty(), () -> report.violations.size() + " violations:"
                + report.firstViolations());
        assertTrue(report.accepted > 1_000 && report.runs > 1_000 && report.cancelsThatWon > 100,
                () -> "the round did too little to mean anything: " + report.summary(name, millis));
        if (maxPending > 0) {
            assertTrue(report.rejected > 0, "the pending limit was never reached");
        }
    }
}
