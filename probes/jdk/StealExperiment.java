// The article's steal experiment on the real JDK 25 ForkJoinPool, in the format of
// probes/src/bin/forkjoin-steals.rs: 64 RecursiveTasks, each forking 256 leaves, at
// parallelism 1, 2, 4, 8, 16; prints the pool's getStealCount() after each run (the pool is
// quiescent then) and the time. Each row: the median of `runs` runs (args[0], default 3),
// after one warm-up run per parallelism; a leaf loops args[1] times (default 20000).
// Run it with probes/jdk/run.sh StealExperiment [runs [leaf]].

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.RecursiveTask;

public class StealExperiment {
    static volatile long bound = 20000; // read at run time: the JIT cannot fold the loop

    static long leaf() {
        long s = 0, n = bound;
        for (long i = 0; i < n; i++) s = Long.rotateLeft(s, 5) ^ (i * 0x9e3779b9L);
        return s;
    }

    static final class Leaf extends RecursiveTask<Long> {
        protected Long compute() { return leaf(); }
    }

    static final class Root extends RecursiveTask<Long> {
        protected Long compute() {
            List<Leaf> leaves = new ArrayList<>(256);
            for (int i = 0; i < 256; i++) { Leaf l = new Leaf(); l.fork(); leaves.add(l); }
            long x = 0;
            for (Leaf l : leaves) x ^= l.join();
            return x;
        }
    }

    static long[] run(int par) {
        ForkJoinPool pool = new ForkJoinPool(par);
        long t0 = System.nanoTime();
        List<ForkJoinTask<Long>> roots = new ArrayList<>(64);
        for (int i = 0; i < 64; i++) roots.add(pool.submit(new Root()));
        long x = 0;
        for (ForkJoinTask<Long> r : roots) x ^= r.join();
        long ms = (System.nanoTime() - t0) / 1_000_000;
        long steals = pool.getStealCount();
        pool.shutdown();
        return new long[] {steals, ms, x};
    }

    public static void main(String[] args) {
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        bound = args.length > 1 ? Long.parseLong(args[1]) : 20000;
        long t0 = System.nanoTime();
        long x = 0;
        for (int i = 0; i < 2000; i++) x = leaf();
        double leafUs = (System.nanoTime() - t0) / 1e3 / 2000;
        System.out.printf("# StealExperiment (JDK 25 ForkJoinPool): 64 roots x 256 leaves, leaf=%d iterations (%.1f us each, checksum %d), %d run(s) per row after a warm-up, %d cores%n",
                          bound, leafUs, x & 0xff, runs, Runtime.getRuntime().availableProcessors());
        for (int par : new int[] {1, 2, 4, 8, 16}) {
            run(par); // warm-up
            long[] steals = new long[runs], ms = new long[runs];
            for (int r = 0; r < runs; r++) { long[] o = run(par); steals[r] = o[0]; ms[r] = o[1]; }
            Arrays.sort(steals); Arrays.sort(ms);
            System.out.printf("par= %d forked=16384 steals=%d ms=%d   (steals %d-%d, ms %d-%d)%n",
                              par, steals[runs / 2], ms[runs / 2], steals[0], steals[runs - 1], ms[0], ms[runs - 1]);
        }
    }
}
