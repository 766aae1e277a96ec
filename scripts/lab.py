#!/usr/bin/env python3
"""The contention lab in one command: our pool beside rayon and the real JDK 25 ForkJoinPool,
and our queue beside crossbeam-deque, measured in one run on this machine, written as one table.

    python3 scripts/lab.py            # 5 runs per row (fib: 21), parallelism 1,2,4,8,16, fib(30)
    python3 scripts/lab.py --quick    # a smoke run: 1 run, parallelism 1,2, fib(20), few tasks

It runs four probes (the first three print tab-separated rows with --rows):
  probes/src/bin/forkjoin-steals.rs   64 roots x 256 leaves and fib(N), ours and rayon, and ours
                                      in rayon's shape on 64 x 256 (--inside); run twice, the
                                      second time with empty leaves, which leaves each pool's
                                      own work per task
  probes/jdk/StealExperiment.java     64 x 256 and fib(N) on the JDK 25 (skipped, with a note,
                                      without one)
  probes/src/bin/queue-ops.rs         push+pop, push+steal, 1 owner + k thieves, one thief at a paced
                                      owner's heels; ours, crossbeam and the bare protocol
  probes/src/bin/atomic-costs.rs      what one load, swap, CAS, fence, allocation, seal costs here
and, where valgrind is installed, counts the instructions of a queue's push+pop and push+steal
and of a pool's fork and join (queue-ops --count, forkjoin-steals --count): the same from run
to run where the timings are not, and the verdicts cite them; and, where perf works, samples
64 x 256's timed runs at parallelism 2 and 8 (forkjoin-steals --inside --perf-ctl) to say where
each pool's CPU went, in the leaves or outside them (ours in both shapes).
The leaf is calibrated on each side to the same cost (--leaf-us), and both measured costs are
printed in the table's header. Every ratio is ours / peer from the same run: below 1.0 we are
faster. The table goes to stdout and to target/lab/table.md.

Floors, from the same run (the contention page explains them):
  queue push+pop   2 x swap SeqCst: the owner's two fenced swaps, which the JDK's protocol needs
  queue push+steal swap SeqCst + CAS SeqCst: the owner's swap and the thief's slot CAS
  one fork         2 x swap SeqCst + rayon's time per join (its fib at parallelism 1 / joins):
                   the protocol's two swaps on top of the cheapest fork-join this machine ran
  64 x 256         the leaves' own work with no pool: all 16,384 leaves split evenly over
                   min(par, cores) threads started together, timed in turn with the pools' runs:
                   a bound no pool can beat by more than the noise (it also bounds ours/JDK:
                   floor / JDK's time). Timed together, not one thread's time / cores: cores
                   busy at once may each run slower than one alone, and the table says by how much
A target is out of reach only where the floor itself is above it; the verdicts say which.
Under the pools' table, 64 x 256 at parallelism 1 per leaf, against each language's leaf as
calibrated: one worker runs every task there, so a JDK far above its own leaf ran that leaf
slower inside its pool (its JIT's doing, JVM by JVM), and ours / JDK then compares the leaves.
"""

import argparse
import datetime
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# perf's sampling rate for the 64x256 profile: a sample every 0.25 ms of a thread's CPU.
PERF_HZ = 4000
# The pools cpu_profile tells apart, in its table's order: ours in the JDK probe's shape, ours
# in rayon's (`--inside`), rayon.
PROFILED = ("ours", "ours inside", "rayon")


def run(cmd):
    """Runs a probe and returns its stdout; a failing probe stops the lab with its output."""
    print("$ " + " ".join(cmd), file=sys.stderr, flush=True)
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"lab: {' '.join(cmd)} failed ({p.returncode}):\n{p.stdout}{p.stderr}")
    return p.stdout


def rows(text, tag):
    """The tab-separated fields of every line that starts with `tag`."""
    return [line.split("\t")[1:] for line in text.splitlines() if line.startswith(tag + "\t")]


def ratio(a, b):
    return f"{a / b:.2f}" if a is not None and b else "-"


# Untimed races per queue before queue-ops' contended rows (its `--warm-up`), passed and printed
# from here so that the table's text says what ran.
WARM_UP = 4

# Processes of queue-ops whose runs the queue rows pool (one with --quick): see `main`.
QUEUE_PROCS = 15
# 64x256's tasks: the leaves (the 64 roots aside), as the probes count them.
ROOTS_X_LEAVES = 64 * 256
# An excess per leaf, over the leaf as calibrated, above this share of it is the leaf's, not the
# pool's. The JDK's 64x256 at parallelism 1, in the tables the book keeps: on the AMD EPYC of
# family 25 either 3-4% above its leaf (5 tables) or 16-30% (14), the JVM's JIT deciding run by
# run; on the family 23 one 5% and 17%; on the Intel Xeon of model 167 2-7% in all 12. A pool's
# work per task is well under a microsecond (a tenth of the lab's 15 us leaf is 1.5).
SLOW_LEAF = 0.10

def joins(n):
    """Joins in fib(n) with no cutoff: fib(n + 1) - 1 (one per call with n >= 2)."""
    a, b = 0, 1
    for _ in range(n + 1):
        a, b = b, a + b
    return a - 1


def floor_costs(text):
    """{operation: median ns} from atomic-costs' lines, e.g. 'swap SeqCst     2.31 ns   (...)'."""
    found = (re.match(r"^(\S.*?)\s+([0-9.]+) ns\b", line) for line in text.splitlines())
    return {m.group(1): float(m.group(2)) for m in found if m and not m.group(1).startswith("#")}


def target_line(what, ours, target, floor=None, why="", cells=None):
    """One verdict: met, missed by how much, or out of reach because the floor is above it.
    `cells`: ours and the peer as (median, min, max), given for a target on ours / peer: a miss
    where ours' fastest run over the peer's slowest is within the target says so (this run
    cannot tell the miss from noise)."""
    if ours is None or target is None:
        return f"- {what}: -"
    head = f"- {what}: {ours:.2f} against a target of {target:.2f}"
    if ours <= target:
        return f"{head}: met"
    if floor is not None and floor > target:
        return f"{head}: out of reach here (the floor, {floor:.2f}, is above the target)"
    line = f"{head}: missed by {ours / target:.2f}x"
    if cells and all(cells) and cells[1][2] and cells[0][1] / cells[1][2] <= target:
        best = cells[0][1] / cells[1][2]
        line += f" (inside the spread: ours' fastest run over the peer's slowest is {best:.2f})"
    return line + why


def instructions(bin_dir, quick):
    """Instructions per operation, counted by valgrind's callgrind (steady from run to run
    where timings are not): each single-threaded probe at two sizes, the difference divided by
    what was added, so the set-up cancels out. {(what, system): count}, or None without
    valgrind."""
    if shutil.which("valgrind") is None:
        return None

    def count(*args):
        cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *args]
        print("$ " + " ".join(cmd), file=sys.stderr, flush=True)
        p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        m = re.search(r"Collected : (\d+)", p.stderr)
        if p.returncode != 0 or not m:
            sys.exit(f"lab: {' '.join(cmd)} failed ({p.returncode}):\n{p.stdout}{p.stderr}")
        return int(m.group(1))

    small, big = (6400, 12800) if quick else (64000, 128000)
    queue_ops = os.path.join(bin_dir, "queue-ops")
    fj = os.path.join(bin_dir, "forkjoin-steals")
    found = {}
    for op in ("push+pop", "push+steal"):
        for q in ("ours", "crossbeam"):
            a, b = (count(queue_ops, "--count", f"{q}:{op}", "--tasks", str(n)) for n in (small, big))
            found[(op, q)] = (b - a) / (big - small)
    f_small, f_big = (14, 16) if quick else (20, 24)
    for pool in ("ours", "rayon"):
        a, b = (count(fj, "--count", pool, "--fib", str(n)) for n in (f_small, f_big))
        found[("join", pool)] = (b - a) / (joins(f_big) - joins(f_small))
    found["sizes"] = (small, big, f_small, f_big)
    return found


def cpu_profile(bin_dir, leaf_n, pars, runs):
    """Where 64x256's CPU went, by perf: one `forkjoin-steals` process per parallelism, sampled
    only during its timed runs (`--perf-ctl`: `probes/src/perf.rs`), each sample counted for
    the pool whose thread it came from (ours' workers and `main-ours`; ours in rayon's shape,
    `--inside`: `ch07-inside-N` and `main-inside`; rayon's and `main-rayon`). {par: {pool: (cpu
    ms per run, leaf ms per run, kernel ms per run, [(ms per run, symbol)] outside the leaf,
    most first)}}, and the command; or (None, why)."""
    if shutil.which("perf") is None:
        return None, "perf is not installed"
    lab = os.path.join(ROOT, "target", "lab")
    os.makedirs(lab, exist_ok=True)
    ctl, ack, data = (os.path.join(lab, f) for f in ("perf-ctl", "perf-ack", "perf-64x256.data"))
    found = {}
    for par in pars:
        for fifo in (ctl, ack):
            if os.path.exists(fifo):
                os.remove(fifo)
            os.mkfifo(fifo)
        cmd = ["perf", "record", "-q", "-F", str(PERF_HZ), "-D", "-1", f"--control=fifo:{ctl},{ack}",
               "-o", data, "--", os.path.join(bin_dir, "forkjoin-steals"), "--runs", str(runs),
               "--leaf", str(leaf_n), "--par", str(par), "--inside", "--perf-ctl", f"{ctl},{ack}"]
        print("$ " + " ".join(cmd), file=sys.stderr, flush=True)
        p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        if p.returncode != 0:  # no permission (perf_event_paranoid), no perf events in a VM, ...
            return None, f"perf record failed ({p.returncode}): {(p.stderr or p.stdout).strip()[-300:]}"
        rep = subprocess.run(["perf", "report", "-i", data, "--no-children", "--sort", "comm,dso,sym",
                              "--stdio", "-F", "period,comm,dso,sym", "-t", "\t"],
                             cwd=ROOT, capture_output=True, text=True)
        per = {}
        windows = runs + 1  # and the warm-up run, which is a window too
        for line in rep.stdout.splitlines():
            f = [x.strip() for x in line.split("\t")]
            if line.startswith("#") or len(f) != 4 or not f[0].isdigit():
                continue
            period, comm, dso, sym = int(f[0]), f[1], f[2], f[3].split("] ", 1)[-1]
            pool = ("ours" if comm.startswith("ch07-worker") or comm == "main-ours" else
                    "ours inside" if comm.startswith("ch07-inside") or comm == "main-inside" else
                    "rayon" if comm.startswith("rayon-") or comm == "main-rayon" else None)
            if pool is None:
                continue
            ms = period / 1e6 / windows  # cpu-clock's period is in nanoseconds
            acc = per.setdefault(pool, [0.0, 0.0, 0.0, {}])  # cpu, leaf, kernel, {symbol: ms}
            acc[0] += ms
            if sym == "forkjoin_steals::leaf":
                acc[1] += ms
            else:
                acc[2] += ms if dso == "[kernel.kallsyms]" else 0.0
                acc[3][sym] = acc[3].get(sym, 0.0) + ms
        if set(per) != set(PROFILED):
            return None, f"perf report named no samples of {'/'.join(set(PROFILED) - set(per))} at par {par}"
        found[par] = {pool: (c, l, k, sorted(((v, s) for s, v in syms.items()), reverse=True))
                      for pool, (c, l, k, syms) in per.items()}
    shown = f"perf record -F {PERF_HZ} -D -1 --control=fifo:CTL,ACK -- forkjoin-steals --runs {runs} --leaf {leaf_n} --par P --inside --perf-ctl CTL,ACK"
    return found, shown


def protocol_pinned(queue, op, k):
    """The measured `floor + pins` cell of a queue row: the protocol on bare ids as ours takes
    (pinned thieves: `protocol+pin`; push+pop, whose owner never pins: `protocol`), or None."""
    return queue.get(("protocol" if op == "push+pop" else "protocol+pin", op, k))


def at_heels(queue):
    """The heels row (`queue-ops`: one thief, the owner paced so that the thief takes each task
    as it lands), ns above the pace: (the protocol / crossbeam, a line that says where the time
    goes), or None when a cell is missing."""
    o, c, p, pp, u = (queue.get((who, "heels", 1)) for who in
                      ("ours", "crossbeam", "protocol", "protocol+pin", "protocol-unfenced"))
    if not (o and c and p and pp and u):
        return None
    return p[0] / c[0], (
        f"- at the heels (the owner paced, its thief taking each task as it lands and then polling "
        f"the lines of the next push; `queue-ops`' heels row), per task above the pace: crossbeam "
        f"{c[0]:.1f} ns, the protocol alone {p[0]:.1f} ({p[0] / c[0]:.2f} x crossbeam), and with its "
        f"push's swap made a plain Release store (`protocol-unfenced`, not the JDK's protocol) "
        f"{u[0]:.1f}: the JDK's fully fenced push costs {p[0] - u[0]:.1f} ns a task there, waiting for "
        f"the lines the thief has read; the pins {pp[0] - p[0]:.1f}, ours' task boxes and their "
        f"hand-back {o[0] - pp[0]:.1f}")


def one_worker_leaf(pool, leaf, fib, n_joins):
    """64x256 at parallelism 1, per leaf, against each language's leaf as calibrated: one worker
    runs every task there, so what is above the leaf is the pool's work per task (of the order
    of one fork and join of its fib) or the leaf running slower in the pool than calibrated. A
    JDK more than `SLOW_LEAF` above its leaf ran the leaf slower inside its pool (the JIT
    compiles it anew there, differently from JVM to JVM): then ours / JDK on 64x256 measures the
    two leaves, not the two pools. None when a cell is missing."""
    parts, jdk_excess = [], None
    for system, lang, name in (("ours", "rust", "ours"), ("rayon", "rust", "rayon"), ("jdk", "java", "the JDK")):
        c, f = pool.get((system, "64x256", 1)), pool.get((system, f"fib{fib}", 1))
        if not (c and f and lang in leaf):
            continue
        each = c[0] * 1e3 / ROOTS_X_LEAVES  # us per leaf, everything included
        join_ns = f[0] * 1e6 / n_joins
        parts.append(f"{name} {each:.2f} us against its leaf's {leaf[lang][1]:.2f} as calibrated "
                     f"({each - leaf[lang][1]:+.2f}; a whole fork and join of its fib{fib}: {join_ns / 1e3:.3f} us)")
        if system == "jdk":
            jdk_excess = (each - leaf[lang][1], join_ns / 1e3, leaf[lang][1])
    if not parts:
        return None
    line = ("64x256 at parallelism 1, where one worker runs every task, per leaf (the row's median / "
            f"{ROOTS_X_LEAVES:,}): " + "; ".join(parts) + ".")
    if jdk_excess:
        excess, join_us, calibrated = jdk_excess
        if excess > max(10 * join_us, SLOW_LEAF * calibrated):
            line += (f" The JDK's {excess:.2f} us above its leaf is {100 * excess / calibrated:.0f}% of the leaf "
                     f"and {excess / join_us:.0f} times what a whole fork and join cost it: its leaf ran slower "
                     "inside its pool than in its calibration loop (the JIT compiles it anew, not the same way "
                     "in every JVM), so in this run ours/JDK on 64x256 compares the two languages' leaves "
                     "more than the two pools.")
        else:
            line += (f" The JDK's excess over its leaf, {100 * excess / calibrated:.1f}% of it, is below "
                     f"{100 * SLOW_LEAF:.0f}%: its pool's work per task (a fork, a result boxed, a join that "
                     "looks for its task in the queue) and its leaf's cost are not told apart here, and "
                     "ours/JDK compares the pools.")
    return line


def floor_ratio(floor, peer):
    """The floor as a ratio to the peer's time, which bounds ours / peer from below; None when
    the peer itself ran below the floor in this run (then the floor, timed apart, rules nothing
    out: what the peer did, ours could)."""
    return floor / peer if floor and peer and floor <= peer else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a smoke run with tiny sizes")
    ap.add_argument("--runs", type=int, help="runs per row (default 5; 1 with --quick); ours' and rayon's fib rows take 4 x runs + 1, "
                    f"the queue rows that many in each of {QUEUE_PROCS} processes (one with --quick)")
    ap.add_argument("--leaf-us", type=float, default=15.0, help="cost of one leaf (default 15 us)")
    ap.add_argument("--out", default=os.path.join(ROOT, "target", "lab", "table.md"))
    a = ap.parse_args()
    runs = a.runs or (1 if a.quick else 5)
    # A fib run is short (about 10-30 ms here) and swings with the host by a third: ours' and
    # rayon's fib rows take four times the runs, alternated, for medians that hold still.
    fib_runs = 1 if a.quick else 4 * runs + 1
    pars = "1,2" if a.quick else "1,2,4,8,16"
    fib = "20" if a.quick else "30"
    tasks = "20000" if a.quick else "200000"
    thieves = "1,2" if a.quick else "1,2,4"

    build = ["cargo", "build", "-q", "--release", "-p", "probes", "--bin", "forkjoin-steals", "--bin", "queue-ops",
             "--bin", "atomic-costs", "--bin", "machine"]
    run(build)
    bin_dir = os.path.join(ROOT, "target", "release")
    fj = run([os.path.join(bin_dir, "forkjoin-steals"), "--runs", str(runs), "--leaf-us", str(a.leaf_us),
              "--par", pars, "--fib", fib, "--fib-runs", str(fib_runs), "--rows", "--inside"])
    # The same 64x256 with leaves of one iteration: what is left is each pool's own work per
    # task (fork, queue, run, join), the part of a 64x256 gap that a pool's code can explain.
    # `--inside` adds ours in rayon's shape (main blocks once), beside ours in the JDK's.
    empty = run([os.path.join(bin_dir, "forkjoin-steals"), "--runs", str(max(runs, 9)), "--leaf", "1",
                 "--par", pars, "--rows", "--inside"])
    jdk = run([os.path.join(ROOT, "probes", "jdk", "run.sh"), "StealExperiment", str(runs),
               f"{a.leaf_us:g}us", fib, pars, "rows"])
    # The queue rows pool the runs of several processes: a process's runs agree with each other
    # more than with another process's (where the OS puts the threads, and the heap, differ).
    # A process takes about half a second. Eight repetitions of this step, pooled over 3
    # processes, put push+steal at 1.14 to 1.45 times crossbeam and one thief at 0.77 to 6.46;
    # pooled over 15, at 1.18 to 1.20 and 0.85 to 1.42 (AMD EPYC of family 25, 2 cores,
    # 2026-12-07, queue-ops --runs 5 --tasks 200000 --thieves 1,2,4 --warm-up 4 --rows). That
    # steadies the spread between processes, not a slow spell of the host that lasts the whole
    # step: the lab's run of 05:06 that day read 4.68 for one thief (the contention page's
    # earlier runs).
    procs = 1 if a.quick else QUEUE_PROCS
    qs = [run([os.path.join(bin_dir, "queue-ops"), "--runs", str(runs), "--tasks", tasks,
               "--thieves", thieves, "--warm-up", str(WARM_UP), "--rows"]) for _ in range(procs)]
    q = "".join(qs)
    floor = run([os.path.join(bin_dir, "atomic-costs"), "--runs", str(runs)])
    counted = instructions(bin_dir, a.quick)
    # Where 64x256's CPU went, ours (in both shapes) and rayon, at one parallelism with a core
    # each and at one with four threads a core: perf, sampling only the timed runs.
    leaf_n = next((n for lang, n, _ in rows(fj, "leaf") if lang == "rust"), None)
    profiled = [p for p in ((2,) if a.quick else (2, 8)) if str(p) in pars.split(",")]
    profile, profile_cmd = cpu_profile(bin_dir, leaf_n, profiled, 1 if a.quick else 9) if leaf_n else (None, "no leaf row")
    cost = floor_costs(floor)
    swap, cas = cost.get("swap SeqCst"), cost.get("CAS SeqCst")
    kind = run([os.path.join(bin_dir, "machine"), "--kind"]).strip()  # which profiles to cite
    # A per-machine figure that `scripts/figures.sh lab` keeps, e.g. "profile-queue": its path.
    kept = lambda name: f"chapters/contention/{name}-{kind}.txt"
    if swap is None or cas is None:
        sys.exit("lab: atomic-costs printed no 'swap SeqCst' or 'CAS SeqCst' line:\n" + floor)
    for one in qs:
        if "check: every task taken exactly once: yes" not in one:
            sys.exit("lab: queue-ops did not confirm that every task was taken once:\n" + one)
    # Who paid for ours' pin fence (queue-ops' header: chapter 2, "Who pays for the pin's fence").
    fence = re.search(r"pin fence: (\w+)", q)
    pin_fence = fence.group(1) if fence else "?"

    # (system, workload, par) -> (median ms, min, max, steals)
    pool = {}
    for system, workload, par, med, lo, hi, steals in rows(fj, "row") + rows(jdk, "row"):
        pool[(system, workload, int(par))] = (float(med), float(lo), float(hi), steals)
    leaf = {lang: (n, float(us)) for lang, n, us in rows(fj, "leaf") + rows(jdk, "leaf")}
    # (system, par) -> median ms of 64x256 with empty leaves
    bare = {(system, int(par)): float(med) for system, _, par, med, *_ in rows(empty, "row")}
    no_jdk = "no JDK 25 found" in jdk
    pooled = {}
    for name, op, k, ns in rows(q, "qrun"):
        pooled.setdefault((name, op, int(k)), []).append(float(ns))
    queue = {key: (statistics.median(v), min(v), max(v)) for key, v in pooled.items()}

    machine = run([os.path.join(bin_dir, "machine")]).strip()  # the project's one label
    out = []
    w = out.append
    w(f"# Contention lab: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, {machine} at the end")
    w(f"command: python3 scripts/lab.py {' '.join(sys.argv[1:])}".rstrip())
    w("")
    w(f"{runs} run(s) per cell ({fib_runs} for ours' and rayon's fib rows), median (min-max) in ms; "
      "the JDK's after one warm-up run per row.")
    for lang in ("rust", "java"):
        if lang in leaf:
            w(f"- {lang} leaf: {leaf[lang][0]} iterations, measured {leaf[lang][1]:.2f} us (target {a.leaf_us:g} us)")
    if no_jdk:
        w("- JDK 25: not found (JAVA_HOME, /usr/lib/jvm): its columns are empty")
    w("")
    w("## Pools: ours (ch07 ThreadPool) / rayon 1 / JDK 25 ForkJoinPool")
    w("")
    fmt = lambda c: f"{c[0]:.1f} ({c[1]:.1f}-{c[2]:.1f})" if c else "-"
    n_joins = joins(int(fib))
    rayon1 = pool.get(("rayon", f"fib{fib}", 1))
    per_join = rayon1[0] * 1e6 / n_joins if rayon1 else None
    fork_floor = 2 * swap + per_join if per_join is not None else None
    fib_floor_ms = fork_floor * n_joins / 1e6 if fork_floor is not None else None
    # The leaves alone, run in turn with the pools: (median, min, max) ms per parallelism.
    alone = {par: c[:3] for (system, workload, par), c in pool.items() if system == "leaves"}
    work_floor = lambda par: alone[par][0] if par in alone else None
    w(f"Floor of one fork: 2 x swap ({2 * swap:.2f} ns) + rayon's time per join at parallelism 1 "
      + (f"({per_join:.2f} ns = {rayon1[0]:.1f} ms / {n_joins:,} joins) = {fork_floor:.2f} ns; "
         f"fib{fib} at parallelism 1: {fib_floor_ms:.1f} ms" if fork_floor else "(no rayon row)"))
    if per_join:
        # rayon's join pays one fenced instruction (crossbeam's pop), the JDK's protocol two (the
        # push's swap and the take's): what ours / rayon is at fib's parallelism 1 if ours did
        # everything else in rayon's time and paid the one more swap at atomic-costs' price.
        w(f"rayon's join plus the one swap more that the JDK's protocol pays: {per_join + swap:.2f} ns, "
          f"{(per_join + swap) / per_join:.2f} x rayon's time at parallelism 1 (a price, not a floor: each "
          "fib row that misses its ours/rayon target prices that swap per join, spread over min(par, cores), "
          "against its gap)")
    if alone:
        cores = os.cpu_count() or 1
        w(f"Floor of 64x256: the leaves' own work with no pool, all 16,384 split evenly over min(par, "
          f"{cores} cores) threads started together and timed until the last ends, in turn with the "
          "pools' runs: " + ", ".join(f"par {p} {fmt(alone[p])} ms" for p in sorted(alone)))
        # Why not one thread's time divided by the cores: cores busy at once may each run slower
        # than one alone. Say by how much in this run, where both were measured.
        if 1 in alone and any(p > 1 for p in alone) and cores > 1:
            k = min(max(alone), cores)
            together = alone[min(p for p in alone if p >= k)][0]
            halved = alone[1][0] / k
            w(f"(par 1's time divided by {k} would be {halved:.1f} ms; {k} threads at once took "
              f"{together:.1f}, {100 * (together / halved - 1):+.1f}%: on this machine, in this run, "
              "that is what running the cores together cost or saved)")
    w("")
    w("`ours` runs 64x256 in the JDK probe's shape: `main` submits the 64 roots and joins each from "
      "outside the pool, parking on each one not done yet. rayon's `main` blocks once (`install`); "
      "`ours inside` is our pool in that shape (the roots forked and joined inside one "
      "`ThreadPool::join`), timed in turn with the others: ours inside / rayon compares the two "
      "pools on one shape.")
    w("")
    w("| workload | par | ours ms | ours inside ms | rayon ms | JDK ms | ours/rayon | ours inside/rayon "
      "| ours/JDK | ours/floor | steals ours | steals JDK |")
    w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    verdicts, missing = [], []
    for workload in ("64x256", f"fib{fib}"):
        for par in map(int, pars.split(",")):
            o, r, j = (pool.get((s, workload, par)) for s in ("ours", "rayon", "jdk"))
            i = pool.get(("ours-inside", workload, par))  # 64x256 only
            rr, rj = ratio(o and o[0], r and r[0]), ratio(o and o[0], j and j[0])
            ri = ratio(i and i[0], r and r[0]) if i else "-"
            fl = (fib_floor_ms if par == 1 else None) if workload.startswith("fib") else work_floor(par)
            rf = ratio(o and o[0], fl)
            verdicts.append((workload, par, rr, rj, rf, fl, r and r[0], j and j[0], (o, r), (i, ri)))
            missing += [f"{s} {workload} par {par}" for s, c in (("ours", o), ("rayon", r), ("jdk", j))
                        if c is None and not (s == "jdk" and no_jdk)]
            if workload == "64x256" and fl is None:
                missing.append(f"leaves alone 64x256 par {par}")
            if workload == "64x256" and i is None:
                missing.append(f"ours inside 64x256 par {par}")
            w(f"| {workload} | {par} | {fmt(o)} | {fmt(i)} | {fmt(r)} | {fmt(j)} | {rr} | {ri} | {rj} | {rf} "
              f"| {o[3] if o else '-'} | {j[3] if j else '-'} |")
    w("")
    leaf_note = one_worker_leaf(pool, leaf, fib, n_joins)
    if leaf_note:
        w(leaf_note)
        w("")
    w(f"The pools' own work per task: 64x256 again with leaves of one iteration ({max(runs, 9)} runs, "
      "median ms), over its 16,384 leaves. Here each task's memory is still in the cache when it "
      "runs; with real leaves, and more threads than cores, it often is not, and the pools' work "
      "per task grows (the table under this one says by how much). The shapes are the table's "
      "above: ours inside / rayon compares the two pools' work per task alone.")
    w("")
    w("| par | ours ms | ours inside ms | rayon ms | ours ns per leaf | ours inside ns per leaf "
      "| rayon ns per leaf | ours/rayon | ours inside/rayon |")
    w("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for par in map(int, pars.split(",")):
        o, i, r = (bare.get((sys_, par)) for sys_ in ("ours", "ours-inside", "rayon"))
        per = lambda ms: f"{ms * 1e6 / ROOTS_X_LEAVES:.0f}" if ms is not None else "-"
        ms = lambda x: f"{x:.2f}" if x is not None else "-"
        w(f"| {par} | {ms(o)} | {ms(i)} | {ms(r)} | {per(o)} | {per(i)} | {per(r)} | {ratio(o, r)} | {ratio(i, r)} |")
        missing += [f"{s} 64x256 empty leaves par {par}"
                    for s, c in (("ours", o), ("ours inside", i), ("rayon", r)) if c is None]
    w("")
    w("Where 64x256's CPU went, ours, ours inside and rayon: "
      + (f"`{profile_cmd}`, one process per parallelism, sampling only the timed runs (each "
         "pool's warm-up run among them); a sample counts for the pool whose thread it came "
         "from. ms of CPU per run, both cores together. The leaves' own CPU varies with the "
         "machine from run to run; what is outside them is each pool's work, the kernel's "
         "for it (parking, waking, page faults) and the main thread's waits (and, the same for all, "
         "its naming of the threads for perf as each window opens). ours and ours inside are one "
         "pool in two shapes (the JDK probe's: `main` submits each root and joins it from outside; "
         "rayon's: `main` blocks once), sampled in runs of their own: what ours spends above ours "
         "inside is mostly that shape's cost, main's submissions and waits outside the pool, "
         "where it is larger than the runs' spread."
         if profile else f"not measured here: {profile_cmd}."))
    if profile:
        w("")
        w("| par | pool | CPU ms | in the leaves | outside the leaves | of it in the kernel | most outside the leaves |")
        w("|---:|---|---:|---:|---:|---:|---|")
        for par in sorted(profile):
            for pool in PROFILED:
                c, l, k, syms = profile[par][pool]
                top = ", ".join(f"`{sym[:60]}` {v:.2f}" for v, sym in syms[:3] if v >= 0.005)
                w(f"| {par} | {pool} | {c:.1f} | {l:.1f} | {c - l:.2f} | {k:.2f} | {top} |")
    recycled = [(int(par), pct) for workload, par, pct in rows(fj, "boxes") if workload == f"fib{fib}"]
    if recycled:
        w("")
        w(f"Task boxes our pool recycled on fib{fib} (median per row; the rest came from malloc, "
          "chapter 2's reclaim): " + ", ".join(f"par {par} {pct}%" for par, pct in sorted(recycled)))
    w("")
    w(f"## Queues: ours (ch04 WorkQueue, pin fence: {pin_fence}) / crossbeam-deque 0.8, ns per operation")
    w("")
    w(f"{runs} run(s) in each of {procs} process(es) of queue-ops, pooled: median (min-max); "
      "ours, crossbeam's and the floor's runs alternate within each process. Before the "
      f"1 owner + k thieves rows each process runs {WARM_UP} untimed races per queue (`queue-ops "
      "--warm-up`): ours' owner recycles a box only once it has come home, so a process's "
      "first races take many boxes from malloc (`race-rounds`' malloc column).")
    w("")
    w(f"Floors: push+pop = 2 x swap SeqCst = {2 * swap:.2f} ns; push+steal = swap + CAS SeqCst = "
      f"{swap + cas:.2f} ns (atomic-costs, below); 1 owner + k thieves = the same run on the protocol "
      "alone (chapter 4's push and poll on bare ids: no task boxes, no pins; "
      "`probes::protocol::Protocol`), measured beside it. `floor + pins`: that run again with "
      "chapter 2's pin around each poll, as ours has (`Protocol::pinned`): ours over it is what "
      "the task boxes and their hand-back cost. In the push+pop and push+steal rows, `floor + "
      "pins` is measured too: the same pairs on the protocol with bare ids, the thief's take "
      "pinned (the owner's never is): ours over it is what the task's box costs. The heels row: "
      "one thief, and the owner paced by a loop before each push (`queue-ops --pace`, timed alone "
      "beside each run), so that the thief takes each task as it lands and its next poll reads "
      "the lines the owner's next push writes; ns per task above the pace. It has no target: it "
      "measures the regime a contended run falls into when its thief catches up (`race-rounds`' "
      "slow rounds).")
    w("")
    w("| operation | ours ns | crossbeam ns | floor ns | floor + pins ns | ours/crossbeam | ours/floor |")
    w("|---|---:|---:|---:|---:|---:|---:|")
    queue_floor = {"push+pop": 2 * swap, "push+steal": swap + cas}
    queue_verdicts = []
    for op, k in sorted({(op, k) for (_, op, k) in queue}, key=lambda x: (x[0] == "heels", x[1], x[0])):
        o, c = queue.get(("ours", op, k)), queue.get(("crossbeam", op, k))
        r = ratio(o and o[0], c and c[0])
        p, pp = queue.get(("protocol", op, k)), protocol_pinned(queue, op, k)
        fl = queue_floor.get(op) if not k else (p and p[0])
        rf = ratio(o and o[0], fl) if fl else "-"
        label = ("1 owner + 1 thief at its heels" if op == "heels" else
                 f"1 owner + {k} thie{'f' if k == 1 else 'ves'}" if k else op)
        w(f"| {label} | {fmt(o)} | {fmt(c)} | {fmt(p) if k else (f'{fl:.2f}' if fl else '-')} "
          f"| {fmt(pp)} | {r} | {rf} |")
        queue_verdicts.append((label, op, k, fl, (o, c)))
    w("")
    # Ours over the floor of each row, split at the protocol measured on bare ids: in the
    # contended rows the pins' share, then the boxes'; in the push rows the box's. Printed for
    # every row, met or missed; a miss's verdict points here.
    cores = os.cpu_count() or 1
    for label, op, k, fl, (o, _) in queue_verdicts:
        pp = protocol_pinned(queue, op, k)
        if op == "heels" or not (o and fl and pp):
            continue
        if k:
            line = (f"- {label}: of ours' {o[0] - fl:.1f} ns over the floor, the pins took {pp[0] - fl:.1f} "
                    f"(floor + pins) and the task boxes and their hand-back {o[0] - pp[0]:.1f}")
        else:
            how, locked = (("the owner never pins", "two swaps") if op == "push+pop" else
                           ("the thief pinned", "swap and CAS"))
            line = (f"- {label}: the protocol on bare ids ({how}; the `floor + pins` column) took "
                    f"{pp[0]:.1f} ns, {pp[0] - fl:+.1f} against its {locked}; ours took {o[0]:.1f}, "
                    f"{o[0] - pp[0]:+.1f} against it: what the task's box costs")
        # More threads than cores: who runs is the scheduler's choice, and the runs show it.
        if k + 1 > cores:
            line += (f"; with {k + 1} threads on {cores} cores ours' runs spread from {o[1]:.1f} "
                     f"to {o[2]:.1f} ns: read the runs, not this split")
        w(line)
    heels = at_heels(queue)
    if heels:
        w(heels[1])
    w("")
    w("## The floor: single operations on this machine (probes/src/bin/atomic-costs.rs)")
    w("")
    w("```text")
    out.extend(line for line in floor.splitlines() if line.strip())
    w("```")
    w("")
    w("## Instructions per operation, counted by valgrind")
    w("")
    if counted is None:
        w("valgrind not found: no counts (they explain the verdicts below where timings are noisy).")
    else:
        small, big, f_small, f_big = counted["sizes"]
        w(f"callgrind, one thread: `queue-ops --count QUEUE:OP --tasks N` at N = {small} and {big}, "
          f"and `forkjoin-steals --count POOL --fib N` at N = {f_small} and {f_big} (one worker); the "
          "difference of the two counts divided by the pairs, or the joins, added. Steady from run "
          "to run where the times above are not (rerun it to see how steady on this machine).")
        w("")
        w("| operation | ours | peer | ours/peer |")
        w("|---|---:|---:|---:|")
        for op, peer in (("push+pop", "crossbeam"), ("push+steal", "crossbeam"), ("join", "rayon")):
            o, p = counted[(op, "ours")], counted[(op, peer)]
            label = "fork + join (fib)" if op == "join" else op
            w(f"| {label} | {o:.1f} | {p:.1f} ({peer}) | {o / p:.2f} |")
    w("")
    w("## Verdicts: the targets of issue 16, from this run")
    w("")
    w("Ratios: ours / peer, or ours / floor. Queue in ns per operation.")
    w("")
    num = lambda x: None if x in (None, "-") else float(x)
    for label, op, k, fl, cells in queue_verdicts:
        if op == "heels":
            continue  # no target: it explains the contended rows' misses
        o, c = (cell and cell[0] for cell in cells)  # the medians; the cells give the spread
        # Where the queue's instructions were counted, a miss says how many more ours executes.
        per = counted and counted.get((op, "ours")) and counted[(op, "ours")] / counted[(op, "crossbeam")]
        inst = f"; counted, ours executes {per:.2f}x crossbeam's instructions per pair (above)" if per else ""
        if op == "push+pop":
            # 1.3x crossbeam where the floor allows: 1.3x the larger of the two.
            ref = max(fl, c) if c else fl
            w(target_line(f"queue {label}, ns (<= 1.3 x max(floor, crossbeam))", o, 1.3 * ref, fl,
                          f" (profile: {kept('profile-queue')})" + inst))
        elif op == "push+steal":
            # Where the seals pay for the pin's fence (membarrier), a pair pays two locked
            # instructions, the push's swap and the thief's CAS: the floor. Where each pin
            # fences, one more, which a JDK thief does not pay: on x86-64 a SeqCst swap of the
            # pin counter, timed as atomic-costs' "swap SeqCst"; elsewhere a store and a SeqCst
            # fence ("store + fence").
            x86 = platform.machine().lower() in ("x86_64", "amd64")
            pin, how = (swap, "swap") if x86 else (cost.get("store + fence"), "fence")
            if pin_fence == "membarrier":
                pinned = ("; ours' pin fences nothing, its seals call membarrier (chapter 2, \"Who pays "
                          "for the pin's fence\"), so a pair's locked instructions are the floor's")
            elif pin and c:
                pinned = (f"; ours' three locked instructions per pair, swap + the pin's {how} + CAS "
                          f"({swap:.2f} + {pin:.2f} + {cas:.2f} ns here), are {(swap + pin + cas) / c:.2f} "
                          "of crossbeam's time: the pin is chapter 2's reclamation, which a JDK thief "
                          "does not pay (with membarrier the seals pay it: chapter 2, \"Who pays for "
                          "the pin's fence\")")
            else:
                pinned = ""
            pp = protocol_pinned(queue, op, k)
            if pp and o and c:
                pinned += (f"; the same pairs on bare ids, the thief pinned, no box, took {pp[0]:.1f} ns, "
                           f"{pp[0] / c:.2f} of crossbeam's time: ours' {o - pp[0]:.1f} ns above that are the "
                           "task's box (under the queue table)")
            w(target_line(f"queue {label}, ours/crossbeam (<= 1.2)", num(ratio(o, c)), 1.2, fl / c if c else None,
                          f" (profile: {kept('profile-queue')})" + pinned + inst, cells=cells))
        else:
            rounds = f"; round by round: {kept('race-rounds')}" if "1 thief" in label else ""
            # A run whose thieves caught up with the owner is in the heels regime, whose floor
            # (the protocol at the heels) the heels row measures.
            regime = (f"; at the heels the protocol alone took {heels[0]:.2f} x crossbeam's time (under the "
                      f"queue table): a run that falls into that regime meets a floor "
                      f"{'above' if heels[0] > 1.5 else 'below'} the target" if heels else "")
            w(target_line(f"queue {label}, ours/crossbeam (<= 1.5)", num(ratio(o, c)), 1.5, fl / c if fl and c else None,
                          f" (profile: {kept('profile-queue')}; ours over the floor, "
                          f"split into pins and boxes: under the queue table{rounds}){regime}", cells=cells))
    for workload, par, rr, rj, rf, fl, rayon_ms, jdk_ms, cells, (inside, ri) in verdicts:
        fibrow = workload.startswith("fib")
        if fibrow and par == 1:
            w(target_line(f"{workload} par 1, ours/floor (<= 1.3)", num(rf), 1.3, None,
                          f" (profile: {kept('profile-fib-1')})"))
        # The floor as a ratio to the peer: a target below it cannot be met by any pool.
        why = ""
        o, r = cells
        if fibrow and counted and o and r and o[0] > r[0]:
            why = (f"; counted, ours executes {counted[('join', 'ours')] / counted[('join', 'rayon')]:.2f}x "
                   "rayon's instructions per join on one worker (above): the rest of the gap is time per instruction")
        if fibrow and o and r and r[0] and o[0] > r[0]:
            # The profiles `scripts/figures.sh lab` keeps: 1 and 2 workers, and 16 for the rows
            # with more workers than cores.
            fib_prof = 1 if par == 1 else 2 if par <= 4 else 16
            why = f" (profile: {kept(f'profile-fib-{fib_prof}')})" + why
            # rayon's join pays one fenced instruction (crossbeam's pop: a SeqCst fence, and a CAS
            # only for the last task; its push none), ours two swaps (the JDK's push and take): one
            # more per join, each worker running its share of the joins. A price, not a floor:
            # ours has come in under rayon's time plus it (a swap among other work can cost less).
            extra = swap * n_joins / min(par, os.cpu_count() or 1) / 1e6
            why += (f"; one more fenced instruction per join than rayon's (the JDK's push is a swap, "
                    f"crossbeam's a plain store) is {extra:.1f} ms here, at {swap:.2f} ns a swap over "
                    f"{n_joins:,} joins on {min(par, os.cpu_count() or 1)} core(s), against a gap of "
                    f"{o[0] - r[0]:.1f} ms: rayon's time plus it is {(r[0] + extra) / r[0]:.2f} x rayon's")
        bo, br = bare.get(("ours", par)), bare.get(("rayon", par))
        if not fibrow and o and r and o[0] > r[0] and bo is not None and br is not None:
            d = bo - br  # ours' own work above rayon's, ms
            explains = (f"ours' {d:.2f} ms more than rayon's" if d > 0 else
                        f"ours' {-d:.2f} ms less than rayon's" if -d >= 0.005 else
                        "the same to 0.01 ms")
            why = f"; its gap is {o[0] - r[0]:.1f} ms; with empty leaves (above) the pools' own work is {explains}"
            if fl:
                # Both pools near the leaves' floor: no pool's work is left to cut, and the
                # target is decided by the runs' spread.
                why += (f"; ours ran {o[0] / fl:.2f} times the leaves' floor and rayon {r[0] / fl:.2f} "
                        "(the floor, timed in turn with the pools, above)")
            if inside:
                # The same pool in rayon's shape, timed in the same run: what is left of the gap
                # once `main` blocks once, as rayon's does.
                why += (f"; in rayon's shape (`ours inside`: main blocks once) ours took {inside[0]:.1f} ms, "
                        f"ours inside/rayon {ri}")
            if profile and par in profile:
                (oc, ol, _, osyms), (ic, il, _, _), (rc, rl, _, _) = (profile[par][p] for p in PROFILED)
                shape = (oc - ol) - (ic - il)  # ours' CPU outside the leaves above ours inside's
                why += (f"; by perf at this parallelism (above), outside the leaves ours used "
                        f"{oc - ol:.2f} ms of CPU per run, ours inside {ic - il:.2f} and rayon "
                        f"{rc - rl:.2f} ("
                        + (f"ours' {shape:.2f} above ours inside: mostly the JDK probe's shape, "
                           "main's submissions and waits outside the pool" if shape > 0 else
                           "ours no more than ours inside: the shape cost nothing measurable here")
                        + f"), in the leaves {ol:.1f}, {il:.1f} and {rl:.1f} (ours' most: "
                        f"`{osyms[0][1][:60]}`)")
            elif profile:
                why += f"; where the CPU went, by perf at parallelism {' and '.join(map(str, sorted(profile)))}: above"
        w(target_line(f"{workload} par {par}, ours/rayon (<= {1.5 if fibrow else 1.0})", num(rr), 1.5 if fibrow else 1.0,
                      floor_ratio(fl, rayon_ms), why, cells=cells))
        if not no_jdk:
            # A miss on 64x256 where the JDK ran near the leaves' floor: say how near, and how
            # far above that floor ours ran (the floor rules the target out only above 0.8).
            near = (f"; the leaves' floor is {fl / jdk_ms:.2f} of the JDK's time in this run and ours ran "
                    f"{o[0] / fl:.2f} times that floor" if not fibrow and fl and jdk_ms and o else "")
            w(target_line(f"{workload} par {par}, ours/JDK (<= 0.8)", num(rj), 0.8, floor_ratio(fl, jdk_ms),
                          near))
    missing += [f"{n} {op} k={k}" for n in ("ours", "crossbeam") for (_, op, k) in queue if (n, op, k) not in queue]
    missing += [f"{n} {op} k={k}" for n in ("protocol", "protocol+pin") for (_, op, k) in queue
                if k and (n, op, k) not in queue]
    if ("ours", "heels", 1) in queue and ("protocol-unfenced", "heels", 1) not in queue:
        missing.append("protocol-unfenced heels k=1")
    missing += [f"{n} {op}" for n, op in (("protocol", "push+pop"), ("protocol+pin", "push+steal"))
                if ("ours", op, 0) in queue and (n, op, 0) not in queue]
    text = "\n".join(out) + "\n"
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        f.write(text)
    print(text, end="")
    print(f"(written to {os.path.relpath(a.out, ROOT)})", file=sys.stderr)
    if missing:
        sys.exit("lab: cells missing from the probes' rows: " + ", ".join(missing))


if __name__ == "__main__":
    main()
