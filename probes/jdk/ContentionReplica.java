// The article's CAS-contention replica on the JDK 25, written here: a ring of `tasks` ids, N
// threads each taking tasks by CASing a shared base index forward and then emptying the slot.
// Counts attempts and failures per thread count, in the format of
// probes/src/bin/cas-contention.rs (`thieves=N attempts=A failures=F fail/attempt=R`).
//
// Mode "staggered" starts each thread as it is created, as the article's program does (and,
// like it, counts each thread's final empty check as an attempt); mode "barrier" releases all
// threads together and counts empty checks apart. Each row: median fail/attempt of `runs` runs.
// Run it with probes/jdk/run.sh ContentionReplica [barrier|staggered [runs [tasks]]].

import java.util.Arrays;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

public class ContentionReplica {
    static final class Counts { long attempts, failures, empty, got; }

    static final class Ring {
        final AtomicIntegerArray slots;
        final int mask, top;
        final AtomicInteger base = new AtomicInteger();

        Ring(int tasks) {
            int cap = Integer.highestOneBit(Math.max(1, tasks - 1)) << 1;
            slots = new AtomicIntegerArray(cap);
            mask = cap - 1;
            top = tasks;
            for (int i = 0; i < tasks; i++) slots.set(i, i + 1);
        }

        int take(Counts c, boolean countEmpty) {
            for (;;) {
                int b = base.get();
                if (b >= top) {
                    if (countEmpty) c.attempts++; else c.empty++;
                    return -1;
                }
                c.attempts++;
                if (base.compareAndSet(b, b + 1)) return slots.getAndSet(b & mask, 0) - 1;
                c.failures++;
            }
        }
    }

    static Counts run(int tasks, int thieves, boolean barrier) throws Exception {
        Ring ring = new Ring(tasks);
        AtomicLong consumed = new AtomicLong();
        byte[] seen = new byte[tasks];
        Counts[] per = new Counts[thieves];
        CyclicBarrier start = new CyclicBarrier(thieves);
        Thread[] ts = new Thread[thieves];
        for (int i = 0; i < thieves; i++) {
            Counts c = per[i] = new Counts();
            ts[i] = Thread.ofPlatform().start(() -> {
                try { if (barrier) start.await(); } catch (Exception e) { throw new RuntimeException(e); }
                while (consumed.get() < tasks) {
                    int t = ring.take(c, !barrier);
                    if (t >= 0) {
                        synchronized (seen) { seen[t]++; }
                        consumed.incrementAndGet();
                        c.got++;
                    }
                }
            });
        }
        for (Thread t : ts) t.join();
        Counts total = new Counts();
        for (Counts c : per) {
            total.attempts += c.attempts; total.failures += c.failures;
            total.empty += c.empty; total.got += c.got;
        }
        for (int i = 0; i < tasks; i++) {
            if (seen[i] != 1) throw new IllegalStateException("task " + i + " taken " + seen[i] + " times");
        }
        return total;
    }

    static double rate(Counts c) { return c.attempts == 0 ? 0 : (double) c.failures / c.attempts; }

    public static void main(String[] args) throws Exception {
        boolean barrier = args.length == 0 || !args[0].equals("staggered");
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        int tasks = args.length > 2 ? Integer.parseInt(args[2]) : 200_000;
        String load = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).split(" ")[0];
        System.out.printf("# ContentionReplica (JDK 25): model=index (the article's replica) start=%s tasks=%d runs=%d cores=%d load average %s%n",
                          barrier ? "barrier" : "staggered (as the article's program)", tasks, runs,
                          Runtime.getRuntime().availableProcessors(), load);
        for (int n : new int[] {1, 2, 4, 8, 16}) {
            Counts[] all = new Counts[runs];
            for (int r = 0; r < runs; r++) all[r] = run(tasks, n, barrier);
            // Sorted by fail/attempt: the printed counts are the median run's, so they agree
            // with the rate printed beside them.
            Arrays.sort(all, (x, y) -> Double.compare(rate(x), rate(y)));
            Counts mid = all[runs / 2];
            System.out.printf("thieves=%d attempts=%d failures=%d fail/attempt=%.3f%s   (median of %d; min %.3f, max %.3f)%n",
                              n, mid.attempts, mid.failures, rate(mid),
                              barrier ? " empty=" + mid.empty : "", runs, rate(all[0]), rate(all[runs - 1]));
        }
        System.out.println("check: every task taken exactly once");
    }
}
