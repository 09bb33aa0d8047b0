package io.timingwheel;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * Race site: {@code ExecutorCore.settled} ("a run publishes what it schedules before it ends, so once no run is seen
 * the inbox holds all of it"), {@code MasterLoop.settled} (the dispatcher idle, then the inbox drained, then nothing
 * in the wheel due by now) and {@code VirtualClock}'s settle loop (a step to the next deadline only once settled, and a
 * return only once the last step's runs have ended), and the stepped advance ({@code VirtualClock.advanceStepped},
 * {@code VirtualSteps.step}, {@code MasterLoop.stepIfIdle}), against a run's end. A real executor on a fresh
 * {@link VirtualClock}, whose task A, due at time 0, has started and waits; it is let go (A then schedules task B
 * with a delay of 1 ms, and ends) against {@code clock.advance(2 ms)} (the two actors meet first:
 * {@link StressMeeting}): the advance cannot move time while A runs, so B is due at 1 ms, and once the advance
 * returns, B has run and read exactly 1 ms. The samples take turns between an executor with one worker and one with
 * three, where B may go to a worker other than the one that ran A while the others wait idle, each the clock's only
 * executor, so that its threads step the advance; and one worker with a second, idle executor on the clock, so that
 * the advance polls the two. One test, not a nested
 * one per worker count: each test class costs the build's quick mode about 5 s per JVM (4 JVMs), most of it
 * jcstress's sizing of its strides, which runs samples until a batch takes an iteration's time, so a test whose
 * samples each make an executor pays the most for it.
 *
 * <p>Result, read right after the advance returned: (B ran: 1, or not: 0; the time B read, in nanoseconds, -1 if it
 * did not run; the executor's workers, 1 or 3, or 11 for one worker polled). 8, 8 if the advance gave up; 9, 9 if the executor did not start A,
 * or did not terminate after {@code shutdownNow()}, in 10 s, or in the milliseconds of the system property
 * {@code timingwheel.stress.terminationWaitMillis}, which bounds every wait of a sample (the clock's real-time limit
 * too): a mutation that strands a task makes every such sample wait that long, so checks of mutations set it lower.
 */
@JCStressTest
@Description("the clock's advance against the end of a run that schedules within the amount")
@Outcome(id = "1, 1000000, 1", expect = ACCEPTABLE, desc = "one worker: B ran within the advance and read its deadline, 1 ms")
@Outcome(id = "1, 1000000, 3", expect = ACCEPTABLE, desc = "three workers: B ran within the advance and read its deadline, 1 ms")
@Outcome(id = "1, 1000000, 11", expect = ACCEPTABLE, desc = "one worker, polled: B ran within the advance and read its deadline, 1 ms")
@Outcome(id = "0, -1, .*", expect = FORBIDDEN, desc = "B had not run when the advance returned: it returned too early")
@Outcome(id = "8, 8, .*", expect = FORBIDDEN, desc = "the advance gave up")
@Outcome(id = "9, 9, .*", expect = FORBIDDEN, desc = "A never started, or the executor never terminated")
@Outcome(expect = FORBIDDEN, desc = "B read another time than its deadline (time moved while A ran, or B ran late)")
@State
public class VirtualClockAdvanceVersusRunEndStress {
    /** Counts the samples made, so that they alternate between one worker and three. */
    private static final AtomicInteger SAMPLES = new AtomicInteger();

    private final Sample sample = Sample.ofKind(SAMPLES.getAndIncrement() % 3);

    @Actor
    public void letAGo() {
        sample.letAGo();
    }

    @Actor
    public void advance(III_Result r) {
        sample.advance(r);
    }

    @Arbiter
    public void arbiter(III_Result r) {
        sample.end(r);
    }

    /** One sample: the executor, A started and waiting, and what B read. */
    private static final class Sample {
        private static final long WAIT_MILLIS = Long.getLong("timingwheel.stress.terminationWaitMillis", 10_000);

        private final VirtualClock clock = new VirtualClock();
        private final int workers;
        /** What the result names the sample by: its workers, or 11 for one worker polled. */
        private final int kind;
        private final TimingWheelExecutor executor;
        /** A second executor on the clock, idle, or null: with it, the advance polls instead of being stepped. */
        private final TimingWheelExecutor idle;
        private final CountDownLatch started = new CountDownLatch(1);
        private final StressMeeting meeting = new StressMeeting();
        private volatile boolean holding = true;
        /** The worker that runs A, to unpark; null until A starts. */
        private volatile Thread runningA;
        /** The clock's time B read as it ran; -1 until it runs. */
        private volatile long seenByB = -1;

        /**
         * A is started, due at time 0 (no advance needed), and parks until let go (shutdownNow's interrupt must not
         * free it; parked, the A of the other samples of a stride leave the CPUs to this one).
         */
        /** Kind 0: one worker, stepped; 1: three workers, stepped; 2: one worker, polled. */
        static Sample ofKind(int kind) {
            return kind == 0 ? new Sample(1, false) : kind == 1 ? new Sample(3, false) : new Sample(1, true);
        }

        Sample(int workers, boolean polled) {
            this.workers = workers;
            this.kind = polled ? 11 : workers;
            clock.setRealTimeLimit(Duration.ofMillis(WAIT_MILLIS));
            executor = TimingWheelExecutor.builder().clock(clock).workerThreads(workers).build();
            idle = polled ? TimingWheelExecutor.builder().clock(clock).workerThreads(1).build() : null;
            executor.execute(() -> {
                runningA = Thread.currentThread();
                started.countDown();
                while (holding) {
                    LockSupport.park(this);
                }
                executor.schedule(() -> {
                    seenByB = clock.nanoTime();
                }, 1, TimeUnit.MILLISECONDS);
            });
            Uninterruptibly.await(() -> started.await(WAIT_MILLIS, TimeUnit.MILLISECONDS), () -> { });
        }

        void letAGo() {
            meeting.arriveAndWait(TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS));
            release();
        }

        private void release() {
            holding = false;
            LockSupport.unpark(runningA);
        }

        void advance(III_Result r) {
            meeting.arriveAndWait(TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS));
            try {
                clock.advance(2, TimeUnit.MILLISECONDS);
            } catch (IllegalStateException gaveUp) {
                r.r1 = r.r2 = 8;
                r.r3 = kind;
                return;
            }
            long seen = seenByB;
            r.r1 = seen >= 0 ? 1 : 0;
            r.r2 = seen >= 0 ? (int) Math.min(seen, Integer.MAX_VALUE) : -1; // time stops at 2 ms here
            r.r3 = kind;
        }

        void end(III_Result r) {
            release();
            executor.shutdownNow();
            boolean terminated = StressTermination.awaited(executor, WAIT_MILLIS);
            if (idle != null) {
                idle.shutdownNow();
                terminated &= StressTermination.awaited(idle, WAIT_MILLIS);
            }
            if (started.getCount() > 0 || !terminated) {
                r.r1 = r.r2 = 9;
                r.r3 = kind;
            }
        }
    }
}
