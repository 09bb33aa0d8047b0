package io.timingwheel.tck;

import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.timingwheel.tck.ExecutorKind.Subject;
import io.timingwheel.tck.ExecutorKind.Uncaught;
import io.timingwheel.tck.HookRecorder.Decorated;
import io.timingwheel.tck.HookRecorder.Event;
import io.timingwheel.tck.HookRecorder.Fault;
import io.timingwheel.tck.HookRecorder.HookError;
import io.timingwheel.tck.HookRecorder.HookException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.function.Executable;

/**
 * Hooks that fail, and decorations that do not run their task. Where a thread dies of a hook, both executors replace
 * it. Deliberate differences, each stated by its test: ours ends a task that a hook or a decoration kept from running
 * (it fails with the hook's exception, or is cancelled), where the JDK leaves its future incomplete forever; and a
 * {@code terminated()} that throws inside {@code shutdown()} is reported to the caller's uncaught-exception handler
 * instead of thrown out of {@code shutdown()}.
 */
class FailingHooksTest extends TckTestCase {

    /**
     * Waits for the first thread of {@code s} to die, asserts that {@code failure} killed it, and that later tasks
     * run, on other threads. @return the dead thread
     */
    private static Thread assertWorkerDiedAndWasReplaced(Subject s, Throwable failure) throws Exception {
        eventually().until(() -> !s.uncaught.isEmpty());
        Uncaught death = s.uncaught.peek();
        assertSame(failure, death.failure(), "what killed the thread");
        List<Future<Thread>> later = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            later.add(s.executor.submit(Thread::currentThread));
        }
        for (Future<Thread> f : later) {
            assertNotSame(death.thread(), get(f), "a later task ran on the dead thread");
        }
        eventually().until(() -> !death.thread().isAlive());
        if (s.kind != ExecutorKind.TWE_EXTERNAL) {
            eventually().until(() -> s.executor.getPoolSize() == 1); // replaced, one for one
        }
        assertEquals(1, s.uncaught.size(), () -> "more threads died: " + s.uncaught);
        return death.thread();
    }

    /**
     * beforeExecute throwing a RuntimeException kills the worker, which is replaced. The task does not run.
     * Deliberate difference: ours fails the task with that exception; the JDK's leaves its future incomplete forever.
     */
    @ForEachKind
    void beforeExecuteThrowingRuntimeExceptionKillsTheWorker(ExecutorKind kind) throws Exception {
        assertBeforeExecuteThrowingKillsTheWorker(kind, new HookException("from beforeExecute"));
    }

    /**
     * beforeExecute throwing an Error kills the worker, which is replaced. The task does not run. Deliberate
     * difference: ours fails the task with that error; the JDK's leaves its future incomplete forever.
     */
    @ForEachKind
    void beforeExecuteThrowingErrorKillsTheWorker(ExecutorKind kind) throws Exception {
        assertBeforeExecuteThrowingKillsTheWorker(kind, new HookError("from beforeExecute"));
    }

    private void assertBeforeExecuteThrowingKillsTheWorker(ExecutorKind kind, Throwable failure) throws Exception {
        Callable<String> poisoned = callable(() -> "ran");
        HookRecorder hooks = new HookRecorder().failFor(poisoned, Fault.BEFORE_EXECUTE_THROWS).failWith(failure);
        try (Subject s = kind.createHooked(1, hooks)) {
            ScheduledFuture<String> future = s.executor.schedule(poisoned, 0, MILLISECONDS);
            Decorated<?> d = hooks.decoratedOf(poisoned);
            assertSame(d, future);
            Thread dead = assertWorkerDiedAndWasReplaced(s, failure);
            List<Event> events = hooks.eventsOf(d);
            assertEquals(1, events.size(), events::toString); // beforeExecute only: no run, no afterExecute
            assertEquals("before", events.get(0).what());
            assertSame(dead, events.get(0).on());
            assertEquals(0, d.runs.get());
            if (s.isReference()) {
                assertFalse(future.isDone(), "the JDK leaves the task NEW forever");
                assertFalse(d.task.isDone());
            } else {
                ExecutionException thrown = assertThrows(ExecutionException.class, () -> get(future));
                assertSame(failure, thrown.getCause());
                assertTrue(d.task.isDone());
            }
        }
    }

    /**
     * afterExecute throwing kills the worker, which is replaced; the task had run and completed normally, and
     * afterExecute was first called with the decorated task and null, on the thread that ran it.
     */
    @ForEachKind
    void afterExecuteThrowingKillsTheWorkerAfterTheTaskCompleted(ExecutorKind kind) throws Exception {
        HookException failure = new HookException("from afterExecute");
        Callable<String> poisoned = callable(() -> "ran");
        HookRecorder hooks = new HookRecorder().failFor(poisoned, Fault.AFTER_EXECUTE_THROWS).failWith(failure);
        try (Subject s = kind.createHooked(1, hooks)) {
            ScheduledFuture<String> future = s.executor.schedule(poisoned, 0, MILLISECONDS);
            assertEquals("ran", get(future));
            Thread dead = assertWorkerDiedAndWasReplaced(s, failure);
            Decorated<?> d = hooks.decoratedOf(poisoned);
            assertEquals(1, d.runs.get());
            List<Event> events = hooks.eventsOf(d);
            assertEquals("before", events.get(0).what(), events::toString);
            assertEquals("run", events.get(1).what(), events::toString);
            assertEquals("after", events.get(2).what(), events::toString);
            assertNull(events.get(2).thrown());
            for (Event event : events) {
                assertSame(dead, event.on());
            }
        }
    }

    /**
     * As ThreadPoolExecutor.runWorker does it (JDK 17 and 25): an afterExecute that throws after a run that completed
     * is called a second time, with its own exception, and the worker dies of that.
     */
    @ForEachKind
    void afterExecuteThatThrowsIsCalledAgainWithItsOwnException(ExecutorKind kind) throws Exception {
        HookException failure = new HookException("from afterExecute");
        Callable<String> poisoned = callable(() -> "ran");
        HookRecorder hooks = new HookRecorder().failFor(poisoned, Fault.AFTER_EXECUTE_THROWS).failWith(failure);
        try (Subject s = kind.createHooked(1, hooks)) {
            assertEquals("ran", get(s.executor.schedule(poisoned, 0, MILLISECONDS)));
            assertWorkerDiedAndWasReplaced(s, failure);
            Decorated<?> d = hooks.decoratedOf(poisoned);
            List<Event> events = hooks.eventsOf(d);
            assertEquals(4, events.size(), events::toString);
            assertEquals("after", events.get(3).what());
            assertSame(failure, events.get(3).thrown());
        }
    }

    /**
     * A decorated task whose run() throws after running the task reaches afterExecute with that exception, once, and
     * kills the worker, which is replaced; the task itself had completed normally.
     */
    @ForEachKind
    void decoratedRunThatThrowsReachesAfterExecuteAndKillsTheWorker(ExecutorKind kind) throws Exception {
        HookException failure = new HookException("from the decorated run");
        Callable<String> poisoned = callable(() -> "ran");
        HookRecorder hooks = new HookRecorder().failFor(poisoned, Fault.RUN_THROWS_AFTER_TASK).failWith(failure);
        try (Subject s = kind.createHooked(1, hooks)) {
            ScheduledFuture<String> future = s.executor.schedule(poisoned, 0, MILLISECONDS);
            assertEquals("ran", get(future));
            Thread dead = assertWorkerDiedAndWasReplaced(s, failure);
            List<Event> events = hooks.eventsOf(hooks.decoratedOf(poisoned));
            assertEquals(3, events.size(), events::toString);
            assertEquals("after", events.get(2).what());
            assertSame(failure, events.get(2).thrown());
            assertSame(dead, events.get(2).on());
        }
    }

    /**
     * A decorated task whose run() never calls the task's run(): afterExecute follows with null and the worker lives
     * on. Deliberate difference: ours cancels the task when the decorated run returns, one-shot or periodic, so its
     * future ends; the JDK's never completes it (and never runs the periodic one again).
     */
    @ForEachKind
    void decoratedRunThatSkipsTheTaskEndsIt(ExecutorKind kind) throws Exception {
        Callable<String> skipped = callable(() -> "ran");
        Runnable skippedPeriodic = task(() -> fail("the periodic task ran"));
        HookRecorder hooks = new HookRecorder()
                .failFor(skipped, Fault.RUN_SKIPS_TASK)
                .failFor(skippedPeriodic, Fault.RUN_SKIPS_TASK);
        try (Subject s = kind.createHooked(1, hooks)) {
            ScheduledFuture<String> oneShot = s.executor.schedule(skipped, 0, MILLISECONDS);
            ScheduledFuture<?> periodic = s.executor.scheduleWithFixedDelay(skippedPeriodic, 0, 1, MILLISECONDS);
            for (Future<?> f : List.of(oneShot, periodic)) {
                Decorated<?> d = (Decorated<?>) f;
                eventually().until(() -> hooks.count("after", d) == 1);
                List<Event> events = hooks.eventsOf(d);
                assertEquals(3, events.size(), events::toString);
                assertNull(events.get(2).thrown());
            }
            for (int i = 0; i < 3; i++) {
                get(s.executor.submit(NOOP)); // later tasks run
            }
            if (s.isReference()) {
                assertFalse(oneShot.isDone(), "the JDK leaves the task NEW forever");
                assertFalse(periodic.isDone(), "the JDK leaves the periodic task NEW forever");
            } else {
                assertThrows(CancellationException.class, () -> get(oneShot));
                assertThrows(CancellationException.class, () -> get(periodic));
                assertTrue(oneShot.isCancelled());
                assertTrue(periodic.isCancelled());
            }
            assertEquals(1, ((Decorated<?>) periodic).runs.get(), "the periodic task was re-armed");
            assertTrue(s.uncaught.isEmpty(), () -> "a thread died: " + s.uncaught);
        }
    }

    /**
     * terminated() throwing once the executor had started threads: the executor terminates anyway, awaitTermination
     * returns true, and the exception reaches an uncaught-exception handler (ours may wrap it). The JDK runs
     * terminated() on whichever thread sees the last worker gone: usually a worker, but shutdown()'s caller if the
     * idle workers left before it looked, and then its shutdown() throws the exception; ours never does.
     */
    @ForEachKind
    void terminatedThrowingStillTerminates(ExecutorKind kind) throws Exception {
        HookException failure = new HookException("from terminated()");
        HookRecorder hooks = new HookRecorder().terminatedThrows(failure);
        try (Subject s = kind.createHooked(2, hooks)) {
            get(s.executor.submit(NOOP));
            get(s.executor.schedule(NOOP, SHORT_DELAY_MS, MILLISECONDS));
            boolean thrownByShutdown = false;
            try {
                s.executor.shutdown();
            } catch (HookException e) {
                assertTrue(s.isReference(), "only the JDK's shutdown() lets terminated()'s exception out");
                assertSame(failure, e);
                thrownByShutdown = true;
            }
            assertTrue(s.executor.awaitTermination(LONG_DELAY_MS, MILLISECONDS));
            assertTrue(s.executor.isTerminated());
            assertEquals(1, hooks.terminatedCalls.size());
            if (!thrownByShutdown) {
                eventually().until(() -> s.uncaught.stream().anyMatch(u -> causedBy(u.failure(), failure)));
            }
        }
    }

    /**
     * terminated() throwing when an executor that never ran a task terminates inside shutdown(): both terminate.
     * Deliberate difference: the JDK's shutdown() throws the exception (after terminating); ours returns normally and
     * reports it to the calling thread's uncaught-exception handler, as its Javadoc says.
     */
    @ForEachKind
    void terminatedThrowingInsideShutdownStillTerminates(ExecutorKind kind) throws Exception {
        HookException failure = new HookException("from terminated()");
        HookRecorder hooks = new HookRecorder().terminatedThrows(failure);
        try (Subject s = kind.createHooked(2, hooks)) {
            AtomicReference<Throwable> thrownByShutdown = new AtomicReference<>();
            List<Throwable> reported = new ArrayList<>();
            Thread caller = new Thread(() -> {
                try {
                    s.executor.shutdown();
                } catch (Throwable t) {
                    thrownByShutdown.set(t);
                }
            }, "tck-shutdown-caller");
            caller.setUncaughtExceptionHandler((t, e) -> {
                synchronized (reported) {
                    reported.add(e);
                }
            });
            caller.start();
            caller.join(LONG_DELAY_MS);
            assertFalse(caller.isAlive());
            assertTrue(s.executor.isTerminated());
            assertTrue(s.executor.awaitTermination(0, MILLISECONDS));
            assertEquals(1, hooks.terminatedCalls.size());
            synchronized (reported) {
                if (s.isReference()) {
                    assertSame(failure, thrownByShutdown.get());
                    assertTrue(reported.isEmpty(), reported::toString);
                } else {
                    assertNull(thrownByShutdown.get());
                    assertEquals(1, reported.size(), reported::toString);
                    assertTrue(causedBy(reported.get(0), failure), reported::toString);
                }
            }
        }
    }

    /** @return true if {@code failure} is {@code t} or in its chain of causes */
    private static boolean causedBy(Throwable t, Throwable failure) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c == failure) {
                return true;
            }
        }
        return false;
    }

    /**
     * decorateTask returning null: every way to submit throws NullPointerException (the JDK's, as its queue refuses
     * null; ours says so), nothing is accepted, and the executor works on once decorateTask behaves.
     */
    @ForEachKind
    void decorateTaskReturningNullIsANullPointerException(ExecutorKind kind) throws Exception {
        HookRecorder hooks = new HookRecorder().decorateToNull(true);
        try (Subject s = kind.createHooked(1, hooks)) {
            ScheduledThreadPoolExecutor e = s.executor;
            Runnable r = task(() -> fail("ran"));
            Callable<Object> c = callable(() -> fail("ran"));
            List<Executable> submissions = List.of(
                    () -> e.schedule(r, 0, MILLISECONDS),
                    () -> e.schedule(r, 1, HOURS),
                    () -> e.schedule(c, 0, MILLISECONDS),
                    () -> e.schedule(c, 1, HOURS),
                    () -> e.scheduleAtFixedRate(r, 0, 1, HOURS),
                    () -> e.scheduleWithFixedDelay(r, 1, 1, HOURS),
                    () -> e.execute(r),
                    () -> e.submit(r),
                    () -> e.submit(r, "result"),
                    () -> e.submit(c));
            for (Executable submission : submissions) {
                assertThrows(NullPointerException.class, submission);
            }
            assertTrue(e.getQueue().isEmpty());
            assertEquals(0, e.getTaskCount());
            hooks.decorateToNull(false);
            assertEquals("works", get(e.schedule(() -> "works", 0, MILLISECONDS)));
            assertEquals("works", get(e.submit(() -> "works")));
            assertEquals(2, hooks.decorations.size());
        }
    }
}
