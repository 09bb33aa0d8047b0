package io.timingwheel;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * Race site: the settle signal of a stepped advance ({@code VirtualClock.advanceStepped}: the advance registered
 * before its first step; {@code WorkerPool.stepVirtualTime}: the worker that ends the last run under way, with nothing
 * left to take, steps; {@code MasterLoop.stepIfIdle}: the dispatcher's look under the turn lock; the step that finds
 * nothing due by the target wakes the advance), against two runs that end at once. A real executor with two workers on
 * a fresh {@link VirtualClock}; its tasks A1 and A2, due at time 0, have started and wait, one on each worker. The two
 * actors meet ({@link StressMeeting}), then one lets A1 and A2 go, one right after the other (each then schedules its
 * B with a delay of 1 ms, and ends, on its own worker), and the other calls {@code clock.advance(2 ms)}: time cannot
 * move while an A runs, so both Bs are due at 1 ms; one of the two workers, whichever ends last, or the advance's own
 * first step, must step to 1 ms; and once the advance returns both Bs have run and read exactly 1 ms. A step no thread
 * takes makes the advance give up after the real-time limit. (Two actors, not one per A: jcstress runs no test with
 * more actors than the machine has CPUs.)
 *
 * <p>Result, read right after the advance returned: (B1 ran and read 1 ms: 1, ran and read another time: 2, did not
 * run: 0; the same for B2; the advance returned: 1, gave up: 8). 9, 9, 9 if the executor did not start both As, or did
 * not terminate after {@code shutdownNow()}, in 10 s, or in the milliseconds of the system property
 * {@code timingwheel.stress.terminationWaitMillis}, which bounds every wait of a sample (the clock's real-time limit
 * too), so that checks of mutations that strand a step can set it lower.
 */
@JCStressTest
@Description("a stepped advance against two runs that end at once")
@Outcome(id = "1, 1, 1", expect = ACCEPTABLE, desc = "both Bs ran within the advance, at their deadline, 1 ms")
@Outcome(id = ".*, .*, 8", expect = FORBIDDEN, desc = "the advance gave up: no thread took a step it could take")
@Outcome(id = "9, 9, 9", expect = FORBIDDEN, desc = "an A never started, or the executor never terminated")
@Outcome(expect = FORBIDDEN, desc = "a B had not run when the advance returned, or read another time than 1 ms")
@State
public class VirtualClockStepVersusRunEndsStress {
    private static final long WAIT_MILLIS = Long.getLong("timingwheel.stress.terminationWaitMillis", 10_000);
    private static final long ONE_MS = TimeUnit.MILLISECONDS.toNanos(1);

    private final VirtualClock clock = new VirtualClock();
    private final TimingWheelExecutor executor;
    private final CountDownLatch started = new CountDownLatch(2);
    private final StressMeeting meeting = new StressMeeting();
    private final Held first = new Held();
    private final Held second = new Held();

    /** One A: started, parked until let go (shutdownNow's interrupt must not free it), and what its B read. */
    private final class Held implements Runnable {
        volatile boolean holding = true;
        volatile Thread runner;
        volatile long seenByB = -1;

        @Override
        public void run() {
            runner = Thread.currentThread();
            started.countDown();
            while (holding) {
                LockSupport.park(this);
            }
            executor.schedule(() -> {
                seenByB = clock.nanoTime();
            }, 1, TimeUnit.MILLISECONDS);
        }

        void release() {
            holding = false;
            LockSupport.unpark(runner);
        }

        int outcome() {
            long seen = seenByB;
            return seen < 0 ? 0 : seen == ONE_MS ? 1 : 2;
        }
    }

    public VirtualClockStepVersusRunEndsStress() {
        clock.setRealTimeLimit(Duration.ofMillis(WAIT_MILLIS));
        executor = TimingWheelExecutor.builder().clock(clock).workerThreads(2).build();
        executor.execute(first);
        executor.execute(second); // the first worker holds A1, so a second one starts for A2
        Uninterruptibly.await(() -> started.await(WAIT_MILLIS, TimeUnit.MILLISECONDS), () -> { });
    }

    @Actor
    public void letBothGo() {
        meeting.arriveAndWait(TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS));
        first.release();
        second.release(); // a moment after: the two runs end on their two workers at about the same time
    }

    @Actor
    public void advance(III_Result r) {
        meeting.arriveAndWait(TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS));
        try {
            clock.advance(2, TimeUnit.MILLISECONDS);
            r.r3 = 1;
        } catch (IllegalStateException gaveUp) {
            r.r3 = 8;
        }
        r.r1 = first.outcome();
        r.r2 = second.outcome();
    }

    @Arbiter
    public void arbiter(III_Result r) {
        first.release();
        second.release();
        executor.shutdownNow();
        boolean terminated = StressTermination.awaited(executor, WAIT_MILLIS);
        if (started.getCount() > 0 || !terminated) {
            r.r1 = r.r2 = r.r3 = 9;
        }
    }
}
