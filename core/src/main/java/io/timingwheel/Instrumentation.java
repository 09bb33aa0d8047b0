package io.timingwheel;

import java.util.concurrent.atomic.LongAdder;

/**
 * What an executor counts and records about its tasks beyond their own futures: cancelled and rejected tasks, how late
 * each run starts, and the JDK Flight Recorder events when they are on. Nothing here is on the scheduling path; and
 * nothing here may keep a task from ending, so recording never throws.
 */
final class Instrumentation {
    private final String executorName;
    private final Clock clock;

    /** Runs later than this emit a JFR event; negative when the events are off. */
    private final long lateRunEventThresholdNanos;

    private final LongAdder cancelled = new LongAdder();
    private final LongAdder rejected = new LongAdder();

    Instrumentation(String executorName, Clock clock, long lateRunEventThresholdNanos) {
        this.executorName = executorName;
        this.clock = clock;
        this.lateRunEventThresholdNanos = lateRunEventThresholdNanos;
    }

    /** Records how late a run starts, just before it starts, into the histogram of the thread that runs it. */
    void runStarts(ScheduledTask<?> task, LatenessHistogram histogram) {
        try {
            long lateness = clock.now() - task.deadline;
            histogram.record(lateness);
            if (lateRunEventThresholdNanos >= 0 && lateness > lateRunEventThresholdNanos) {
                FlightRecorderEvents.lateRun(executorName, task, lateness);
            }
        } catch (Throwable t) {
            InternalFailures.report(executorName, "cannot record a run's lateness", t);
        }
    }

    void cancelled() {
        cancelled.increment();
    }

    /** Counts a task given to the rejection handler, and records the event. */
    void rejected(ScheduledTask<?> task, boolean shutdown) {
        rejected.increment();
        if (lateRunEventThresholdNanos >= 0) {
            try {
                FlightRecorderEvents.rejection(executorName, task, shutdown);
            } catch (Throwable t) {
                InternalFailures.report(executorName, "cannot record a rejection event", t);
            }
        }
    }

    long cancelledCount() {
        return cancelled.sum();
    }

    long rejectedCount() {
        return rejected.sum();
    }
}
