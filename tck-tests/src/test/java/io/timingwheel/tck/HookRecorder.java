package io.timingwheel.tck;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * What the hooks of an {@link ExecutorKind#createHooked hooked} executor saw, in order: every {@code decorateTask}
 * (each wraps the task in a {@link Decorated} that counts its runs), every {@code beforeExecute}, run and
 * {@code afterExecute}, and every {@code terminated()}. A test can make a hook fail for one submitted task
 * ({@link #failFor}), make {@code decorateTask} return null, or make {@code terminated()} throw.
 */
final class HookRecorder {

    /** How the hooks treat one submitted task. */
    enum Fault {
        /** beforeExecute throws {@link #failure} for it. */
        BEFORE_EXECUTE_THROWS,
        /** afterExecute throws {@link #failure} for it (each time it is called for that task). */
        AFTER_EXECUTE_THROWS,
        /** Its decorated run() returns without calling the task's run(). */
        RUN_SKIPS_TASK,
        /** Its decorated run() calls the task's run(), then throws {@link #failure}. */
        RUN_THROWS_AFTER_TASK
    }

    /** A RuntimeException thrown by a hook on purpose. */
    static final class HookException extends RuntimeException {
        HookException(String message) {
            super(message);
        }
    }

    /** An Error thrown by a hook on purpose. */
    static final class HookError extends Error {
        HookError(String message) {
            super(message);
        }
    }

    /** One call of decorateTask: which overload, what was submitted, the executor's task and what we made of it. */
    record Decoration(boolean callable, Object submitted, RunnableScheduledFuture<?> task, Decorated<?> decorated) {
    }

    /**
     * One call of a hook ({@code "before"}, {@code "after"}) or of a decorated task's run ({@code "run"}).
     *
     * @param on the thread it was called on
     * @param threadArgument beforeExecute's thread argument (null for the others)
     * @param task the task it was given (for "run": the decorated task itself)
     * @param thrown afterExecute's throwable argument (null for the others)
     */
    record Event(String what, Thread on, Thread threadArgument, Runnable task, Throwable thrown) {
    }

    /** One call of terminated(), with the executor's state as it was seen from inside. */
    record TerminatedCall(Thread on, boolean isShutdown, boolean isTerminating, boolean isTerminated) {
    }

    final Queue<Decoration> decorations = new ConcurrentLinkedQueue<>();
    final Queue<Event> events = new ConcurrentLinkedQueue<>();
    final Queue<TerminatedCall> terminatedCalls = new ConcurrentLinkedQueue<>();
    /** Released by the first terminated() call, before it returns (and before it throws, if it does). */
    final CountDownLatch terminated = new CountDownLatch(1);

    private final Map<Object, Fault> faults = Collections.synchronizedMap(new IdentityHashMap<>());
    /** What the failing hooks throw. */
    private volatile Throwable failure = new HookException("hook failure");
    private volatile boolean decorateToNull;
    private volatile RuntimeException terminatedFailure;

    /** Makes the hooks treat {@code submitted} (the Runnable or Callable given to schedule) with {@code fault}. */
    HookRecorder failFor(Object submitted, Fault fault) {
        faults.put(submitted, fault);
        return this;
    }

    /** Sets what the failing hooks throw (a RuntimeException or an Error). */
    HookRecorder failWith(Throwable t) {
        this.failure = t;
        return this;
    }

    /** Makes decorateTask return null from now on (true), or decorate again (false). */
    HookRecorder decorateToNull(boolean value) {
        this.decorateToNull = value;
        return this;
    }

    /** Makes terminated() throw {@code t} after recording its call. */
    HookRecorder terminatedThrows(RuntimeException t) {
        this.terminatedFailure = t;
        return this;
    }

    // -- the hooks, as the subclasses call them ---------------------------------------------------------------------

    <V> RunnableScheduledFuture<V> decorate(Runnable runnable, RunnableScheduledFuture<V> task) {
        return decorate(false, runnable, task);
    }

    <V> RunnableScheduledFuture<V> decorate(Callable<V> callable, RunnableScheduledFuture<V> task) {
        return decorate(true, callable, task);
    }

    private <V> RunnableScheduledFuture<V> decorate(boolean callable, Object submitted,
                                                     RunnableScheduledFuture<V> task) {
        if (decorateToNull) {
            return null;
        }
        Decorated<V> decorated = new Decorated<>(this, task, faults.get(submitted));
        decorations.add(new Decoration(callable, submitted, task, decorated));
        return decorated;
    }

    void beforeExecute(Thread thread, Runnable task) {
        events.add(new Event("before", Thread.currentThread(), thread, task, null));
        if (faultOf(task) == Fault.BEFORE_EXECUTE_THROWS) {
            throw sneaky(failure);
        }
    }

    void afterExecute(Runnable task, Throwable thrown) {
        events.add(new Event("after", Thread.currentThread(), null, task, thrown));
        if (faultOf(task) == Fault.AFTER_EXECUTE_THROWS) {
            throw sneaky(failure);
        }
    }

    void terminated(ScheduledThreadPoolExecutor executor) {
        terminatedCalls.add(new TerminatedCall(Thread.currentThread(), executor.isShutdown(),
                executor.isTerminating(), executor.isTerminated()));
        terminated.countDown();
        RuntimeException t = terminatedFailure;
        if (t != null) {
            throw t;
        }
    }

    // -- queries ----------------------------------------------------------------------------------------------------

    /** @return the hook and run events of {@code task} (a decorated task), in order */
    List<Event> eventsOf(Runnable task) {
        return events.stream().filter(e -> e.task() == task).collect(Collectors.toList());
    }

    /** @return how many times {@code what} was called for {@code task} */
    long count(String what, Runnable task) {
        return events.stream().filter(e -> e.task() == task && e.what().equals(what)).count();
    }

    /** @return the decorations of the Runnable overload, or of the Callable one, in order */
    List<Decoration> decorations(boolean callable) {
        return decorations.stream().filter(d -> d.callable() == callable).collect(Collectors.toList());
    }

    /** @return the decorated form of {@code submitted}; fails if it was not decorated exactly once */
    Decorated<?> decoratedOf(Object submitted) {
        List<Decoration> found = decorations.stream().filter(d -> d.submitted() == submitted)
                .collect(Collectors.toList());
        if (found.size() != 1) {
            throw new AssertionError("decorateTask was called " + found.size() + " times for " + submitted);
        }
        return found.get(0).decorated();
    }

    private static Fault faultOf(Runnable task) {
        return task instanceof Decorated ? ((Decorated<?>) task).fault : null;
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> RuntimeException sneaky(Throwable t) throws E {
        throw (E) t;
    }

    /**
     * What decorateTask returns: a RunnableScheduledFuture that delegates everything to the executor's task and
     * counts its runs, as a subclass that decorates tasks (for tracing, say) would write it.
     */
    static final class Decorated<V> implements RunnableScheduledFuture<V> {
        private final HookRecorder recorder;
        /** The executor's own task. */
        final RunnableScheduledFuture<V> task;
        final Fault fault;
        final AtomicInteger runs = new AtomicInteger();

        Decorated(HookRecorder recorder, RunnableScheduledFuture<V> task, Fault fault) {
            this.recorder = recorder;
            this.task = task;
            this.fault = fault;
        }

        @Override
        public void run() {
            runs.incrementAndGet();
            recorder.events.add(new Event("run", Thread.currentThread(), null, this, null));
            if (fault == Fault.RUN_SKIPS_TASK) {
                return;
            }
            task.run();
            if (fault == Fault.RUN_THROWS_AFTER_TASK) {
                throw sneaky(recorder.failure);
            }
        }

        @Override
        public boolean isPeriodic() {
            return task.isPeriodic();
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return task.getDelay(unit);
        }

        @Override
        public int compareTo(Delayed other) {
            return other == this ? 0 : task.compareTo(other);
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            return task.cancel(mayInterruptIfRunning);
        }

        @Override
        public boolean isCancelled() {
            return task.isCancelled();
        }

        @Override
        public boolean isDone() {
            return task.isDone();
        }

        @Override
        public V get() throws InterruptedException, ExecutionException {
            return task.get();
        }

        @Override
        public V get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
            return task.get(timeout, unit);
        }

        @Override
        public String toString() {
            return "Decorated[" + task + "]";
        }
    }
}
