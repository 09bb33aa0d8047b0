package io.timingwheel;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RunnableScheduledFuture;

/**
 * What {@code decorateTask} made of each task, where it made something else than the task itself. Workers run the
 * decorated form; {@code getQueue()} and {@code shutdownNow()} show it. A task is remembered from its acceptance until
 * it ends, so an executor that never decorates pays one null check per task, and a pending task stays 48 bytes.
 */
final class Decorations {
    /** Created with the first decorated task. */
    private volatile Map<ScheduledTask<?>, RunnableScheduledFuture<?>> decorated;

    void remember(ScheduledTask<?> task, RunnableScheduledFuture<?> userTask) {
        Map<ScheduledTask<?>, RunnableScheduledFuture<?>> map = decorated;
        if (map == null) {
            synchronized (this) {
                map = decorated;
                if (map == null) {
                    decorated = map = new ConcurrentHashMap<>();
                }
            }
        }
        map.put(task, userTask);
    }

    void forget(ScheduledTask<?> task) {
        Map<ScheduledTask<?>, RunnableScheduledFuture<?>> map = decorated;
        if (map != null) {
            map.remove(task);
        }
    }

    /** @return the decorated form of {@code task}, or the task itself */
    RunnableScheduledFuture<?> userTask(ScheduledTask<?> task) {
        Map<ScheduledTask<?>, RunnableScheduledFuture<?>> map = decorated;
        if (map == null) {
            return task;
        }
        return map.getOrDefault(task, task);
    }

    /** @return the task whose decorated form is {@code userTask}, or null: a scan, as the JDK's own for such tasks */
    ScheduledTask<?> taskBehind(Object userTask) {
        Map<ScheduledTask<?>, RunnableScheduledFuture<?>> map = decorated;
        if (map != null) {
            for (Map.Entry<ScheduledTask<?>, RunnableScheduledFuture<?>> e : map.entrySet()) {
                if (e.getValue() == userTask) {
                    return e.getKey();
                }
            }
        }
        return null;
    }

    /** @return the tasks as the user holds them, now the caller's (returned): their decorations are forgotten */
    List<Runnable> handOut(List<ScheduledTask<?>> returned) {
        List<Runnable> userTasks = new ArrayList<>(returned.size());
        for (ScheduledTask<?> task : returned) {
            userTasks.add(userTask(task));
            forget(task);
        }
        return userTasks;
    }
}
