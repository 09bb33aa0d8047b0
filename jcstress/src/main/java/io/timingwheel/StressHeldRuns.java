package io.timingwheel;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * The scenario of the stepped-advance tests: a real executor with two workers on a fresh {@link VirtualClock}; its
 * tasks A1 and A2, due at time 0, have started and wait, one on each worker. {@link #letBothGo} lets them go one right
 * after the other; each then schedules its B (A1's after {@code firstDelayMillis}, A2's after
 * {@code secondDelayMillis}) and ends, on its own worker, while {@link #advance} advances the clock.
 *
 * <p>Result, read right after the advance returned: (B1 ran and read its deadline: 1, ran and read another time: 2,
 * did not run: 0; the same for B2; the advance returned: 1, gave up: 8). {@link #arbiter} makes it 9, 9, 9 if the
 * executor did not start both As, or did not terminate after {@code shutdownNow()}, in 10 s, or in the milliseconds of
 * the system property {@code timingwheel.stress.terminationWaitMillis}, which bounds every wait of a sample (the
 * clock's real-time limit too), so that checks of mutations that strand a step can set it lower.
 */
final class StressHeldRuns {
    private static final long WAIT_MILLIS = Long.getLong("timingwheel.stress.terminationWaitMillis", 10_000);

    private final VirtualClock clock = new VirtualClock();
    private final TimingWheelExecutor executor;
    private final CountDownLatch started = new CountDownLatch(2);
    private final StressMeeting meeting = new StressMeeting();
    private final Held first;
    private final Held second;

    /** One A: started, parked until let go (shutdownNow's interrupt must not free it), and what its B read. */
    private final class Held implements Runnable {
        private final long delayMillis;
        volatile boolean holding = true;
        volatile Thread runner;
        volatile long seenByB = -1;

        Held(long delayMillis) {
            this.delayMillis = delayMillis;
        }

        @Override
        public void run() {
            runner = Thread.currentThread();
            started.countDown();
            while (holding) {
                LockSupport.park(this);
            }
            executor.schedule(() -> {
                seenByB = clock.nanoTime();
            }, delayMillis, TimeUnit.MILLISECONDS);
        }

        void release() {
            holding = false;
            LockSupport.unpark(runner);
        }

        int outcome() {
            long seen = seenByB;
            return seen < 0 ? 0 : seen == TimeUnit.MILLISECONDS.toNanos(delayMillis) ? 1 : 2;
        }
    }

    StressHeldRuns(long firstDelayMillis, long secondDelayMillis) {
        clock.setRealTimeLimit(Duration.ofMillis(WAIT_MILLIS));
        executor = TimingWheelExecutor.builder().clock(clock).workerThreads(2).build();
        first = new Held(firstDelayMillis);
        second = new Held(secondDelayMillis);
        executor.execute(first);
        executor.execute(second); // the first worker holds A1, so a second one starts for A2
        Uninterruptibly.await(() -> started.await(WAIT_MILLIS, TimeUnit.MILLISECONDS), () -> { });
    }

    /** The first actor: meets the other, then lets A1 and A2 go. */
    void letBothGo() {
        meeting.arriveAndWait(TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS));
        first.release();
        second.release(); // a moment after: the two runs end on their two workers at about the same time
    }

    /** The second actor: meets the other, then advances the clock by {@code millis}, and reads what the Bs saw. */
    void advance(long millis, III_Result r) {
        meeting.arriveAndWait(TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS));
        try {
            clock.advance(millis, TimeUnit.MILLISECONDS);
            r.r3 = 1;
        } catch (IllegalStateException gaveUp) {
            r.r3 = 8;
        }
        r.r1 = first.outcome();
        r.r2 = second.outcome();
    }

    /** Frees the As, stops the executor and marks a sample whose executor never started both or never terminated. */
    void arbiter(III_Result r) {
        first.release();
        second.release();
        executor.shutdownNow();
        boolean terminated = StressTermination.awaited(executor, WAIT_MILLIS);
        if (started.getCount() > 0 || !terminated) {
            r.r1 = r.r2 = r.r3 = 9;
        }
    }
}
