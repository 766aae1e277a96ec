// The article's steal experiment on the real JDK 25 ForkJoinPool, in the format of
// probes/src/bin/forkjoin-steals.rs: 64 RecursiveTasks, each forking 256 leaves, at
// parallelism 1, 2, 4, 8, 16 (or the list given); prints the pool's getStealCount() after
// each run (every task has finished then, and runWorker counts a steal before it runs the
// stolen task, so the count is final even while workers still scan) and the time. Each row: the median of `runs` runs,
// after one warm-up run per parallelism.
//
// Run it with probes/jdk/run.sh StealExperiment [runs [leaf [fib [pars [rows]]]]]:
//   leaf  iterations per leaf (default 20000), or `<U>us` to calibrate the iterations so
//         that one leaf costs about U microseconds here (how scripts/lab.py gives the Java
//         and the Rust leaf the same cost);
//   fib   also run fib(N) with no cutoff (fork, compute, join per call); 0 skips it;
//   pars  comma-separated parallelisms (default 1,2,4,8,16);
//   rows  `rows` adds the tab-separated lines scripts/lab.py reads (anything else: none);
//   join  `lifo` joins each root's leaves newest first; default `fifo`, the article's order
//         (oldest first), in which the JDK's join runs the leaf in place at the base end of its
//         queue (`tryRemoveAndExec`), where the thieves take.

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.RecursiveTask;

public class StealExperiment {
    static volatile long bound = 20000; // read at run time: the JIT cannot fold the loop
    static boolean lifoJoins = false;   // set once by main, before any pool starts

    // The same rounds as the Rust leaf: rotate, multiply, xor.
    static long leaf() {
        long s = 0, n = bound;
        for (long i = 0; i < n; i++) s = Long.rotateLeft(s, 5) ^ (i * 0x9e3779b9L);
        return s;
    }

    // Microseconds per leaf at the current bound, timed over about 50 ms (after the JIT).
    static double leafCostUs() {
        long sink = 0;
        for (int reps = 1; ; reps *= 2) {
            long t0 = System.nanoTime();
            for (int i = 0; i < reps; i++) sink ^= leaf();
            long ns = System.nanoTime() - t0;
            if ((ns > 50_000_000 && reps >= 64) || reps >= (1 << 24)) {
                if (sink == 42) System.out.print("");
                return ns / 1e3 / reps;
            }
        }
    }

    static final class Leaf extends RecursiveTask<Long> {
        protected Long compute() { return leaf(); }
    }

    static final class Root extends RecursiveTask<Long> {
        protected Long compute() {
            List<Leaf> leaves = new ArrayList<>(256);
            for (int i = 0; i < 256; i++) { Leaf l = new Leaf(); l.fork(); leaves.add(l); }
            long x = 0;
            if (lifoJoins) for (int i = leaves.size() - 1; i >= 0; i--) x ^= leaves.get(i).join();
            else for (Leaf l : leaves) x ^= l.join();
            return x;
        }
    }

    static final class Fib extends RecursiveTask<Long> {
        final int n;
        Fib(int n) { this.n = n; }
        protected Long compute() {
            if (n < 2) return (long) n;
            Fib f1 = new Fib(n - 1);
            f1.fork();
            long b = new Fib(n - 2).compute();
            return f1.join() + b;
        }
    }

    static long fibPlain(int n) { return n < 2 ? n : fibPlain(n - 1) + fibPlain(n - 2); }

    // One run: {steals, microseconds}.
    static long[] roots(int par) {
        ForkJoinPool pool = new ForkJoinPool(par);
        long t0 = System.nanoTime();
        List<ForkJoinTask<Long>> roots = new ArrayList<>(64);
        for (int i = 0; i < 64; i++) roots.add(pool.submit(new Root()));
        long x = 0;
        for (ForkJoinTask<Long> r : roots) x ^= r.join();
        long us = (System.nanoTime() - t0) / 1_000;
        long steals = pool.getStealCount();
        pool.shutdown();
        if (x == 42) System.out.print("");
        return new long[] {steals, us};
    }

    static long[] fib(int par, int n, long want) {
        ForkJoinPool pool = new ForkJoinPool(par);
        long t0 = System.nanoTime();
        long got = pool.invoke(new Fib(n));
        long us = (System.nanoTime() - t0) / 1_000;
        long steals = pool.getStealCount();
        pool.shutdown();
        if (got != want) {
            System.err.printf("StealExperiment: fib(%d) = %d, expected %d%n", n, got, want);
            System.exit(1);
        }
        return new long[] {steals, us};
    }

    interface Run { long[] at(int par); }

    static void rows(String workload, String what, int[] pars, int runs, boolean tsv, Run run) {
        for (int par : pars) {
            run.at(par); // warm-up
            long[] steals = new long[runs], us = new long[runs];
            for (int r = 0; r < runs; r++) { long[] o = run.at(par); steals[r] = o[0]; us[r] = o[1]; }
            Arrays.sort(steals); Arrays.sort(us);
            System.out.printf("par= %d %s steals=%d ms=%d   (steals %d-%d, ms %d-%d)%n",
                              par, what, steals[runs / 2], us[runs / 2] / 1000, steals[0], steals[runs - 1],
                              us[0] / 1000, us[runs - 1] / 1000);
            if (tsv) System.out.printf("row\tjdk\t%s\t%d\t%.2f\t%.2f\t%.2f\t%d%n", workload, par,
                                       us[runs / 2] / 1e3, us[0] / 1e3, us[runs - 1] / 1e3, steals[runs / 2]);
        }
    }

    public static void main(String[] args) {
        int runs = Math.max(1, args.length > 0 ? Integer.parseInt(args[0]) : 3);
        String leafArg = args.length > 1 ? args[1] : "20000";
        int fibN = args.length > 2 ? Integer.parseInt(args[2]) : 0;
        int[] pars = args.length > 3 ? Arrays.stream(args[3].split(",")).mapToInt(Integer::parseInt).toArray()
                                     : new int[] {1, 2, 4, 8, 16};
        boolean tsv = args.length > 4 && args[4].equals("rows");
        lifoJoins = args.length > 5 && args[5].equals("lifo");
        if (leafArg.endsWith("us")) {
            double want = Double.parseDouble(leafArg.substring(0, leafArg.length() - 2));
            bound = 100_000;
            leafCostUs(); // let the JIT compile the leaf first
            // Scale, time again at the new bound, until it is within 2% of the target: one
            // scaling from 100,000 iterations once left the leaf 9% cheaper than asked
            // (13.69 us for 15), the JIT having compiled it again meanwhile.
            for (int pass = 0; pass < 5; pass++) {
                double us = leafCostUs();
                if (pass > 0 && Math.abs(us - want) <= 0.02 * want) break;
                bound = Math.max(1, Math.round(want / us * bound));
            }
        } else {
            bound = Long.parseLong(leafArg);
        }
        double leafUs = leafCostUs();
        String load;
        try { load = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).split(" ")[0]; }
        catch (java.io.IOException e) { load = "?"; }
        System.out.printf("# StealExperiment (JDK 25 ForkJoinPool): 64 roots x 256 leaves, leaf=%d iterations (%.2f us each), %d run(s) per row after a warm-up, %d cores, load average %s%n",
                          bound, leafUs, runs, Runtime.getRuntime().availableProcessors(), load);
        if (tsv) System.out.printf("leaf\tjava\t%d\t%.3f%n", bound, leafUs);
        System.out.printf("# each root joins its leaves %s%n",
                          lifoJoins ? "newest first (lifo)" : "oldest first (fifo, the article's order)");
        rows("64x256", "forked=16384", pars, runs, tsv, StealExperiment::roots);
        if (fibN > 0) {
            long want = fibPlain(fibN);
            System.out.printf("# fib(%d) with no cutoff = %d: RecursiveTask fork, compute, join%n", fibN, want);
            rows("fib" + fibN, "fib(" + fibN + ")", pars, runs, tsv, par -> fib(par, fibN, want));
        }
    }
}
