/**
 * timingwheel: a drop-in {@link java.util.concurrent.ScheduledThreadPoolExecutor} on a hierarchical timing wheel.
 * Exports only the API package; JDK Flight Recorder is optional at run time.
 */
module io.timingwheel {
    requires static jdk.jfr;

    exports io.timingwheel;
}
