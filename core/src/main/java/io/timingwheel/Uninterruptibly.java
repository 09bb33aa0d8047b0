package io.timingwheel;

/**
 * Waiting that an interrupt does not cut short: the one loop behind every wait of ours that must finish (a command on
 * the master thread, {@code close()}), written once.
 */
final class Uninterruptibly {
    /** A wait that may throw {@link InterruptedException}. */
    @FunctionalInterface
    interface Wait {
        void await() throws InterruptedException;
    }

    private Uninterruptibly() {
    }

    /**
     * Waits until {@code wait} returns, waiting again after each interrupt; runs {@code onFirstInterrupt} after the
     * first one, and restores the thread's interrupt status before returning if there was any.
     */
    static void await(Wait wait, Runnable onFirstInterrupt) {
        boolean interrupted = false;
        for (;;) {
            try {
                wait.await();
                break;
            } catch (InterruptedException e) {
                if (!interrupted) {
                    interrupted = true;
                    onFirstInterrupt.run();
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
