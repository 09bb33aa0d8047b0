package io.timingwheel.reliability;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Shuts an executor down at the end of a try-with-resources block, whatever happened in it ({@code ExecutorService}
 * is {@code AutoCloseable} only from Java 19). A test that checks shutdown itself does so in the block; this is the
 * safety net that keeps threads from leaking into later tests.
 */
final class Closing<E extends ExecutorService> implements AutoCloseable {
    private final E executor;

    private Closing(E executor) {
        this.executor = executor;
    }

    static <E extends ExecutorService> Closing<E> of(E executor) {
        return new Closing<>(executor);
    }

    E get() {
        return executor;
    }

    /** Calls shutdownNow and waits up to 10 s; a test that must see termination asserts it itself. */
    @Override
    public void close() {
        executor.shutdownNow();
        try {
            executor.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
