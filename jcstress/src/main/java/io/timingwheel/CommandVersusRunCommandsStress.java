package io.timingwheel;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Race site: {@code MasterLoop.commandsPosted} ("Cleared before the polls: a command posted after a poll found the
 * queue empty sets it again"): a thread posts a command ({@code post}, as {@code getQueue()}, a snapshot or the shutdown
 * policies do through {@code ask}) while the master runs the commands of its turn. A command posted before the race
 * has raised the flag, so the master's look finds it set and polls. The arbiter takes the master's next look, as the
 * turn that the poster's wake-up brings.
 *
 * <p>Result: (the posted command ran in the racing look, it ran by the next look). A command left in the queue with
 * the flag lowered would wait for a later command to raise it again: its caller would wait that long, for ever if none
 * comes.
 */
@JCStressTest
@Description("a command posted to the master against the master's look at its commands")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the master's look polled it")
@Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "posted after the look's last poll: the flag stayed raised for the next look")
@Outcome(id = "0, 0", expect = FORBIDDEN, desc = "lost: queued, but the flag was lowered after it was raised")
@Outcome(expect = FORBIDDEN, desc = "any other outcome")
@State
public class CommandVersusRunCommandsStress {
    private final MasterLoop master = StressMasterHost.terminatingMaster();
    private int runs;

    public CommandVersusRunCommandsStress() {
        master.post(m -> Boolean.TRUE); // posted earlier: the racing look finds the flag raised
    }

    @Actor
    public void poster() {
        master.post(m -> ++runs);
    }

    @Actor
    public void master(II_Result r) {
        master.runCommands();
        r.r1 = runs;
    }

    @Arbiter
    public void nextLook(II_Result r) {
        master.runCommands();
        r.r2 = runs;
    }
}
