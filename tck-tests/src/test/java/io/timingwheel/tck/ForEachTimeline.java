package io.timingwheel.tck;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Runs the annotated test once for every factory of {@link Factories#timed()}: those of {@link ForEachExecutor} in real
 * time, and our executor on a virtual clock. The test takes a SchedulerFactory and lets time pass only through the
 * scheduler's {@link ManagedScheduler#timeline()} (never {@code System.nanoTime()} or a sleep of its own).
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ParameterizedTest(name = "{0}")
@MethodSource("io.timingwheel.tck.Factories#timed")
public @interface ForEachTimeline {
}
