package io.timingwheel;

import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;

/**
 * The settings of a {@link TimingWheelExecutor.Builder}, checked by the facade, as the {@link ExecutorCore} takes them.
 *
 * @param name the executor's name, for threads, reports and events
 * @param corePoolSize the core pool size
 * @param threadFactory the factory of worker threads
 * @param masterThreadFactory the user's factory of the master thread, or null
 * @param workerExecutor where tasks run instead of the own workers, or null
 * @param tickNanos the wheel's tick
 * @param wheelSize the wheel's slots per level
 * @param maxPendingTasks the pending limit; 0 for none
 * @param failureHandler hears of failed runs, or null
 * @param skipMissedRuns whether fixed-rate tasks skip missed runs
 * @param lateRunEventThresholdNanos runs later than this emit a JFR event; negative when the events are off
 * @param virtualClock the clock a test moves, or null for {@code System.nanoTime()}
 */
record ExecutorSettings(String name, int corePoolSize, ThreadFactory threadFactory, ThreadFactory masterThreadFactory,
                        Executor workerExecutor, long tickNanos, int wheelSize, long maxPendingTasks,
                        TaskFailureHandler failureHandler, boolean skipMissedRuns, long lateRunEventThresholdNanos,
                        VirtualClock virtualClock) {
}
