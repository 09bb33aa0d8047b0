/**
 * A drop-in {@link java.util.concurrent.ScheduledThreadPoolExecutor} built on a hierarchical timing wheel: start with
 * {@link io.timingwheel.TimingWheelExecutor}, the one public entry point (with its
 * {@link io.timingwheel.TimingWheelExecutor.Builder}).
 *
 * <h2>Design overview (read this first)</h2>
 *
 * <h3>Two layers</h3>
 * <ol>
 *   <li><b>The wheel</b> ({@code TimingWheel}) is a plain single-threaded data structure: no locks, no threads, no
 *       clock. Level 0 has a power of two of one-tick slots; each higher level's slot spans a whole rotation of the
 *       level below. A task goes to the lowest level whose current rotation holds its deadline (one XOR and one
 *       leading-zero count), so adding is O(1); slots are circular lists around sentinels, so removing is O(1).
 *       Advancing moves due level-0 nodes out and cascades a higher slot down when time reaches it, so the work is
 *       what expires or cascades, never what is merely pending. Per-level occupancy bitmaps let it skip empty ticks
 *       and report the next deadline. It is tested alone with a fake time.</li>
 *   <li><b>The executor</b> ({@code TimingWheelExecutor}, {@code MasterLoop}, {@code WorkerPool}) is the
 *       concurrency shell around it.</li>
 * </ol>
 *
 * <h3>The path of a task</h3>
 * <ol>
 *   <li>{@code schedule} (any thread) checks its arguments, allocates one object, the task
 *       ({@code ScheduledTask}: it is the returned future, the inbox message and the wheel node), and reads the
 *       clock. A delay of zero or less goes straight to the workers. Otherwise the task is offered to the master's
 *       inbox ({@code MpscChunkedQueue}: one atomic add and a store into an array slot, no lock; an array chunk per
 *       thousand offers). Only if it is due before the time the master sleeps until does the producer unpark the
 *       master.</li>
 *   <li>The master thread ({@code MasterLoop}) drains the inbox into the wheel, applies cancellations (a cancelled
 *       task is unlinked at once and is garbage), advances the wheel to now, hands the due tasks to the workers in
 *       one batch, and parks until the wheel's next deadline: exactly that deadline, not the next tick, so tasks
 *       fire as close to their own deadline as parking allows. With nothing pending it parks without a timeout.</li>
 *   <li>A worker ({@code WorkerPool}) takes a due task and claims it with one CAS on its state; a {@code cancel}
 *       racing with it makes the same CAS, so exactly one of them wins. A periodic task computes its next deadline
 *       after its run and goes back through the inbox.</li>
 * </ol>
 *
 * <h3>Who owns what</h3>
 * <ul>
 *   <li>The wheel, the wheel links of every task ({@code next}/{@code prev} once drained) and the master's batch:
 *       the master thread alone.</li>
 *   <li>A task's state, outcome and waiters: shared, changed by CAS (see {@code ScheduledTask}).</li>
 *   <li>The queue of due tasks, the worker set and the counts: the pool's lock.</li>
 *   <li>The run state (RUNNING, SHUTDOWN, STOP, TERMINATED): one volatile int on the executor; the master decides
 *       termination, when the wheel, the inbox and the workers are all empty.</li>
 * </ul>
 *
 * <h3>Why it is O(1)</h3>
 * The JDK keeps pending tasks in a binary heap under one lock: O(log n) per schedule and per removal, and every
 * producer and worker contends for that lock. Here a schedule is an allocation and an atomic add; the master does
 * the O(1) wheel insertion; a cancel is a CAS, plus posting the task to the master if it is in the wheel; the
 * master's work per turn is proportional to what it drains and what expires.
 */
package io.timingwheel;
