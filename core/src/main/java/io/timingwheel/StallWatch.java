package io.timingwheel;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * Tells a publisher when the pool's workers are held off their cores in the pool's own code, so that it pauses and
 * gives its core away (see {@link CoreSharing#publisherGivesWay}).
 *
 * <p>Why: on a machine with as few cores as busy threads, the kernel shares them out fairly, and a worker with due
 * tasks gets no more of a core than a publisher scheduling at full speed, or a compiler thread. In a fresh JVM both
 * cores are busy so for the first hundred milliseconds: the publishers, the master and the JIT's compiler threads,
 * which compile the workers' path last (its methods are called less often than the publishers'). There the worker,
 * runnable, got no core for 5 to 20 ms at a time ({@code OnTimeHarness cold}, a thread sampling its state every
 * 200 µs): no run started, while the publisher held one core and the compilers the other, and the timers due then were
 * that late. The JDK's publishers give their cores away there without meaning to: they wait for the queue's lock that
 * its worker holds. Ours take no lock, so they do it on purpose, and only then.
 *
 * <p>How: every worker counts the runs it starts and says whether it is in one ({@link Progress}, plain fields that
 * only it writes). At most every {@value #LOOK_EVERY_MICROS} µs, one publisher looks: if no run started since the
 * previous look, and some worker is not in a run, that worker is in the pool's own code and has not moved (a worker
 * that waits is not looked at: the caller asks only when none does). A run that lasts, the user's code, is never a
 * reason to pause: a worker in it counts as busy, not held. Racy reads, a hint: a look that goes wrong costs one pause
 * too many or too few, never a task.
 */
final class StallWatch {
    /** How often, at most, a publisher looks at the workers' progress. */
    static final long LOOK_EVERY_MICROS = 250;

    /** How long a publisher pauses when it finds the workers held: a time slice's share, not a slice. */
    static final long PAUSE_NANOS = TimeUnit.MICROSECONDS.toNanos(100);

    private static final long LOOK_EVERY_NANOS = TimeUnit.MICROSECONDS.toNanos(LOOK_EVERY_MICROS);

    /** A look older than this says nothing about the workers now: they may have waited since. */
    private static final long LOOK_STALE_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private static final long NEVER = Long.MIN_VALUE / 2;
    private static final Progress[] NONE = {};

    /** One worker's progress: written by that worker alone, with plain writes; read by publishers without order. */
    static final class Progress {
        final Thread thread;

        /** Runs this worker has started (wraps around: only compared for change). */
        int started;

        /** The task this worker runs now, or null: a description for others, never a decision but this one. */
        ScheduledTask<?> running;

        Progress(Thread thread) {
            this.thread = thread;
        }
    }

    /** The workers' progress, copied on change (workers come and go rarely). */
    private volatile Progress[] roster = NONE;

    /** When a publisher last looked, and the runs started by then. Racy as a pair: see the class comment. */
    private volatile long lookedAt = NEVER;
    private volatile int startedThen;

    /** Adds a worker's progress; callers take turns (the pool's lock), publishers read the roster without it. */
    void add(Progress progress) {
        Progress[] r = roster;
        Progress[] next = Arrays.copyOf(r, r.length + 1);
        next[r.length] = progress;
        roster = next;
    }

    /** Removes a worker's progress, if present; callers take turns, as for {@link #add}. */
    void remove(Progress progress) {
        Progress[] r = roster;
        for (int i = 0; i < r.length; i++) {
            if (r[i] == progress) {
                Progress[] next = Arrays.copyOf(r, r.length - 1);
                System.arraycopy(r, i + 1, next, i, r.length - i - 1);
                roster = next;
                return;
            }
        }
    }

    /** @return whether a look is due at {@code now}: one volatile read, on every schedule */
    boolean lookDue(long now) {
        return now - lookedAt >= LOOK_EVERY_NANOS;
    }

    /**
     * Looks at the workers' progress (when {@link #lookDue}, and no worker waits). A worker that publishes never
     * pauses: its own progress is what the look is about.
     *
     * @return true if no worker started a run since the previous look, a moment ago, and one is in the pool's code
     */
    boolean held(long now) {
        long then = lookedAt;
        lookedAt = now;
        Thread me = Thread.currentThread();
        int started = 0;
        boolean inPoolCode = false;
        for (Progress p : roster) {
            if (p.thread == me) {
                return false;
            }
            started += p.started;
            inPoolCode |= p.running == null;
        }
        int before = startedThen;
        startedThen = started;
        return started == before && inPoolCode && now - then < LOOK_STALE_NANOS;
    }
}
