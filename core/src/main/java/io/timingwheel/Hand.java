package io.timingwheel;

import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The due tasks a worker took under one hold of the pool's lock behind the one it starts, so that a worker with a
 * backlog of tasks due at once takes the lock once per {@value #CAPACITY} of them, not once per task. NOT thread safe:
 * its owner fills and empties it under the pool's lock and runs through it without; other workers look into it under
 * the lock only.
 *
 * <p>A task in a hand is not claimed: it stays pending, and is claimed with a CAS on its state only as a worker starts
 * it. So {@code cancel}, getQueue's {@code remove} and {@code poll}, the shutdown policies and {@code shutdownNow}'s
 * drain still take it (under the lock they see the hands, as part of what waits in the pool), and the owner's claim
 * then fails. Another worker that is free takes from a hand before it takes from the queue ({@link #steal}): a hand's
 * tasks were the queue's first ones when it was filled, so tasks are still taken in deadline order, and none waits in a
 * hand behind a long run while a worker is free. Only one-shot tasks that run directly (no hooks, no decoration) go
 * into a hand: such a run never kills its thread, and a one-shot task that left NEW never becomes pending again.
 * Measured: docs/design.md, the ablation's "hand off" (firing on both JDKs; on JDK 17 the cold start and four
 * workers' tasks due at once).
 */
final class Hand {
    /** How many due tasks a worker takes into its hand behind the one it starts. */
    static final int CAPACITY = 32;

    private final ScheduledTask<?>[] tasks = new ScheduledTask<?>[CAPACITY];

    /** How many slots are filled; written by the owner under the pool's lock. */
    private int size;

    /** The owner's place: the tasks before it have been started, cancelled or taken by others. The owner's alone. */
    private int next;

    /** Where other workers look from: no task before it is pending any more. Under the pool's lock. */
    private int stealFrom;

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
        return next < size ? tasks[next++] : null;
    }

    /** The owner starts nothing more from it: the executor stops, and shutdownNow's drain returns the rest. */
    void leaveRest() {
        next = size;
    }

    /**
     * Empties the hand once the owner has gone through it (the owner, under the lock), putting every task still
     * pending in it back into {@code queue}: one the owner left when the executor began to stop, where shutdownNow's
     * drain finds it if it has not found it here already.
     */
    void emptyInto(DueQueue queue) {
        for (int i = 0; i < size; i++) {
            if (tasks[i].isPending()) {
                queue.add(tasks[i], false);
            }
            tasks[i] = null;
        }
        size = 0;
        next = 0;
        stealFrom = 0;
    }

    /** @return the first task that is still pending, or null (under the lock); what is no longer pending is skipped */
    ScheduledTask<?> firstPending() {
        for (; stealFrom < size; stealFrom++) {
            if (tasks[stealFrom].isPending()) {
                return tasks[stealFrom];
            }
        }
        return null;
    }

    /**
     * Claims the first pending task that {@code claim} takes, for another worker (under the lock); a pending task it
     * refuses stays for the owner. @return the claimed task, or null if there is none
     */
    ScheduledTask<?> steal(Predicate<ScheduledTask<?>> claim) {
        for (int i = stealFrom; i < size; i++) {
            ScheduledTask<?> task = tasks[i];
            boolean taken = task.isPending() && claim.test(task);
            if (i == stealFrom && !task.isPending()) {
                stealFrom++; // no longer pending, claimed now included: never to be looked at again
            }
            if (taken) {
                return task;
            }
        }
        return null;
    }

    /** Passes every task still pending in the hand to {@code action}, in order (under the lock). */
    void forEachPending(Consumer<ScheduledTask<?>> action) {
        for (int i = stealFrom; i < size; i++) {
            if (tasks[i].isPending()) {
                action.accept(tasks[i]);
            }
        }
    }
}
