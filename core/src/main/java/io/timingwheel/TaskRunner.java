package io.timingwheel;

/**
 * Runs a due task that a dispatcher's thread has claimed, as {@code ThreadPoolExecutor}'s workers run theirs: its
 * lateness recorded, then {@code beforeExecute}, the task (its decorated form, if {@code decorateTask} made one),
 * {@code afterExecute}. A task with no hooks to call and no decoration runs directly: claimed and started with one
 * CAS, nothing in between.
 */
final class TaskRunner {
    private final ExecutorHooks hooks;
    private final Decorations decorations;
    private final Instrumentation instrumentation;

    TaskRunner(ExecutorHooks hooks, Decorations decorations, Instrumentation instrumentation) {
        this.hooks = hooks;
        this.decorations = decorations;
        this.instrumentation = instrumentation;
    }

    /**
     * @return the form in which {@code task} runs: its decorated form, or the task itself. A thread takes it before
     *     it claims the task and keeps it for the run: a {@code cancel} may end the claimed task before it starts,
     *     which forgets its decoration, and the hooks must still see the decorated form, as the JDK's do
     */
    Runnable userTask(ScheduledTask<?> task) {
        return decorations.userTask(task);
    }

    /** @return true if nothing runs between the claim of this task and its action: no hooks, no decoration */
    boolean runsDirectly(ScheduledTask<?> task) {
        return runsDirectly(task, userTask(task));
    }

    /** @return true if nothing runs between the claim of {@code task}, in its form {@code userTask}, and its action */
    boolean runsDirectly(ScheduledTask<?> task, Runnable userTask) {
        return !hooks.hasRunHooks() && userTask == task;
    }

    /** Claims a due task for the current thread, the way it will run. @return false if it was not pending */
    static boolean claim(ScheduledTask<?> task, boolean direct) {
        return direct ? task.claimAndStart() : task.claim();
    }

    /**
     * Runs a task that the current thread claimed with {@link #claim}, in the form {@link #userTask} gave before the
     * claim. Whatever happens, the task ends: if a hook or a decoration kept its action from starting, it fails with
     * that exception, or is cancelled if nothing was thrown.
     *
     * @throws Throwable what a hook, or a decorated task's {@code run}, threw: the thread dies of it, as in the JDK
     */
    void run(ScheduledTask<?> task, Runnable userTask, boolean direct, Thread thread, LatenessHistogram lateness) {
        instrumentation.runStarts(task, lateness);
        if (direct) {
            task.runAction();
            return;
        }
        Throwable thrown = null;
        try {
            if (hooks.hasRunHooks()) {
                runBetweenHooks(userTask, thread);
            } else {
                userTask.run();
            }
        } catch (Throwable t) {
            thrown = t;
            throw t;
        } finally {
            task.endIfNeverStarted(thrown);
        }
    }

    /**
     * {@code beforeExecute}, the task, {@code afterExecute}: what escapes the task, or a throwing
     * {@code afterExecute} itself, goes to {@code afterExecute} (a second time, in the latter case) before it is
     * thrown on, as the JDK's workers do.
     */
    private void runBetweenHooks(Runnable userTask, Thread thread) {
        hooks.beforeExecute(thread, userTask);
        try {
            userTask.run();
            hooks.afterExecute(userTask, null);
        } catch (Throwable t) {
            hooks.afterExecute(userTask, t);
            throw t;
        }
    }
}
