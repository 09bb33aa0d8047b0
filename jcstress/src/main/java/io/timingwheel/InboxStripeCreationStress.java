package io.timingwheel;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Race site: {@code StripedInbox.offerTo} ("a slot is null until a producer first offers to it, published by CAS"):
 * two producers whose threads share a stripe make their first offers at once, both finding the stripe missing. The
 * real {@link StripedInbox}; the master's drain runs once both are done.
 *
 * <p>Result: (how many of the two items the master drained; how many distinct ones).
 */
@JCStressTest
@Description("two producers creating the same stripe of the master's inbox by their first offers")
@Outcome(id = "2, 2", expect = ACCEPTABLE, desc = "both items reached the master")
@Outcome(id = "1, 1", expect = FORBIDDEN, desc = "an item lost: offered to a stripe that the other producer's replaced")
@Outcome(id = "0, 0", expect = FORBIDDEN, desc = "both items lost")
@Outcome(expect = FORBIDDEN, desc = "any other outcome")
@State
public class InboxStripeCreationStress {
    private static final int SHARED_STRIPE = 1;

    private final StripedInbox<String> inbox = new StripedInbox<>(2);

    @Actor
    public void producer1() {
        inbox.offerTo(SHARED_STRIPE, "a");
    }

    @Actor
    public void producer2() {
        inbox.offerTo(SHARED_STRIPE, "b");
    }

    @Arbiter
    public void master(II_Result r) {
        int drained = 0;
        int a = 0;
        int b = 0;
        for (String item; (item = inbox.poll()) != null; ) {
            drained++;
            a |= item.equals("a") ? 1 : 0;
            b |= item.equals("b") ? 1 : 0;
        }
        r.r1 = drained;
        r.r2 = a + b;
    }
}
