package io.timingwheel;

import java.util.function.Consumer;

/**
 * The due tasks a worker took under one hold of the pool's lock behind the one it starts, so that a worker with a
 * backlog of tasks due at once takes the lock once per {@value #CAPACITY} of them, not once per task. NOT thread safe:
 * its owner fills and empties it under the pool's lock and runs through it without; other workers look into it, and
 * take its front, under the lock only.
 *
 * <p>A task in a hand is not claimed: it stays pending, and is claimed with a CAS on its state only as a worker starts
 * it. So {@code cancel}, getQueue's {@code remove} and {@code poll}, the shutdown policies and {@code shutdownNow}'s
 * drain still take it (under the lock they see the hands, as part of what waits in the pool), and the owner's claim
 * then fails. Another worker that is free takes from a hand before it takes from the queue: the first task the owner
 * has not reached while other workers wait ({@link #giveFirst}), else the front half of what it has not reached
 * ({@link #giveFrontHalf}), into its own hand, so that busy workers that share a burst of due tasks each take the lock
 * once per half a hand, not once per task, and each runs a run of neighbouring tasks, not every other one (tasks made
 * one after another lie side by side in memory, and two workers claiming neighbours fight over the same cache lines).
 * A hand's tasks were the queue's first ones when it was filled, so no task waits in a hand behind a long run while a
 * worker is free (another takes the front, and then the front of what is left), and tasks start in deadline order
 * across workers but for the runs they share out; with one worker, exactly. Only one-shot tasks that run directly (no
 * hooks, no decoration) go into a hand: such a run never kills its thread, and a one-shot task that left NEW never
 * becomes pending again.
 */
final class Hand {
    /** How many due tasks a worker takes into its hand behind the one it starts. */
    static final int CAPACITY = 32;

    private final ScheduledTask<?>[] tasks = new ScheduledTask<?>[CAPACITY];

    /** How many slots are filled; written by the owner under the pool's lock. */
    private int size;

    /**
     * The owner's place: the slots before it have been started, cancelled or taken by others. Written by the owner
     * alone; others read it, under the lock and without order, only to choose what they take: a stale value makes them
     * look at tasks the owner has claimed already, which they pass over as no longer pending.
     */
    private int next;

    /** Where readers under the lock look from: no task before it is pending any more. Under the pool's lock. */
    private int pendingFrom;

    /** @return whether the hand was filled since it was last emptied (under the lock, or by the owner) */
    boolean isFilled() {
        return size > 0;
    }

    /** Adds a due task behind the others; the owner, under the lock. @return false if the hand is full */
    boolean add(ScheduledTask<?> task) {
        if (size == CAPACITY) {
            return false;
        }
        tasks[size++] = task;
        return true;
    }

    /** @return the next task to start, or null when the owner has gone through the hand (the owner, no lock) */
    ScheduledTask<?> next() {
        for (int slot = next; slot < size; slot++) {
            // A slot another worker took the task of is empty; an owner that read it just before it was emptied may
            // start that task too, and the claim decides.
            ScheduledTask<?> task = tasks[slot];
            if (task != null) {
                next = slot + 1;
                return task;
            }
        }
        next = size;
        return null;
    }

    /** @return whether the owner has a task left to reach (the owner, or under the lock) */
    boolean hasMore() {
        return next < size;
    }

    /** The owner starts nothing more from it: the executor stops, and shutdownNow's drain returns the rest. */
    void leaveRest() {
        next = size;
    }

    /**
     * Moves the front half of what the owner has not reached (all of it when one task is left) into {@code taker}, an
     * empty hand of another worker, in order, the tasks no longer pending left out (under the lock). The taker is
     * free now and the owner is in a run: the earliest tasks go to the one that starts them first.
     *
     * @return whether it moved a task
     */
    boolean giveFrontHalf(Hand taker) {
        return giveFront(taker, Integer.MAX_VALUE);
    }

    /**
     * Moves the first task the owner has not reached, and no more, into {@code taker}, as {@link #giveFrontHalf}
     * moves half: for a worker that leaves the rest to others that wait (under the lock). @return whether it moved one
     */
    boolean giveFirst(Hand taker) {
        return giveFront(taker, 1);
    }

    private boolean giveFront(Hand taker, int most) {
        int from = next;
        while (from < size && tasks[from] == null) {
            from++; // taken by another worker before
        }
        if (from >= size) {
            return false;
        }
        int split = from + Math.min(most, Math.max(1, (size - from) / 2));
        for (int i = from; i < split; i++) {
            ScheduledTask<?> task = tasks[i];
            tasks[i] = null; // here no more: the readers under the lock find it in the taker's hand
            if (task != null && task.isPending()) {
                taker.add(task);
            }
        }
        return taker.isFilled();
    }

    /**
     * Empties the hand once the owner has gone through it (the owner, under the lock), handing every task still
     * pending here to {@code leftOver}: one the owner left when the executor began to stop, for the queue,
     * where shutdownNow's drain finds it if it has not found it here already.
     */
    void empty(Consumer<ScheduledTask<?>> leftOver) {
        forEachPending(leftOver);
        for (int i = 0; i < size; i++) {
            tasks[i] = null;
        }
        size = 0;
        next = 0;
        pendingFrom = 0;
    }

    /**
     * @return the first task here that is still pending, or null (under the lock); what is no longer pending is
     *     skipped
     */
    ScheduledTask<?> firstPending() {
        for (; pendingFrom < size; pendingFrom++) {
            ScheduledTask<?> task = tasks[pendingFrom];
            if (task != null && task.isPending()) {
                return task;
            }
        }
        return null;
    }

    /**
     * Passes every task still pending here to {@code action}, in order (under the lock): those of the front another
     * worker took are in that worker's hand; one the owner has reached and not yet claimed is here still.
     */
    void forEachPending(Consumer<ScheduledTask<?>> action) {
        for (int i = pendingFrom; i < size; i++) {
            ScheduledTask<?> task = tasks[i];
            if (task != null && task.isPending()) {
                action.accept(task);
            }
        }
    }
}
