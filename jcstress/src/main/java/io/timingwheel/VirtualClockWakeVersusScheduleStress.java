package io.timingwheel;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * Race site: {@code ExecutorCore.settled} and {@code MasterLoop.settled} ("no run under way and no due task waiting
 * in the dispatcher, and then, on the master thread, the same again, the inbox drained into the wheel and nothing in
 * the wheel due by now"), the clock's look that wakes the master of an executor whose master sleeps until woken,
 * against a producer that reads the clock's time and publishes its task to the master's inbox. A real executor (one
 * worker) on a fresh {@link VirtualClock}: a {@code schedule(task, 1 ms)} from one thread against
 * {@code clock.advance(1 ms)} from another (the two meet first: {@link StressMeeting}), which may move time past the
 * deadline the producer computed; then
 * {@code advance(0)}, which waits for what is due now: a task due by the clock's time has run once it returns, and no
 * task ran before its deadline (a run reads its own deadline from the clock). Every other sample has a second, idle
 * executor on the clock, so that the advances poll the two; alone, the executor's threads step them
 * ({@code VirtualClock.advanceStepped}, {@code MasterLoop.stepIfIdle}: a step drains the inbox the producer publishes
 * to, and the advance wakes the master once it is over).
 *
 * <p>Result: (the task ran when {@code advance(0)} returned: 1, or not: 0; its deadline, the clock's time plus the
 * future's {@code getDelay}, is at or before the clock's time: 1, or later: 0; the time the task read: 0 its deadline
 * or not run, 1 earlier, 2 later). 9, 9, 9 if an advance gave up or the executor did not terminate after
 * {@code shutdownNow()} in 10 s, or in the milliseconds of the system property
 * {@code timingwheel.stress.terminationWaitMillis}, which bounds both waits (the clock's real-time limit too): a
 * mutation that strands a task makes every such sample wait that long, so checks of mutations set it lower.
 */
@JCStressTest
@Description("the clock waking the master against a producer")
@Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "scheduled at time 0: due at 1 ms, run at its deadline")
@Outcome(id = "0, 0, 0", expect = ACCEPTABLE, desc = "scheduled once time was 1 ms: due at 2 ms, not run")
@Outcome(id = "0, 1, 0", expect = FORBIDDEN, desc = "due by the clock's time, yet not run when advance(0) returned: a lost wake-up, or an advance that returned too early")
@Outcome(id = "9, 9, 9", expect = FORBIDDEN, desc = "an advance gave up, or the executor never terminated")
@Outcome(expect = FORBIDDEN, desc = "run before its deadline (or it saw another time than its deadline)")
@State
public class VirtualClockWakeVersusScheduleStress {
    private static final long WAIT_MILLIS = Long.getLong("timingwheel.stress.terminationWaitMillis", 10_000);

    /** Counts the samples made, so that every other one polls. */
    private static final AtomicInteger SAMPLES = new AtomicInteger();

    private final VirtualClock clock = new VirtualClock();
    private final TimingWheelExecutor executor =
            TimingWheelExecutor.builder().clock(clock).workerThreads(1).build();
    /** Every other sample, a second executor on the clock, idle: the advances then poll instead of being stepped. */
    private final TimingWheelExecutor idle = (SAMPLES.getAndIncrement() & 1) == 0 ? null
            : TimingWheelExecutor.builder().clock(clock).workerThreads(1).build();
    /** The clock's time the task read as it ran; -1 until it runs. */
    private volatile long seen = -1;
    private volatile boolean gaveUp;
    private ScheduledFuture<?> future;
    private final StressMeeting meeting = new StressMeeting();

    public VirtualClockWakeVersusScheduleStress() {
        clock.setRealTimeLimit(Duration.ofMillis(WAIT_MILLIS));
    }

    @Actor
    public void producer() {
        meeting.arriveAndWait(TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS));
        future = executor.schedule(() -> {
            seen = clock.nanoTime();
        }, 1, TimeUnit.MILLISECONDS);
    }

    @Actor
    public void advance() {
        meeting.arriveAndWait(TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS));
        try {
            clock.advance(1, TimeUnit.MILLISECONDS);
        } catch (IllegalStateException gaveUpWaiting) {
            gaveUp = true;
        }
    }

    @Arbiter
    public void arbiter(III_Result r) {
        try {
            clock.advance(0, TimeUnit.MILLISECONDS);
        } catch (IllegalStateException gaveUpWaiting) {
            gaveUp = true;
        }
        long ranAt = seen;
        long now = clock.nanoTime(); // no advance moves it any more
        long deadline = now + future.getDelay(TimeUnit.NANOSECONDS);
        r.r1 = ranAt >= 0 ? 1 : 0;
        r.r2 = deadline <= now ? 1 : 0;
        r.r3 = ranAt < 0 || ranAt == deadline ? 0 : ranAt < deadline ? 1 : 2;
        executor.shutdownNow();
        boolean terminated = StressTermination.awaited(executor, WAIT_MILLIS);
        if (idle != null) {
            idle.shutdownNow();
            terminated &= StressTermination.awaited(idle, WAIT_MILLIS);
        }
        if (gaveUp || !terminated) {
            r.r1 = r.r2 = r.r3 = 9;
        }
    }
}
