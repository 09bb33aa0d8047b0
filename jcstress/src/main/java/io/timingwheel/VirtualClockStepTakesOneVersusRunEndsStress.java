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
 * Race site: a step that gives the one task due at its time to the worker that takes the step
 * ({@code MasterLoop.stepTurn}, {@code WorkerPool.giveToStepper}: the task claimed and its worker counted active under
 * the pool's lock, within the step), against two runs that end at once and the advance's own first step. As
 * {@link VirtualClockStepVersusRunEndsStress}, but A1's B is due at 1 ms and A2's at 2 ms, and the clock advances
 * 3 ms: each step then has one task due, which the worker that steps takes itself, with nothing queued. A step that
 * saw that worker idle before its task had started would move time on, and the B would read a later time than its
 * deadline.
 *
 * <p>Result, read right after the advance returned: (B1 ran and read 1 ms: 1, ran and read another time: 2, did not
 * run: 0; B2 the same, with 2 ms; the advance returned: 1, gave up: 8). 9, 9, 9 if the executor did not start both As,
 * or did not terminate after {@code shutdownNow()}, in 10 s, or in the milliseconds of the system property
 * {@code timingwheel.stress.terminationWaitMillis}.
 */
@JCStressTest
@Description("a step that gives its one due task to the worker that steps, against two runs that end at once")
@Outcome(id = "1, 1, 1", expect = ACCEPTABLE, desc = "both Bs ran within the advance, each at its deadline")
@Outcome(id = ".*, .*, 8", expect = FORBIDDEN, desc = "the advance gave up: no thread took a step it could take")
@Outcome(id = "9, 9, 9", expect = FORBIDDEN, desc = "an A never started, or the executor never terminated")
@Outcome(expect = FORBIDDEN, desc = "a B had not run when the advance returned, or read another time than 1 ms")
@State
public class VirtualClockStepTakesOneVersusRunEndsStress {
    private static final long WAIT_MILLIS = Long.getLong("timingwheel.stress.terminationWaitMillis", 10_000);
    private static final long ONE_MS = TimeUnit.MILLISECONDS.toNanos(1);

    private final VirtualClock clock = new VirtualClock();
    private final TimingWheelExecutor executor;
    private final CountDownLatch started = new CountDownLatch(2);
    private final StressMeeting meeting = new StressMeeting();
    private final Held first = new Held(1);
    private final Held second = new Held(2);

    /** One A: started, parked until let go (shutdownNow's interrupt must not free it), and what its B read. */
    private final class Held implements Runnable {
        volatile boolean holding = true;
        volatile Thread runner;
        volatile long seenByB = -1;
        final long delayMillis;

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
            return seen < 0 ? 0 : seen == delayMillis * ONE_MS ? 1 : 2;
        }
    }

    public VirtualClockStepTakesOneVersusRunEndsStress() {
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
            clock.advance(3, TimeUnit.MILLISECONDS);
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
