package io.timingwheel.nojfr;

import io.timingwheel.TimingWheelExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Run by {@code io.timingwheel.BeyondTheJdkTest} in a JVM whose runtime lacks the {@code jdk.jfr} module: building an
 * executor with Flight Recorder events must fail at once with a clear message, and one without them must work. Prints
 * what happened; exits 0 if both held. (A package of its own, so that it can run beside the named module too.)
 */
public final class NoJfrMain {
    private NoJfrMain() {
    }

    public static void main(String[] args) throws Exception {
        try {
            TimingWheelExecutor.builder().flightRecorderEvents(0, TimeUnit.NANOSECONDS).build().shutdownNow();
            System.out.println("FAILED: build() accepted Flight Recorder events without jdk.jfr");
            System.exit(1);
        } catch (IllegalStateException expected) {
            System.out.println("refused: " + expected.getMessage());
        }
        TimingWheelExecutor executor = new TimingWheelExecutor(1);
        try {
            Integer answer = executor.schedule(() -> 42, 1, TimeUnit.MILLISECONDS).get(10, TimeUnit.SECONDS);
            System.out.println("without events it works: " + answer);
        } finally {
            executor.shutdownNow();
        }
    }
}
