/**
 * A drop-in {@link java.util.concurrent.ScheduledThreadPoolExecutor} built on a hierarchical timing wheel: start with
 * {@link io.timingwheel.TimingWheelExecutor}, the one public entry point (with its
 * {@link io.timingwheel.TimingWheelExecutor.Builder}).
 *
 * <h2>Design overview (read this first)</h2>
 * This is the map of the code; the mechanism in full, each tuned constant and the measurement behind it, is the
 * repository's {@code docs/design.md}.
 *
 * <h3>A facade over two layers</h3>
 * <ol>
 *   <li><b>The facade</b> ({@code TimingWheelExecutor}) is a {@code ScheduledThreadPoolExecutor}: it checks
 *       arguments, builds the task objects, calls {@code decorateTask} and the rejection handler, and answers every
 *       method of the JDK's class. It never uses the machinery it inherits from {@code ThreadPoolExecutor} (its queue,
 *       workers and run state): every method that would touch it is overridden. It owns one
 *       {@code ExecutorCore}.</li>
 *   <li><b>The wheel</b> ({@code TimingWheel}) is a plain single-threaded data structure: no locks, no threads, no
 *       clock. Level 0 has a power of two of one-tick slots; each higher level's slot spans a whole rotation of the
 *       level below; each level but the top also holds its next rotation. A task goes to the lowest level whose
 *       current or next rotation holds its deadline, so adding is O(1); slots are circular lists around sentinels,
 *       so removing is O(1). Advancing moves due level-0 nodes out; the slot above that holds a level's next rotation
 *       is moved down a batch per advance during the rotation before, so the work is what expires or moves, never
 *       what is merely pending, and a tick carries no burst while the owner advances often enough (only what is
 *       left of that slot when the rotation begins, if the owner came back too seldom, moves at once). Per-level
 *       occupancy bitmaps let it skip empty ticks and report the next deadline. It is tested alone with a fake
 *       time, against a model.</li>
 *   <li><b>The concurrency shell</b>: {@code ExecutorCore} (accepting tasks, the operations of {@code getQueue()},
 *       the shutdowns), which owns one part per job: {@code Lifecycle} (run state, policies, the one place where
 *       termination is decided), {@code MasterLoop} (the thread that owns the wheel), a {@code Dispatcher} where due
 *       tasks run, a hand-off and nothing else (a sealed type: the executor's own {@code WorkerPool}, or an
 *       {@code ExternalDispatcher} over a user's {@link java.util.concurrent.Executor}), the {@code OrderGate} given
 *       to the master and the workers, {@code PoolSettings} (the JDK's pool settings, which only the own pool acts
 *       on) behind {@code PoolControls} (the JDK's pool methods), {@code PendingTasks} (what {@code getQueue()}
 *       sees), {@code Shutdowns} (the two shutdowns and the policies' setters), {@code PendingLimit},
 *       {@code Decorations}, {@code Instrumentation} and {@code TaskRunner} (hooks around a run).</li>
 * </ol>
 * The channels between them are narrow and one-way: each part reaches the core through one interface of its own,
 * tasks through {@code TaskHost} (the time, whether a task may run, and what happened to it), dispatchers through
 * {@code DispatcherHost}, the master through {@code MasterHost}; the core reaches the facade only through
 * {@code ExecutorHooks} ({@code beforeExecute}, {@code afterExecute}, {@code terminated}). No class below the facade
 * calls it; the facade calls the core's methods, and of the tasks it builds only their public future methods; no
 * callback built in the core runs on another thread.
 *
 * <h3>The path of a task</h3>
 * <ol>
 *   <li>{@code schedule} (any thread) checks its arguments, allocates one object, the task ({@code ScheduledTask}: it
 *       is the returned future, the inbox message and the wheel node), reads the clock and calls
 *       {@code decorateTask}; only if that returns something else is the pair remembered ({@code Decorations}). A
 *       task due at once, or within 50 ms (the pool's straight reach), goes straight to the dispatcher: it is
 *       appended to the pool's arrivals ({@code Arrivals}: a {@code FetchAddQueue}, no lock), which the next holder of
 *       the pool's lock moves into the workers' queue, where the worker that leads waits for its deadline, as the
 *       JDK's does; the producer takes the lock only to wake a waiting worker. Otherwise the task is offered
 *       to the master's inbox ({@code StripedInbox}: a few {@code FetchAddQueue}s, one per group of producer
 *       threads, so that producers on different cores do not contend for one cache line; an offer is one atomic add
 *       and a store into an array slot, no lock; an array chunk per thousand offers). Only if it is due before the
 *       time the master announced (see the order gate) does the producer touch the shared state, and unpark the
 *       master if it sleeps. Then, where the workers are held off their cores (a woken leader that has not come back,
 *       or no run started for 250 µs while no worker waits), the producer gives way a moment
 *       ({@code CoreSharing.publisherGivesWay}): the deliberate waits of a caller, which the cold start and the burst
 *       need (docs/design.md).</li>
 *   <li>The master thread drains the inbox into the wheel (what was offered before its turn began, a burst a turn's
 *       worth at a time), unlinks tasks that were cancelled while linked (a cancel posts the task itself), advances
 *       the wheel, and hands the tasks due within the next 10 ms to the workers in batches, in deadline order; then
 *       it parks until 9 ms before the next deadline it holds. With nothing pending it parks without a timeout. While
 *       a worker is due to run (every worker busy, or the leader's wait over) it puts its turn off, within what its
 *       hand-overs and the gate allow, until a worker is about to wait; in a long drain it yields once per turn to a
 *       leader that has not come back 0.1 ms after its wait ended ({@code MasterLoop.giveWayToLeader}).</li>
 *   <li>A worker takes the first task once it is due and claims it with one CAS on its state ({@code NEW} to
 *       {@code CLAIMED}); a {@code cancel} or {@code shutdownNow} racing with it makes a CAS on the same state, so
 *       exactly one of them wins. The worker calls {@code beforeExecute}, runs the task (or what {@code decorateTask}
 *       made of it), and calls {@code afterExecute}. A periodic task computes its next deadline after its run and
 *       goes back to the workers' queue straight if it is due within the straight reach, else through the inbox. A
 *       worker also takes the due one-shot tasks behind the first, up to 32, under the same hold of the lock (its
 *       {@code Hand}): each stays pending, claimed by the same CAS only as it starts, so cancel, getQueue and
 *       {@code shutdownNow} still take it; a free worker takes from another's hand before the queue.</li>
 * </ol>
 *
 * <h3>Who owns what</h3>
 * <ul>
 *   <li>The wheel and the wheel links of every task ({@code next}/{@code prev}): the master thread alone. The links
 *       serve the wheel only; the inbox, the due batch and the workers' queue hold references of their own.</li>
 *   <li>A task's state and outcome: shared, changed by CAS (see {@code ScheduledTask}); its waiters wait on a
 *       {@link java.util.concurrent.CompletableFuture} that the ending thread completes.</li>
 *   <li>The workers' queue and hands ({@code DueTasks}), the leader and the waiting workers ({@code WorkerWaits}),
 *       the enlistments, whether the pool is closed and which worker steps a virtual clock ({@code VirtualSteps}):
 *       the pool's lock (its holder is also the one consumer of the arrivals, and takes them in: {@code Arrivals}).
 *       A run's counts: its worker, which alone writes them ({@code Worker}); the pool's counts are their
 *       sums ({@code WorkerRoster}), read as the JDK's are.</li>
 *   <li>The order gate and the master's sleep: one immutable state in {@code OrderGate}, replaced by CAS.</li>
 *   <li>The run state (RUNNING, SHUTDOWN, STOP, TIDYING, TERMINATED): one volatile int in {@code Lifecycle}; it only
 *       grows.</li>
 * </ul>
 *
 * <h3>Order</h3>
 * Due tasks reach the workers in deadline order, tasks with equal deadlines from one thread in the order they were
 * submitted, as from the JDK's heap: the wheel gives up nodes in that order, the master hands them over in batches
 * so, and the workers' {@code DueQueue} keeps it. A task due at once or soon goes to the dispatcher straight; so that
 * it never passes a timer due before it that the master has yet to hand over, a worker takes a task only once the
 * master has handed over everything due before it (the {@code OrderGate}). Equal deadlines from one thread keep their
 * order across the two routes, since a thread's task for a given time goes straight only once it is that close: the
 * master's come first. With one worker, tasks run in that order; a periodic task's runs take their places by their own
 * deadlines.
 *
 * <h3>Shutdown and termination</h3>
 * {@code shutdown()} moves to SHUTDOWN and applies the two policies at once to every task that has not started,
 * wherever it waits (inbox, wheel, workers' queue, external executor): what they do not keep is cancelled.
 * {@code shutdownNow()} moves to STOP and takes every unstarted task out of the inbox, the wheel and the dispatcher in
 * one step on the master thread, marking each {@code RETURNED} by CAS, so a task is either claimed by a worker or
 * returned, never both and never neither; then it interrupts the running tasks. A producer publishes its task and
 * then reads the run state again; if the task may no longer stay, it takes the task back by CAS and rejects it (or,
 * if that CAS fails, whoever acted on the new state already has it), so a schedule that overlaps {@code shutdown()}
 * is rejected, or accepted and run, as in the JDK. Termination is decided in one place, {@code Lifecycle}, whose class
 * comment tables the states, through one {@code tryTerminate()} that anyone calls, as the JDK's: once shut down, by
 * the master at the end of a turn when its inbox and wheel are empty and the dispatcher reports itself idle and
 * closes in the same step under its lock (another thread's call wakes the master to decide; if no master was ever
 * started, the caller decides). Then TIDYING, the workers leave,
 * {@code terminated()} runs on the last to leave (or at once if none is left), and TERMINATED follows. So
 * {@code isTerminated()} is true only when every accepted task has ended. An executor that never started a thread
 * terminates inside {@code shutdown()}.
 *
 * <h3>getQueue()</h3>
 * A working {@code BlockingQueue} over the pending tasks ({@code PendingTaskQueue}): {@code poll}, {@code take} and
 * {@code drainTo} take out only due tasks, as a delay queue does; {@code remove}, {@code clear} and the bulk removals
 * cancel what they remove; {@code add} of a {@code RunnableScheduledFuture} schedules it, as the JDK's queue does.
 *
 * <h3>Rejection</h3>
 * A task is rejected when the executor is shut down, when the pending limit is reached (the limit counts tasks in
 * state {@code NEW}, reserved by CAS before a task is published), or when no master thread can be started. The task is
 * marked {@code REJECTED} and handed, as the user would have held it, to the handler with the executor itself; the
 * JDK's four policies work unchanged. {@code execute} accepts a rejected task that a handler hands back again with its
 * own deadline, and a rejected task run by its handler waits for its deadline first: never early.
 *
 * <h3>The external executor</h3>
 * With {@code Builder.workerExecutor} due tasks run on a user's executor (virtual threads, say). A task handed over
 * waits there until a thread of that executor claims it, the same CAS that {@code shutdownNow} races with; a thread
 * that finds the executor stopping leaves its task for {@code shutdownNow} to return. The pool settings are only
 * remembered then, for the getters (the executor keeps them; no dispatcher reads them).
 *
 * <h3>The virtual clock</h3>
 * With {@code Builder.clock} the executor's {@code Clock} reads a {@code VirtualClock} that a test moves. Three things
 * change, all set when the core is built: the workers are handed only due tasks (no hand-over ahead, no straight
 * reach), so whatever is not due yet is in the master's wheel; the master sleeps until woken; and the master's work
 * is done under a turn lock ({@code MasterLoop.turnLock}), so that another thread may do it. An {@code advance} of a
 * clock that drives one executor of its own workers is stepped by the executor's threads
 * ({@code VirtualClock.advanceStepped}): the advance registers, then takes the first step itself; a step, under the
 * turn lock, finds the dispatcher idle (no run, no due task waiting), drains the inbox, hands over what is due now,
 * and, while nothing was handed over, moves time to the wheel's first deadline bound and turns again
 * ({@code MasterLoop.stepIfIdle}). From then on the worker that ends the last run under way, with nothing left to
 * take, steps ({@code VirtualSteps.step}, under the pool's lock, the step's locks taken only if free) and
 * takes one of the tasks it handed over itself, waking no other worker for it; when one task alone is due, the step
 * gives it to that worker with no announcement, no gate opened and nothing queued ({@code MasterLoop.stepTurn},
 * {@code VirtualSteps.giveToStepper}), and a worker that meets a task at the gate since takes the master's full turn
 * itself ({@code VirtualSteps.turnForGate}); the master thread parks meanwhile until woken; the step that finds
 * nothing due by the advance's target wakes the advancing thread, which then does the master's turn and confirms its
 * sleep on the gate itself, the master thread left parked ({@code MasterLoop.turnAfterSteps}; woken where it must act
 * itself, or where the sleep cannot be confirmed). The master thread and the steps take the same lock, so a turn of
 * the master between a step's look at the dispatcher and its hand-over cannot leave tasks handed over that the step
 * then misses. Several executors on one clock, an external executor, two advances at once or a run that advances the
 * clock itself poll instead: {@code advance} looks at each executor ({@code ExecutorCore.settled}), the dispatcher
 * idle, then, on the master thread, the same again, the inbox drained into the wheel and nothing there due by now;
 * that look is a command, so it wakes the master, whose turn then hands over what fell due. Settled, the wheel's
 * first deadline bound is the next step; a step to a bound that is not yet a deadline runs nothing, and the next look
 * gives a later bound, up to the deadline itself.
 *
 * <h3>Why it is O(1)</h3>
 * The JDK keeps pending tasks in a binary heap under one lock: O(log n) per schedule and per removal, and every
 * producer and worker contends for that lock. Here a schedule is an allocation and an atomic add; the master does
 * the O(1) wheel insertion; a cancel is a CAS, plus posting the task to the master if it is in the wheel; the
 * master's work per turn is proportional to what it drains and what expires. Timers due within the straight reach
 * (50 ms) go to the workers without the master: an atomic add into the arrivals, then, in a worker, an append to a
 * run of tasks in deadline order (tasks due at once) or an O(log n) heap (timers due soon, out of order), as the
 * JDK's take; they are few among many pending timers, and they must not wait for the master.
 *
 * <h3>What it is built for, and what it gives up</h3>
 * Many timers that mostly never fire (timeouts, leases, retries) and are cancelled by other threads than the ones
 * that set them. It gives up the JDK's synchronous heap for timers due later than the straight reach: such a task
 * reaches the wheel a moment later, on the master thread, which hands it to the workers ahead of its deadline, so a
 * timer costs one wake-up when it falls due (the leading worker's), as in the JDK; the master wakes once per
 * hand-over, off the timers' path. A cancelled timer that was already handed to the workers (due within 10 ms, or
 * within 50 ms if it came straight) stays in their queue until its deadline, then is dropped.
 */
package io.timingwheel;
