package io.timingwheel;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The order gate: a worker takes a due task only once every task due before it that the master holds has been handed
 * over, so that a task that reaches the workers without the master (due at once, due soon, a periodic task re-armed)
 * never passes an earlier timer still in the master's hands. It is also the master's sleep word, the only one: one
 * state, replaced by CAS, that the master, the publishers of tasks and the workers share; whether the master sleeps,
 * and whether deeply (then work that can wait wakes it once), is part of it.
 *
 * <h2>The state</h2>
 * An immutable {@link Horizon}: {@code open}, the gate (a worker may take a task due before it); {@code announced},
 * a time before which no task reaches the master's inbox unseen (see below); {@code floor}, the earliest deadline of
 * the tasks that reached the inbox all the same; and whether the master is asleep. One reference holds them all, so one
 * CAS changes them together, and any change (even to equal values: a new object) makes a CAS that expected the old
 * state fail.
 *
 * <h2>The protocol</h2>
 * The promise of {@code open}: every task whose {@code schedule} call has returned and that is due before {@code open}
 * has been handed to the workers, or never went to the master.
 * <ul>
 *   <li>The master {@linkplain #announce announces} a time before it marks its inbox (how many offers each stripe has
 *       claimed) and drains up to the mark. {@code announced} only grows, and only the master moves it.</li>
 *   <li>A publisher offers its task to the inbox, then reads the state: a task due before {@code announced} is one the
 *       master may not expect there (its publisher was slow, or the master sleeps longer), so it lowers {@code open}
 *       and {@code floor} to the task's deadline, and wakes the master if the state said it was asleep: one waker per
 *       sleep.</li>
 *   <li>So a task that the master has not drained was claimed after its last mark, hence checked after the
 *       announcement before that mark: it is due at or after that announcement, or lowered {@code floor}. Having
 *       drained up to a mark and handed over what is due before some time, the master {@linkplain #open opens} the
 *       gate to the earliest of that time, the announcement before the last mark it has drained up to, and the floor.
 *       It resets the floor only once it has drained a mark taken after the last lowering. The opening is a CAS from a
 *       state read after the drain, so a lowering it has not seen makes it fail and look again.</li>
 *   <li>Before parking, the master {@linkplain #prepareSleep announces} the first deadline it holds, looks at its
 *       inbox and commands once more (the caller's part), then {@linkplain #confirmSleep confirms}: the gate opens and
 *       the state says asleep, unless a publisher or {@link #wakeMaster} replaced the state meanwhile. A deep sleep
 *       (prepared as such) is replaced by the first publisher of work that can wait ({@link #published} of a task
 *       due after the announced time, {@link #wakeFromDeepSleep}): its confirmation fails, or the master is woken
 *       once.</li>
 *   <li>A worker reads {@code open}. One that finds the gate shut registers ({@link #enterWait}) and reads it again
 *       before it waits; the master reads the count of such workers after every opening ({@link #hasWaiters}) and
 *       signals them: one of the two sees the other.</li>
 * </ul>
 * The master announces a little more than it will hand over in a turn (see {@link MasterLoop}): the gate may then run
 * ahead of a master that is still draining a burst, by that margin. Every access is a volatile read or a CAS
 * (sequentially consistent), which the arguments above rely on.
 */
final class OrderGate {
    /** A state of the gate; immutable. */
    static final class Horizon {
        /** A worker may take a task due before this time. */
        final long open;
        /** Only the master sets it; a task published due before it lowers the floor. */
        final long announced;
        /** The earliest deadline published before {@code announced} since the master last reset it. */
        final long floor;
        /** How many times the floor was lowered: the master resets it only if none came since its mark. */
        final long lowerings;
        /** The master has confirmed its sleep: whoever replaces this state by lowering it unparks the master. */
        final boolean asleep;
        /**
         * The master prepares (or has confirmed) a long sleep, past the interval in which it looks at work that can
         * wait: the first publisher of such work (a task due after {@code announced}, a cancellation to unlink)
         * replaces this state, so the master wakes once for it (or does not fall asleep).
         */
        final boolean deep;

        Horizon(long open, long announced, long floor, long lowerings, boolean asleep, boolean deep) {
            this.open = open;
            this.announced = announced;
            this.floor = floor;
            this.lowerings = lowerings;
            this.asleep = asleep;
            this.deep = deep;
        }

        /** @return this state with the master awake */
        Horizon awake() {
            return new Horizon(open, announced, floor, lowerings, false, false);
        }

        @Override
        public String toString() {
            return "Horizon[open=" + open + ", announced=" + announced + ", floor=" + floor + ", lowerings="
                    + lowerings + (asleep ? ", asleep" : "") + (deep ? ", deep" : "") + "]";
        }
    }

    private static final VarHandle STATE;
    private static final VarHandle WAITING;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            STATE = lookup.findVarHandle(OrderGate.class, "state", Horizon.class);
            WAITING = lookup.findVarHandle(OrderGate.class, "waiting", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final long NONE = TimingWheel.NONE;

    /**
     * Open for every deadline, while nothing was published to the master; announced for every deadline, so that the
     * tasks published before the master's first turn lower it.
     */
    private volatile Horizon state = new Horizon(NONE, NONE, NONE, 0, false, false);

    /** Workers registered as waiting for the gate to open (see {@link #enterWait}). */
    private volatile int waiting;

    /** @return the state now (for the master's re-check before it parks, and for tests) */
    Horizon state() {
        return state;
    }

    // -- workers ----------------------------------------------------------------------------------------------------

    /** @return whether a worker may take a task with this deadline now (any thread) */
    boolean isOpenFor(long deadline) {
        return deadline < state.open;
    }

    /**
     * @return the gate's bound now: a worker may take a task due before it (any thread). A worker reads it before it
     *     moves in the master's last hand-over, which the master publishes before it opens the gate for it
     */
    long opening() {
        return state.open;
    }

    /**
     * A worker that found the gate shut counts itself among the waiting ones, then reads the gate again: the master
     * reads the count after it opens the gate, so one of the two sees the other. The caller waits only if this returns
     * false, and calls {@link #leaveWait} when it stops waiting.
     *
     * @return whether the gate is open for {@code deadline} after all
     */
    boolean enterWait(long deadline) {
        WAITING.getAndAdd(this, 1);
        return isOpenFor(deadline);
    }

    void leaveWait() {
        WAITING.getAndAdd(this, -1);
    }

    /** @return whether workers wait for the gate to open (the master asks after each opening) */
    boolean hasWaiters() {
        return waiting > 0;
    }

    /** The waker of a pool with no waiters. A class, not a lambda: see {@link Lifecycle}'s {@code NO_MASTER}. */
    private static final Runnable NO_WAITERS = new Runnable() {
        @Override
        public void run() {
        }
    };

    /**
     * How the workers that wait for the gate are woken: set once by their pool before the master starts (a pool that
     * never waits for the gate, as an external executor's, sets none).
     */
    private Runnable waiterWaker = NO_WAITERS;

    void wakeWaitersWith(Runnable waker) {
        waiterWaker = waker;
    }

    /**
     * The master opened the gate: workers waiting for it look again.
     *
     * @return whether any worker was waiting for it (and was woken)
     */
    boolean wakeWaiters() {
        if (!hasWaiters()) {
            return false;
        }
        waiterWaker.run();
        return true;
    }

    // -- publishers -------------------------------------------------------------------------------------------------

    /**
     * A publisher's part, after its task is in the master's inbox: a task due before the announced time lowers the
     * gate and the floor to its deadline.
     *
     * @return true if the master slept: the caller must unpark it
     */
    boolean published(long deadline) {
        for (;;) {
            Horizon h = state;
            if (deadline >= h.announced) {
                if (!h.deep) {
                    return false;
                }
                // work that can wait, for a master in (or going into) a long sleep: it wakes once for it
                if (STATE.compareAndSet(this, h, h.awake())) {
                    return h.asleep;
                }
                continue;
            }
            Horizon lowered = new Horizon(Math.min(h.open, deadline), h.announced, Math.min(h.floor, deadline),
                    h.lowerings + 1, false, false);
            if (STATE.compareAndSet(this, h, lowered)) {
                return h.asleep;
            }
        }
    }

    /**
     * Makes the master's sleep fail or end: replaces the state (the master's confirmation expects the one it
     * prepared) and says whether the master slept.
     *
     * @return true if the master slept: the caller must unpark it
     */
    boolean wakeMaster() {
        for (;;) {
            Horizon h = state;
            if (STATE.compareAndSet(this, h, h.awake())) {
                return h.asleep;
            }
        }
    }

    // -- the master -------------------------------------------------------------------------------------------------

    /**
     * Marks the master awake without waking it, if the state says it sleeps: what is published from now on wakes
     * nobody. For a virtual clock's step done on another thread while the master thread sleeps on (see
     * {@link MasterLoop#stepIfIdle}); the clock wakes the master once the advance is over. Master only (the step holds
     * the master's lock).
     */
    void keepAwake() {
        for (;;) {
            Horizon h = state;
            if (!h.asleep && !h.deep) {
                return;
            }
            if (STATE.compareAndSet(this, h, h.awake())) {
                return;
            }
        }
    }

    /**
     * Announces {@code time}: from now on, a task published due before it lowers the floor. Master only, before it
     * marks its inbox. @return the state, whose {@code lowerings} the master keeps for {@link #open}
     */
    Horizon announce(long time) {
        for (;;) {
            Horizon h = state;
            // The gate never stands beyond the announced time: a task published due past that time lowers nothing.
            Horizon next = new Horizon(Math.min(h.open, time), time, h.floor, h.lowerings, false, false);
            if (STATE.compareAndSet(this, h, next)) {
                return next;
            }
        }
    }

    /**
     * Opens the gate (or lowers it: a task a command took in may hold it back) to the earliest of {@code held}, the
     * first deadline the master holds and has not handed over, {@code drainedBound}, and the floor. Master only.
     *
     * @param drainedBound a time before which no task claimed after the master's last fully drained mark is due,
     *     unless its publisher lowered the floor: the least time the master announced since that mark's announcement
     * @param drainedLowerings {@code lowerings} as that announcement left it: if none came since, the floor's tasks
     *     were all claimed before that mark and have been drained, so the floor is lifted
     */
    void open(long held, long drainedBound, long drainedLowerings) {
        for (;;) {
            Horizon h = state;
            // No lowering since that mark: lift the floor.
            long floor = h.lowerings == drainedLowerings ? NONE : h.floor;
            Horizon next = new Horizon(Math.min(held, Math.min(drainedBound, floor)), h.announced, floor,
                    h.lowerings, false, false);
            if (STATE.compareAndSet(this, h, next)) {
                return;
            }
        }
    }

    /**
     * The first step of the master's sleep: announces {@code firstHeld}, the earliest deadline it holds (or
     * {@link TimingWheel#NONE}), and whether the sleep will be {@code deep}. The caller then looks at its inbox and
     * commands once more and, if they are empty, calls {@link #confirmSleep} with the state this returns: a publisher
     * that came after that look finds this state and replaces it if it must wake the master, so the confirmation
     * fails.
     */
    Horizon prepareSleep(long firstHeld, boolean deep) {
        for (;;) {
            Horizon h = state;
            Horizon next = new Horizon(Math.min(h.open, firstHeld), firstHeld, h.floor, h.lowerings, false, deep);
            if (STATE.compareAndSet(this, h, next)) {
                return next;
            }
        }
    }

    /**
     * Wakes the master out of a long sleep (or keeps it from one it prepares) for work that can wait: a cancellation
     * to unlink. Once per sleep: the first caller replaces the state.
     *
     * @return true if the master slept: the caller must unpark it
     */
    boolean wakeFromDeepSleep() {
        for (;;) {
            Horizon h = state;
            if (!h.deep) {
                return false;
            }
            if (STATE.compareAndSet(this, h, h.awake())) {
                return h.asleep;
            }
        }
    }

    /**
     * Opens the gate up to the announced first deadline the master holds and marks the master asleep, unless the
     * state changed since {@link #prepareSleep} (a publisher lowered it, or someone woke the master). The inbox was
     * found empty after the preparation: every task published before it has been drained, the floor's included, so
     * the floor is lifted. Master only.
     *
     * @return the confirmed state, or null if the master must not sleep
     */
    Horizon confirmSleep(Horizon prepared) {
        Horizon asleep = new Horizon(prepared.announced, prepared.announced, NONE, prepared.lowerings, true,
                prepared.deep);
        return STATE.compareAndSet(this, prepared, asleep) ? asleep : null;
    }
}
