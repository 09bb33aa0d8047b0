package io.timingwheel;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * shutdownNow among publishers that keep scheduling: every accepted task is run or returned, and the executor
 * terminates. Two publishers write into the workers' arrivals at once, so a drain may find a place claimed and not yet
 * written ahead of a task whose publisher has already counted it accepted; a drain that looked once left that task
 * queued, neither run nor returned, and termination never came (about one round in a thousand on a 2-core machine,
 * before {@code Arrivals.moveInEveryClaim}). A stress test: each round is one chance for that interleaving.
 */
class ShutdownNowDrainTest {
    private static final int ROUNDS = 2_000;
    private static final int PER_PUBLISHER = 1_500;

    @Test
    void everyAcceptedTaskIsRunOrReturnedAndTheExecutorTerminates() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            oneRound(round);
        }
    }

    private static void oneRound(int round) throws Exception {
        TimingWheelExecutor executor = TimingWheelExecutor.builder().workerThreads(2).build();
        ConcurrentLinkedQueue<ScheduledFuture<?>> accepted = new ConcurrentLinkedQueue<>();
        AtomicInteger submitted = new AtomicInteger();
        AtomicInteger ran = new AtomicInteger();
        List<Thread> publishers = new ArrayList<>();
        for (int p = 0; p < 2; p++) {
            Thread publisher = new Thread(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                for (int i = 0; i < PER_PUBLISHER; i++) {
                    long delayMicros = random.nextInt(4) == 0 ? 0 : random.nextLong(3_000); // all straight to the workers
                    try {
                        accepted.add(executor.schedule(ran::incrementAndGet, delayMicros, TimeUnit.MICROSECONDS));
                    } catch (RejectedExecutionException expected) {
                        // after the stop
                    }
                    submitted.incrementAndGet();
                }
            });
            publisher.start();
            publishers.add(publisher);
        }
        TimingWheelExecutorTest.await("some tasks published and one run",
                () -> submitted.get() >= PER_PUBLISHER && ran.get() > 0);
        Set<Object> returned = Collections.newSetFromMap(new IdentityHashMap<>());
        returned.addAll(executor.shutdownNow());
        for (Thread publisher : publishers) {
            publisher.join();
        }
        assertTrue(executor.awaitTermination(10, TimeUnit.SECONDS), "round " + round + ": terminated");
        for (ScheduledFuture<?> future : accepted) {
            assertTrue(future.isDone() || returned.contains(future),
                    "round " + round + ": an accepted task neither ran nor was returned: " + future);
        }
    }
}
