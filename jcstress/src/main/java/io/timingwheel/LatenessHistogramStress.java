package io.timingwheel;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.I_Result;

/**
 * Race site: {@code LatenessHistogram} "one made shared() takes any number of writers (the threads of an external
 * executor) and records with an atomic add, so no count is lost". Two threads of an external executor record a run's
 * lateness into the same bucket at once.
 *
 * <p>Result: the bucket's count afterwards.
 */
@JCStressTest
@Description("two threads record into one bucket of the shared lateness histogram")
@Outcome(id = "2", expect = ACCEPTABLE, desc = "both records counted")
@Outcome(expect = FORBIDDEN, desc = "a record lost (or counted twice)")
@State
public class LatenessHistogramStress {
    private static final long LATENESS_NANOS = 5_000;
    private final LatenessHistogram histogram = LatenessHistogram.shared();

    @Actor
    public void thread1() {
        histogram.record(LATENESS_NANOS);
    }

    @Actor
    public void thread2() {
        histogram.record(LATENESS_NANOS);
    }

    @Arbiter
    public void arbiter(I_Result r) {
        long[] sums = new long[LatenessHistogram.BUCKETS];
        histogram.addTo(sums);
        r.r1 = (int) sums[LatenessHistogram.bucketOf(LATENESS_NANOS)];
    }
}
