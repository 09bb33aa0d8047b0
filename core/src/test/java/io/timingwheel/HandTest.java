package io.timingwheel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A hand alone, on one thread: what its owner walks, what another worker takes from its back, and what the readers
 * under the pool's lock see of both, so that every task not yet reached is in exactly one hand, in order.
 */
class HandTest {

    private static final TaskHost HOST = new PlainTaskHost();

    private static List<RunnableTask> tasks(int count) {
        List<RunnableTask> tasks = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            tasks.add(new RunnableTask(HOST, () -> { }, i));
        }
        return tasks;
    }

    private static Hand filled(List<RunnableTask> tasks) {
        Hand hand = new Hand();
        for (RunnableTask task : tasks) {
            assertTrue(hand.add(task));
        }
        return hand;
    }

    private static List<ScheduledTask<?>> pending(Hand hand) {
        List<ScheduledTask<?>> pending = new ArrayList<>();
        hand.forEachPending(pending::add);
        return pending;
    }

    /** The owner walks what it added in order, and then finds the end; a full hand takes no more. */
    @Test
    void theOwnerWalksTheFillInOrder() {
        List<RunnableTask> tasks = tasks(Hand.CAPACITY);
        Hand hand = filled(tasks);
        assertFalse(hand.add(new RunnableTask(HOST, () -> { }, 0)), "full");
        for (RunnableTask task : tasks) {
            assertSame(task, hand.next());
        }
        assertNull(hand.next());
    }

    /**
     * Eight tasks, the owner in the second: a free worker gets the front half of the six not reached (the third to the
     * fifth), in order; the owner goes on after them; the readers see the other three in the owner's hand, and each
     * task once.
     */
    @Test
    void aFreeWorkerTakesTheFrontHalfOfWhatTheOwnerHasNotReached() {
        List<RunnableTask> tasks = tasks(8);
        Hand owner = filled(tasks);
        assertSame(tasks.get(0), owner.next());
        assertSame(tasks.get(1), owner.next());
        tasks.get(0).cancel(false); // as if started: no longer pending
        tasks.get(1).cancel(false);

        Hand taker = new Hand();
        assertTrue(owner.giveFrontHalf(taker));

        assertEquals(tasks.subList(2, 5), pending(taker));
        assertEquals(tasks.subList(5, 8), pending(owner));
        for (RunnableTask task : tasks.subList(2, 5)) {
            assertSame(task, taker.next());
        }
        assertNull(taker.next());
        for (RunnableTask task : tasks.subList(5, 8)) {
            assertSame(task, owner.next(), "the owner goes on after the front it gave");
        }
        assertNull(owner.next());
    }

    /**
     * A task the owner has reached and not yet claimed (its walk dealt it; the claim comes as it starts) is not taken
     * by another worker, and the readers under the lock still see it: shutdownNow's drain must return it if the owner,
     * finding the executor stopping, leaves it (a drain that looked only past the front taken lost it: the executor
     * terminated with the task neither run nor returned, ShutdownNowDrainTest, once in some thousands of rounds).
     */
    @Test
    void aTaskTheOwnerReachedAndHasNotClaimedStaysVisible() {
        List<RunnableTask> tasks = tasks(6);
        Hand owner = filled(tasks);
        assertSame(tasks.get(0), owner.next()); // dealt to the owner, still pending
        Hand taker = new Hand();
        assertTrue(owner.giveFrontHalf(taker));
        assertEquals(tasks.subList(1, 3), pending(taker));
        assertEquals(List.of(tasks.get(0), tasks.get(3), tasks.get(4), tasks.get(5)), pending(owner));
        assertSame(tasks.get(0), owner.firstPending());
        owner.leaveRest();
        List<ScheduledTask<?>> leftOver = new ArrayList<>();
        owner.empty(leftOver::add);
        assertEquals(List.of(tasks.get(0), tasks.get(3), tasks.get(4), tasks.get(5)), leftOver);
    }

    /** A worker that leaves the rest to others takes the first task the owner has not reached, and no more. */
    @Test
    void giveFirstMovesOneTask() {
        List<RunnableTask> tasks = tasks(5);
        Hand owner = filled(tasks);
        owner.next();
        tasks.get(0).cancel(false); // as if started
        Hand taker = new Hand();
        assertTrue(owner.giveFirst(taker));
        assertEquals(List.of(tasks.get(1)), pending(taker));
        assertEquals(tasks.subList(2, 5), pending(owner));
        assertTrue(owner.hasMore());
        assertSame(tasks.get(1), taker.next());
        assertFalse(taker.hasMore());
        assertSame(tasks.get(2), owner.next());
    }

    /** The last task the owner has not reached goes whole; once nothing is left, nothing is given. */
    @Test
    void theLastTaskGoesWholeAndThenNothing() {
        List<RunnableTask> tasks = tasks(3);
        Hand owner = filled(tasks);
        owner.next();
        owner.next();
        tasks.get(0).cancel(false); // as if started
        tasks.get(1).cancel(false);
        Hand taker = new Hand();
        assertTrue(owner.giveFrontHalf(taker));
        assertSame(tasks.get(2), taker.next());
        assertNull(owner.next());
        assertFalse(owner.giveFrontHalf(new Hand()), "nothing left to give");
        assertEquals(List.of(), pending(owner));
    }

    /** What is no longer pending in the front (cancelled, claimed) is left out of the move. */
    @Test
    void whatIsNoLongerPendingStaysBehind() {
        List<RunnableTask> tasks = tasks(4);
        Hand owner = filled(tasks);
        tasks.get(1).cancel(false);
        Hand taker = new Hand();
        assertTrue(owner.giveFrontHalf(taker)); // the front half: the first and second
        assertEquals(List.of(tasks.get(0)), pending(taker));
        assertSame(tasks.get(0), taker.next());
        assertNull(taker.next());

        assertSame(tasks.get(2), owner.next());
        assertSame(tasks.get(3), owner.next());
        assertNull(owner.next());
        assertFalse(owner.giveFrontHalf(new Hand()));
    }

    /**
     * Emptied, the owner's hand hands on only what is still pending in its part (what the owner left as the executor
     * began to stop), never the front another worker took, and can be filled again.
     */
    @Test
    void emptyingHandsOnOnlyTheOwnersPendingPart() {
        List<RunnableTask> tasks = tasks(6);
        Hand owner = filled(tasks);
        owner.next();
        tasks.get(0).cancel(false);
        Hand taker = new Hand();
        owner.giveFrontHalf(taker); // the second and third of the five not reached
        owner.leaveRest();
        assertNull(owner.next());

        List<ScheduledTask<?>> leftOver = new ArrayList<>();
        owner.empty(leftOver::add);
        assertEquals(tasks.subList(3, 6), leftOver);
        assertFalse(owner.isFilled());
        assertEquals(List.of(), pending(owner));

        List<RunnableTask> more = tasks(2);
        more.forEach(owner::add);
        assertSame(more.get(0), owner.next());
        assertSame(more.get(1), owner.next());
        assertNull(owner.next());
    }
}
