package io.timingwheel.reliability;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * Watches every task a test gives an executor and, once the executor has terminated, proves the reliability
 * invariants:
 * <ol>
 *   <li><b>Exactly once.</b> Every accepted task ends exactly once: it ran (completed or failed), it was cancelled,
 *       or {@code shutdownNow()} returned it. An accepted task that is none of these is <em>lost</em>; a task that
 *       is two of them (say, returned and also run) ended twice. A rejected task never runs and is never returned.</li>
 *   <li><b>Never after cancel.</b> A {@code cancel} that returned true before the task's run had been claimed means
 *       that run never starts. The JDK lets {@code cancel} return true for a task that is already running (its body
 *       may not have reached its first instruction yet), so after any successful cancel at most one run, the one
 *       that may already have been claimed, may still start; and none at all when the cancel finished before the
 *       run's earliest start (then no run can have been claimed, see {@link #cancel}). A run counts as started after
 *       the cancel only if its body sees so: the checker sets a volatile flag once {@code cancel} has returned true,
 *       and the body reads it first, so "after" is a happens-before edge, not a guess from counts taken around the
 *       call (a run may start, even several of a fast periodic task, between such a count and the call itself).</li>
 *   <li><b>Never early.</b> No run starts before its deadline: {@code initialDelay + n * period} after the schedule
 *       call for fixed rate, {@code delay} after the previous run ended for fixed delay.</li>
 *   <li><b>No overlap.</b> No two runs of one periodic task overlap.</li>
 *   <li><b>Nothing after termination.</b> No run starts after {@code awaitTermination} returned true, and none is in
 *       progress then.</li>
 *   <li><b>Outcomes agree.</b> A completed one-shot task ran exactly once and {@code get()} returns its result; a
 *       failed one reports the very exception its body threw; a periodic task never completes normally; a cancel
 *       that returned true leaves the future cancelled; at most one cancel of a task returns true.</li>
 * </ol>
 * Violations found while tasks run (early, overlap) are recorded on the task threads and reported by
 * {@link #verify}, so an assertion failing on a task thread fails the test.
 *
 * <p>Rejections are recognised through {@link #handler}: it notes the rejected task on the calling thread (both
 * executors call the handler on the thread that schedules), so a task counts as accepted only if {@code schedule}
 * returned normally and the handler did not see it.
 */
final class InvariantChecker {

    /** The three kinds of task. */
    enum Kind { ONE_SHOT, FIXED_RATE, FIXED_DELAY }

    /** What {@code shutdownNow()} may return. */
    enum ShutdownNowContract {
        /** Ours: exactly the accepted tasks that never started (none done, none run since). */
        EXACT,
        /**
         * The JDK's: also tasks cancelled before the call (without {@code removeOnCancel} they stay queued until
         * their deadline, and {@code shutdownNow()} drains them with the rest).
         */
        MAY_INCLUDE_CANCELLED
    }

    private final ShutdownNowContract contract;
    private final Queue<Tracked> accepted = new ConcurrentLinkedQueue<>();
    private final Queue<Tracked> rejected = new ConcurrentLinkedQueue<>();
    private final Queue<String> violations = new ConcurrentLinkedQueue<>();
    private final AtomicInteger ids = new AtomicInteger();
    private final ThreadLocal<Runnable> rejectedHere = new ThreadLocal<>();

    private final LongAdder scheduleCalls = new LongAdder();
    private final LongAdder cancelCalls = new LongAdder();
    private final LongAdder cancelsThatWon = new LongAdder();
    private final LongAdder bodyStarts = new LongAdder();
    private final LongAdder injectedFailures = new LongAdder();

    /** When {@code shutdownNow()} was called and when it returned; 0 if it never was. */
    private volatile long shutdownNowCalledAt;
    private volatile long shutdownNowReturnedAt;

    InvariantChecker(ShutdownNowContract contract) {
        this.contract = contract;
    }

    /** @return the contract the executor of {@code subject} keeps */
    static ShutdownNowContract contractOf(Subject subject) {
        return subject == Subject.TWE ? ShutdownNowContract.EXACT : ShutdownNowContract.MAY_INCLUDE_CANCELLED;
    }

    /**
     * A rejection handler that notes the rejection for this checker and then, if {@code abort}, throws
     * {@link RejectedExecutionException} as {@code AbortPolicy} does (otherwise it discards, as {@code DiscardPolicy}).
     */
    RejectedExecutionHandler handler(boolean abort) {
        return (task, executor) -> {
            if (rejectedHere.get() != null) {
                violation("the handler was called twice for one schedule call: " + task);
            }
            rejectedHere.set(task);
            if (abort) {
                throw new RejectedExecutionException("rejected (checker's handler)");
            }
        };
    }

    // -- tasks ------------------------------------------------------------------------------------------------------

    /** @return a one-shot task; it busy-runs {@code bodyNanos} and throws if {@code fails} */
    Tracked oneShot(long delayNanos, long bodyNanos, boolean fails) {
        return new Tracked(Kind.ONE_SHOT, delayNanos, 0, bodyNanos, fails ? 1 : 0);
    }

    /** @return a fixed-rate task; its {@code failAtRun}-th run throws (1-based; 0: never) */
    Tracked fixedRate(long initialNanos, long periodNanos, long bodyNanos, int failAtRun) {
        return new Tracked(Kind.FIXED_RATE, initialNanos, periodNanos, bodyNanos, failAtRun);
    }

    /** @return a fixed-delay task; its {@code failAtRun}-th run throws (1-based; 0: never) */
    Tracked fixedDelay(long initialNanos, long delayNanos, long bodyNanos, int failAtRun) {
        return new Tracked(Kind.FIXED_DELAY, initialNanos, delayNanos, bodyNanos, failAtRun);
    }

    /**
     * Schedules the task and records whether it was accepted. A {@link RejectedExecutionException} counts as a
     * rejection only if it came from the handler; any other exception out of {@code schedule} is a violation.
     *
     * @return true if the executor accepted the task
     */
    boolean schedule(ScheduledExecutorService executor, Tracked t) {
        scheduleCalls.increment();
        rejectedHere.remove();
        ScheduledFuture<?> f = null;
        Throwable thrown = null;
        t.scheduledAt = System.nanoTime();
        t.earliest = t.scheduledAt + Math.max(0, t.initialNanos);
        try {
            switch (t.kind) {
                case ONE_SHOT:
                    f = executor.schedule(t.asCallable(), t.initialNanos, TimeUnit.NANOSECONDS);
                    break;
                case FIXED_RATE:
                    f = executor.scheduleAtFixedRate(t, t.initialNanos, t.periodNanos, TimeUnit.NANOSECONDS);
                    break;
                default:
                    f = executor.scheduleWithFixedDelay(t, t.initialNanos, t.periodNanos, TimeUnit.NANOSECONDS);
                    break;
            }
        } catch (Throwable e) {
            thrown = e;
        }
        Runnable seenByHandler = rejectedHere.get();
        rejectedHere.remove();
        if (seenByHandler != null) {
            if (f != null && seenByHandler != f) {
                violation("the handler was given " + seenByHandler + ", schedule returned " + f);
            }
            if (thrown != null && !(thrown instanceof RejectedExecutionException)) {
                violation("schedule threw " + thrown + " after its handler rejected the task");
            }
            t.rejectedAs = seenByHandler;
            rejected.add(t);
            return false;
        }
        if (thrown != null) {
            violation("schedule threw " + thrown + " without a rejection by the handler");
            t.rejectedAs = t; // unknown state: checked as rejected (it must not run)
            rejected.add(t);
            return false;
        }
        t.future = f;
        accepted.add(t);
        return true;
    }

    /**
     * Cancels an accepted task and records what the executor answered. The task's earliest next start and whether a
     * run is in progress are read, in this order, before the call, and the clock after it: if no
     * run was in progress and the call returned before the earliest next start, no run can have been claimed when
     * the cancel won, so no run may start any more (the executor's deadline is never before that earliest start, and
     * a run starting earlier is reported as early).
     *
     * @return what {@code cancel} returned
     */
    boolean cancel(Tracked t, boolean mayInterruptIfRunning) {
        long earliest = t.earliest;
        int inBody = t.inBody.get();
        cancelCalls.increment();
        boolean won = t.future.cancel(mayInterruptIfRunning);
        long returnedAt = System.nanoTime();
        if (won) {
            cancelsThatWon.increment();
            CancelRecord r = new CancelRecord(inBody == 0 && returnedAt - earliest < 0, returnedAt);
            if (!t.cancel.compareAndSet(null, r)) {
                violation(t + ": a second cancel returned true");
            }
            t.cancelReturnedTrue = true; // from here on, a body that starts sees that it started after the cancel
        }
        return won;
    }

    /** Calls {@code shutdownNow()}, noting when it was called and when it returned. @return what it returned */
    List<Runnable> shutdownNow(ExecutorService executor) {
        shutdownNowCalledAt = System.nanoTime();
        List<Runnable> tasks = executor.shutdownNow();
        shutdownNowReturnedAt = System.nanoTime();
        return tasks;
    }

    void violation(String what) {
        violations.add(what);
    }

    // -- verification -----------------------------------------------------------------------------------------------

    /**
     * Checks every invariant. Call it once the executor has terminated ({@code terminatedAt} is the clock when
     * {@code awaitTermination} returned true), or with {@code terminated == false} if it did not, in which case
     * every unfinished task also counts as lost.
     *
     * @param returned what {@code shutdownNow()} returned, or an empty list if it was not called
     */
    Report verify(List<Runnable> returned, boolean terminated, long terminatedAt) {
        Report report = new Report();
        if (!terminated) {
            violation("the executor did not terminate");
        }
        Map<Object, Tracked> byFuture = new IdentityHashMap<>();
        for (Tracked t : accepted) {
            byFuture.put(t.future, t);
        }
        Map<Object, Tracked> rejectedByTask = new IdentityHashMap<>();
        for (Tracked t : rejected) {
            rejectedByTask.put(t.rejectedAs, t);
        }
        Map<Tracked, Boolean> inReturned = new IdentityHashMap<>();
        for (Runnable r : returned) {
            Tracked t = byFuture.get(r);
            if (t == null) {
                Tracked rej = rejectedByTask.get(r);
                violation(rej != null ? rej + ": rejected, yet returned by shutdownNow"
                        : "shutdownNow returned a task nobody scheduled: " + r);
            } else if (inReturned.put(t, Boolean.TRUE) != null) {
                violation(t + ": returned twice by shutdownNow");
            }
        }
        for (Tracked t : rejected) {
            report.rejected++;
            if (t.starts.get() != 0) {
                violation(t + ": rejected, yet it ran");
            }
        }
        for (Tracked t : accepted) {
            report.accepted++;
            verifyOne(t, inReturned.containsKey(t), terminated, terminatedAt, report);
        }
        report.scheduleCalls = scheduleCalls.sum();
        report.cancelCalls = cancelCalls.sum();
        report.cancelsThatWon = cancelsThatWon.sum();
        report.runs = bodyStarts.sum();
        report.injectedFailures = injectedFailures.sum();
        report.violations = new ArrayList<>(violations);
        return report;
    }

    private void verifyOne(Tracked t, boolean returned, boolean terminated, long terminatedAt, Report report) {
        Future<?> f = t.future;
        boolean done = f.isDone();
        boolean cancelled = f.isCancelled();
        int starts = t.starts.get();
        if (t.inBody.get() != 0) {
            violation(t + ": still running after termination");
        }
        if (terminated && starts > 0 && t.lastStart - terminatedAt > 0) {
            violation(t + ": a run started after termination");
        }
        CancelRecord c = t.cancel.get();
        if (c != null) {
            int allowed = c.beforeAnyClaim ? 0 : 1;
            int after = t.startsAfterCancel.get();
            if (after > allowed) {
                violation(t + ": " + after + " run(s) started after a cancel that returned true"
                        + (c.beforeAnyClaim ? " before the run's earliest start" : ""));
            }
            if (!cancelled) {
                violation(t + ": cancel returned true but the future is not cancelled (done=" + done + ")");
            }
        }
        if (t.kind == Kind.ONE_SHOT && starts > 1) {
            violation(t + ": a one-shot task ran " + starts + " times");
        }
        if (returned) {
            if (done && contract == ShutdownNowContract.MAY_INCLUDE_CANCELLED && cancelled) {
                report.returnedAlthoughCancelled++; // the JDK's queue still held it; cancelled is its end
                report.cancelled++;
                return;
            }
            if (done && !cancelled) {
                violation(t + ": returned by shutdownNow but also ran to its end");
            } else if (done && c == null) {
                violation(t + ": returned by shutdownNow but also cancelled by the executor");
            } else if (done && c.returnedAt - shutdownNowCalledAt < 0) {
                violation(t + ": cancelled before shutdownNow was called, yet returned by it");
            } else if (done) {
                report.returnedThenCancelled++; // the user cancelled it while or after it was handed back
            }
            if (t.kind == Kind.ONE_SHOT && starts != 0) {
                violation(t + ": returned by shutdownNow although it ran");
            }
            long after = shutdownNowReturnedAt;
            if (starts > 0 && after != 0 && t.lastStart - after > 0) {
                violation(t + ": returned by shutdownNow, then ran again");
            }
            report.returned++;
            return;
        }
        if (!done) {
            report.lost++;
            violation(t + ": LOST (accepted, not done, not returned by shutdownNow; runs=" + starts + ")");
            return;
        }
        if (cancelled) {
            report.cancelled++;
            return;
        }
        try {
            Object value = f.get(0, TimeUnit.NANOSECONDS);
            if (t.kind != Kind.ONE_SHOT) {
                violation(t + ": a periodic task completed normally");
            } else if (starts != 1) {
                violation(t + ": completed normally after " + starts + " runs");
            } else if (!Integer.valueOf(t.id).equals(value)) {
                violation(t + ": get() returned " + value);
            }
            report.completed++;
        } catch (ExecutionException e) {
            if (t.thrown == null || e.getCause() != t.thrown) {
                violation(t + ": failed with " + e.getCause() + ", its body threw " + t.thrown);
            }
            report.failed++;
        } catch (CancellationException e) {
            violation(t + ": get() throws CancellationException but isCancelled() is false");
        } catch (Exception e) {
            violation(t + ": get() on a done future threw " + e);
        }
    }

    /** What a successful cancel saw before it was called. */
    private static final class CancelRecord {
        final boolean beforeAnyClaim;
        final long returnedAt;

        CancelRecord(boolean beforeAnyClaim, long returnedAt) {
            this.beforeAnyClaim = beforeAnyClaim;
            this.returnedAt = returnedAt;
        }
    }

    /** The exception a task's body throws when a failure is injected. */
    static final class InjectedFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        InjectedFailure(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * A task under watch; it is the {@link Runnable} given to the executor (one-shot tasks go through
     * {@link #asCallable()} so that {@code get()} can be checked). Its body checks "never early" and "no overlap" as
     * it starts, busy-runs for its set time (ending early if interrupted), and may throw.
     */
    final class Tracked implements Runnable {
        final int id = ids.incrementAndGet();
        final Kind kind;
        final long initialNanos;
        final long periodNanos;
        final long bodyNanos;
        final int failAtRun;

        /** The clock just before the schedule call. */
        volatile long scheduledAt;
        /** The earliest time the next run may start; published at the end of each run. */
        volatile long earliest;
        volatile long lastStart;
        volatile ScheduledFuture<?> future;
        volatile Runnable rejectedAs;
        volatile RuntimeException thrown;
        final AtomicInteger starts = new AtomicInteger();
        final AtomicInteger inBody = new AtomicInteger();
        final AtomicReference<CancelRecord> cancel = new AtomicReference<>();
        /** Set once a {@code cancel} of this task has returned true. */
        volatile boolean cancelReturnedTrue;
        /** Runs whose body saw {@link #cancelReturnedTrue} as it started: provably started after the cancel. */
        final AtomicInteger startsAfterCancel = new AtomicInteger();

        private Tracked(Kind kind, long initialNanos, long periodNanos, long bodyNanos, int failAtRun) {
            this.kind = kind;
            this.initialNanos = initialNanos;
            this.periodNanos = periodNanos;
            this.bodyNanos = bodyNanos;
            this.failAtRun = failAtRun;
        }

        java.util.concurrent.Callable<Integer> asCallable() {
            return () -> {
                run();
                return id;
            };
        }

        @Override
        public void run() {
            if (cancelReturnedTrue) {
                startsAfterCancel.incrementAndGet();
            }
            long start = System.nanoTime();
            if (inBody.incrementAndGet() > 1) {
                violation(this + ": two runs overlap");
            }
            int n = starts.incrementAndGet();
            bodyStarts.increment();
            long early = earliest - start;
            if (early > 0) {
                violation(this + ": run " + n + " started " + early + " ns before its deadline");
            }
            lastStart = start;
            try {
                if (bodyNanos > 0) {
                    Threads.spinInterruptibly(bodyNanos);
                }
                if (n == failAtRun) {
                    injectedFailures.increment();
                    RuntimeException e = new InjectedFailure(this + " run " + n);
                    thrown = e;
                    throw e;
                }
            } finally {
                long end = System.nanoTime();
                switch (kind) {
                    case FIXED_RATE:
                        earliest = scheduledAt + Math.max(0, initialNanos) + n * periodNanos;
                        break;
                    case FIXED_DELAY:
                        earliest = end + periodNanos;
                        break;
                    default:
                        earliest = start; // a second run is reported as such, not as early
                        break;
                }
                inBody.decrementAndGet();
            }
        }

        @Override
        public String toString() {
            return "task#" + id + "(" + kind + ", initial " + initialNanos + " ns"
                    + (kind == Kind.ONE_SHOT ? "" : ", period " + periodNanos + " ns") + ")";
        }
    }

    /** The counts of one verification; {@link #lost} must be 0 and {@link #violations} empty. */
    static final class Report {
        long scheduleCalls;
        long accepted;
        long rejected;
        long runs;
        long completed;
        long failed;
        long cancelled;
        long returned;
        long returnedAlthoughCancelled;
        long returnedThenCancelled;
        long lost;
        long cancelCalls;
        long cancelsThatWon;
        long injectedFailures;
        List<String> violations;

        /** @return schedule and cancel calls: the operations performed */
        long operations() {
            return scheduleCalls + cancelCalls;
        }

        /** @return the one-line summary printed by each test */
        String summary(String name, long millis) {
            return String.format("[reliability] %s: ops=%d (schedules=%d, cancels=%d) accepted=%d rejected=%d "
                            + "runs=%d completed=%d failed=%d(injected %d) cancelled=%d(cancel won %d) returned=%d%s%s "
                            + "lost=%d violations=%d in %d ms",
                    name, operations(), scheduleCalls, cancelCalls, accepted, rejected, runs, completed, failed,
                    injectedFailures, cancelled, cancelsThatWon, returned,
                    returnedThenCancelled > 0 ? "(" + returnedThenCancelled + " then cancelled by the user)" : "",
                    returnedAlthoughCancelled > 0 ? "(+" + returnedAlthoughCancelled + " cancelled, JDK)" : "",
                    lost, violations.size(), millis);
        }

        /** @return the first violations, for an assertion message */
        String firstViolations() {
            StringBuilder sb = new StringBuilder();
            int n = 0;
            for (String v : violations) {
                if (n++ == 20) {
                    sb.append("\n  ... ").append(violations.size() - 20).append(" more");
                    break;
                }
                sb.append("\n  ").append(v);
            }
            return sb.toString();
        }
    }
}
