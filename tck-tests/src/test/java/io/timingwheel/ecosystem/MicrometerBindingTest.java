package io.timingwheel.ecosystem;

import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.timingwheel.TimingWheelExecutor;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.Test;

/** The README's Micrometer binding, with the real {@link SimpleMeterRegistry}. */
class MicrometerBindingTest {
    /** The executor.* meters report completed, failed, cancelled, rejected, queued, active and pool figures. */
    @Test
    void metersFollowTheExecutor() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        TimingWheelExecutor executor = TimingWheelExecutor.builder().workerThreads(2).maxPendingTasks(3).build();
        try {
            ExecutorMeters.bind(executor, "timers", registry);
            executor.schedule(() -> "ok", 1, MILLISECONDS).get(10, SECONDS);
            Future<?> failing = executor.submit(() -> {
                throw new IllegalStateException();
            });
            assertThrows(ExecutionException.class, () -> failing.get(10, SECONDS));
            Future<?> cancelled = executor.schedule(() -> { }, 1, HOURS);
            cancelled.cancel(false);
            executor.schedule(() -> { }, 1, HOURS);
            executor.schedule(() -> { }, 1, HOURS);
            executor.schedule(() -> { }, 1, HOURS);
            assertThrows(RejectedExecutionException.class, () -> executor.schedule(() -> { }, 1, HOURS));

            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                assertEquals(2.0, registry.get("executor.completed").tag("name", "timers").functionCounter().count());
                assertEquals(3.0, registry.get("executor.queued").gauge().value());
            });
            assertEquals(1.0, registry.get("executor.failed").functionCounter().count());
            assertEquals(1.0, registry.get("executor.cancelled").functionCounter().count());
            assertEquals(1.0, registry.get("executor.rejected").functionCounter().count());
            assertEquals(0.0, registry.get("executor.active").gauge().value());
            assertEquals(2.0, registry.get("executor.pool.size").gauge().value());
            assertEquals(2.0, registry.get("executor.pool.core").gauge().value());
            double p99 = registry.get("executor.lateness.p99").gauge().value();
            assertTrue(p99 > 0 && p99 < 10, "p99 lateness in seconds: " + p99);
        } finally {
            executor.shutdownNow(); // the one-hour tasks would make close() wait an hour, as the JDK's would
            assertTrue(executor.awaitTermination(10, SECONDS));
        }
    }
}
