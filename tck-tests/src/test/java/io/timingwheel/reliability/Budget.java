package io.timingwheel.reliability;

/**
 * The knobs of the reliability package, all system properties, so the same tests run fast in CI and as a long soak:
 * <ul>
 *   <li>{@code -Dtimingwheel.soak.seconds=600}: {@link SoakTest} runs stress rounds for that long (default 2 s).</li>
 *   <li>{@code -Dtimingwheel.stress.millis=1000}: the length of each round of {@link StressTest} (default 800 ms).</li>
 *   <li>{@code -Dtimingwheel.race.seed=N}: the seed of the race harness and of the stress producers (default fixed,
 *       printed with each result, so a failing run can be repeated).</li>
 *   <li>{@code -Dtimingwheel.race.iterations=2.0}: a factor on the race harness' iteration counts (default 1).</li>
 * </ul>
 * Example: {@code mvn -B -o -pl tck-tests test -Dtest='io.timingwheel.reliability.SoakTest'
 * -Dtimingwheel.soak.seconds=600}.
 */
final class Budget {
    private Budget() {
    }

    static long soakSeconds() {
        return Long.getLong("timingwheel.soak.seconds", 2);
    }

    static long stressMillis() {
        return Long.getLong("timingwheel.stress.millis", 800);
    }

    static long seed() {
        return Long.getLong("timingwheel.race.seed", 20_261_122L);
    }

    /** @return {@code base} scaled by {@code timingwheel.race.iterations}, at least 1 */
    static int iterations(int base) {
        double factor = Double.parseDouble(System.getProperty("timingwheel.race.iterations", "1"));
        return Math.max(1, (int) Math.round(base * factor));
    }
}
