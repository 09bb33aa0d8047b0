package io.timingwheel;

import java.util.Arrays;
import java.util.function.Consumer;

/**
 * One hand-over from the master to the dispatcher: the tasks an advance of the wheel gave up, in deadline order, and
 * the opening of the order gate that goes with them. The dispatcher queues the tasks, then {@linkplain #openGate opens
 * the gate}, then wakes its workers: a worker woken for a task finds the gate open for it. The master reuses one for
 * every turn; it keeps nothing it handed over alive. Master only.
 */
final class HandOver implements Consumer<ScheduledTask<?>> {
    private final OrderGate gate;
    private ScheduledTask<?>[] tasks = new ScheduledTask<?>[64];
    private int size;

    /** The gate opening: see {@link OrderGate#open}. */
    private long held;
    private long drainedBound;
    private long drainedLowerings;
    private boolean opensGate;

    /** Whether the thread that hands over is a worker that takes one of the tasks itself (a virtual clock's step). */
    private boolean callerTakesOne;

    HandOver(OrderGate gate) {
        this.gate = gate;
    }

    /** Collects a task the wheel gave up (a cancelled one is left out: its cancel posted it to the master). */
    @Override
    public void accept(ScheduledTask<?> task) {
        if (!task.isPending()) {
            return;
        }
        if (size == tasks.length) {
            tasks = Arrays.copyOf(tasks, size * 2);
        }
        tasks[size++] = task;
    }

    /** Sets the gate opening of this hand-over ({@link OrderGate#open}). */
    void opening(long firstHeld, long bound, long lowerings) {
        this.held = firstHeld;
        this.drainedBound = bound;
        this.drainedLowerings = lowerings;
        this.opensGate = true;
    }

    int size() {
        return size;
    }

    ScheduledTask<?> task(int i) {
        return tasks[i];
    }

    /** Opens the gate as set, if it was (the dispatcher calls it once the tasks are queued). */
    void openGate() {
        if (opensGate) {
            gate.open(held, drainedBound, drainedLowerings);
        }
    }

    /** @return whether this hand-over opens the gate */
    boolean opensGate() {
        return opensGate;
    }

    /** Says whether the thread that hands over takes one of the tasks itself; until {@link #clear}. */
    void callerTakesOne(boolean takes) {
        callerTakesOne = takes;
    }

    /** @return whether the thread that hands over takes one of the tasks itself: one worker fewer need be woken */
    boolean callerTakesOne() {
        return callerTakesOne;
    }

    /** Forgets the tasks and the opening, for the next turn. */
    void clear() {
        Arrays.fill(tasks, 0, size, null); // it must not keep what it handed over alive
        size = 0;
        opensGate = false;
        callerTakesOne = false;
    }
}
