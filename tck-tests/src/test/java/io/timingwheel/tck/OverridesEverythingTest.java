package io.timingwheel.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.timingwheel.TimingWheelExecutor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * TimingWheelExecutor inherits from ThreadPoolExecutor machinery it does not use (its queue, workers and run state), so
 * every method that could reach that machinery must be overridden. This test finds them by reflection on the running
 * JDK: every public and protected instance method declared by AbstractExecutorService, ThreadPoolExecutor and
 * ScheduledThreadPoolExecutor, and every default method of Executor, ExecutorService and ScheduledExecutorService
 * (and their super-interfaces), must be declared by TimingWheelExecutor itself or be on {@link #SAFE_TO_INHERIT}, with
 * the reason. A JDK that adds such a method fails this test until the method is overridden or allow-listed; an
 * allow-list entry that the JDK no longer declares, or that TimingWheelExecutor now declares, fails it too.
 */
class OverridesEverythingTest {

    /** The classes whose methods TimingWheelExecutor inherits. */
    private static final List<Class<?>> SUPERCLASSES =
            List.of(AbstractExecutorService.class, ThreadPoolExecutor.class, ScheduledThreadPoolExecutor.class);

    /** The interfaces whose default methods TimingWheelExecutor inherits (their super-interfaces are added). */
    private static final List<Class<?>> INTERFACES =
            List.of(Executor.class, ExecutorService.class, ScheduledExecutorService.class);

    /**
     * Methods that are safe to inherit, by {@link #key}, each with the reason. Every entry must name a method that the
     * running JDK declares and that TimingWheelExecutor does not.
     */
    private static final Map<String, String> SAFE_TO_INHERIT = Map.of(
            "AbstractExecutorService#invokeAll(Collection)",
            "built only on execute() and newTaskFor(), both honoured",
            "AbstractExecutorService#invokeAll(Collection,long,TimeUnit)",
            "built only on execute() and newTaskFor(), both honoured",
            "AbstractExecutorService#invokeAny(Collection)",
            "built only on execute() and newTaskFor() (through ExecutorCompletionService), both honoured",
            "AbstractExecutorService#invokeAny(Collection,long,TimeUnit)",
            "built only on execute() and newTaskFor() (through ExecutorCompletionService), both honoured",
            "AbstractExecutorService#newTaskFor(Runnable,Object)",
            "only creates a FutureTask, which execute() then schedules",
            "AbstractExecutorService#newTaskFor(Callable)",
            "only creates a FutureTask, which execute() then schedules",
            "ThreadPoolExecutor#finalize()",
            "empty since JDK 11 and deprecated for removal; touches nothing");

    /** Fewer methods than this in the three classes means the reflection found the wrong thing. */
    private static final int PLAUSIBLE_MINIMUM = 55;

    /** @return "DeclaringClass#name(ParamType,ParamType)" with simple names */
    private static String key(Method m) {
        return m.getDeclaringClass().getSimpleName() + "#" + m.getName() + Arrays.stream(m.getParameterTypes())
                .map(Class::getSimpleName).collect(Collectors.joining(",", "(", ")"));
    }

    /** @return TimingWheelExecutor's own declaration of a method with m's name and parameter types, or null */
    private static Method declaredByTimingWheelExecutor(Method m) {
        try {
            Method own = TimingWheelExecutor.class.getDeclaredMethod(m.getName(), m.getParameterTypes());
            return own.isBridge() || own.isSynthetic() ? null : own;
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    /** @return the public and protected instance methods the classes declare, without synthetic and bridge ones */
    private static List<Method> inheritableMethods() {
        List<Method> methods = new ArrayList<>();
        for (Class<?> c : SUPERCLASSES) {
            for (Method m : c.getDeclaredMethods()) {
                int modifiers = m.getModifiers();
                if (m.isSynthetic() || m.isBridge() || Modifier.isStatic(modifiers)) {
                    continue;
                }
                if (Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers)) {
                    methods.add(m);
                }
            }
        }
        return methods;
    }

    /** @return the default methods of the interfaces and of all their super-interfaces */
    private static List<Method> defaultMethods() {
        Set<Class<?>> interfaces = new LinkedHashSet<>();
        List<Class<?>> todo = new ArrayList<>(INTERFACES);
        while (!todo.isEmpty()) {
            Class<?> i = todo.remove(0);
            if (interfaces.add(i)) {
                todo.addAll(Arrays.asList(i.getInterfaces()));
            }
        }
        List<Method> methods = new ArrayList<>();
        for (Class<?> i : interfaces) {
            for (Method m : i.getDeclaredMethods()) {
                if (m.isDefault() && !m.isSynthetic()) {
                    methods.add(m);
                }
            }
        }
        return methods;
    }

    /** @return the keys of the methods neither declared by TimingWheelExecutor nor allow-listed */
    private static List<String> notOverridden(List<Method> methods) {
        List<String> missing = new ArrayList<>();
        for (Method m : methods) {
            if (declaredByTimingWheelExecutor(m) == null && !SAFE_TO_INHERIT.containsKey(key(m))) {
                missing.add(key(m) + (Modifier.isFinal(m.getModifiers()) ? " (final in the JDK)" : ""));
            }
        }
        return missing;
    }

    /**
     * Every public and protected instance method of AbstractExecutorService, ThreadPoolExecutor and
     * ScheduledThreadPoolExecutor is declared by TimingWheelExecutor or allow-listed with a reason.
     */
    @Test
    void everyMethodOfTheJdkClassesIsOverriddenOrSafeToInherit() {
        List<Method> methods = inheritableMethods();
        assertTrue(methods.size() >= PLAUSIBLE_MINIMUM,
                () -> "only " + methods.size() + " methods found in " + SUPERCLASSES + ": " + methods);
        List<String> missing = notOverridden(methods);
        assertEquals(List.of(), missing, "Runtime " + Runtime.version() + ": override these in TimingWheelExecutor, "
                + "or add them to SAFE_TO_INHERIT with the reason it is safe");
        long overridden = methods.stream().filter(m -> declaredByTimingWheelExecutor(m) != null).count();
        assertEquals(methods.size() - SAFE_TO_INHERIT.size(), overridden, "every allow-list entry is inherited once");
    }

    /**
     * Every default method of Executor, ExecutorService and ScheduledExecutorService (close() since Java 19) is
     * declared by TimingWheelExecutor or allow-listed with a reason.
     */
    @Test
    void everyDefaultMethodOfTheInterfacesIsOverriddenOrSafeToInherit() {
        List<Method> methods = defaultMethods();
        if (Runtime.version().feature() >= 19) {
            assertTrue(methods.stream().anyMatch(m -> m.getName().equals("close") && m.getParameterCount() == 0),
                    () -> "ExecutorService.close() not found among the default methods: " + methods);
        }
        assertEquals(List.of(), notOverridden(methods), "Runtime " + Runtime.version()
                + ": override these in TimingWheelExecutor, or add them to SAFE_TO_INHERIT with the reason it is safe");
    }

    /**
     * Every allow-list entry names a method that the running JDK declares, public or protected, and that
     * TimingWheelExecutor does not declare: a stale entry (removed from the JDK, or overridden since) fails.
     */
    @Test
    void everyAllowListEntryIsInheritedFromTheJdk() {
        Map<String, Method> inherited = new HashMap<>();
        for (Method m : inheritableMethods()) {
            inherited.put(key(m), m);
        }
        for (Method m : defaultMethods()) {
            inherited.put(key(m), m);
        }
        for (Map.Entry<String, String> entry : SAFE_TO_INHERIT.entrySet()) {
            Method m = inherited.get(entry.getKey());
            assertTrue(m != null, () -> "Runtime " + Runtime.version() + " does not declare " + entry.getKey()
                    + ": remove it from SAFE_TO_INHERIT");
            assertTrue(declaredByTimingWheelExecutor(m) == null, () -> "TimingWheelExecutor declares "
                    + entry.getKey() + " now: remove it from SAFE_TO_INHERIT");
            assertFalse(entry.getValue().isBlank(), "a reason for " + entry.getKey());
        }
    }
}
