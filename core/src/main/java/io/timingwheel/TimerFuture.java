package io.timingwheel;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RunnableScheduledFuture;

/**
 * The future of a task accepted by a {@link TimingWheelExecutor}: a {@link RunnableScheduledFuture}, exactly as the
 * JDK's executor returns, that can also be observed without blocking.
 *
 * <p>The scheduling methods are declared as the JDK's are (they return {@code ScheduledFuture} and {@code Future}), so
 * that subclasses and callers written for {@link java.util.concurrent.ScheduledThreadPoolExecutor} work unchanged;
 * the futures they return are {@code TimerFuture}s nonetheless: {@code ((TimerFuture<?>) future).toCompletableFuture()}.
 * The one exception is a subclass whose {@code decorateTask} returns a wrapper: then the caller gets the wrapper.
 *
 * @param <V> the result type
 */
public interface TimerFuture<V> extends RunnableScheduledFuture<V> {
    /**
     * Returns a new {@link CompletableFuture} that completes, fails or is cancelled when this task does. Cancelling
     * the returned future (with {@code cancel}) cancels this task, with the same {@code mayInterruptIfRunning}.
     * Completing it by other means ({@code complete}, {@code obtrudeValue}...) affects only the view. For a periodic
     * task it completes when the series ends, that is, only exceptionally or by cancellation.
     *
     * @return a view of this future's completion
     */
    CompletableFuture<V> toCompletableFuture();
}
