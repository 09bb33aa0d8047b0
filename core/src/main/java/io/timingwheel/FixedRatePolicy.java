package io.timingwheel;

/**
 * What a fixed-rate task does after runs were missed (a pause, an overloaded worker, a run longer than the period).
 * Set it with {@link TimingWheelExecutor.Builder#fixedRatePolicy}.
 */
public enum FixedRatePolicy {
    /**
     * The JDK's behaviour, and the default: every missed run happens, back to back, until the task is on schedule
     * again. Run {@code n} is due at {@code initialDelay + n * period}.
     */
    CATCH_UP,

    /**
     * Missed runs are skipped: after a late run, the next one is due at the first {@code initialDelay + n * period}
     * still in the future, so the phase is kept and there is no burst.
     */
    SKIP_MISSED
}
