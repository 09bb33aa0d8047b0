package io.timingwheel;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;
import static org.openjdk.jcstress.annotations.Mode.Termination;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.Signal;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Race site: {@code MasterLoop.runCommand} ("The master sets exited and then skips what is queued; we queued and then
 * read exited: one of the two sees the other"): a thread posts a command (as {@code getQueue()}, a snapshot or the
 * shutdown policies do) while the master takes its last turn and leaves, the executor having terminated. The real
 * {@link MasterLoop}: the second actor runs its loop, whose first turn decides to terminate.
 *
 * <p>Result: (runCommand said the command ran, the command ran). A caller that the master left behind waits for ever;
 * the nested {@link Termination} test checks that none does.
 */
@JCStressTest
@Description("a command posted to the master against the master's exit")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the master ran the command in its last turn")
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "the master had left: the command was not run, and the caller knows it")
@Outcome(id = "1, 0", expect = FORBIDDEN, desc = "the caller was told it ran, but it did not")
@Outcome(id = "0, 1", expect = FORBIDDEN, desc = "it ran, but the caller was told it did not")
@Outcome(expect = FORBIDDEN, desc = "any other outcome")
@State
public class CommandVersusMasterExitStress {
    private final MasterLoop master;
    private int commandRuns;

    public CommandVersusMasterExitStress() {
        master = StressMasterHost.terminatingMaster();
    }

    @Actor
    public void caller(II_Result r) {
        r.r1 = master.runCommand(m -> commandRuns++) ? 1 : 0;
    }

    /** The master thread: one turn, which finds nothing held and terminates, then the exit. */
    @Actor
    public void master() {
        master.run();
    }

    @Arbiter
    public void arbiter(II_Result r) {
        r.r2 = commandRuns;
    }

    /** The same race, for the outcome the result cannot show: the caller waits for a command nobody will run. */
    @JCStressTest(Termination)
    @Description("a command posted to the master against the master's exit: the caller always returns")
    @Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "runCommand returned")
    @Outcome(id = "STALE", expect = FORBIDDEN, desc = "runCommand waits for ever: the master left without running or skipping the command")
    @State
    public static class Termination {
        private final MasterLoop master = StressMasterHost.terminatingMaster();

        @Actor
        public void caller() {
            master.runCommand(m -> { });
        }

        @Signal
        public void master() {
            master.run();
        }
    }
}
