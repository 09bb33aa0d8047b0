package io.timingwheel;

/**
 * The executor side of a master, as the stress tests need it: shut down, with nothing left, so the master's first
 * termination decision ends its loop; the time stands still (at 0, unless a test sets it) and every task may stay.
 */
final class StressMasterHost implements MasterHost {
    /**
     * @return a real {@link MasterLoop} over such a host, with a 1 ms tick and an external dispatcher that runs in
     *     place; its loop, run on a thread of the test, takes one turn and leaves
     */
    static MasterLoop terminatingMaster() {
        StressDispatcherHost dispatchers = new StressDispatcherHost();
        return new MasterLoop("stress", new StressMasterHost(), new TimingWheel<>(1_000_000, 64),
                dispatchers.externalDispatcher(Runnable::run), dispatchers.gate, 0, 0, 1_000_000, false, null);
    }

    /**
     * @return a real {@link MasterLoop} over {@code host}, whose time a test may set, with a 1 ms tick, handing its
     *     tasks to {@code pool} (made by {@code dispatchers}, whose order gate it shares) as an executor does
     */
    static MasterLoop masterOver(WorkerPool pool, StressDispatcherHost dispatchers, StressMasterHost host) {
        return new MasterLoop("stress", host, new TimingWheel<>(1_000_000, 64), pool, dispatchers.gate,
                WorkerPool.HAND_OVER_AHEAD_NANOS, WorkerPool.STRAIGHT_REACH_NANOS, 1_000_000, false, null);
    }

    /** The time of the executor; 0 unless a test sets it. */
    volatile long time;

    @Override
    public long now() {
        return time;
    }

    @Override
    public boolean isShutdown() {
        return true;
    }

    @Override
    public boolean isStopping() {
        return false;
    }

    @Override
    public boolean mayRun(ScheduledTask<?> task) {
        return true;
    }

    @Override
    public boolean keptAfterShutdown(ScheduledTask<?> task) {
        return true;
    }

    @Override
    public boolean tryTerminate() {
        return true;
    }

    @Override
    public boolean workerDue() {
        return false;
    }

    @Override
    public boolean leaderOverdue(long now) {
        return false;
    }

    @Override
    public boolean workersStarved() {
        return false;
    }

    @Override
    public void retryWorkerStart() {
    }
}
