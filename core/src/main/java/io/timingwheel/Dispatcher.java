package io.timingwheel;

import java.util.ArrayList;
import java.util.List;

/** Where due tasks go to run: the executor's own {@link WorkerPool}, or an {@link ExternalDispatcher}. */
interface Dispatcher {
    /** Hands over one due task (from a producer for zero delays, or from the master). */
    void dispatch(ScheduledTask<?> task);

    /** Hands over {@code count} due tasks linked through {@code next}, from {@code first} to {@code last} (master only). */
    void dispatchAll(ScheduledTask<?> first, ScheduledTask<?> last, int count);

    /** Starts a worker if fewer than the core size run, as the JDK does on every schedule. */
    void prestart();

    /** @return true once as many workers were started as the core size asks for (always, for an external executor) */
    boolean isFullyStarted();

    /** @return true if tasks wait here but no worker exists to run them (thread creation has been failing) */
    boolean isStarved();

    /** @return true if no task waits here and none runs */
    boolean isQuiescent();

    /** Moves every task that waits here but has not started into {@code sink}. */
    void drainUnstartedTo(List<ScheduledTask<?>> sink);

    /** Cancels every task that waits here but has not started. */
    default void cancelUnstarted() {
        List<ScheduledTask<?>> unstarted = new ArrayList<>();
        drainUnstartedTo(unstarted);
        for (ScheduledTask<?> task : unstarted) {
            task.cancel(false);
        }
    }

    /** Copies the tasks that wait here but have not started into {@code sink}. */
    void snapshotTo(List<ScheduledTask<?>> sink);

    /** Interrupts every thread running a task (for {@code shutdownNow}). */
    void interruptWorkers();

    /**
     * Stops for good if {@link #isQuiescent()}; later tasks are cancelled.
     *
     * @param awaitThreadsExit whether to wait until the threads have left (never when called on a worker thread)
     * @return true if stopped
     */
    boolean tryTerminate(boolean awaitThreadsExit);

    int poolSize();

    int activeCount();

    long completedCount();

    /** @return runs that ended with an exception */
    long failedCount();

    /** Adds the lateness histogram of every run so far into {@code sums} ({@link LatenessHistogram#BUCKETS} long). */
    void addLatenessTo(long[] sums);

    int queuedCount();
}
