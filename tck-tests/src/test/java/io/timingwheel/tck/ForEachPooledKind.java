package io.timingwheel.tck;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Runs the annotated test once for every kind of {@link ExecutorKind#pooled()}: those whose pool settings act on
 * threads of their own. The test takes an ExecutorKind.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ParameterizedTest(name = "{0}")
@MethodSource("io.timingwheel.tck.ExecutorKind#pooled")
@interface ForEachPooledKind {
}
