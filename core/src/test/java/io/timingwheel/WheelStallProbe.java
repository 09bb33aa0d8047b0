package io.timingwheel;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * How long the costliest single {@link TimingWheel#advance} takes when many timers share one slot above level 0: the
 * stall that every task due at that moment would wait for. A million nodes spread over one slot of level 2 (4.4
 * minutes at a 1 ms tick and 512 slots per level, as in the executor), then time driven the way the master drives it,
 * to each {@link TimingWheel#nextDeadlineBound()}, until all have fired. Prints, per repetition, the CPU time of the
 * costliest advance and of all of them; the first repetition includes the JIT's warm-up.
 *
 * <p>Run (after {@code mvn -B -q -DskipTests test-compile -pl core}):
 * <pre>{@code java -Xms4g -Xmx4g -cp core/target/classes:core/target/test-classes io.timingwheel.WheelStallProbe}</pre>
 */
public final class WheelStallProbe {
    private static final long TICK = 1_000_000;
    private static final int SLOTS = 512;
    private static final long LEVEL2_SLOT_TICKS = (long) SLOTS * SLOTS;

    private static final class Node extends TimerNode {
        Node(long deadline) {
            this.deadline = deadline;
        }
    }

    private WheelStallProbe() {
    }

    public static void main(String[] args) {
        int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int repetitions = args.length > 1 ? Integer.parseInt(args[1]) : 7;
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        long[] worst = new long[repetitions];
        for (int rep = 0; rep < repetitions; rep++) {
            TimingWheel<Node> wheel = new TimingWheel<>(TICK, SLOTS);
            SplittableRandom random = new SplittableRandom(rep);
            for (int i = 0; i < nodes; i++) {
                long tick = 2 * LEVEL2_SLOT_TICKS + random.nextLong(LEVEL2_SLOT_TICKS); // slot 2 of level 2
                wheel.add(new Node(tick * TICK + random.nextLong(TICK)));
            }
            long[] fired = {0};
            long now = 0;
            long all = 0;
            long worstAt = 0;
            while (wheel.size() > 0) {
                long start = cpu.getCurrentThreadCpuTime();
                wheel.advance(now, node -> fired[0]++);
                long spent = cpu.getCurrentThreadCpuTime() - start;
                all += spent;
                if (spent > worst[rep]) {
                    worst[rep] = spent;
                    worstAt = now / TICK;
                }
                now = Math.max(now + TICK, wheel.nextDeadlineBound());
            }
            System.out.printf("repetition %d: %d nodes fired; costliest advance %.3f ms CPU (at tick %d), all %.1f ms%n",
                    rep, fired[0], worst[rep] / 1e6, worstAt, all / 1e6);
        }
        long[] warm = Arrays.copyOfRange(worst, Math.min(1, repetitions - 1), repetitions);
        Arrays.sort(warm);
        System.out.printf("costliest advance after the first repetition: median %.3f ms, max %.3f ms%n",
                warm[warm.length / 2] / 1e6, warm[warm.length - 1] / 1e6);
    }
}
