package io.timingwheel;

/** Reports failures inside an executor's machinery (never a task's own), which must not stop it. */
final class InternalFailures {
    private InternalFailures() {
    }

    /** Reports {@code failure} to the current thread's uncaught-exception handler, naming the executor; never throws. */
    static void report(String executorName, String what, Throwable failure) {
        try {
            Thread me = Thread.currentThread();
            me.getUncaughtExceptionHandler().uncaughtException(me,
                    new IllegalStateException(executorName + ": " + what, failure));
        } catch (Throwable ignore) {
            // reporting must not make things worse
        }
    }
}
