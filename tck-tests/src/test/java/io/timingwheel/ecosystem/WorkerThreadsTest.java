package io.timingwheel.ecosystem;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.timingwheel.TimingWheelExecutor;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Where tasks run: named worker threads by default, or an external executor such as virtual threads. */
class WorkerThreadsTest {
    /** Default thread names say which executor and which role a thread has. */
    @Test
    void defaultThreadNamesSayExecutorAndRole() throws Exception {
        try (TimingWheelExecutor executor = new TimingWheelExecutor(2)) {
            // 100 ms: a delay the master hands over (up to 50 ms, tasks go to the workers straight), so the master runs
            String worker = executor.schedule(() -> Thread.currentThread().getName(), 100, MILLISECONDS)
                    .get(10, SECONDS);
            assertTrue(worker.matches("timingwheel-\\d+-worker-\\d+"), worker);
            String prefix = worker.substring(0, worker.indexOf("-worker-"));
            boolean masterFound = Thread.getAllStackTraces().keySet().stream()
                    .anyMatch(t -> t.getName().equals(prefix + "-master") && t.isDaemon());
            assertTrue(masterFound, "a daemon master thread named " + prefix + "-master");
        }
    }

    /** On Java 21+, tasks run on virtual threads given as the worker executor; the master stays a platform thread. */
    @Test
    void virtualThreadWorkers() throws Exception {
        assumeTrue(Runtime.version().feature() >= 21, "virtual threads need Java 21+; CI also runs on JDK 25");
        ExecutorService virtualThreads = (ExecutorService) Executors.class
                .getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        Method isVirtual = Thread.class.getMethod("isVirtual");
        Set<Boolean> virtualSeen = ConcurrentHashMap.newKeySet();
        int tasks = 10_000;
        CountDownLatch done = new CountDownLatch(tasks);
        try (TimingWheelExecutor executor = TimingWheelExecutor.builder().workerExecutor(virtualThreads).build()) {
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < tasks; i++) {
                futures.add(executor.schedule(() -> {
                    try {
                        virtualSeen.add((Boolean) isVirtual.invoke(Thread.currentThread()));
                        Thread.sleep(1); // a virtual thread parks cheaply
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                    done.countDown();
                }, i % 50, MILLISECONDS));
            }
            assertTrue(done.await(30, SECONDS));
            assertEquals(Set.of(true), virtualSeen, "every run was on a virtual thread");
            for (Future<?> f : futures) {
                f.get(10, SECONDS); // the latch opens inside the bodies, a moment before the futures complete
            }
            Thread master = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().matches("timingwheel-\\d+-master")).findAny().orElseThrow();
            assertFalse((Boolean) isVirtual.invoke(master));
        } finally {
            virtualThreads.shutdown();
            assertTrue(virtualThreads.awaitTermination(10, SECONDS));
        }
    }
}
