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
 * Race site: {@code FetchAddQueue} (the master's inbox): producers claim slots with one atomic add, and the one that
 * claims a chunk's last slot moves them on to the next chunk (the spare) while one that claims past the end retries
 * there, as the consumer polls, seeing a gap (null) between a claim and its write. Two producers offer as the first
 * chunk has one free slot left, so one of them lands in the next chunk; the second producer is also the consumer (the
 * owner may offer too) and polls twice after its offer, racing the first producer's write; the arbiter, the consumer
 * afterwards, drains the rest. (Two actors: jcstress runs no test with more actors than the machine has CPUs.)
 *
 * <p>Result: (what the consumer got, what the arbiter drained after them, whether the queue
 * is empty at the end), each a sequence of the items' ids: 1 and 2, so 12 is 1 then 2, 0 nothing.
 */
@JCStressTest
@Description("two offers across a chunk boundary against the consumer's polls")
@Outcome(id = "0, 12, 1", expect = ACCEPTABLE, desc = "the consumer saw a gap first (the other's claim, not yet written); the arbiter got both")
@Outcome(id = "1, 2, 1", expect = ACCEPTABLE, desc = "the consumer got the first, the arbiter the second")
@Outcome(id = "2, 1, 1", expect = ACCEPTABLE, desc = "the same, the other producer first")
@Outcome(id = "12, 0, 1", expect = ACCEPTABLE, desc = "the consumer got both")
@Outcome(id = "21, 0, 1", expect = ACCEPTABLE, desc = "the same, the other producer first")
@Outcome(expect = FORBIDDEN, desc = "an item lost, delivered twice, or the queue not empty after all was drained")
@State
public class InboxChunkBoundaryStress {
    private static final Integer ONE = 1;
    private static final Integer TWO = 2;
    private final FetchAddQueue<Integer> queue = queueWithOneSlotLeft();

    /** @return an empty queue whose first chunk has one free slot left: every other slot was offered and taken */
    static FetchAddQueue<Integer> queueWithOneSlotLeft() {
        FetchAddQueue<Integer> queue = new FetchAddQueue<>();
        Integer filler = 9;
        for (int i = 0; i < FetchAddQueue.CHUNK_SIZE - 1; i++) {
            queue.offer(filler);
            queue.poll();
        }
        return queue;
    }

    @Actor
    public void producer1() {
        queue.offer(ONE);
    }

    @Actor
    public void producer2AndConsumer(III_Result r) {
        queue.offer(TWO);
        r.r1 = append(append(0, queue.poll()), queue.poll());
    }

    @Arbiter
    public void arbiter(III_Result r) {
        int drained = 0;
        for (int i = 0; i < 4; i++) {
            drained = append(drained, queue.poll());
        }
        r.r2 = drained;
        r.r3 = queue.isEmpty() ? 1 : 0;
    }

    private static int append(int sequence, Integer item) {
        return item == null ? sequence : sequence * 10 + item;
    }
}
