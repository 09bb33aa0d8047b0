package io.timingwheel;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Race site: the end of an advance that the executor's workers stepped ({@code MasterLoop.turnAfterSteps}: the
 * thread that ends the advance does the master's turn and confirms its sleep on the gate, the master thread left
 * parked, and wakes it only where the sleep cannot be confirmed), against a producer whose task is due at once. A real
 * executor (one worker) on a fresh {@link VirtualClock}, a task B due at 1 ms, which schedules B2 100 ms on, and a task
 * due in an hour (so that the sleep announces a deadline); the two actors meet ({@link StressMeeting}), then one calls
 * {@code clock.advance(200 ms)}, and the other {@code execute}s a task C. The advance's own first step hands B over
 * (a full turn: the gate opens some tens of milliseconds past 1 ms); the worker runs B, steps to 101 ms and takes B2
 * itself (no turn, no opening), runs it, and its next step finds the advance reached. So a C that comes late in the
 * advance or after it is due beyond the gate's last opening: it waits at the gate, which only a turn opens. C is due at
 * once whenever it comes: it must run without another advance, as in real time.
 *
 * <p>Result: (B and B2 ran within the advance: 1, or not: 0; C ran within the wait: 1, or not: 0). 9, 9 if the
 * advance gave up or the executor did not terminate after {@code shutdownNow()}; every wait, C's included, is
 * bounded by 10 s, or by the milliseconds of the system property {@code timingwheel.stress.terminationWaitMillis},
 * which checks of mutations that strand C set lower.
 */
@JCStressTest
@Description("the end of a stepped advance against a task due at once")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "B and B2 ran within the advance, C ran at once")
@Outcome(id = "1, 0", expect = FORBIDDEN, desc = "C, due at once, was left at a gate no one opens: a lost wake-up")
@Outcome(id = "9, 9", expect = FORBIDDEN, desc = "the advance gave up, or the executor never terminated")
@Outcome(expect = FORBIDDEN, desc = "B or B2 had not run when the advance returned")
@State
public class VirtualClockAdvanceEndVersusExecuteStress {
    private static final long WAIT_MILLIS = Long.getLong("timingwheel.stress.terminationWaitMillis", 10_000);

    private final VirtualClock clock = new VirtualClock();
    private final TimingWheelExecutor executor =
            TimingWheelExecutor.builder().clock(clock).workerThreads(1).build();
    /** Counted down by B and by B2. */
    private final CountDownLatch bRan = new CountDownLatch(2);
    private final CountDownLatch cRan = new CountDownLatch(1);
    private final StressMeeting meeting = new StressMeeting();
    private volatile boolean gaveUp;

    public VirtualClockAdvanceEndVersusExecuteStress() {
        clock.setRealTimeLimit(Duration.ofMillis(WAIT_MILLIS));
        executor.schedule(() -> { }, 1, TimeUnit.HOURS);
        executor.schedule(() -> {
            executor.schedule(bRan::countDown, 100, TimeUnit.MILLISECONDS);
            bRan.countDown();
        }, 1, TimeUnit.MILLISECONDS);
    }

    @Actor
    public void advance() {
        meeting.arriveAndWait(TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS));
        try {
            clock.advance(200, TimeUnit.MILLISECONDS);
        } catch (IllegalStateException gaveUpWaiting) {
            gaveUp = true;
        }
    }

    @Actor
    public void execute() {
        meeting.arriveAndWait(TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS));
        executor.execute(cRan::countDown);
    }

    @Arbiter
    public void arbiter(II_Result r) {
        r.r1 = bRan.getCount() == 0 ? 1 : 0; // the advance has returned: B and B2 ran within it, or never will now
        try {
            r.r2 = cRan.await(WAIT_MILLIS, TimeUnit.MILLISECONDS) ? 1 : 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            r.r2 = 0;
        }
        executor.shutdownNow();
        if (gaveUp || !StressTermination.awaited(executor, WAIT_MILLIS)) {
            r.r1 = r.r2 = 9;
        }
    }
}
