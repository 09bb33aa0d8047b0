package io.timingwheel.tck;

import io.timingwheel.TimingWheelExecutor;
import io.timingwheel.VirtualClock;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/** The configurations of TimingWheelExecutor under test. */
final class TimingWheelFactories {

    /** {@code new TimingWheelExecutor(2)}, or the constructor that matches the test's options. */
    static final SchedulerFactory DEFAULT = new SchedulerFactory() {
        @Override
        public String name() {
            return "TWE";
        }

        @Override
        public boolean isReference() {
            return false;
        }

        @Override
        public ManagedScheduler create(Options o) {
            int n = o.poolSize() != null ? o.poolSize() : 2;
            TimingWheelExecutor e;
            if (o.threadFactory() != null && o.handler() != null) {
                e = new TimingWheelExecutor(n, o.threadFactory(), o.handler());
            } else if (o.threadFactory() != null) {
                e = new TimingWheelExecutor(n, o.threadFactory());
            } else if (o.handler() != null) {
                e = new TimingWheelExecutor(n, o.handler());
            } else {
                e = new TimingWheelExecutor(n);
            }
            return new TimingWheelScheduler(this, e, null);
        }

        @Override
        public String toString() {
            return name();
        }
    };

    /** {@code builder().workerThreads(1)}. */
    static final SchedulerFactory ONE_WORKER =
            builderFactory("TWE-1-worker", b -> b.workerThreads(1));

    /** {@code builder().workerThreads(4)}. */
    static final SchedulerFactory FOUR_WORKERS =
            builderFactory("TWE-4-workers", b -> b.workerThreads(4));

    /** {@code builder().tick(10, MILLISECONDS)}: a coarse tick must still never run a task early. */
    static final SchedulerFactory COARSE_TICK =
            builderFactory("TWE-tick-10ms", b -> b.tick(10, TimeUnit.MILLISECONDS).workerThreads(2));

    /** {@code builder().workerExecutor(cachedThreadPool)}: tasks run on a pool the user owns. */
    static final SchedulerFactory EXTERNAL_EXECUTOR = new SchedulerFactory() {
        @Override
        public String name() {
            return "TWE-external-executor";
        }

        @Override
        public boolean isReference() {
            return false;
        }

        @Override
        public ManagedScheduler create(Options o) {
            ThreadFactory tf = o.threadFactory() != null ? o.threadFactory() : namedThreads("tck-external-");
            ExecutorService pool = Executors.newCachedThreadPool(tf);
            TimingWheelExecutor.Builder b = TimingWheelExecutor.builder().workerExecutor(pool);
            configure(b, o);
            return new TimingWheelScheduler(this, b.build(), pool);
        }

        @Override
        public String toString() {
            return name();
        }
    };

    static final List<SchedulerFactory> ALL =
            List.of(DEFAULT, ONE_WORKER, FOUR_WORKERS, COARSE_TICK, EXTERNAL_EXECUTOR);

    /**
     * {@code builder().clock(new VirtualClock()).workerThreads(2)}, a fresh clock for each executor: the default
     * configuration in a time that only the test moves ({@link ManagedScheduler#timeline()}). Not in {@link #ALL}: a
     * test that waits in real time for something due later would wait for a clock nobody advances; only the tests
     * written against the timeline ({@link Factories#timed()}) run on it.
     */
    static final SchedulerFactory VIRTUAL_CLOCK = virtualClockFactory("TWE-virtual-clock", 2);

    /** {@code builder().clock(new VirtualClock()).workerThreads(1)}: a slow run holds back everything due meanwhile. */
    static final SchedulerFactory VIRTUAL_CLOCK_ONE_WORKER = virtualClockFactory("TWE-virtual-clock-1-worker", 1);

    /** The configurations on a virtual clock, for {@link Factories#timed()}. */
    static final List<SchedulerFactory> VIRTUAL = List.of(VIRTUAL_CLOCK, VIRTUAL_CLOCK_ONE_WORKER);

    private TimingWheelFactories() {
    }

    private static SchedulerFactory builderFactory(
            String name, Function<TimingWheelExecutor.Builder, TimingWheelExecutor.Builder> settings) {
        return builderFactory(name, false, settings);
    }

    private static SchedulerFactory virtualClockFactory(String name, int workers) {
        return builderFactory(name, true, b -> b.workerThreads(workers));
    }

    /** A configuration made with the builder, then the test's options; on a fresh virtual clock if {@code virtual}. */
    private static SchedulerFactory builderFactory(String name, boolean virtual,
            Function<TimingWheelExecutor.Builder, TimingWheelExecutor.Builder> settings) {
        return new SchedulerFactory() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public boolean isReference() {
                return false;
            }

            @Override
            public ManagedScheduler create(Options o) {
                TimingWheelExecutor.Builder b = settings.apply(TimingWheelExecutor.builder());
                configure(b, o);
                if (!virtual) {
                    return new TimingWheelScheduler(this, b.build(), null);
                }
                VirtualClock clock = new VirtualClock();
                return new TimingWheelScheduler(this, b.clock(clock).build(), null, Timeline.of(clock));
            }

            @Override
            public String toString() {
                return name;
            }
        };
    }

    /** Applies what the test asked for on top of the factory's own settings. */
    private static void configure(TimingWheelExecutor.Builder b, SchedulerFactory.Options o) {
        if (o.poolSize() != null) {
            b.workerThreads(o.poolSize());
        }
        if (o.threadFactory() != null) {
            b.threadFactory(o.threadFactory());
        }
        if (o.handler() != null) {
            b.rejectedExecutionHandler(o.handler());
        }
    }

    private static ThreadFactory namedThreads(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
