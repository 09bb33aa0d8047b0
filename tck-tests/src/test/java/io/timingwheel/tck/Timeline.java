package io.timingwheel.tck;

import io.timingwheel.VirtualClock;
import java.util.concurrent.TimeUnit;

/**
 * The time an executor under test runs in, as a test body sees it, so that one body checks a timing property in real
 * time (STPE and every configuration of ours) and on a {@link VirtualClock} (the {@code TWE-virtual-clock} kinds of
 * {@link Factories#timed()}), where it takes no real delay.
 *
 * <p>A body reads the time with {@link #nanoTime()}, lets the executor's time go on with {@link #pass} and then waits
 * for the runs it expects with the suite's latches and {@code eventually()}, as in real time; a task that should take
 * a while calls {@link #spend}. On the virtual timeline the runs due within a {@code pass} have ended when it returns,
 * so those waits return at once, and every run sees exactly its deadline: a test may assert that exactness, and more
 * (that nothing has run a nanosecond before its time), where {@link #isVirtual()} says so. Those are a deliberate
 * extra of the virtual kinds, never asked of the real-time ones, which are checked only for "never early" and "late
 * within generous bounds".
 */
interface Timeline {

    /** @return the executor's time in nanoseconds: {@code System.nanoTime()} in real time, the clock's on a virtual one */
    long nanoTime();

    /**
     * Lets {@code amount} of the executor's time pass, from the test's thread. In real time a sleep: it is the passage
     * of time under test, not a synchronisation (the body then waits for the runs it expects). On a virtual clock an
     * {@code advance}: it returns once every run due within the amount has ended.
     */
    void pass(long amount, TimeUnit unit) throws InterruptedException;

    /**
     * Makes the run that calls it take {@code amount} of the executor's time (a slow run), from inside a task: in real
     * time a sleep, on a virtual clock an {@code advance} from within the run, during which the tasks that fall due run
     * on the executor's other threads or, where none is free, wait and start late, as behind a slow run in real time.
     */
    void spend(long amount, TimeUnit unit) throws InterruptedException;

    /**
     * @return true on a virtual clock, where the test's {@code pass} decides when runs happen: each run sees exactly
     *     its deadline (or, behind a slow run, the time that run ended), and nothing runs before the test lets its
     *     time come. The assertions that only hold there are the virtual kinds' exactness.
     */
    boolean isVirtual();

    /** Real time: the timeline of STPE and of every executor of ours that reads {@code System.nanoTime()}. */
    Timeline REAL = new Timeline() {
        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public void pass(long amount, TimeUnit unit) throws InterruptedException {
            unit.sleep(amount); // the passage of time under test, not a synchronisation
        }

        @Override
        public void spend(long amount, TimeUnit unit) throws InterruptedException {
            unit.sleep(amount); // a slow run: the load under test, not a synchronisation
        }

        @Override
        public boolean isVirtual() {
            return false;
        }

        @Override
        public String toString() {
            return "real time";
        }
    };

    /** @return the timeline of an executor built with {@code builder().clock(clock)} */
    static Timeline of(VirtualClock clock) {
        return new Timeline() {
            @Override
            public long nanoTime() {
                return clock.nanoTime();
            }

            @Override
            public void pass(long amount, TimeUnit unit) {
                clock.advance(amount, unit);
            }

            @Override
            public void spend(long amount, TimeUnit unit) {
                clock.advance(amount, unit); // from within the run: lets time pass while it runs
            }

            @Override
            public boolean isVirtual() {
                return true;
            }

            @Override
            public String toString() {
                return clock.toString();
            }
        };
    }
}
