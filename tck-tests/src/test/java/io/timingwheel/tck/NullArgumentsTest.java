package io.timingwheel.tck;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.testing.NullPointerTester;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Null arguments throw NullPointerException before anything else happens (Guava's NullPointerTester). Every
 * ScheduledExecutorService method is checked here on every executor; TimingWheelExecutor's whole public surface is
 * checked in {@link TimingWheelOnlyTest}.
 */
class NullArgumentsTest extends TckTestCase {

    /** Every ScheduledExecutorService (and ExecutorService, Executor) method rejects each null argument with NPE. */
    @ForEachExecutor
    void everyScheduledExecutorServiceMethodRejectsNulls(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            NullPointerTester tester = newTester();
            int checked = 0;
            for (Method m : ScheduledExecutorService.class.getMethods()) {
                if (Modifier.isStatic(m.getModifiers())) {
                    continue;
                }
                for (int i = 0; i < m.getParameterCount(); i++) {
                    if (isNullableResult(m, i)) {
                        continue;
                    }
                    tester.testMethodParameter(s.executor(), m, i);
                    checked++;
                }
            }
            assertTrue(checked >= 25, "only " + checked + " parameters checked");
            s.executor().shutdown();
            assertTrue(
                    s.executor().awaitTermination(LONG_DELAY_MS, TimeUnit.MILLISECONDS),
                    "a null-argument call left a task behind");
        }
    }

    /** A tester with the suite's defaults for non-null arguments. */
    static NullPointerTester newTester() {
        return new NullPointerTester().setDefault(TimeUnit.class, TimeUnit.MILLISECONDS);
    }

    /** {@code submit(Runnable, T result)}: a null result is legal (the future then yields null). */
    static boolean isNullableResult(Method m, int parameter) {
        return m.getName().equals("submit") && m.getParameterCount() == 2 && parameter == 1;
    }
}
