package io.timingwheel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** Each arithmetic decision agrees with the plain comparison it stands for, at the edges of its type and at random. */
class BranchFreeTest {
    private static final long[] LONG_EDGES = {Long.MIN_VALUE, Long.MIN_VALUE + 1, -2, -1, 0, 1, 2, Integer.MAX_VALUE,
        Deadlines.MAX - 1, Deadlines.MAX, Long.MAX_VALUE - 1, Long.MAX_VALUE};

    private static long[] longs() {
        Random random = new Random(17);
        long[] values = new long[LONG_EDGES.length + 200];
        System.arraycopy(LONG_EDGES, 0, values, 0, LONG_EDGES.length);
        for (int i = LONG_EDGES.length; i < values.length; i++) {
            values[i] = i % 2 == 0 ? random.nextLong() : random.nextInt(5) - 2;
        }
        return values;
    }

    @Test
    void comparisonsOfLongsAgreeWithPlainOnes() {
        long[] values = longs();
        for (long x : values) {
            for (long y : values) {
                String pair = "(" + x + ", " + y + ")";
                assertEquals(x < y, BranchFree.lessThanSign(x, y) < 0, pair);
                assertEquals(x < y ? 1 : 0, BranchFree.oneIfLess(x, y), pair);
                assertEquals(Math.min(x, y), BranchFree.min(x, y), pair);
                assertEquals(x == y ? -1L : 0L, BranchFree.allOnesIfEqual(x, y), pair);
            }
        }
    }

    @Test
    void selectTakesTheFirstValueUnderAllOnesAndTheSecondUnderZero() {
        for (long x : longs()) {
            assertEquals(x, BranchFree.select(-1L, x, ~x));
            assertEquals(~x, BranchFree.select(0L, x, ~x));
        }
    }

    @Test
    void positivityOfIntsAgreesWithThePlainTest() {
        Random random = new Random(23);
        int[] edges = {Integer.MIN_VALUE, Integer.MIN_VALUE + 1, -2, -1, 0, 1, 2, Integer.MAX_VALUE - 1,
            Integer.MAX_VALUE};
        for (int x : edges) {
            assertEquals(x > 0 ? 1 : 0, BranchFree.oneIfPositive(x), Integer.toString(x));
        }
        for (int i = 0; i < 10_000; i++) {
            int x = random.nextInt();
            assertEquals(x > 0 ? 1 : 0, BranchFree.oneIfPositive(x), Integer.toString(x));
        }
    }
}
