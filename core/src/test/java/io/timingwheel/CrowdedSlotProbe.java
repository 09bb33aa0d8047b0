package io.timingwheel;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * What one {@link TimingWheel#advance} costs while a crowd of nodes waits in the current or the next level-0 slot:
 * {@code N} nodes due late in tick 400, and 400 others due one by one during tick 399 and early in tick 400, which
 * the owner fires one advance at a time, as the master does. Prints, per repetition, the median and the costliest
 * advance (wall time; the machine should be quiet) and the sum; the first repetitions include the JIT's warm-up.
 * With {@code shuffled}, the crowd's deadlines come in random order (the slot's sort then takes more passes).
 *
 * <p>Run (after {@code mvn -B -q -DskipTests test-compile -pl core}):
 * <pre>{@code java -cp core/target/classes:core/target/test-classes io.timingwheel.CrowdedSlotProbe 100000 [shuffled]}</pre>
 */
public final class CrowdedSlotProbe {
    private static final long TICK = 1_000_000;

    private static final class Node extends TimerNode {
        Node(long deadline) {
            this.deadline = deadline;
        }
    }

    private CrowdedSlotProbe() {
    }

    public static void main(String[] args) {
        int crowd = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        boolean shuffled = args.length > 1 && args[1].equals("shuffled");
        for (int rep = 0; rep < 8; rep++) {
            TimingWheel<Node> wheel = new TimingWheel<>(TICK, 512);
            SplittableRandom random = new SplittableRandom(rep);
            for (int i = 0; i < crowd; i++) {
                long offset = shuffled ? random.nextLong(400_000) : i * 4L % 400_000;
                wheel.add(new Node(400 * TICK + 500_000 + offset));
            }
            for (int i = 0; i < 200; i++) {
                wheel.add(new Node(399 * TICK + i * 4_000L));
                wheel.add(new Node(400 * TICK + i * 2_000L));
            }
            wheel.advance(398 * TICK, node -> { });
            long[] costs = new long[1_000];
            int advances = 0;
            for (long now = 399 * TICK; now < 400 * TICK + 400_000; now = Math.max(now + 1, wheel.nextDeadlineBound())) {
                long start = System.nanoTime();
                wheel.advance(now, node -> { });
                costs[advances++] = System.nanoTime() - start;
            }
            long[] sorted = Arrays.copyOf(costs, advances);
            Arrays.sort(sorted);
            System.out.printf("repetition %d: %d advances next to %d nodes: median %.1f us, costliest %.1f us, all %.1f ms%n",
                    rep, advances, crowd, sorted[advances / 2] / 1e3, sorted[advances - 1] / 1e3,
                    Arrays.stream(sorted).sum() / 1e6);
        }
    }
}
