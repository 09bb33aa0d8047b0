package io.timingwheel;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * When a publisher pauses for the workers ({@link StallWatch}, {@link CoreSharing#publisherGivesWay}): only when no run
 * started between two looks a moment apart and a worker is in the pool's own code, never for a run that lasts (the
 * user's code: the JDK's publishers never wait for one either), never when the previous look is old, never when the
 * publisher is a worker itself. No STPE counterpart: code written for the JDK cannot see a publisher pause, only that
 * {@code schedule} returns a little later while the workers are held, as the JDK's does while its worker holds the
 * queue's lock.
 */
class StallWatchTest {
    private static final long LOOK = TimeUnit.MICROSECONDS.toNanos(StallWatch.LOOK_EVERY_MICROS);
    private static final RunnableTask SOME_TASK = new RunnableTask(new PlainTaskHost(), () -> { }, 0);

    @Test
    void heldOnlyWhenNoRunStartedSinceTheLastLookAndAWorkerIsInThePoolsCode() {
        StallWatch watch = new StallWatch();
        StallWatch.Progress worker = new StallWatch.Progress(new Thread(() -> { }));
        watch.add(worker);
        long t = 1_000_000_000L;
        assertTrue(watch.lookDue(t));
        assertFalse(watch.held(t), "the first look has nothing to compare with");
        assertFalse(watch.lookDue(t + LOOK - 1), "looks are at least the interval apart");
        assertTrue(watch.lookDue(t + LOOK));
        assertTrue(watch.held(t + LOOK), "no run started, and the worker is not in one: held");

        worker.started++;
        assertFalse(watch.held(t + 2 * LOOK), "a run started since the last look: moving");
        assertTrue(watch.held(t + 3 * LOOK));

        worker.running = SOME_TASK;
        assertFalse(watch.held(t + 4 * LOOK), "in a run that lasts: the user's code, no reason to pause");
        assertFalse(watch.held(t + 5 * LOOK));
        worker.running = null;
        assertTrue(watch.held(t + 6 * LOOK));

        assertFalse(watch.held(t + 6 * LOOK + TimeUnit.MILLISECONDS.toNanos(3)), "the last look is too old to tell");
        assertTrue(watch.held(t + 7 * LOOK + TimeUnit.MILLISECONDS.toNanos(3)));
    }

    @Test
    void aPoolIsHeldOnlyWhenNoneOfItsWorkersStartsARun() {
        StallWatch watch = new StallWatch();
        StallWatch.Progress running = new StallWatch.Progress(new Thread(() -> { }));
        StallWatch.Progress held = new StallWatch.Progress(new Thread(() -> { }));
        running.running = SOME_TASK;
        watch.add(running);
        watch.add(held);
        long t = 1_000_000_000L;
        watch.held(t);
        assertTrue(watch.held(t + LOOK), "one worker in a run, the other held in the pool's code");
        running.started++;
        assertFalse(watch.held(t + 2 * LOOK), "the pool moves: a run started");

        watch.remove(held);
        assertFalse(watch.held(t + 3 * LOOK), "the worker left: the one in a run is no reason");
        assertFalse(watch.held(t + 4 * LOOK));
    }

    @Test
    void aWorkerThatPublishesNeverPausesForTheOthers() throws Exception {
        StallWatch watch = new StallWatch();
        StallWatch.Progress self = new StallWatch.Progress(Thread.currentThread());
        watch.add(new StallWatch.Progress(new Thread(() -> { })));
        watch.add(self);
        long t = 1_000_000_000L;
        watch.held(t);
        assertFalse(watch.held(t + LOOK), "its own progress is what the look is about");
    }

    @Test
    void aPublisherNeverPausesWhileTheWorkerRunsALongTask() throws Exception {
        PlainDispatcherHost host = new PlainDispatcherHost();
        WorkerPool pool = newPool(host, "stall-watch-long-task");
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        assertTrue(pool.dispatch(new RunnableTask(new PlainTaskHost(), () -> {
            started.countDown();
            awaitQuietly(release);
        }, host.now())));
        pool.prestart();
        assertTrue(started.await(10, TimeUnit.SECONDS));
        try {
            long t = host.now();
            for (int look = 0; look < 8; look++) {
                assertFalse(pool.coreSharing.publisherGivesWay(t + look * LOOK), "look " + look + ": the user's run lasts");
            }
        } finally {
            release.countDown();
        }
    }

    @Test
    void aPublisherPausesWhileTheWorkerIsHeldInThePoolsCode() throws Exception {
        CountDownLatch inPoolCode = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        RunnableTask task = new RunnableTask(new PlainTaskHost(), () -> { }, 0);
        PlainDispatcherHost host = new PlainDispatcherHost() {
            @Override
            public boolean mayRun(ScheduledTask<?> asked) {
                if (asked == task) { // the worker asks as it takes the task, in the pool's code, under its lock
                    inPoolCode.countDown();
                    awaitQuietly(release);
                }
                return true;
            }
        };
        WorkerPool pool = newPool(host, "stall-watch-held");
        assertTrue(pool.dispatch(new RunnableTask(new PlainTaskHost(), () -> { }, host.now())));
        pool.prestart();
        TimingWheelExecutorTest.await("the first task ran", () -> pool.figures().completed() == 1);
        assertTrue(pool.dispatch(task));
        assertTrue(inPoolCode.await(10, TimeUnit.SECONDS));
        try {
            long t = host.now();
            assertFalse(pool.coreSharing.publisherGivesWay(t), "the first look has nothing to compare with");
            assertTrue(pool.coreSharing.publisherGivesWay(t + LOOK), "no run started, the worker is in the pool's code: it paused");
            assertFalse(pool.coreSharing.publisherGivesWay(t + LOOK + 1), "not again before the interval");
        } finally {
            release.countDown();
        }
        TimingWheelExecutorTest.await("the held task ran", () -> pool.figures().completed() == 2);
    }

    private static WorkerPool newPool(PlainDispatcherHost host, String name) {
        ThreadFactory daemons = r -> {
            Thread t = new Thread(r, name + "-worker");
            t.setDaemon(true);
            return t;
        };
        TaskRunner runner = new TaskRunner(new CountingHooks(), new Decorations(),
                new Instrumentation("test", host.clock, -1));
        return new WorkerPool("test", host, runner, new OrderGate(), new PoolSettings(1, daemons));
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
