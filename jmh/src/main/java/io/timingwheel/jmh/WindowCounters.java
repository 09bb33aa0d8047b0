package io.timingwheel.jmh;

import java.lang.management.CompilationMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

/**
 * What the JVM itself did during a measured window, beside the code under test: its garbage collections, and the time
 * its JIT compilers spent compiling. On two cores the compiler threads take a core from the producer, the scheduler's
 * threads or both, so a window's lateness tail is read beside them (for both executors alike: a deoptimised method
 * compiled again during the window moves its p99 by milliseconds).
 */
final class WindowCounters {
    /** Garbage collections, all collectors together. */
    final long collections;
    /** Milliseconds of JIT compilation, all compiler threads together; -1 where the JVM does not measure it. */
    final long compileMillis;

    private WindowCounters(long collections, long compileMillis) {
        this.collections = collections;
        this.compileMillis = compileMillis;
    }

    /**
     * The counts so far, since the JVM started. The first call in a JVM loads the management classes and links their
     * method handles, which the JIT then compiles: when a part's first call came right before its measured window,
     * that work fell in it (JDK 17, {@code -XX:+PrintCompilation}, burst: 81 compilations in the window's first 100 ms,
     * the JDK's class writer and method-handle forms among them, against 28 once called first), on two cores a busy
     * thread beside the producer and the executor's. So {@link OnTimeHarness#main} calls it first.
     */
    static WindowCounters read() {
        long collections = 0;
        for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
            collections += Math.max(0, collector.getCollectionCount());
        }
        CompilationMXBean compiler = ManagementFactory.getCompilationMXBean();
        long compileMillis = compiler != null && compiler.isCompilationTimeMonitoringSupported()
                ? compiler.getTotalCompilationTime()
                : -1;
        return new WindowCounters(collections, compileMillis);
    }

    /** @return what happened since {@code start}, an earlier reading */
    WindowCounters since(WindowCounters start) {
        return new WindowCounters(collections - start.collections,
                compileMillis < 0 || start.compileMillis < 0 ? -1 : compileMillis - start.compileMillis);
    }

    /** @return the result line's fields: {@code gcs=... jitMs=...} */
    String fields() {
        return "gcs=" + collections + " jitMs=" + compileMillis;
    }
}
