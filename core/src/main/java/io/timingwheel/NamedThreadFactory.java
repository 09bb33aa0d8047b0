package io.timingwheel;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** The default thread factory: names that say which executor and which role a thread belongs to. */
final class NamedThreadFactory implements ThreadFactory {
    private final String prefix;
    private final boolean daemon;
    private final boolean numbered;
    private final AtomicInteger count = new AtomicInteger();

    /**
     * @param prefix the thread name, or its prefix if numbered
     * @param daemon whether the threads are daemons
     * @param numbered whether to append 1, 2, 3... to the names
     */
    NamedThreadFactory(String prefix, boolean daemon, boolean numbered) {
        this.prefix = prefix;
        this.daemon = daemon;
        this.numbered = numbered;
    }

    @Override
    public Thread newThread(Runnable task) {
        // String.concat, not +: javac links a + through invokedynamic on its first call, and the first thread is made
        // inside the first schedule, which that bootstrap cost 7-11 ms in a fresh JVM (docs/design.md, "A fresh JVM")
        Thread thread = new Thread(task, numbered ? prefix.concat(Integer.toString(count.incrementAndGet())) : prefix);
        thread.setDaemon(daemon);
        thread.setPriority(Thread.NORM_PRIORITY);
        return thread;
    }

    @Override
    public String toString() {
        return "NamedThreadFactory[" + prefix + "]";
    }
}
