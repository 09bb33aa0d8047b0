package io.timingwheel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The order gate's state machine, one step at a time on one thread (its races are jcstress's: TurnVersusPublishStress,
 * WakeUpVersusSubmitStress, WorkerAwaitsGateStress): what each step of the publishers, the master and the workers
 * does to the gate, the announced time, the floor and the master's sleep.
 */
class OrderGateTest {
    private static final long NONE = TimingWheel.NONE;

    /** Before anything reached the master, the gate lets every task pass; the first publication stops it there. */
    @Test
    void theFirstPublicationShutsTheGateAtItsDeadline() {
        OrderGate gate = new OrderGate();
        assertTrue(gate.isOpenFor(Long.MAX_VALUE - 1));
        assertFalse(gate.published(100), "nobody sleeps: nobody to wake");
        assertTrue(gate.isOpenFor(99));
        assertFalse(gate.isOpenFor(100), "a task due with the published one waits for it (ties keep their order)");
        assertEquals(100, gate.state().floor);
        assertEquals(1, gate.state().lowerings);
    }

    /** A task published due at or after the announced time changes nothing; one due before it lowers the gate. */
    @Test
    void onlyATaskDueBeforeTheAnnouncedTimeLowersTheGate() {
        OrderGate gate = new OrderGate();
        gate.announce(1_000);
        gate.open(NONE, 1_000, gate.state().lowerings);
        assertEquals(1_000, gate.state().open);
        OrderGate.Horizon before = gate.state();
        assertFalse(gate.published(1_000));
        assertFalse(gate.published(5_000));
        assertEquals(before, gate.state(), "nothing changed, not even the state object");
        gate.published(700);
        assertEquals(700, gate.state().open);
        assertEquals(700, gate.state().floor);
        assertEquals(1_000, gate.state().announced, "only the master moves the announced time");
    }

    /** The gate never stands beyond the announced time: announcing lowers it there. */
    @Test
    void announcingLowersTheGateToTheAnnouncedTime() {
        OrderGate gate = new OrderGate();
        gate.announce(10_000);
        gate.open(NONE, 10_000, gate.state().lowerings);
        assertEquals(10_000, gate.state().open);
        OrderGate.Horizon announced = gate.announce(2_000);
        assertEquals(2_000, announced.announced);
        assertEquals(2_000, gate.state().open);
    }

    /**
     * The floor goes only with a drained mark taken after the last lowering: the lowerings counted at the announcement
     * tell which ones the drain covered.
     */
    @Test
    void theFloorIsLiftedOnlyOnceADrainCoveredEveryLowering() {
        OrderGate gate = new OrderGate();
        OrderGate.Horizon first = gate.announce(1_000);
        gate.published(300); // after the announcement: its task may have been claimed after the mark
        gate.open(NONE, first.announced, first.lowerings);
        assertEquals(300, gate.state().open, "the lowering came after the announcement: the floor stays");
        OrderGate.Horizon second = gate.announce(2_000);
        gate.open(NONE, second.announced, second.lowerings);
        assertEquals(2_000, gate.state().open, "the next drained mark covered it: the floor is lifted");
        assertEquals(NONE, gate.state().floor);
    }

    /** The gate opens no further than the first deadline the master holds, nor than the bound of what it drained. */
    @Test
    void theGateOpensToTheEarliestOfHeldBoundAndFloor() {
        OrderGate gate = new OrderGate();
        OrderGate.Horizon announced = gate.announce(5_000);
        gate.open(1_200, announced.announced, announced.lowerings);
        assertEquals(1_200, gate.state().open);
        gate.open(NONE, 4_000, announced.lowerings);
        assertEquals(4_000, gate.state().open);
        gate.open(NONE, NONE, -1); // a stale count keeps the floor, which is none
        assertEquals(NONE, gate.state().open);
        gate.published(6_000); // due after the announcement: nothing
        gate.open(900, NONE, -1); // a task a command took in holds the gate back
        assertEquals(900, gate.state().open);
    }

    /** The master's sleep: confirmed when nothing came; the first lowering after it wakes the master, once. */
    @Test
    void aConfirmedSleepIsEndedByTheFirstLoweringOnly() {
        OrderGate gate = new OrderGate();
        OrderGate.Horizon prepared = gate.prepareSleep(10_000, false);
        OrderGate.Horizon asleep = gate.confirmSleep(prepared);
        assertNotNull(asleep);
        assertTrue(asleep.asleep);
        assertEquals(10_000, gate.state().open, "asleep, the gate is open up to the first deadline the master holds");
        assertFalse(gate.published(10_000), "due with the master's own: the master wakes for it anyway");
        assertTrue(gate.published(4_000), "the first to lower a sleeping state unparks the master");
        assertFalse(gate.published(3_000), "the master is no longer asleep: no second unpark");
        assertEquals(3_000, gate.state().open);
    }

    /** A sleep is not confirmed if a publisher lowered the gate, or someone woke the master, since it was prepared. */
    @Test
    void aSleepIsNotConfirmedAfterAChange() {
        OrderGate gate = new OrderGate();
        OrderGate.Horizon prepared = gate.prepareSleep(10_000, false);
        gate.published(4_000);
        assertNull(gate.confirmSleep(prepared));

        prepared = gate.prepareSleep(10_000, false);
        assertFalse(gate.wakeMaster(), "not asleep yet: nothing to unpark");
        assertNull(gate.confirmSleep(prepared), "the wake-up replaced the prepared state");

        prepared = gate.prepareSleep(10_000, false);
        assertNotNull(gate.confirmSleep(prepared));
        assertTrue(gate.wakeMaster(), "asleep: the caller unparks the master");
        assertFalse(gate.state().asleep);
    }

    /**
     * A deep sleep: work that can wait (a task due after the announced time, a cancellation to unlink) wakes the
     * master once, and keeps it from falling asleep if it comes between the preparation and the confirmation.
     */
    @Test
    void aDeepSleepIsEndedOnceByWorkThatCanWait() {
        OrderGate gate = new OrderGate();
        OrderGate.Horizon asleep = gate.confirmSleep(gate.prepareSleep(10_000, true));
        assertNotNull(asleep);
        assertTrue(asleep.asleep && asleep.deep);
        assertTrue(gate.published(20_000), "the first publisher of work that can wait unparks the master");
        assertFalse(gate.published(30_000), "awake now: no second unpark");
        assertFalse(gate.wakeFromDeepSleep());
        assertEquals(10_000, gate.state().open, "work that can wait lowers nothing");

        assertNotNull(gate.confirmSleep(gate.prepareSleep(10_000, true)));
        assertTrue(gate.wakeFromDeepSleep(), "a cancellation to unlink wakes a deep sleep too");
        assertFalse(gate.wakeFromDeepSleep());

        OrderGate.Horizon prepared = gate.prepareSleep(10_000, true);
        assertFalse(gate.published(20_000), "not asleep yet: nothing to unpark, but the state is replaced");
        assertNull(gate.confirmSleep(prepared), "so the master does not fall asleep with that task in its inbox");

        assertNotNull(gate.confirmSleep(gate.prepareSleep(10_000, false)));
        assertFalse(gate.published(20_000), "a light sleep ends by itself soon: work that can wait does not wake it");
        assertFalse(gate.wakeFromDeepSleep());
    }

    /** The workers' count for the master's signal. */
    @Test
    void workersCountThemselvesWhileTheyWait() {
        OrderGate gate = new OrderGate();
        gate.published(50);
        assertFalse(gate.hasWaiters());
        assertFalse(gate.enterWait(60), "shut for 60");
        assertTrue(gate.enterWait(40), "open for 40: the worker takes its task, but counted itself first");
        assertTrue(gate.hasWaiters());
        gate.leaveWait();
        gate.leaveWait();
        assertFalse(gate.hasWaiters());
    }
}
