package io.timingwheel.ecosystem;

import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ExecutorServiceMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.timingwheel.TimingWheelExecutor;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Micrometer's own {@link ExecutorServiceMetrics}, which recognises a {@code ThreadPoolExecutor} and reads its
 * management methods, on the JDK's executor and on ours: the same meters, and after the same work the same values for
 * those that do not depend on timing.
 */
class ExecutorServiceMetricsTest {

    /** The meters ExecutorServiceMetrics registers only for a ThreadPoolExecutor. */
    private static final Set<String> THREAD_POOL_METERS = Set.of("executor.completed", "executor.active",
            "executor.queued", "executor.queue.remaining", "executor.pool.size", "executor.pool.core",
            "executor.pool.max");

    /** Runs {@code body} with the executor, then stops it (one-hour tasks would make a plain shutdown wait). */
    private static void with(ScheduledThreadPoolExecutor executor, ExecutorService pool,
                             Consumer<ScheduledThreadPoolExecutor> body) throws InterruptedException {
        try {
            body.accept(executor);
        } finally {
            executor.shutdownNow();
            assertTrue(executor.awaitTermination(10, SECONDS), executor::toString);
            if (pool != null) {
                pool.shutdown();
                assertTrue(pool.awaitTermination(10, SECONDS));
            }
        }
    }

    /** @return the names of the meters that monitoring {@code executor} registers */
    private static Set<String> meterNames(ScheduledThreadPoolExecutor executor) {
        MeterRegistry registry = new SimpleMeterRegistry();
        ExecutorServiceMetrics.monitor(registry, executor, "timers");
        Set<String> names = new TreeSet<>();
        for (Meter m : registry.getMeters()) {
            names.add(m.getId().getName());
        }
        return names;
    }

    /**
     * monitor() registers the same set of executor.* meters for STPE, for ours and for ours on an external executor,
     * the ThreadPoolExecutor ones among them (so Micrometer took ours for a ThreadPoolExecutor).
     */
    @Test
    void registersTheSameMetersForBoth() throws Exception {
        Set<String> jdk = new TreeSet<>();
        with(new ScheduledThreadPoolExecutor(2), null, e -> jdk.addAll(meterNames(e)));
        assertTrue(jdk.containsAll(THREAD_POOL_METERS), jdk::toString);
        with(new TimingWheelExecutor(2), null, e -> assertEquals(jdk, meterNames(e)));
        ExecutorService pool = Executors.newCachedThreadPool();
        with(TimingWheelExecutor.builder().workerExecutor(pool).build(), pool, e -> assertEquals(jdk, meterNames(e)));
    }

    /**
     * Does the same work through the monitored executor: five tasks that run, four one-shot tasks and a periodic one
     * pending for an hour. @return every meter's value that does not depend on timing, by name and statistic
     */
    private static Map<String, Double> valuesAfterTheSameWork(ScheduledThreadPoolExecutor executor) {
        MeterRegistry registry = new SimpleMeterRegistry();
        ScheduledExecutorService monitored = ExecutorServiceMetrics.monitor(registry, executor, "timers");
        try {
            for (int i = 0; i < 3; i++) {
                int n = i;
                assertEquals(n, monitored.schedule(() -> n, 1, MILLISECONDS).get(10, SECONDS));
            }
            assertEquals("submitted", monitored.submit(() -> "submitted").get(10, SECONDS));
            CountDownLatch executed = new CountDownLatch(1);
            monitored.execute(executed::countDown);
            assertTrue(executed.await(10, SECONDS));
            for (int i = 0; i < 4; i++) {
                monitored.schedule(() -> { }, 1 + i, HOURS);
            }
            monitored.scheduleAtFixedRate(() -> { }, 1, 1, HOURS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        await().atMost(Duration.ofSeconds(10)).until(
                () -> executor.getCompletedTaskCount() == 5 && executor.getActiveCount() == 0);
        Map<String, Double> values = new TreeMap<>();
        for (Meter m : registry.getMeters()) {
            String name = m.getId().getName();
            if (m instanceof Timer) {
                values.put(name + ".count", (double) ((Timer) m).count()); // its times differ from run to run
            } else {
                for (Measurement x : m.measure()) {
                    values.put(name + "." + x.getStatistic().getTagValueRepresentation(), x.getValue());
                }
            }
        }
        return values;
    }

    /**
     * After the same work, every meter that does not depend on timing has the same value for STPE and for ours:
     * completed 5, active 0, queued 5 (the pending tasks), queue remaining Integer.MAX_VALUE (unbounded), core pool
     * size 2, maximum Integer.MAX_VALUE, the pool size, and the counts of Micrometer's own timers and counters.
     */
    @Test
    void deterministicMetersAgreeAfterTheSameWork() throws Exception {
        Map<String, Double> jdk = new TreeMap<>();
        with(new ScheduledThreadPoolExecutor(2), null, e -> jdk.putAll(valuesAfterTheSameWork(e)));
        assertEquals(5.0, jdk.get("executor.completed.count"), jdk::toString);
        assertEquals(0.0, jdk.get("executor.active.value"), jdk::toString);
        assertEquals(5.0, jdk.get("executor.queued.value"), jdk::toString);
        assertEquals((double) Integer.MAX_VALUE, jdk.get("executor.queue.remaining.value"), jdk::toString);
        assertEquals(2.0, jdk.get("executor.pool.core.value"), jdk::toString);
        assertEquals((double) Integer.MAX_VALUE, jdk.get("executor.pool.max.value"), jdk::toString);
        with(new TimingWheelExecutor(2), null, e -> assertEquals(jdk, valuesAfterTheSameWork(e)));
    }
}
