package io.timingwheel.reliability;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Small helpers about threads: finding an executor's threads by name, spinning, CPU time. */
final class Threads {
    private static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();

    private Threads() {
    }

    /** @return the live threads whose names match {@code regex} (as {@link Thread#getAllStackTraces()} lists them) */
    static List<Thread> named(String regex) {
        Pattern p = Pattern.compile(regex);
        List<Thread> found = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && p.matcher(t.getName()).matches()) {
                found.add(t);
            }
        }
        return found;
    }

    /**
     * Finds an executor's threads by their default names: a task reports its worker's name,
     * {@code timingwheel-N-worker-M} (ours, whose master is {@code timingwheel-N-master}) or {@code pool-N-thread-M}
     * (the JDK's), and every live thread of that executor is matched by name.
     *
     * @return the executor's threads (workers and, for ours, the master) alive now
     */
    static List<Thread> of(ExecutorService executor) throws Exception {
        String worker = executor.submit(() -> Thread.currentThread().getName()).get(10, TimeUnit.SECONDS);
        Matcher m = Pattern.compile("(timingwheel-\\d+)-worker-\\d+").matcher(worker);
        if (m.matches()) {
            return named(Pattern.quote(m.group(1)) + "-(master\\d*|worker-\\d+)");
        }
        m = Pattern.compile("(pool-\\d+-thread)-\\d+").matcher(worker);
        if (m.matches()) {
            return named(Pattern.quote(m.group(1)) + "-\\d+");
        }
        throw new IllegalStateException("not a default thread name: " + worker);
    }

    /** @return the CPU time the thread has used, in nanoseconds, or -1 if the JVM cannot tell */
    static long cpuNanos(Thread t) {
        return MX.isThreadCpuTimeSupported() ? MX.getThreadCpuTime(t.getId()) : -1;
    }

    /** Busy-waits {@code nanos} (a race harness' delay: parking would be far too coarse). */
    static void spin(long nanos) {
        if (nanos <= 0) {
            return;
        }
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() - end < 0) {
            Thread.onSpinWait();
        }
    }

    /** Busy-waits {@code nanos} or until interrupted (the interrupt stays set). @return true if interrupted */
    static boolean spinInterruptibly(long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() - end < 0) {
            if (Thread.currentThread().isInterrupted()) {
                return true;
            }
            Thread.onSpinWait();
        }
        return Thread.currentThread().isInterrupted();
    }

    /**
     * Waits, up to 10 s, until {@code condition} holds, polling every millisecond from the start (Awaitility's
     * default first poll comes after 100 ms, too slow for a harness that waits thousands of times).
     */
    static void await(Callable<Boolean> condition) {
        org.awaitility.Awaitility.await()
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(1))
                .atMost(Duration.ofSeconds(10))
                .until(condition);
    }

    /** Parks until the given time (a pacing delay for producers, never a synchronisation). */
    static void parkUntil(long deadline) {
        for (long left; (left = deadline - System.nanoTime()) > 0; ) {
            LockSupport.parkNanos(left);
        }
    }
}
