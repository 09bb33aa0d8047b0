package io.timingwheel;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A worker clears an interrupt left over from an earlier task before it runs the next, but never one that shutdownNow
 * sent: the worker clears first and then looks whether the executor is stopping, so a shutdownNow that lands right
 * after the look still reaches the task (its interrupt comes after the clear). Looking first and clearing after would
 * swallow that interrupt: the claimed task would run on, uninterrupted, through shutdownNow. The host here plays that
 * shutdownNow exactly in the window, which a real race hits once in millions of runs.
 */
class WorkerInterruptTest {

    /** A dispatcher's host whose executor stops (stopping set, the worker interrupted) just after the worker looks. */
    private static final class StopsDuringTheLook extends PlainDispatcherHost {
        final Thread[] worker = new Thread[1];
        volatile boolean stopping;
        boolean claimedATask;

        @Override
        public boolean mayRun(ScheduledTask<?> task) {
            claimedATask = true;
            worker[0] = Thread.currentThread();
            return true;
        }

        @Override
        public boolean isStopping() {
            if (claimedATask && !stopping && Thread.currentThread() == worker[0]) {
                // The worker's look before it runs the claimed task: shutdownNow lands right after it.
                stopping = true;
                Thread.currentThread().interrupt();
                return false;
            }
            return stopping;
        }

        @Override
        public boolean isShutdown() {
            return stopping;
        }
    }

    @Test
    void shutdownNowJustAfterTheWorkersLookStillInterruptsTheTask() throws Exception {
        StopsDuringTheLook host = new StopsDuringTheLook();
        Clock clock = Clock.startingNow();
        TaskRunner runner = new TaskRunner(new CountingHooks(), new Decorations(), new Instrumentation("test", clock, -1));
        WorkerPool pool = new WorkerPool("test", host, runner, new OrderGate(),
                new PoolSettings(1, Executors.defaultThreadFactory()));
        AtomicBoolean interrupted = new AtomicBoolean();
        RunnableTask task = new RunnableTask(new PlainTaskHost(), () -> interrupted.set(Thread.interrupted()), 0);
        assertTrue(pool.dispatch(task));
        pool.prestart();
        task.get(10, TimeUnit.SECONDS);
        assertTrue(host.stopping, "the host never saw the worker's look before the run");
        assertTrue(interrupted.get(), "shutdownNow's interrupt was swallowed: the task ran uninterrupted");
        assertFalse(task.isCancelled());
    }
}
