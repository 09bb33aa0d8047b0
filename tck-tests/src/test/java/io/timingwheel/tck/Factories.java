package io.timingwheel.tck;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The executors every test runs against: the JDK's ScheduledThreadPoolExecutor (the reference) and each configuration
 * of TimingWheelExecutor; for the tests written against {@link Timeline}, also our executor on a virtual clock.
 * {@code -Dtck.factories=NAME,NAME} restricts a run to the named ones; where it names none of a list's factories (only
 * virtual-clock ones, say), the tests of that list run on the reference alone, since a parameterised test must have an
 * argument. A name that no factory has is an error.
 */
public final class Factories {

    /** The reference: {@code new ScheduledThreadPoolExecutor(2)}, the same size as the default TimingWheelExecutor. */
    static final SchedulerFactory STPE = new SchedulerFactory() {
        @Override
        public String name() {
            return "STPE";
        }

        @Override
        public boolean isReference() {
            return true;
        }

        @Override
        public ManagedScheduler create(Options options) {
            ScheduledThreadPoolExecutor e = ReferenceScheduler.newExecutor(options, 2);
            return new ReferenceScheduler(this, e);
        }

        @Override
        public String toString() {
            return name();
        }
    };

    private Factories() {
    }

    /** Every selected factory, the reference first: the argument source of {@link ForEachExecutor}. */
    public static Stream<SchedulerFactory> all() {
        List<SchedulerFactory> all = new ArrayList<>();
        all.add(STPE);
        all.addAll(TimingWheelFactories.ALL);
        return select(all);
    }

    /**
     * The timing-dependent tests' factories: those of {@link #all()}, in real time, then our executor on a virtual
     * clock with 2 workers and with 1 ({@code TWE-virtual-clock}, {@code TWE-virtual-clock-1-worker}), each on a
     * clock of its own, where the test's {@link ManagedScheduler#timeline()} moves time and the test takes no real
     * delay. The argument source of {@link ForEachTimeline}.
     */
    public static Stream<SchedulerFactory> timed() {
        List<SchedulerFactory> timed = new ArrayList<>();
        timed.add(STPE);
        timed.addAll(TimingWheelFactories.ALL);
        timed.addAll(TimingWheelFactories.VIRTUAL);
        return select(timed);
    }

    private static Stream<SchedulerFactory> select(List<SchedulerFactory> factories) {
        String wanted = System.getProperty("tck.factories", "").trim();
        if (wanted.isEmpty()) {
            return factories.stream();
        }
        Set<String> names = Arrays.stream(wanted.split(",")).map(String::trim).collect(Collectors.toSet());
        Set<String> known = Stream.of(List.of(STPE), TimingWheelFactories.ALL, TimingWheelFactories.VIRTUAL)
                .flatMap(List::stream).map(SchedulerFactory::name).collect(Collectors.toSet());
        for (String name : names) {
            if (!known.contains(name)) {
                throw new IllegalArgumentException("-Dtck.factories names no factory: " + name + "; the factories: "
                        + known);
            }
        }
        List<SchedulerFactory> selected = factories.stream().filter(f -> names.contains(f.name()))
                .collect(Collectors.toList());
        return selected.isEmpty() ? Stream.of(STPE) : selected.stream();
    }
}
