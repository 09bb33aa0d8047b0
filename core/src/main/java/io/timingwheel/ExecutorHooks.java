package io.timingwheel;

/**
 * The protected hooks of {@link java.util.concurrent.ThreadPoolExecutor} that a {@link TimingWheelExecutor} subclass
 * may override, as the core calls them: the one channel from the machinery back to the public class.
 */
interface ExecutorHooks {
    /**
     * @return false if neither {@code beforeExecute} nor {@code afterExecute} is overridden: they are empty then, and
     *     the workers skip them, so that hooks nobody uses cost nothing on the run path
     */
    boolean hasRunHooks();

    /** {@code beforeExecute}: on the thread about to run {@code task}, before it runs. */
    void beforeExecute(Thread thread, Runnable task);

    /** {@code afterExecute}: on the thread that ran {@code task}, after it ran; {@code thrown} is what escaped it. */
    void afterExecute(Runnable task, Throwable thrown);

    /** {@code terminated}: once, when the executor has terminated. */
    void terminated();
}
