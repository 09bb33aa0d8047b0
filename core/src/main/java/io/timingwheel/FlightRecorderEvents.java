package io.timingwheel;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * The executor's JDK Flight Recorder events, emitted only when enabled with
 * {@link TimingWheelExecutor.Builder#flightRecorderEvents}. This class is loaded only then, so a runtime without the
 * {@code jdk.jfr} module is fine as long as the events stay off.
 */
final class FlightRecorderEvents {
    private FlightRecorderEvents() {
    }

    static void lateRun(String executor, Object task, long latenessNanos) {
        LateRun event = new LateRun();
        if (event.isEnabled()) {
            event.executor = executor;
            event.task = String.valueOf(task);
            event.lateness = latenessNanos;
            event.commit();
        }
    }

    static void rejection(String executor, Object task, boolean shutdown) {
        Rejection event = new Rejection();
        if (event.isEnabled()) {
            event.executor = executor;
            event.task = String.valueOf(task);
            event.shutdown = shutdown;
            event.commit();
        }
    }

    @Name("io.timingwheel.LateRun")
    @Label("Late Run")
    @Category("timingwheel")
    @Description("A task started later after its deadline than the executor's threshold")
    @StackTrace(false)
    static final class LateRun extends Event {
        @Label("Executor")
        String executor;

        @Label("Task")
        String task;

        @Label("Lateness")
        @Timespan(Timespan.NANOSECONDS)
        long lateness;
    }

    @Name("io.timingwheel.Rejection")
    @Label("Rejected Task")
    @Category("timingwheel")
    @Description("A task was given to the rejection handler")
    static final class Rejection extends Event {
        @Label("Executor")
        String executor;

        @Label("Task")
        String task;

        @Label("Executor Shut Down")
        boolean shutdown;
    }
}
