package io.timingwheel;

/**
 * Comparisons and choices computed by arithmetic, for decisions in code the JIT compiles hot (the master's turn, a
 * worker's take, a publisher's schedule) whose rare side a run may first meet seconds in. The JIT compiles a branch
 * whose profile never saw one of its sides as a trap; the first time that side is taken, the whole compiled method
 * (and every caller it was inlined into) goes back to the interpreter and is compiled again: tens of milliseconds of
 * the master or a worker at a fraction of their speed, and of a core the timers need. An executor's start, a burst's
 * end and a race lost are such sides: compile logs of the on-time harness found traps on them in the measured windows
 * of two JVMs in three. In Java source a comparison ({@code x < y}, {@code a == b}) and {@code !}, {@code &&} and
 * {@code ||} are branches in bytecode; these methods are not, and each is exact for any arguments. Use them where the
 * decision folds into one branch whose two sides are both common, or into no branch at all.
 */
final class BranchFree {
    private BranchFree() {
    }

    /**
     * @return a value whose sign bit is set if and only if {@code x < y}: the difference's sign, corrected where it
     *     overflows (the signs of x and y differ and the difference's differs from x's)
     */
    static long lessThanSign(long x, long y) {
        long difference = x - y;
        return difference ^ ((x ^ y) & (difference ^ x));
    }

    /** @return 1 if {@code x < y}, else 0 */
    static int oneIfLess(long x, long y) {
        return (int) (lessThanSign(x, y) >>> 63);
    }

    /** @return 1 if {@code x > 0}, else 0 */
    static int oneIfPositive(int x) {
        return (-x & ~x) >>> 31; // both negative only for x > 0 (for MIN_VALUE, -x is negative but ~x is not)
    }

    /** @return the lesser of {@code a} and {@code b} ({@code Math.min(long, long)} may be compiled as a branch) */
    static long min(long a, long b) {
        return select(lessThanSign(a, b) >> 63, a, b);
    }

    /** @return all ones if {@code a == b}, else 0 */
    static long allOnesIfEqual(long a, long b) {
        long bits = a ^ b;
        return ~((bits | -bits) >> 63);
    }

    /** @return {@code ifOnes} where {@code mask} is all ones, {@code ifZeros} where it is 0 */
    static long select(long mask, long ifOnes, long ifZeros) {
        return (ifOnes & mask) | (ifZeros & ~mask);
    }
}
