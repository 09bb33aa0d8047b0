package io.timingwheel;

import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The executor's own behaviour that the conformance suite (tck-tests) does not cover: builder validation, losing
 * nothing at scale, worker replacement, master survival, allocation per schedule.
 */
class TimingWheelExecutorTest {
    private static final long TIMEOUT_SECONDS = 30;

    /** Polls {@code condition} until it holds, failing after {@value #TIMEOUT_SECONDS} s (also for other tests here). */
    static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + SECONDS.toNanos(TIMEOUT_SECONDS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(5);
        }
    }

    private static void shutdownAndAwait(TimingWheelExecutor executor) throws InterruptedException {
        executor.shutdown();
        assertTrue(executor.awaitTermination(TIMEOUT_SECONDS, SECONDS), "terminates");
    }

    /** Every invalid builder value is refused at once with the JDK's kind of exception. */
    @Test
    void builderValidatesEveryValue() {
        TimingWheelExecutor.Builder b = TimingWheelExecutor.builder();
        assertThrows(IllegalArgumentException.class, () -> b.tick(0, MILLISECONDS));
        assertThrows(IllegalArgumentException.class, () -> b.tick(-1, MILLISECONDS));
        assertThrows(IllegalArgumentException.class, () -> b.tick(999, NANOSECONDS));
        assertThrows(IllegalArgumentException.class, () -> b.tick(2, HOURS));
        assertThrows(NullPointerException.class, () -> b.tick(1, null));
        for (int bad : new int[] {0, 8, 15, 17, 100, 131_072, -16}) {
            assertThrows(IllegalArgumentException.class, () -> b.wheelSize(bad), "wheelSize " + bad);
        }
        assertThrows(IllegalArgumentException.class, () -> b.workerThreads(-1));
        assertThrows(IllegalArgumentException.class, () -> b.maxPendingTasks(0));
        assertThrows(IllegalArgumentException.class, () -> b.maxPendingTasks(-5));
        assertThrows(NullPointerException.class, () -> b.threadFactory(null));
        assertThrows(NullPointerException.class, () -> b.masterThreadFactory(null));
        assertThrows(NullPointerException.class, () -> b.rejectedExecutionHandler(null));
        assertThrows(NullPointerException.class, () -> b.workerExecutor(null));
        assertThrows(IllegalArgumentException.class, () -> new TimingWheelExecutor(-1));
        // the builder is still usable after refusing bad values
        TimingWheelExecutor ok = b.tick(1, TimeUnit.MICROSECONDS).wheelSize(16).workerThreads(0).build();
        ok.shutdownNow();
    }

    /**
     * Sparse timers, a couple per millisecond beyond the straight route's reach, reach the worker in the master's small
     * hand-overs, which the worker moves in by the deadlines the master published beside the tasks: each runs exactly
     * once, never before its deadline. The JDK's executor holds the same to the same check.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ScheduledThreadPoolExecutor", "TimingWheelExecutor"})
    void timersHandedOverInSmallBatchesNeverRunEarly(String kind) throws Exception {
        int count = 3_000;
        AtomicInteger early = new AtomicInteger();
        AtomicIntegerArray runs = new AtomicIntegerArray(count);
        CountDownLatch done = new CountDownLatch(count);
        ScheduledThreadPoolExecutor executor = kind.equals("TimingWheelExecutor")
                ? new TimingWheelExecutor(1) : new ScheduledThreadPoolExecutor(1);
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int i = 0; i < count; i++) {
            int index = i;
            long delay = MILLISECONDS.toNanos(60) + random.nextLong(MILLISECONDS.toNanos(1_500));
            long due = System.nanoTime() + delay;
            executor.schedule(() -> {
                if (System.nanoTime() < due) {
                    early.incrementAndGet();
                }
                runs.incrementAndGet(index);
                done.countDown();
            }, delay, NANOSECONDS);
        }
        assertTrue(done.await(TIMEOUT_SECONDS, SECONDS), "all ran; missing " + done.getCount());
        executor.shutdown();
        assertTrue(executor.awaitTermination(TIMEOUT_SECONDS, SECONDS), "terminates");
        assertEquals(0, early.get(), "tasks that ran before their deadline");
        for (int i = 0; i < count; i++) {
            assertEquals(1, runs.get(i), "runs of task " + i);
        }
    }

    /** One million one-shot tasks with random delays up to 2 s all run, each exactly once, never early. */
    @Test
    void millionTasksRunExactlyOnce() throws Exception {
        int count = 1_000_000;
        AtomicIntegerArray runs = new AtomicIntegerArray(count);
        AtomicInteger early = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(count);
        TimingWheelExecutor executor = new TimingWheelExecutor(2);
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int i = 0; i < count; i++) {
            int id = i;
            long delay = random.nextLong(2_000_000_000L);
            long due = System.nanoTime() + delay;
            executor.schedule(() -> {
                if (System.nanoTime() < due) {
                    early.incrementAndGet();
                }
                runs.incrementAndGet(id);
                done.countDown();
            }, delay, NANOSECONDS);
        }
        assertTrue(done.await(TIMEOUT_SECONDS, SECONDS), "all ran; missing " + done.getCount());
        shutdownAndAwait(executor);
        for (int i = 0; i < count; i++) {
            assertEquals(1, runs.get(i), "runs of task " + i);
        }
        assertEquals(0, early.get(), "tasks that ran before their deadline");
        assertEquals(count, executor.getCompletedTaskCount());
    }

    /** Many producers scheduling and cancelling at once: every accepted task either ran once or was cancelled. */
    @Test
    void concurrentScheduleAndCancelLoseNothing() throws Exception {
        int producers = 4;
        int perProducer = 50_000;
        TimingWheelExecutor executor = new TimingWheelExecutor(2);
        List<List<ScheduledFuture<?>>> futures = new ArrayList<>();
        AtomicIntegerArray runs = new AtomicIntegerArray(producers * perProducer);
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            List<ScheduledFuture<?>> mine = new ArrayList<>(perProducer);
            futures.add(mine);
            int base = p * perProducer;
            threads.add(new Thread(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                for (int i = 0; i < perProducer; i++) {
                    int id = base + i;
                    ScheduledFuture<?> f = executor.schedule(() -> runs.incrementAndGet(id),
                            random.nextLong(20_000_000L), NANOSECONDS);
                    mine.add(f);
                    if (random.nextBoolean()) {
                        mine.get(random.nextInt(mine.size())).cancel(random.nextBoolean());
                    }
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
        shutdownAndAwait(executor);
        int ran = 0;
        int cancelled = 0;
        for (int p = 0; p < producers; p++) {
            List<ScheduledFuture<?>> mine = futures.get(p);
            for (int i = 0; i < perProducer; i++) {
                ScheduledFuture<?> f = mine.get(i);
                int r = runs.get(p * perProducer + i);
                assertTrue(f.isDone(), "every accepted task ended");
                assertTrue(r <= 1, "ran at most once");
                if (f.isCancelled()) {
                    cancelled++;
                } else {
                    assertEquals(1, r, "a task that was not cancelled ran");
                    ran++;
                }
            }
        }
        assertEquals(producers * perProducer, ran + cancelled);
        assertTrue(cancelled > 0 && ran > 0);
    }

    /** shutdownNow returns exactly the accepted tasks that never started, as the very futures schedule returned. */
    @Test
    void shutdownNowReturnsExactlyTheUnstarted() throws Exception {
        TimingWheelExecutor executor = new TimingWheelExecutor(1);
        CountDownLatch blockerStarted = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        executor.execute(() -> {
            blockerStarted.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertTrue(blockerStarted.await(TIMEOUT_SECONDS, SECONDS));
        Set<Object> started = Collections.newSetFromMap(new IdentityHashMap<>());
        List<Future<?>> accepted = new ArrayList<>();
        for (int i = 0; i < 3_000; i++) {
            AtomicReference<Future<?>> self = new AtomicReference<>();
            long delay = i % 3 == 0 ? 0 : i % 3 == 1 ? 1_000 : HOURS.toNanos(1);
            Future<?> f = executor.schedule(() -> {
                synchronized (started) {
                    started.add(self.get());
                }
            }, delay, NANOSECONDS);
            self.set(f);
            accepted.add(f);
        }
        List<Runnable> unstarted = executor.shutdownNow();
        release.countDown();
        assertTrue(executor.awaitTermination(TIMEOUT_SECONDS, SECONDS));
        Set<Object> returned = Collections.newSetFromMap(new IdentityHashMap<>());
        returned.addAll(unstarted);
        assertEquals(unstarted.size(), returned.size(), "no duplicates");
        synchronized (started) {
            for (Future<?> f : accepted) {
                boolean ran = started.contains(f);
                assertTrue(ran != returned.contains(f), "started xor returned: " + f);
                if (returned.contains(f)) {
                    assertFalse(f.isDone(), "returned tasks are left as they were, like the JDK's");
                }
            }
        }
        assertTrue(returned.size() >= 2_000, "the 1-hour tasks at least: " + returned.size());
    }

    /** A task that throws an Error fails its own future only; the executor keeps serving. */
    @Test
    void taskErrorDoesNotHurtTheExecutor() throws Exception {
        TimingWheelExecutor executor = new TimingWheelExecutor(1);
        ScheduledFuture<?> failing = executor.schedule(() -> {
            throw new StackOverflowError("boom");
        }, 1, MILLISECONDS);
        ExecutionException e = assertThrows(ExecutionException.class, () -> failing.get(TIMEOUT_SECONDS, SECONDS));
        assertInstanceOf(StackOverflowError.class, e.getCause());
        assertEquals(7, executor.schedule(() -> 7, 1, MILLISECONDS).get(TIMEOUT_SECONDS, SECONDS));
        assertEquals(1, executor.getPoolSize(), "the worker survived");
        shutdownAndAwait(executor);
    }

    /**
     * A worker thread that dies (here of a beforeExecute hook that throws) is replaced: the task it was about to run
     * fails with the hook's exception instead of being lost, and the tasks behind it still run.
     */
    @Test
    void deadWorkerIsReplaced() throws Exception {
        List<Thread> created = new CopyOnWriteArrayList<>();
        List<Throwable> uncaught = new CopyOnWriteArrayList<>();
        AtomicInteger hookCalls = new AtomicInteger();
        TimingWheelExecutor executor = new TimingWheelExecutor(1, r -> {
            Thread t = new Thread(r);
            t.setUncaughtExceptionHandler((thread, failure) -> uncaught.add(failure));
            created.add(t);
            return t;
        }) {
            @Override
            protected void beforeExecute(Thread thread, Runnable task) {
                if (hookCalls.incrementAndGet() == 2) {
                    throw new PoisonError();
                }
            }
        };
        executor.submit(() -> { }).get(TIMEOUT_SECONDS, SECONDS);
        Future<?> poisoned = executor.submit(() -> { });
        ExecutionException e = assertThrows(ExecutionException.class, () -> poisoned.get(TIMEOUT_SECONDS, SECONDS));
        assertInstanceOf(PoisonError.class, e.getCause(), "the task ends with the hook's exception");
        assertEquals("after", executor.submit(() -> "after").get(TIMEOUT_SECONDS, SECONDS));
        await("replacement worker", () -> created.size() == 2);
        await("the hook's exception killed its worker", () -> uncaught.size() == 1);
        assertInstanceOf(PoisonError.class, uncaught.get(0));
        assertEquals(1, executor.getPoolSize());
        shutdownAndAwait(executor);
    }

    /** Thrown by a hook, to make a worker die of something outside any task. */
    static final class PoisonError extends Error {
        private static final long serialVersionUID = 1L;

        PoisonError() {
            super("poison");
        }
    }

    /** A failure inside the master loop is reported and the master goes on serving. */
    @Test
    void masterSurvivesInternalFailure() throws Exception {
        List<Throwable> reported = new CopyOnWriteArrayList<>();
        TimingWheelExecutor executor = TimingWheelExecutor.builder().masterThreadFactory(r -> {
            Thread t = new Thread(r, "test-master");
            t.setDaemon(true);
            t.setUncaughtExceptionHandler((thread, failure) -> reported.add(failure));
            return t;
        }).build();
        // A delay beyond the straight route's reach (50 ms) goes through the master, which starts it.
        assertEquals(1, executor.schedule(() -> 1, 100, MILLISECONDS).get(TIMEOUT_SECONDS, SECONDS));
        MasterLoop master = masterOf(executor);
        assertFalse(master.runCommand(m -> {
            throw new IllegalStateException("injected");
        }), "a command that threw did not run to its end");
        await("the failure was reported", () -> reported.size() == 1);
        assertEquals("injected", reported.get(0).getCause().getMessage());
        assertEquals(2, executor.schedule(() -> 2, 100, MILLISECONDS).get(TIMEOUT_SECONDS, SECONDS));
        shutdownAndAwait(executor);
    }

    private static MasterLoop masterOf(TimingWheelExecutor executor) throws ReflectiveOperationException {
        java.lang.reflect.Field coreField = TimingWheelExecutor.class.getDeclaredField("core");
        coreField.setAccessible(true);
        Object core = coreField.get(executor);
        java.lang.reflect.Field masterField = ExecutorCore.class.getDeclaredField("master");
        masterField.setAccessible(true);
        return (MasterLoop) masterField.get(core);
    }

    /** A master thread factory that fails is replaced by the default one: delayed tasks still run. */
    @Test
    void failingMasterFactoryFallsBack() throws Exception {
        TimingWheelExecutor executor = TimingWheelExecutor.builder().masterThreadFactory(r -> {
            throw new OutOfMemoryError("unable to create native thread");
        }).build();
        Thread me = Thread.currentThread();
        Thread.UncaughtExceptionHandler previous = me.getUncaughtExceptionHandler();
        List<Throwable> reported = new CopyOnWriteArrayList<>();
        me.setUncaughtExceptionHandler((t, e) -> reported.add(e));
        try {
            // 100 ms: a delay the master hands over, so the master's thread is asked for
            assertEquals(3, executor.schedule(() -> 3, 100, MILLISECONDS).get(TIMEOUT_SECONDS, SECONDS));
        } finally {
            me.setUncaughtExceptionHandler(previous);
        }
        assertEquals(1, reported.size(), "the factory's failure is reported, not swallowed");
        assertInstanceOf(OutOfMemoryError.class, reported.get(0).getCause());
        shutdownAndAwait(executor);
    }

    /** Beyond the pending limit tasks go to the handler; a cancel frees a place at once; the executor keeps serving. */
    @Test
    void pendingLimitRejectsThroughTheHandler() throws Exception {
        TimingWheelExecutor executor = TimingWheelExecutor.builder().maxPendingTasks(10).build();
        List<ScheduledFuture<?>> pending = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            pending.add(executor.schedule(() -> { }, 1, HOURS));
        }
        assertThrows(RejectedExecutionException.class, () -> executor.schedule(() -> { }, 1, HOURS));
        assertThrows(RejectedExecutionException.class, () -> executor.execute(() -> { }));
        assertTrue(pending.get(0).cancel(false));
        executor.schedule(() -> { }, 1, HOURS); // a cancel frees its place at once
        assertThrows(RejectedExecutionException.class, () -> executor.schedule(() -> { }, 1, HOURS));
        assertTrue(executor.remove((Runnable) pending.get(1)));
        executor.execute(() -> { }); // and so does remove
        executor.shutdownNow();
        assertTrue(executor.awaitTermination(TIMEOUT_SECONDS, SECONDS));
    }

    /** The handler gets the executor itself; CallerRunsPolicy runs a rejected delayed task in the caller, on time. */
    @Test
    void jdkPoliciesSeeTheExecutorItself() throws Exception {
        AtomicReference<ThreadPoolExecutor> seen = new AtomicReference<>();
        TimingWheelExecutor executor = TimingWheelExecutor.builder().maxPendingTasks(1)
                .rejectedExecutionHandler((r, e) -> {
                    seen.set(e);
                    new ThreadPoolExecutor.CallerRunsPolicy().rejectedExecution(r, e);
                }).build();
        executor.schedule(() -> { }, 1, HOURS);
        long start = System.nanoTime();
        ScheduledFuture<String> ranHere = executor.schedule(() -> Thread.currentThread().getName(), 50, MILLISECONDS);
        assertTrue(ranHere.isDone(), "ran in the caller");
        assertTrue(System.nanoTime() - start >= MILLISECONDS.toNanos(50), "but not before its delay");
        assertEquals(Thread.currentThread().getName(), ranHere.get());
        assertSame(executor, seen.get());
        executor.shutdownNow();
    }

    /** Scheduling a one-shot task allocates one object, the task itself, on the caller's thread. */
    @Test
    void schedulingAllocatesOnlyTheTask() throws Exception {
        java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        if (!(bean instanceof com.sun.management.ThreadMXBean)) {
            return; // not HotSpot: nothing to measure with
        }
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) bean;
        TimingWheelExecutor executor = new TimingWheelExecutor(1);
        Runnable shared = () -> { };
        List<ScheduledFuture<?>> keep = new ArrayList<>(200_000);
        for (int i = 0; i < 100_000; i++) { // warm up, so that the measured loop runs compiled code
            keep.add(executor.schedule(shared, 1, HOURS));
        }
        keep.clear();
        keep = new ArrayList<>(200_000);
        long id = Thread.currentThread().getId();
        long before = threads.getThreadAllocatedBytes(id);
        for (int i = 0; i < 100_000; i++) {
            keep.add(executor.schedule(shared, 1, HOURS));
        }
        long perTask = (threads.getThreadAllocatedBytes(id) - before) / 100_000;
        assertTrue(perTask <= 56, "bytes allocated per schedule: " + perTask);
        executor.shutdownNow();
        assertTrue(executor.awaitTermination(TIMEOUT_SECONDS, SECONDS));
    }

    /** Zero workers are accepted as the JDK accepts them: one worker still runs the tasks. */
    @Test
    void zeroAndHundredWorkers() throws Exception {
        for (int workers : new int[] {0, 100}) {
            TimingWheelExecutor executor = new TimingWheelExecutor(workers);
            assertEquals(workers, executor.getCorePoolSize());
            assertEquals("x", executor.schedule(() -> "x", 1, MILLISECONDS).get(TIMEOUT_SECONDS, SECONDS));
            assertEquals("y", executor.submit(() -> "y").get(TIMEOUT_SECONDS, SECONDS));
            shutdownAndAwait(executor);
        }
    }

    /** A periodic task that throws stops, and get() reports the cause. */
    @Test
    void periodicFailureEndsTheSeries() throws Exception {
        TimingWheelExecutor executor = new TimingWheelExecutor(1);
        AtomicInteger runs = new AtomicInteger();
        ScheduledFuture<?> f = executor.scheduleAtFixedRate(() -> {
            if (runs.incrementAndGet() == 3) {
                throw new IllegalStateException("third");
            }
        }, 1, 1, MILLISECONDS);
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(TIMEOUT_SECONDS, SECONDS));
        assertEquals("third", e.getCause().getMessage());
        assertEquals(3, runs.get());
        shutdownAndAwait(executor);
        assertEquals(3, runs.get());
    }
}
