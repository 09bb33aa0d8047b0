package io.timingwheel.reliability;

import io.timingwheel.TimingWheelExecutor;
import io.timingwheel.reliability.InvariantChecker.Report;
import io.timingwheel.reliability.StressRound.Ending;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * User code that interrupts the executor's own threads, found by their default names through
 * {@link Thread#getAllStackTraces()} ({@code timingwheel-N-master}, {@code timingwheel-N-worker-M}; the JDK's
 * {@code pool-N-thread-M}). Expected: an interrupt is a request to the task that is running, nothing more: no thread
 * dies, no task is lost or delayed, no interrupt reaches a later task, and no thread starts spinning.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
@SuppressWarnings("try") // the resource only shuts the executor down; the body uses the executor
class InterruptTest {

    /**
     * Ours only (the JDK has no master thread): an interrupted master keeps firing tasks, never early, and once idle
     * again it sleeps instead of spinning: under 10 % of a core over half a second with only a far-off task pending.
     */
    @Test
    void interruptedMasterKeepsFiringAndDoesNotSpin() throws Exception {
        TimingWheelExecutor e = new TimingWheelExecutor(1);
        try (Closing<?> c = Closing.of(e)) {
            ScheduledFuture<?> far = e.schedule(() -> { }, 1, TimeUnit.HOURS); // starts the master
            Thread master = Threads.of(e).stream().filter(t -> t.getName().contains("-master")).findFirst()
                    .orElseThrow(() -> new AssertionError("no thread named timingwheel-N-master"));
            for (int i = 0; i < 10; i++) {
                master.interrupt();
            }

            List<ScheduledFuture<Long>> runs = new ArrayList<>();
            List<Long> due = new ArrayList<>();
            for (int i = 1; i <= 50; i++) {
                due.add(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(i));
                runs.add(e.schedule(System::nanoTime, i, TimeUnit.MILLISECONDS));
            }
            for (int i = 0; i < runs.size(); i++) {
                long ranAt = runs.get(i).get(10, TimeUnit.SECONDS);
                assertTrue(ranAt - due.get(i) >= 0, "task " + i + " ran early");
            }
            assertTrue(master.isAlive(), "the master died of an interrupt");

            long cpuBefore = Threads.cpuNanos(master);
            Threads.parkUntil(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500)); // a measuring window
            long cpu = Threads.cpuNanos(master) - cpuBefore;
            assertTrue(cpu < TimeUnit.MILLISECONDS.toNanos(50), () -> "an idle master used "
                    + TimeUnit.NANOSECONDS.toMillis(cpu) + " ms of CPU in 500 ms after an interrupt (interrupted: "
                    + master.isInterrupted() + ")");
            far.cancel(false);
            e.shutdown();
            assertTrue(e.awaitTermination(10, TimeUnit.SECONDS));
        }
    }

    /**
     * Worker threads interrupted over and over, while idle and while running tasks, neither die nor pass the
     * interrupt on: five thousand tasks all complete, the same threads serve afterwards, and a task started after
     * the last interrupt (which hit idle workers) does not see it.
     */
    @ParameterizedTest
    @EnumSource(Subject.class)
    void interruptedWorkersNeitherDieNorLeakTheInterrupt(Subject subject) throws Exception {
        ScheduledExecutorService e = subject.create(2);
        try (TaskThreadFailures failures = new TaskThreadFailures(); Closing<?> c = Closing.of(e)) {
            startBothWorkers(e);
            List<Thread> workers = Threads.of(e).stream().filter(t -> !t.getName().contains("-master"))
                    .collect(Collectors.toList());
            assertEquals(2, workers.size(), () -> "worker threads: " + workers);

            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong interrupts = new AtomicLong();
            Thread hostile = new Thread(failures.guard(() -> {
                while (!stop.get()) {
                    for (Thread w : workers) {
                        w.interrupt();
                        interrupts.incrementAndGet();
                    }
                    LockSupport.parkNanos(20_000);
                }
            }), "hostile-interrupter");
            hostile.start();
            List<Future<Long>> futures = new ArrayList<>();
            for (int i = 0; i < 5_000; i++) {
                long n = i;
                futures.add(e.schedule(() -> work(n), i % 100, TimeUnit.MILLISECONDS)); // over 100 ms
            }
            for (int i = 0; i < futures.size(); i++) {
                assertEquals(work(i), futures.get(i).get(10, TimeUnit.SECONDS));
            }
            stop.set(true);
            hostile.join();
            assertTrue(interrupts.get() > 200, () -> "the storm was too short: " + interrupts.get());

            for (Thread w : workers) {
                w.interrupt(); // they are idle now
            }
            for (int i = 0; i < 20; i++) {
                assertFalse(e.submit(() -> Thread.currentThread().isInterrupted()).get(10, TimeUnit.SECONDS),
                        "a task saw an interrupt sent before it started");
            }
            List<Thread> after = Threads.of(e).stream().filter(t -> !t.getName().contains("-master"))
                    .collect(Collectors.toList());
            assertEquals(new HashSet<>(workers), new HashSet<>(after), "the same workers serve");
            System.out.printf("[reliability] %s worker interrupts: %d interrupts, 5000 tasks, lost=0%n", subject,
                    interrupts.get());
            e.shutdown();
            assertTrue(e.awaitTermination(10, TimeUnit.SECONDS));
        }
    }

    /** A caller that is interrupted when it calls {@code shutdownNow()} still gets every queued task back and keeps
     * its interrupt status. */
    @ParameterizedTest
    @EnumSource(Subject.class)
    void interruptedCallerOfShutdownNowGetsTheWholeList(Subject subject) throws Exception {
        ScheduledExecutorService e = subject.create(1);
        try (Closing<?> c = Closing.of(e)) {
            List<Future<?>> queued = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                queued.add(e.schedule(() -> { }, 1, TimeUnit.HOURS));
            }
            Thread.currentThread().interrupt();
            List<Runnable> returned;
            boolean stillInterrupted;
            try {
                returned = e.shutdownNow();
            } finally {
                stillInterrupted = Thread.interrupted();
            }
            assertTrue(stillInterrupted, "the caller's interrupt status was swallowed");
            assertEquals(10, returned.size());
            assertTrue(returned.containsAll(queued));
            assertTrue(e.awaitTermination(10, TimeUnit.SECONDS));
        }
    }

    /**
     * Under a storm of interrupts on every thread of the executor (master included, for ours) a stress round keeps
     * every invariant of the {@link InvariantChecker}: nothing lost, nothing run after a winning cancel or early.
     */
    @ParameterizedTest
    @EnumSource(Subject.class)
    void invariantsHoldUnderAnInterruptStorm(Subject subject) throws Exception {
        long seed = Budget.seed() + 77 + subject.ordinal();
        AtomicLong interrupts = new AtomicLong();
        long start = System.nanoTime();
        Report r = StressRound.run(subject, Ending.SHUTDOWN_NOW, 0, 600, seed, (e, stop) -> {
            List<Thread> threads = Threads.of(e);
            while (!stop.getAsBoolean()) {
                for (Thread t : threads) {
                    t.interrupt();
                    interrupts.incrementAndGet();
                }
                LockSupport.parkNanos(100_000);
            }
        });
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.println(r.summary("interrupt storm " + subject + " (" + interrupts.get() + " interrupts) seed "
                + seed, millis));
        assertEquals(0, r.lost, r::firstViolations);
        assertTrue(r.violations.isEmpty(), r::firstViolations);
        assertTrue(interrupts.get() > 100, "the storm did not happen");
    }

    // -- helpers ----------------------------------------------------------------------------------------------------

    private static void startBothWorkers(ScheduledExecutorService e) throws Exception {
        CountDownLatch both = new CountDownLatch(2);
        List<Future<?>> fs = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            fs.add(e.submit(() -> {
                both.countDown();
                return both.await(10, TimeUnit.SECONDS);
            }));
        }
        for (Future<?> f : fs) {
            assertEquals(true, f.get(10, TimeUnit.SECONDS), "two workers did not run at once");
        }
    }

    /** A little computation that an interrupt cannot stop. */
    private static long work(long n) {
        long x = n;
        for (int i = 0; i < 200; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
        }
        return x;
    }
}
