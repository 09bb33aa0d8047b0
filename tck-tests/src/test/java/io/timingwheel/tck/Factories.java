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
 * of TimingWheelExecutor. {@code -Dtck.factories=NAME,NAME} restricts a run to the named ones.
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

    private static Stream<SchedulerFactory> select(List<SchedulerFactory> factories) {
        String wanted = System.getProperty("tck.factories", "").trim();
        if (wanted.isEmpty()) {
            return factories.stream();
        }
        Set<String> names = Arrays.stream(wanted.split(",")).map(String::trim).collect(Collectors.toSet());
        return factories.stream().filter(f -> names.contains(f.name()));
    }
}
