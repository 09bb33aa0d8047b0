package io.timingwheel.ecosystem;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.timingwheel.TimingWheelExecutor;

/**
 * Binds a {@link TimingWheelExecutor}'s statistics to Micrometer under the conventional {@code executor.*} names
 * (those of Micrometer's own {@code ExecutorServiceMetrics}), plus the counts only this executor has. The README
 * shows this class; the library itself depends on nothing but the JDK.
 */
final class ExecutorMeters {
    private ExecutorMeters() {
    }

    static void bind(TimingWheelExecutor executor, String name, MeterRegistry registry) {
        Tags tags = Tags.of("name", name);
        FunctionCounter.builder("executor.completed", executor, e -> e.statistics().completedRuns())
                .tags(tags).description("runs that have ended").baseUnit("tasks").register(registry);
        FunctionCounter.builder("executor.failed", executor, e -> e.statistics().failedRuns())
                .tags(tags).description("runs that ended with an exception").baseUnit("tasks").register(registry);
        FunctionCounter.builder("executor.cancelled", executor, e -> e.statistics().cancelledTasks())
                .tags(tags).description("tasks cancelled").baseUnit("tasks").register(registry);
        FunctionCounter.builder("executor.rejected", executor, e -> e.statistics().rejectedTasks())
                .tags(tags).description("tasks rejected").baseUnit("tasks").register(registry);
        Gauge.builder("executor.active", executor, e -> e.statistics().runningTasks())
                .tags(tags).description("tasks running now").baseUnit("threads").register(registry);
        Gauge.builder("executor.queued", executor, e -> e.statistics().pendingTasks())
                .tags(tags).description("tasks waiting for their time or a worker").baseUnit("tasks").register(registry);
        Gauge.builder("executor.pool.size", executor, TimingWheelExecutor::getPoolSize)
                .tags(tags).description("worker threads").baseUnit("threads").register(registry);
        Gauge.builder("executor.pool.core", executor, TimingWheelExecutor::getCorePoolSize)
                .tags(tags).description("core worker threads").baseUnit("threads").register(registry);
        Gauge.builder("executor.lateness.p99", executor, e -> e.statistics().latenessPercentileNanos(0.99) / 1e9)
                .tags(tags).description("bound on the lateness of 99% of runs").baseUnit("seconds").register(registry);
    }
}
