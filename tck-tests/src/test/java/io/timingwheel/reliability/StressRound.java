package io.timingwheel.reliability;

import io.timingwheel.reliability.InvariantChecker.Report;
import io.timingwheel.reliability.InvariantChecker.Tracked;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * One round of stress: {@value #PRODUCERS} producer threads schedule one-shot, fixed-rate and fixed-delay tasks with
 * random delays (zero, negative, short, long and one hour) and random bodies (empty, short, long enough to be
 * cancelled while running, some throwing), and cancel random tasks (just scheduled, running, or already done, with and
 * without interrupt). When the round's time is up the executor is shut down as {@link Ending} says while the
 * producers keep going for a moment, racing the shutdown. Once it has terminated the {@link InvariantChecker} checks
 * every task.
 *
 * <p>Rounds are bounded in time and in tasks (so memory stays small); the seed makes each producer's choices
 * repeatable.
 */
@SuppressWarnings("try") // the resource only shuts the executor down; the body uses the executor
final class StressRound {
    static final int PRODUCERS = 4;

    /** How many tasks one round schedules at most (about 50 MB of watched tasks). */
    static final int MAX_SCHEDULES = 200_000;

    /**
     * Operations (schedules and cancels) per second and producer: enough to keep the master and two workers busy on
     * two shared cores, few enough that the round's task budget lasts about {@value #MAX_SCHEDULES} / 56 000 s, so
     * that the producers are still at work when the shutdown comes.
     */
    private static final long OPS_PER_SECOND_PER_PRODUCER = 20_000;

    /** How long the producers keep racing after the shutdown call. */
    private static final long RACE_AFTER_SHUTDOWN_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    /** Live periodic tasks are kept to this many: a new one replaces (and cancels) the one in its slot. */
    private static final int PERIODIC_SLOTS = 32;

    private static final long ONE_HOUR = TimeUnit.HOURS.toNanos(1);

    /** How a round ends. */
    enum Ending {
        /** {@code shutdown()}; the one-hour tasks left are then cancelled by the test, so that it terminates. */
        SHUTDOWN,
        /** {@code shutdownNow()}: every task that never started must come back in its list. */
        SHUTDOWN_NOW,
        /** {@code shutdown()} and {@code shutdownNow()} from two threads released together. */
        SHUTDOWN_RACING_SHUTDOWN_NOW
    }

    private StressRound() {
    }

    /**
     * Runs one round and returns the checker's report; the caller prints and asserts it. Failures of the producer
     * threads themselves (a bug in the test) are rethrown.
     *
     * @param maxPending the pending limit, or 0 for none (the JDK has none)
     */
    static Report run(Subject subject, Ending ending, long maxPending, long millis, long seed)
            throws InterruptedException {
        return run(subject, ending, maxPending, millis, seed, null);
    }

    /**
     * Something hostile that runs on its own thread during the round (until {@code stop} says true), for example
     * a thread that interrupts the executor's threads.
     */
    interface Sidekick {
        void run(ScheduledExecutorService executor, java.util.function.BooleanSupplier stop) throws Exception;
    }

    /** As {@link #run(Subject, Ending, long, long, long)}, with a {@link Sidekick} at work until the shutdown. */
    static Report run(Subject subject, Ending ending, long maxPending, long millis, long seed, Sidekick sidekick)
            throws InterruptedException {
        InvariantChecker checker = new InvariantChecker(InvariantChecker.contractOf(subject));
        Subject.Config config = Subject.config().threads(2)
                .handler(checker.handler(maxPending == 0)) // with a limit: DiscardPolicy-like, as in the flood
                .maxPendingTasks(maxPending);
        ScheduledExecutorService executor = subject.create(config);
        List<Runnable> returned = Collections.emptyList();
        boolean terminated;
        long terminatedAt;
        try (TaskThreadFailures failures = new TaskThreadFailures(); Closing<?> closing = Closing.of(executor)) {
            AtomicReferenceArray<Tracked> recent = new AtomicReferenceArray<>(4096);
            AtomicReferenceArray<Tracked> periodic = new AtomicReferenceArray<>(PERIODIC_SLOTS);
            AtomicInteger schedules = new AtomicInteger();
            CountDownLatch go = new CountDownLatch(1);
            Producer[] producers = new Producer[PRODUCERS];
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < PRODUCERS; i++) {
                producers[i] = new Producer(checker, executor, recent, periodic, schedules,
                        new SplittableRandom(seed * 31 + i), go);
                Thread t = new Thread(failures.guard(producers[i]::run), "stress-producer-" + i);
                threads.add(t);
                t.start();
            }
            java.util.concurrent.atomic.AtomicBoolean sidekickStop = new java.util.concurrent.atomic.AtomicBoolean();
            if (sidekick != null) {
                Thread t = new Thread(failures.guard(() -> sidekick.run(executor, sidekickStop::get)),
                        "stress-sidekick");
                threads.add(t);
                t.start();
            }
            long endAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
            go.countDown();
            Threads.parkUntil(endAt);

            switch (ending) {
                case SHUTDOWN:
                    executor.shutdown();
                    break;
                case SHUTDOWN_NOW:
                    returned = checker.shutdownNow(executor);
                    break;
                default:
                    returned = shutdownRacingShutdownNow(executor, checker, failures);
                    break;
            }
            Threads.parkUntil(System.nanoTime() + RACE_AFTER_SHUTDOWN_NANOS); // let producers race the shutdown
            for (Producer p : producers) {
                p.stop = true;
            }
            sidekickStop.set(true);
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(30));
                if (t.isAlive()) {
                    failures.record(new AssertionError(t.getName() + " is stuck:" + stackOf(t)));
                }
            }
            if (ending == Ending.SHUTDOWN) {
                // Delayed one-shot tasks still run after shutdown(): cancel the one-hour ones, or we would wait.
                for (Producer p : producers) {
                    for (Tracked t : p.longOnes) {
                        if (!t.future.isDone()) {
                            checker.cancel(t, false);
                        }
                    }
                }
                if (executor instanceof ScheduledThreadPoolExecutor) {
                    // The JDK keeps cancelled tasks queued until their deadline (an hour here) unless purged; ours
                    // releases them at once. purge() also lets the JDK's executor see that it can terminate.
                    ((ScheduledThreadPoolExecutor) executor).purge();
                }
            }
            terminated = executor.awaitTermination(30, TimeUnit.SECONDS);
            terminatedAt = System.nanoTime();
            if (!terminated) {
                failures.record(new AssertionError("not terminated after 30 s: " + executor));
            }
        }
        return checker.verify(returned, terminated, terminatedAt);
    }

    private static List<Runnable> shutdownRacingShutdownNow(ScheduledExecutorService executor,
                                                           InvariantChecker checker, TaskThreadFailures failures)
            throws InterruptedException {
        CountDownLatch go = new CountDownLatch(1);
        Thread other = new Thread(failures.guard(() -> {
            go.await();
            executor.shutdown();
        }), "stress-shutdown");
        other.start();
        go.countDown();
        List<Runnable> returned = checker.shutdownNow(executor);
        other.join();
        return returned;
    }

    private static String stackOf(Thread t) {
        StringBuilder sb = new StringBuilder();
        for (StackTraceElement e : t.getStackTrace()) {
            sb.append("\n    at ").append(e);
        }
        return sb.toString();
    }

    /** A producer's loop: random schedules and cancels until stopped or the round's task budget is spent. */
    private static final class Producer {
        final InvariantChecker checker;
        final ScheduledExecutorService executor;
        final AtomicReferenceArray<Tracked> recent;
        final AtomicReferenceArray<Tracked> periodic;
        final AtomicInteger schedules;
        final SplittableRandom rnd;
        final CountDownLatch go;
        final List<Tracked> longOnes = new ArrayList<>();
        volatile boolean stop;

        Producer(InvariantChecker checker, ScheduledExecutorService executor, AtomicReferenceArray<Tracked> recent,
                 AtomicReferenceArray<Tracked> periodic, AtomicInteger schedules, SplittableRandom rnd,
                 CountDownLatch go) {
            this.checker = checker;
            this.executor = executor;
            this.recent = recent;
            this.periodic = periodic;
            this.schedules = schedules;
            this.rnd = rnd;
            this.go = go;
        }

        void run() throws InterruptedException {
            go.await();
            long start = System.nanoTime();
            long nanosPerOp = TimeUnit.SECONDS.toNanos(1) / OPS_PER_SECOND_PER_PRODUCER;
            for (long op = 0; !stop; op++) {
                int r = rnd.nextInt(100);
                if (r < 50) {
                    schedule(oneShot(), false);
                } else if (r < 58) {
                    schedulePeriodic(true);
                } else if (r < 64) {
                    schedulePeriodic(false);
                } else if (r < 72) {
                    schedule(oneShot(), true); // cancelled at once: before it can run, or racing its run
                } else {
                    Tracked t = recent.get(rnd.nextInt(recent.length()));
                    if (t != null) {
                        checker.cancel(t, rnd.nextBoolean()); // pending, running or already done
                    }
                }
                if ((op & 15) == 15) {
                    Threads.parkUntil(start + op * nanosPerOp); // pacing: a steady rate, not a burst
                }
            }
        }

        private Tracked oneShot() {
            int d = rnd.nextInt(100);
            long delay = d < 10 ? 0
                    : d < 13 ? -1_000_000
                    : d < 63 ? 1_000 + rnd.nextLong(2_000_000)
                    : d < 90 ? 2_000_000 + rnd.nextLong(28_000_000)
                    : ONE_HOUR;
            return checker.oneShot(delay, bodyNanos(), rnd.nextInt(100) < 3);
        }

        private long bodyNanos() {
            int b = rnd.nextInt(100);
            return b < 70 ? 0 : b < 95 ? 1_000 + rnd.nextLong(50_000) : 200_000 + rnd.nextLong(800_000);
        }

        private void schedule(Tracked t, boolean cancelAtOnce) {
            if (schedules.incrementAndGet() > MAX_SCHEDULES) {
                stop = true;
                return;
            }
            if (checker.schedule(executor, t)) {
                if (t.initialNanos == ONE_HOUR) {
                    longOnes.add(t);
                }
                recent.set(rnd.nextInt(recent.length()), t);
                if (cancelAtOnce) {
                    checker.cancel(t, rnd.nextBoolean());
                }
            }
        }

        private void schedulePeriodic(boolean fixedRate) {
            long initial = rnd.nextInt(4) == 0 ? 0 : rnd.nextLong(5_000_000);
            long period = 500_000 + rnd.nextLong(4_500_000);
            long body = rnd.nextInt(4) == 0 ? rnd.nextLong(20_000) : 0;
            int failAt = rnd.nextInt(5) == 0 ? 1 + rnd.nextInt(5) : 0;
            Tracked t = fixedRate ? checker.fixedRate(initial, period, body, failAt)
                    : checker.fixedDelay(initial, period, body, failAt);
            if (schedules.incrementAndGet() > MAX_SCHEDULES) {
                stop = true;
                return;
            }
            if (checker.schedule(executor, t)) {
                recent.set(rnd.nextInt(recent.length()), t);
                Tracked old = periodic.getAndSet(rnd.nextInt(PERIODIC_SLOTS), t);
                if (old != null) {
                    checker.cancel(old, rnd.nextBoolean());
                }
            }
        }
    }
}
