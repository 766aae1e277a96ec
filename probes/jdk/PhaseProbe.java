// The phase probe on the real JDK 25 ForkJoinPool: after one empty task on a
// ForkJoinPool(2), prints the queues array length, every queue's phase taken apart, and one
// tryLockPhase()/unlockPhase() cycle of a submission queue, in the format of
// probes/src/bin/phase-probe.rs. Reads the pool's internals through reflection, so it needs
//   --add-opens java.base/java.util.concurrent=ALL-UNNAMED
// Run it with probes/jdk/run.sh, which finds a JDK 25 or says why it cannot.

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;

public class PhaseProbe {
    static final int IDLE = 1 << 16;

    public static void main(String[] args) throws Exception {
        ForkJoinPool pool = new ForkJoinPool(2);
        pool.submit(() -> { }).get(10, TimeUnit.SECONDS);
        Thread.sleep(200); // let the worker go idle, as in the article's run

        Field queuesField = ForkJoinPool.class.getDeclaredField("queues");
        queuesField.setAccessible(true);
        Object[] queues = (Object[]) queuesField.get(pool);
        Class<?> wq = Class.forName("java.util.concurrent.ForkJoinPool$WorkQueue");
        Field phaseField = wq.getDeclaredField("phase");
        phaseField.setAccessible(true);
        Method tryLock = wq.getDeclaredMethod("tryLockPhase");
        Method unlock = wq.getDeclaredMethod("unlockPhase");
        tryLock.setAccessible(true);
        unlock.setAccessible(true);

        System.out.println("queues.length=" + queues.length);
        int submission = -1;
        for (int i = 0; i < queues.length; i++) {
            if (queues[i] == null) continue;
            int phase = phaseField.getInt(queues[i]);
            System.out.printf("idx=%d phase=0x%08x idBits=%d IDLE=%b%n",
                              i, phase, phase & 0xffff, (phase & IDLE) != 0);
            if ((i & 1) == 0 && submission < 0) submission = i;
        }
        if (submission < 0) {
            System.out.println("no submission queue found");
            System.exit(1);
        }
        Object q = queues[submission];
        int before = phaseField.getInt(q);
        boolean locked = (Boolean) tryLock.invoke(q);
        int during = phaseField.getInt(q);
        if (locked) unlock.invoke(q);
        int after = phaseField.getInt(q);
        System.out.printf("seqlock idx=%d before=0x%08x locked=%b during=0x%08x after=0x%08x%n",
                          submission, before, locked, during, after);
        boolean ok = locked && during == before + IDLE && after == before + 2 * IDLE;
        System.out.println("check: during = before + 0x10000, after = before + 0x20000: "
                           + (ok ? "yes" : "NO"));
        pool.shutdown();
        System.exit(ok ? 0 : 1);
    }
}
