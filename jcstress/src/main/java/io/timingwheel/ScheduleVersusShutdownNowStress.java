package io.timingwheel;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Race site: {@code Lifecycle} note 1 against {@code shutdownNow}'s drain ("one that published before the state
 * changed is seen by it, one that published after takes its task back"). A delayed {@code schedule} on a real
 * executor against {@code shutdownNow()}: an accepted task is either run or returned by {@code shutdownNow}, never
 * both, never neither. The nested {@link DueNow} test does the same with a task due at once, which goes to the
 * workers' queue instead of the master.
 *
 * <p>Result: (schedule accepted the task: 1, rejected it: 0; once the executor terminated: 1 the task ran, 2 it was
 * returned by shutdownNow, 3 both, 4 neither but cancelled, 0 neither and not done: lost, -1 rejected, 5 rejected
 * and returned by shutdownNow, 9 the executor did not terminate in 10 s).
 */
@JCStressTest
@Description("schedule(task, 1 ns) against shutdownNow() on a real executor")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "accepted and run before the stop")
@Outcome(id = "1, 2", expect = ACCEPTABLE, desc = "accepted and returned by shutdownNow, never run")
@Outcome(id = "0, -1", expect = ACCEPTABLE, desc = "rejected through the handler")
@Outcome(id = "1, 3", expect = FORBIDDEN, desc = "run and returned")
@Outcome(id = "1, 4", expect = FORBIDDEN, desc = "cancelled by the stop instead of returned: shutdownNow must return every accepted task that never started (the JDK's may cancel it; ours promises better)")
@Outcome(id = "0, 5", expect = FORBIDDEN, desc = "rejected, yet returned by shutdownNow: the caller got an exception for a task that it is also handed back")
@Outcome(id = "1, 0", expect = FORBIDDEN, desc = "lost: neither run nor returned, not done")
@Outcome(id = ".*, 9", expect = FORBIDDEN, desc = "the executor never terminated")
@Outcome(expect = FORBIDDEN, desc = "any other outcome")
@State
public class ScheduleVersusShutdownNowStress {
    private final Race race = new Race();

    @Actor
    public void producer(II_Result r) {
        r.r1 = race.schedule(1);
    }

    @Actor
    public void shutdownNow() {
        race.shutdownNow();
    }

    @Arbiter
    public void arbiter(II_Result r) {
        r.r2 = race.fate();
    }

    /**
     * Race site: as the outer test, and {@code ExecutorCore.accept}'s request for a decision after a take-back ("a
     * decision taken while this task was pending found the executor busy; with the task gone, nothing else may come
     * to ask again ... so ask now"): a task due at once waits in the workers' queue, where a stopping worker leaves
     * it, so the decision finds the executor busy until its producer takes it back.
     *
     * <p>Result: as the outer test's.
     */
    @JCStressTest
    @Description("schedule(task, 0) against shutdownNow() on a real executor")
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "accepted and run before the stop")
    @Outcome(id = "1, 2", expect = ACCEPTABLE, desc = "accepted and returned by shutdownNow, never run")
    @Outcome(id = "0, -1", expect = ACCEPTABLE, desc = "rejected through the handler")
    @Outcome(id = "1, 3", expect = FORBIDDEN, desc = "run and returned")
    @Outcome(id = "1, 4", expect = FORBIDDEN, desc = "cancelled by the stop instead of returned: shutdownNow must return every accepted task that never started (the JDK's may cancel it; ours promises better)")
    @Outcome(id = "0, 5", expect = FORBIDDEN, desc = "rejected, yet returned by shutdownNow: the caller got an exception for a task that it is also handed back")
    @Outcome(id = "1, 0", expect = FORBIDDEN, desc = "lost: neither run nor returned, not done")
    @Outcome(id = ".*, 9", expect = FORBIDDEN, desc = "the executor never terminated")
    @Outcome(expect = FORBIDDEN, desc = "any other outcome")
    @State
    public static class DueNow {
        private final Race race = new Race();

        @Actor
        public void producer(II_Result r) {
            r.r1 = race.schedule(0);
        }

        @Actor
        public void shutdownNow() {
            race.shutdownNow();
        }

        @Arbiter
        public void arbiter(II_Result r) {
            r.r2 = race.fate();
        }
    }

    /**
     * Race site: {@code Arrivals.moveInEveryClaim}. Two producers publish tasks due at once into the workers'
     * arrivals, the second then calls {@code shutdownNow}: its drain may find the first producer's place claimed and
     * not yet written ahead of the second's task, which its producer counted accepted (it read the executor running
     * before the stop). A drain that looked once stopped at that place and left the second task queued, neither run nor
     * returned, and the executor never terminated.
     *
     * <p>Result: (the fate of the first producer's task, of the second's), coded as the outer test's second number.
     */
    @JCStressTest
    @Description("schedule(task, 0) against schedule(task, 0) then shutdownNow() on a real executor")
    @Outcome(id = "(1|2|-1), (1|2)", expect = ACCEPTABLE, desc = "each task run or returned, the first perhaps rejected")
    @Outcome(id = ".*, 9", expect = FORBIDDEN, desc = "the executor never terminated")
    @Outcome(expect = FORBIDDEN, desc = "lost, run and returned, cancelled, or any other outcome")
    @State
    public static class TwoProducersDueNow {
        private final Race first = new Race();
        private final Race second = first.sharingItsExecutor();

        @Actor
        public void firstProducer() {
            first.schedule(0);
        }

        @Actor
        public void secondProducerThenShutdownNow() {
            second.schedule(0);
            second.shutdownNow();
            first.returned = second.returned;
        }

        @Arbiter
        public void arbiter(II_Result r) {
            r.r1 = first.fateBesideAnother();
            r.r2 = second.fateBesideAnother();
        }
    }

    /** A real executor, a task scheduled on it and a {@code shutdownNow}, and what became of the task. */
    static final class Race {
        private final TimingWheelExecutor executor;
        private volatile boolean ran;
        private ScheduledFuture<?> future;
        private volatile List<Runnable> returned;

        /**
         * The master and a worker are started by a first task, run to its end, so that the producer's schedule is
         * only its publish and re-read, as long as shutdownNow's stop: without it, nearly every schedule came after
         * the stop.
         */
        Race() {
            executor = new TimingWheelExecutor(1);
            try {
                executor.schedule(() -> { }, 1, TimeUnit.NANOSECONDS).get();
            } catch (InterruptedException | ExecutionException e) {
                throw new IllegalStateException(e);
            }
        }

        private Race(TimingWheelExecutor executor) {
            this.executor = executor;
        }

        /** @return a race for a second task on this one's executor, started already */
        Race sharingItsExecutor() {
            return new Race(executor);
        }

        /** @return 1 if the task was accepted, 0 if rejected */
        int schedule(long delayNanos) {
            try {
                future = executor.schedule(() -> {
                    ran = true;
                }, delayNanos, TimeUnit.NANOSECONDS);
                return 1;
            } catch (RejectedExecutionException e) {
                return 0;
            }
        }

        void shutdownNow() {
            returned = executor.shutdownNow();
        }

        /**
         * @return as {@link #fate}, for one of two tasks: shutdownNow may return the other's, so a rejected task is -1
         *     whatever it returned
         */
        int fateBesideAnother() {
            int fate = fate();
            return future == null && fate != 9 ? -1 : fate;
        }

        /** @return what became of the task once the executor terminated, coded as the tests' results say */
        int fate() {
            boolean terminated;
            try {
                terminated = executor.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                terminated = false;
            }
            if (!terminated) {
                return 9;
            } else if (future == null) {
                return returned.isEmpty() ? -1 : 5;
            }
            boolean wasReturned = returned.contains(future);
            int code = (ran ? 1 : 0) + (wasReturned ? 2 : 0);
            return code == 0 && future.isCancelled() ? 4 : code;
        }
    }
}
