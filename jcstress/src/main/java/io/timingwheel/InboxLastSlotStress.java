package io.timingwheel;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * Race site: {@code FetchAddQueue.offer} into a chunk's last slot against {@code FetchAddQueue.poll} (the pool's
 * arrivals, the master's inbox): the producer that claims the last slot makes sure the next chunk is there (the spare
 * chunk, or one it appends) before it writes the slot, and the consumer, as it takes that slot's node, moves to the
 * next chunk without a test of its own, so it must find it there. The queue here has no spare (as when the producer
 * that appends it was slow), so the last slot's producer appends the next chunk itself. One producer offers as the
 * first chunk has one free slot left, and a consumer that is not a producer (unlike {@link InboxChunkBoundaryStress},
 * whose consumer is also a producer and whose queue has its spare) polls; the arbiter then offers once more and drains.
 *
 * <p>Result: (what the consumer got, what the arbiter drained after its own offer, whether the queue is empty at the
 * end), the first two a sequence of the items' ids: 1 and 2, so 12 is 1 then 2, 0 nothing. A consumer that moved on
 * to a chunk not yet appended fails with an exception, which jcstress reports as an error.
 */
@JCStressTest
@Description("an offer into a chunk's last slot against the consumer's poll")
@Outcome(id = "0, 12, 1", expect = ACCEPTABLE, desc = "the consumer came before the write: the arbiter got both, in order")
@Outcome(id = "1, 2, 1", expect = ACCEPTABLE, desc = "the consumer got the last slot's node and moved on; the arbiter got the next")
@Outcome(expect = FORBIDDEN, desc = "an item lost, delivered twice, out of order, or the queue not empty after all was drained")
@State
public class InboxLastSlotStress {
    private static final Integer ONE = 1;
    private static final Integer TWO = 2;
    private final FetchAddQueue<Integer> queue = InboxChunkBoundaryStress.queueWithOneSlotLeft();

    public InboxLastSlotStress() {
        queue.head.next = null; // no spare, as when its producer was slow: the last slot's producer appends the chunk
    }

    @Actor
    public void producer() {
        queue.offer(ONE);
    }

    @Actor
    public void consumer(III_Result r) {
        Integer item = queue.poll();
        r.r1 = item == null ? 0 : item;
    }

    @Arbiter
    public void arbiter(III_Result r) {
        queue.offer(TWO);
        int drained = 0;
        for (Integer item; (item = queue.poll()) != null; ) {
            drained = drained * 10 + item;
        }
        r.r2 = drained;
        r.r3 = queue.isEmpty() ? 1 : 0;
    }
}
