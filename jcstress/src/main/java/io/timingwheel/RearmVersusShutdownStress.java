package io.timingwheel;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * Race site: {@code ExecutorCore.rearm} ("Published first, checked after, as every publisher does (see Lifecycle,
 * note 1): a run that ends as the executor shuts down cancels its task if the policies do not keep it") against
 * {@code shutdown()}, whose policies cancel, before it returns, the tasks the master holds. A real executor whose
 * workers are an external executor that hands its task to the worker actor: the first run of a fixed-rate task (every
 * hour, default policies, so it does not outlive a shutdown) ends and re-arms while the other actor shuts down. As
 * with the JDK's executor, once both have returned the task is cancelled: before its run, by the shutdown's sweep, or
 * by the re-arm's second look at the run state, which no one else makes before the master's next turn.
 *
 * <p>Result: (the action ran; the future is cancelled when both actors have returned; the executor terminated within
 * 10 s of a shutdownNow after that).
 */
@JCStressTest
@Description("a periodic run's re-arm against shutdown() with the default policies")
@Outcome(id = "1, 1, 1", expect = ACCEPTABLE, desc = "ran, then cancelled: by the shutdown's sweep or by the re-arm's look at the run state")
@Outcome(id = "0, 1, 1", expect = ACCEPTABLE, desc = "cancelled by the shutdown before it ran")
@Outcome(id = "1, 0, .*", expect = FORBIDDEN, desc = "still pending once the run and shutdown() have returned (the JDK's is cancelled by then)")
@Outcome(id = ".*, .*, 0", expect = FORBIDDEN, desc = "the executor did not terminate")
@Outcome(expect = FORBIDDEN, desc = "any other outcome")
@State
public class RearmVersusShutdownStress {
    private Runnable handedOver;
    private final TimingWheelExecutor executor = TimingWheelExecutor.builder()
            .workerExecutor(run -> handedOver = run)
            .build();
    private volatile boolean ran;
    private final ScheduledFuture<?> future = executor.scheduleAtFixedRate(() -> ran = true, 0, 1, TimeUnit.HOURS);

    @Actor
    public void worker() {
        handedOver.run();
    }

    @Actor
    public void shutdown() {
        executor.shutdown();
    }

    @Arbiter
    public void arbiter(III_Result r) {
        r.r1 = ran ? 1 : 0;
        r.r2 = future.isCancelled() ? 1 : 0;
        executor.shutdownNow();
        try {
            r.r3 = executor.awaitTermination(10, TimeUnit.SECONDS) ? 1 : 0;
        } catch (InterruptedException e) {
            r.r3 = 0;
        }
    }
}
