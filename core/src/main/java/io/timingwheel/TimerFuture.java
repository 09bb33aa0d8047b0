package io.timingwheel;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RunnableScheduledFuture;

/**
 * The future of a task accepted by a {@link TimingWheelExecutor}: a {@link RunnableScheduledFuture}, exactly as the
 * JDK's executor returns, that can also be observed without blocking.
 *
 * <p>When the executor is used through {@link java.util.concurrent.ScheduledExecutorService}, the futures it returns
 * are {@code TimerFuture}s too: {@code ((TimerFuture<?>) future).toCompletableFuture()}.
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
