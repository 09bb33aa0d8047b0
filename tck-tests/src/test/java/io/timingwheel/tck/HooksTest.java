package io.timingwheel.tck;

import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.timingwheel.tck.ExecutorKind.Subject;
import io.timingwheel.tck.HookRecorder.Decorated;
import io.timingwheel.tck.HookRecorder.Decoration;
import io.timingwheel.tck.HookRecorder.Event;
import io.timingwheel.tck.HookRecorder.TerminatedCall;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The protected hooks of a subclass, as the JDK calls them: {@code decorateTask} for every accepted task, the
 * decorated task being what the caller gets, what runs (periodic runs too), what {@code getQueue()} and
 * {@code shutdownNow()} show; {@code beforeExecute} and {@code afterExecute} around every run on the running thread;
 * {@code terminated()} exactly once, at termination. Each executor is a subclass made for the test
 * ({@link ExecutorKind#createHooked}); the TimingWheelExecutor ones use the protected constructor.
 */
class HooksTest extends TckTestCase {

    /** A set of tasks compared by identity, as the executors hold them. */
    private static Set<Object> identitySet(List<?> elements) {
        Set<Object> set = Collections.newSetFromMap(new IdentityHashMap<>());
        set.addAll(elements);
        return set;
    }

    /**
     * decorateTask is called once for every task accepted by each of the eight ways to submit, through the overload
     * the JDK uses (the Runnable one for schedule(Runnable), the periodic ones, execute and submit(Runnable); the
     * Callable one for schedule(Callable), submit(Runnable, result) and submit(Callable)); the caller gets the
     * decorated task, and each one-shot decorated task runs exactly once.
     */
    @ForEachKind
    void decorateTaskIsCalledForEveryAcceptedTask(ExecutorKind kind) throws Exception {
        HookRecorder hooks = new HookRecorder();
        try (Subject s = kind.createHooked(2, hooks)) {
            ScheduledThreadPoolExecutor e = s.executor;
            CountDownLatch executed = new CountDownLatch(1);
            Runnable scheduled = NOOP;
            Callable<String> scheduledCallable = () -> "callable";
            Runnable rate = () -> { };
            Runnable delay = () -> { };
            Runnable execute = countDowner(executed);
            Runnable submitted = () -> { };
            Runnable submittedWithResult = () -> { };
            Callable<String> submittedCallable = () -> "submitted";

            ScheduledFuture<?> f1 = e.schedule(scheduled, 0, MILLISECONDS);
            ScheduledFuture<String> f2 = e.schedule(scheduledCallable, SHORT_DELAY_MS, MILLISECONDS);
            ScheduledFuture<?> f3 = e.scheduleAtFixedRate(rate, 1, 1, HOURS);
            ScheduledFuture<?> f4 = e.scheduleWithFixedDelay(delay, 1, 1, HOURS);
            e.execute(execute);
            Future<?> f6 = e.submit(submitted);
            Future<String> f7 = e.submit(submittedWithResult, "result");
            Future<String> f8 = e.submit(submittedCallable);

            List<Decoration> decorations = new ArrayList<>(hooks.decorations);
            assertEquals(8, decorations.size(), decorations::toString);
            Object[] expectedSubmitted = {scheduled, scheduledCallable, rate, delay, execute, submitted, null,
                submittedCallable};
            boolean[] expectedCallable = {false, true, false, false, false, false, true, true};
            for (int i = 0; i < 8; i++) {
                Decoration d = decorations.get(i);
                assertEquals(expectedCallable[i], d.callable(), "overload of decoration " + i);
                if (expectedSubmitted[i] != null) {
                    assertSame(expectedSubmitted[i], d.submitted(), "argument of decoration " + i);
                } else {
                    assertNotSame(submittedWithResult, d.submitted()); // the JDK's adapter, Executors.callable
                }
                assertNotSame(d.task(), d.decorated());
            }
            Future<?>[] returned = {f1, f2, f3, f4, null, f6, f7, f8};
            for (int i = 0; i < 8; i++) {
                if (returned[i] != null) {
                    assertSame(decorations.get(i).decorated(), returned[i], "what submission " + i + " returned");
                }
            }

            assertNull(get(f1));
            assertEquals("callable", get(f2));
            await(executed);
            assertNull(get(f6));
            assertEquals("result", get(f7));
            assertEquals("submitted", get(f8));
            for (int i : new int[] {0, 1, 4, 5, 6, 7}) {
                Decorated<?> d = decorations.get(i).decorated();
                eventually().until(() -> d.isDone());
                assertEquals(1, d.runs.get(), "runs of decorated task " + i);
                assertTrue(d.task.isDone());
            }
            assertEquals(0, decorations.get(2).decorated().runs.get());
            assertEquals(0, decorations.get(3).decorated().runs.get());
        }
    }

    /**
     * Periodic tasks, fixed rate and fixed delay: every run is a run of the decorated task (the executor re-arms the
     * decorated task, not its own), between beforeExecute and afterExecute of the decorated task.
     */
    @ForEachKind
    void periodicRunsRearmTheDecoratedTask(ExecutorKind kind) throws Exception {
        HookRecorder hooks = new HookRecorder();
        try (Subject s = kind.createHooked(2, hooks)) {
            Runnable rate = () -> { };
            Runnable delay = () -> { };
            ScheduledFuture<?> atRate = s.executor.scheduleAtFixedRate(rate, 0, 1, MILLISECONDS);
            ScheduledFuture<?> withDelay = s.executor.scheduleWithFixedDelay(delay, 0, 1, MILLISECONDS);
            for (ScheduledFuture<?> f : List.of(atRate, withDelay)) {
                Decorated<?> d = assertInstanceOf(Decorated.class, f);
                assertTrue(d.isPeriodic());
                eventually().until(() -> hooks.count("after", d) >= 3);
                assertTrue(d.runs.get() >= 3);
                assertTrue(d.cancel(false));
                assertTrue(d.task.isCancelled());
            }
            assertSame(atRate, hooks.decoratedOf(rate));
            assertSame(withDelay, hooks.decoratedOf(delay));
            for (Event event : hooks.events) {
                assertTrue(event.task() == atRate || event.task() == withDelay, "a hook saw " + event.task());
            }
        }
    }

    /**
     * A task cancelled as its run begins, after a worker took it (the active count, 0 before, shows it) and before
     * the task's own run: the hooks still see its decorated form, as for any other run. The cancel lands at a
     * different point of that start in each round; at one point the decoration was once forgotten before the hooks
     * looked it up.
     */
    @ForEachKind
    void aTaskCancelledAsItsRunBeginsShowsItsDecoratedFormToTheHooks(ExecutorKind kind) {
        HookRecorder hooks = new HookRecorder();
        try (Subject s = kind.createHooked(1, hooks)) {
            ScheduledThreadPoolExecutor e = s.executor;
            for (int round = 0; round < 300; round++) {
                eventually().until(() -> e.getActiveCount() == 0); // the last round's run has left
                Decorated<?> d = assertInstanceOf(Decorated.class, e.schedule(NOOP, 0, MILLISECONDS));
                long giveUpAt = System.nanoTime() + MILLISECONDS.toNanos(LONG_DELAY_MS);
                while (e.getActiveCount() == 0 && !d.isDone() && System.nanoTime() < giveUpAt) {
                    Thread.onSpinWait(); // the race itself: cancel the moment the worker has the task
                }
                d.cancel(false);
                long runs = round + 1;
                eventually().until(() -> hooks.events.stream().filter(ev -> ev.what().equals("after")).count()
                        == runs);
                for (Event event : hooks.events) {
                    assertInstanceOf(Decorated.class, event.task(),
                            "in round " + round + ", a hook saw " + event.task());
                }
                assertEquals(1, hooks.count("after", d));
            }
        }
    }

    /** Schedules one-shot (runnable and callable) and periodic tasks due in an hour or more. @return their futures */
    private static List<ScheduledFuture<?>> scheduleSixFarTasks(ScheduledThreadPoolExecutor e) {
        List<ScheduledFuture<?>> pending = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            pending.add(e.schedule(NOOP, 1 + i, HOURS));
        }
        pending.add(e.schedule(() -> "callable", 1, HOURS));
        pending.add(e.scheduleAtFixedRate(NOOP, 1, 1, HOURS));
        pending.add(e.scheduleWithFixedDelay(NOOP, 1, 1, HOURS));
        return pending;
    }

    /** getQueue() holds the decorated tasks, those of one-shot and of periodic tasks, and none of the executor's own. */
    @ForEachKind
    void queueHoldsTheDecoratedTasks(ExecutorKind kind) {
        HookRecorder hooks = new HookRecorder();
        try (Subject s = kind.createHooked(1, hooks)) {
            ScheduledThreadPoolExecutor e = s.executor;
            List<ScheduledFuture<?>> pending = scheduleSixFarTasks(e);
            List<Runnable> queued = new ArrayList<>(e.getQueue());
            assertEquals(identitySet(pending), identitySet(queued));
            assertEquals(pending.size(), queued.size());
            for (Decoration d : hooks.decorations) {
                assertTrue(e.getQueue().contains(d.decorated()));
                assertFalse(e.getQueue().contains(d.task()), "the executor's own task is in the queue");
            }
        }
    }

    /** shutdownNow() returns the decorated tasks that never started, uncancelled, and the executor terminates. */
    @ForEachKind
    void shutdownNowReturnsTheDecoratedTasks(ExecutorKind kind) throws Exception {
        HookRecorder hooks = new HookRecorder();
        try (Subject s = kind.createHooked(1, hooks)) {
            ScheduledThreadPoolExecutor e = s.executor;
            List<ScheduledFuture<?>> pending = scheduleSixFarTasks(e);
            List<Runnable> returned = e.shutdownNow();
            assertEquals(pending.size(), returned.size(), returned::toString);
            assertEquals(identitySet(pending), identitySet(returned));
            for (Runnable r : returned) {
                Decorated<?> d = assertInstanceOf(Decorated.class, r);
                assertFalse(d.isDone());
                assertEquals(0, d.runs.get());
            }
            assertTrue(e.awaitTermination(LONG_DELAY_MS, MILLISECONDS));
            for (ScheduledFuture<?> f : pending) {
                f.cancel(false);
            }
        }
    }

    /**
     * beforeExecute is called on the thread that then runs the task (and given that thread), with the decorated task,
     * before its run; afterExecute follows on the same thread with the decorated task and null, also when the task
     * failed (its future holds the failure). A periodic task's runs each have their own pair.
     */
    @ForEachKind
    void beforeAndAfterExecuteSurroundEveryRunOnTheRunningThread(ExecutorKind kind) throws Exception {
        HookRecorder hooks = new HookRecorder();
        try (Subject s = kind.createHooked(2, hooks)) {
            ScheduledThreadPoolExecutor e = s.executor;
            IllegalStateException failure = new IllegalStateException("the task's own failure");
            List<Future<?>> oneShots = new ArrayList<>();
            oneShots.add(e.schedule(NOOP, 0, MILLISECONDS));
            oneShots.add(e.schedule(() -> "later", SHORT_DELAY_MS, MILLISECONDS));
            oneShots.add(e.submit(() -> "now"));
            oneShots.add(e.submit(() -> {
                throw failure;
            }));
            CountDownLatch executed = new CountDownLatch(1);
            Runnable execute = countDowner(executed);
            e.execute(execute);

            CountDownLatch ownFutureSet = new CountDownLatch(1);
            AtomicInteger periodicRuns = new AtomicInteger();
            List<ScheduledFuture<?>> periodic = new ArrayList<>(1);
            periodic.add(e.scheduleWithFixedDelay(task(() -> {
                await(ownFutureSet);
                if (periodicRuns.incrementAndGet() == 3) {
                    periodic.get(0).cancel(false); // from its own run: no run starts after this one
                }
            }), 0, 1, MILLISECONDS));
            ownFutureSet.countDown();

            for (Future<?> f : oneShots.subList(0, 3)) {
                get(f);
            }
            ExecutionException thrown = assertThrows(ExecutionException.class, () -> get(oneShots.get(3)));
            assertSame(failure, thrown.getCause());
            await(executed);
            List<Runnable> all = new ArrayList<>();
            for (Future<?> f : oneShots) {
                all.add((Runnable) f);
            }
            all.add(hooks.decoratedOf(execute));
            for (Runnable d : all) {
                eventually().until(() -> hooks.count("after", d) == 1);
                assertRunsBetweenHooks(hooks.eventsOf(d), d, 1);
            }
            Runnable p = (Runnable) periodic.get(0);
            eventually().until(() -> hooks.count("after", p) == 3);
            assertTrue(periodic.get(0).isCancelled());
            assertRunsBetweenHooks(hooks.eventsOf(p), p, 3);
        }
    }

    /** Asserts that {@code events} are {@code runs} times: before, run, after(null), each triple on one thread. */
    private static void assertRunsBetweenHooks(List<Event> events, Runnable task, int runs) {
        assertEquals(3 * runs, events.size(), events::toString);
        for (int i = 0; i < events.size(); i += 3) {
            Event before = events.get(i);
            Event run = events.get(i + 1);
            Event after = events.get(i + 2);
            assertEquals("before", before.what(), events::toString);
            assertEquals("run", run.what(), events::toString);
            assertEquals("after", after.what(), events::toString);
            assertSame(before.on(), before.threadArgument(), "beforeExecute's thread argument is the calling thread");
            assertSame(before.on(), run.on(), "the task ran on another thread than beforeExecute's");
            assertSame(before.on(), after.on(), "afterExecute ran on another thread than the task");
            assertSame(task, before.task());
            assertSame(task, after.task());
            assertNull(after.thrown(), "afterExecute's throwable");
        }
    }

    /**
     * terminated() is called exactly once, after the last task has ended and shutdown was called, not before; while it
     * runs, isShutdown() and isTerminating() are true and isTerminated() false; after it, isTerminated() is true and
     * awaitTermination returns true. Later shutdown calls do not call it again.
     */
    @ForEachKind
    void terminatedIsCalledOnceWhenTheLastTaskHasEnded(ExecutorKind kind) throws Exception {
        HookRecorder hooks = new HookRecorder();
        try (Subject s = kind.createHooked(2, hooks)) {
            ScheduledThreadPoolExecutor e = s.executor;
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            get(e.submit(NOOP));
            e.execute(task(() -> {
                started.countDown();
                await(release);
            }));
            await(started);
            e.shutdown();
            assertFalse(e.isTerminated());
            assertTrue(e.isTerminating());
            assertTrue(hooks.terminatedCalls.isEmpty(), "terminated() while a task runs");
            release.countDown();
            await(hooks.terminated);
            assertTrue(e.awaitTermination(LONG_DELAY_MS, MILLISECONDS));
            assertTrue(e.isTerminated());
            assertFalse(e.isTerminating());
            e.shutdown();
            e.shutdownNow();
            assertEquals(1, hooks.terminatedCalls.size());
            TerminatedCall call = hooks.terminatedCalls.peek();
            assertTrue(call.isShutdown());
            assertTrue(call.isTerminating(), "isTerminating() inside terminated()");
            assertFalse(call.isTerminated(), "isTerminated() inside terminated()");
        }
    }

    /**
     * An executor that never ran a task terminates inside shutdown(): terminated() is called once, on the calling
     * thread, and isTerminated() is true when shutdown() returns.
     */
    @ForEachKind
    void terminatedIsCalledInsideShutdownOfAnUnusedExecutor(ExecutorKind kind) throws Exception {
        HookRecorder hooks = new HookRecorder();
        try (Subject s = kind.createHooked(2, hooks)) {
            s.executor.shutdown();
            assertTrue(s.executor.isTerminated());
            assertEquals(1, hooks.terminatedCalls.size());
            TerminatedCall call = hooks.terminatedCalls.peek();
            assertSame(Thread.currentThread(), call.on());
            assertTrue(call.isTerminating());
            assertFalse(call.isTerminated());
            s.executor.shutdownNow();
            assertEquals(1, hooks.terminatedCalls.size());
        }
    }
}
