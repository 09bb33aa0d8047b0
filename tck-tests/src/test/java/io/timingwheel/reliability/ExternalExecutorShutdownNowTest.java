package io.timingwheel.reliability;

import io.timingwheel.TimingWheelExecutor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Ours only (the JDK's executor has no external executor, and its own shutdownNow may cancel a task a worker took
 * just as it stopped): with tasks running on a user's cached thread pool, shutdownNow() returns exactly the accepted
 * tasks that no thread of that pool started, every time, while the pool's threads race to claim them. (It once
 * cancelled 2 of 15,000 such tasks instead of returning them.)
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ExternalExecutorShutdownNowTest {

    /** Each round: 2,000 tasks due now, handed to the pool as fast as they come, then shutdownNow(). */
    @Test
    void everyTaskIsStartedOrReturnedNeverBothNeverNeither() throws Exception {
        int rounds = Budget.iterations(20);
        long startedTotal = 0;
        long returnedTotal = 0;
        for (int round = 0; round < rounds; round++) {
            ExecutorService pool = Executors.newCachedThreadPool();
            TimingWheelExecutor e = TimingWheelExecutor.builder().workerExecutor(pool).build();
            try {
                Set<Object> started = Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));
                List<Future<?>> futures = new ArrayList<>();
                for (int i = 0; i < 2_000; i++) {
                    AtomicReference<Future<?>> self = new AtomicReference<>();
                    Future<?> f = e.submit(() -> {
                        Future<?> me;
                        while ((me = self.get()) == null) {
                            Thread.onSpinWait(); // submit has not returned yet: wait for the future to be known
                        }
                        started.add(me);
                    });
                    self.set(f);
                    futures.add(f);
                }
                List<Runnable> returnedList = e.shutdownNow();
                assertTrue(e.awaitTermination(10, TimeUnit.SECONDS), "round " + round + ": not terminated: " + e);
                Set<Object> returned = Collections.newSetFromMap(new IdentityHashMap<>());
                returned.addAll(returnedList);
                assertEquals(returnedList.size(), returned.size(), "round " + round + ": returned twice");
                for (Future<?> f : futures) {
                    boolean ran = started.contains(f);
                    int r = round;
                    assertTrue(ran != returned.contains(f), () -> "round " + r + ": " + f + " started=" + ran
                            + ", returned=" + returned.contains(f) + ", cancelled=" + f.isCancelled());
                    if (!ran) {
                        assertTrue(!f.isDone(), "a returned task is left as it was: " + f);
                    }
                }
                startedTotal += started.size();
                returnedTotal += returned.size();
            } finally {
                e.shutdownNow();
                pool.shutdownNow();
                assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
            }
        }
        System.out.printf("[reliability] external executor shutdownNow: %d rounds, %d started, %d returned%n",
                rounds, startedTotal, returnedTotal);
        assertTrue(returnedTotal > 0 && startedTotal > 0, "both outcomes happened, so the race was run");
    }
}
