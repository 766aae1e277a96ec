//! The article's steal experiment on our pool and on rayon: 64 root tasks, each forking 256
//! leaves (16,384 tasks), at parallelism 1, 2, 4, 8 and 16, printed in the article's format
//! (`par= N forked=16384 steals=S ms=T`). With `--fib N` it also runs fib(N) with no cutoff
//! (one fork and one join per call) on both. Each row is the median of `--runs` runs after one
//! untimed warm-up run (as the JDK probe does; a fib row takes `--fib-runs`, by default as
//! many), with the min and max beside it; ours' and rayon's runs alternate at each parallelism.
//! The machine's cores and load average are printed first: on a busy machine, single runs are
//! not stable (the article's were taken at load average 82.6).
//!
//! A leaf loops over a bound the compiler cannot see (`black_box`), so the work is not folded
//! away. `--leaf N` fixes the iterations; `--leaf-us U` calibrates them so that one leaf costs
//! about U microseconds on this machine, which is how `scripts/lab.py` gives the Rust and the
//! Java leaf (`probes/jdk/StealExperiment.java`) the same cost. The measured cost of one leaf
//! is printed either way.
//!
//! `--rows` adds one tab-separated line per row for `scripts/lab.py`:
//! `row <system> <workload> <par> <median ms> <min ms> <max ms> <steals or ->`, and under each
//! of our fib rows `boxes <workload> <par> <median % of task boxes recycled>`.
//!
//! `cargo run --release -p probes --bin forkjoin-steals [-- --runs 5 --leaf 20000 --par 1,2,4,8,16 --fib 30]`
//! (`--ours-only` skips rayon: for profiling our pool alone).
//!
//! `--inside` adds a row, `ours-inside`: our pool in rayon's shape, the 64 roots forked and
//! joined inside one task of the pool, so that `main` blocks once (as in rayon's `install`)
//! instead of joining each root from outside (as the JDK probe and `ours` do). The lab runs it
//! with empty leaves, where the pools' own work per task is compared.
//!
//! `--perf-ctl CTL,ACK`, under `perf record -D -1 --control fifo:CTL,ACK`: sampling only during
//! the timed 64x256 runs (`probes::perf`), for the lab's table of where their CPU went; with
//! `--inside`, `ours-inside`'s runs too (its threads: `ch07-inside-N` and `main-inside`).
//!
//! `--count ours --fib N` (or `rayon`) runs only fib(N) on that pool at parallelism 1, once and
//! silently, for an instruction count under valgrind: `scripts/figures.sh lab` counts two sizes
//! and subtracts, which leaves the instructions per join, steady from run to run where
//! timings are not.

use std::hint::black_box;
use std::time::Instant;

use ch07_pool::{Builder, ThreadPool, fib};
use probes::perf;
use probes::roots::{self, RayonPool, fib_rayon};
use reclaim::BoxCounts;

/// One leaf: `n` rounds of rotate, multiply and xor (the same rounds as the Java leaf).
/// Never inlined: ours, rayon and the calibration then run the very same machine code (inlined,
/// each copy got its own loop layout, and one copy ran 2% slower than another).
#[inline(never)]
fn leaf(n: u64) -> u64 {
    (0..black_box(n)).fold(0u64, |s, i| s.rotate_left(5) ^ i.wrapping_mul(0x9e37_79b9))
}

/// Microseconds per leaf of `n` iterations, timed over enough calls to last about 50 ms.
fn leaf_cost_us(n: u64) -> f64 {
    let mut reps = 1u32;
    loop {
        let t0 = Instant::now();
        for _ in 0..reps {
            black_box(leaf(n));
        }
        let s = t0.elapsed().as_secs_f64();
        if s > 0.05 || reps >= 1 << 24 {
            return s * 1e6 / f64::from(reps);
        }
        reps *= 2;
    }
}

/// The iterations for a leaf of `us` microseconds: scaled from a leaf long enough to time
/// well, then timed again at the new count and scaled again until within 2% (at most five
/// times), as the JDK probe does (`StealExperiment`), so that both sides' leaves cost the same.
fn calibrate(us: f64) -> u64 {
    let mut n = 100_000u64;
    for pass in 0..5 {
        let cost = leaf_cost_us(n);
        if pass > 0 && (cost - us).abs() <= 0.02 * us {
            break;
        }
        n = ((us / cost) * n as f64).round().max(1.0) as u64;
    }
    n
}

/// Milliseconds to run the 16,384 leaves of 64x256 with no pool, split evenly over `k` threads
/// that start together: from the start until the last of them ends. With `k = 1`, on this
/// thread, one after another. That is the floor of a pool of `k` or more workers on `k` cores:
/// the leaves' own work, perfectly balanced, with no task, queue or wake-up. It is timed with
/// the threads running at once, not one thread's time divided by `k`, because cores busy
/// together may each run slower than one alone (shared caches, the host's clocks and its other
/// tenants): the contention page measured how much on its machines.
fn leaves_alone(n: u64, k: usize) -> f64 {
    const LEAVES: usize = roots::ROOTS * roots::LEAVES;
    let share = |i: usize| LEAVES * (i + 1) / k - LEAVES * i / k; // thread i's leaves
    let run = move |count: usize| (0..count).fold(0, |x, _| x ^ leaf(n));
    if k <= 1 {
        let t0 = Instant::now();
        black_box(run(LEAVES));
        return t0.elapsed().as_secs_f64() * 1e3;
    }
    let start = std::sync::Barrier::new(k);
    std::thread::scope(|s| {
        let spans: Vec<_> = (0..k)
            .map(|i| {
                let start = &start;
                s.spawn(move || {
                    start.wait();
                    let t0 = Instant::now();
                    black_box(run(share(i)));
                    (t0, Instant::now()) // taken before the thread's exit, which is not timed
                })
            })
            .collect();
        let spans: Vec<_> =
            spans.into_iter().map(|h| h.join().expect("a leaf never panics")).collect();
        let first = spans.iter().map(|s| s.0).min().expect("k > 1");
        let last = spans.iter().map(|s| s.1).max().expect("k > 1");
        last.duration_since(first).as_secs_f64() * 1e3
    })
}

/// The article's shape (`probes::roots::ours_submitted`), on a new pool: (steals, ms).
fn ours_roots(par: usize, n: u64) -> (u64, f64) {
    let pool: ThreadPool = ThreadPool::new(par);
    let ms = perf::window("main-ours", || {
        let t0 = Instant::now();
        black_box(roots::ours_submitted(&pool, leaf, n));
        t0.elapsed().as_secs_f64() * 1e3
    });
    (pool.shutdown().steal_count, ms)
}

/// rayon's shape on our pool (`--inside`, `probes::roots::ours_inside`), on a new pool: ms.
/// Its workers have names of their own, so that perf tells their CPU from `ours`'.
fn ours_roots_inside(par: usize, n: u64) -> f64 {
    let pool = Builder::new(par).thread_name("ch07-inside-").build();
    let ms = perf::window("main-inside", || {
        let t0 = Instant::now();
        black_box(roots::ours_inside(&pool, leaf, n));
        t0.elapsed().as_secs_f64() * 1e3
    });
    pool.shutdown();
    ms
}

/// rayon (`probes::roots::rayon_scoped`), on a new pool: ms.
fn rayon_roots(par: usize, n: u64) -> f64 {
    let pool = RayonPool::new(par);
    perf::window("main-rayon", || {
        let t0 = Instant::now();
        black_box(roots::rayon_scoped(&pool, leaf, n));
        t0.elapsed().as_secs_f64() * 1e3
    })
}

/// fib(n) on our pool: (steals, ms, boxes). Exits 1 on a wrong value. `boxes`: how many of
/// the queue's task boxes were recycled and how many came from the allocator (exact: the
/// workers have exited when it is read; the pool's new threads start with none to recycle).
fn ours_fib(par: usize, n: u64, want: u64) -> (u64, f64, BoxCounts) {
    let before = BoxCounts::now();
    let pool: ThreadPool = ThreadPool::new(par);
    let t0 = Instant::now();
    let (got, _) = pool.join(move || fib(black_box(n)), || ());
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    check(got == want, &format!("ours: fib({n}) = {got}, expected {want}"));
    let steals = pool.shutdown().steal_count;
    (steals, ms, BoxCounts::now().since(before))
}

fn rayon_fib(par: usize, n: u64, want: u64) -> f64 {
    let pool = RayonPool::new(par);
    let t0 = Instant::now();
    let got = pool.install(|| fib_rayon(black_box(n)));
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    check(got == want, &format!("rayon: fib({n}) = {got}, expected {want}"));
    ms
}

/// Run `run` of a row: ours, and rayon too when `rayon`. Who goes first alternates (ours on
/// even runs, rayon on odd ones): what one run leaves behind (a warm or cold allocator and
/// caches) then weighs on each pool in turn. Each pool's threads have exited before the next
/// run starts (our `shutdown` joins them, and so does `RayonPool`'s drop).
fn in_turn(run: usize, rayon: bool, mut ours: impl FnMut(), mut theirs: impl FnMut()) {
    let theirs_first = run % 2 == 1;
    if rayon && theirs_first {
        theirs();
    }
    ours();
    if rayon && !theirs_first {
        theirs();
    }
}

fn check(ok: bool, what: &str) {
    if !ok {
        eprintln!("forkjoin-steals: {what}");
        std::process::exit(1);
    }
}

/// Prints one row: the article's line, and with `--rows` the tab-separated line too.
fn report(o: &Opts, system: &str, workload: &str, par: usize, ms: &mut [f64], steals: &mut [f64]) {
    let (m, lo, hi) = probes::median_min_max(ms);
    let what = match workload.strip_prefix("fib") {
        Some(n) => format!("fib({n})"),
        None => "forked=16384".to_string(),
    };
    let (s, steal_note) = if steals.is_empty() {
        ("-".to_string(), String::new())
    } else {
        let (s, slo, shi) = probes::median_min_max(steals);
        (format!("{s:.0}"), format!("steals {slo:.0}-{shi:.0}, "))
    };
    println!("par= {par} {what} steals={s} ms={m:.0}   ({steal_note}ms {lo:.0}-{hi:.0})");
    if o.rows {
        println!("row\t{system}\t{workload}\t{par}\t{m:.2}\t{lo:.2}\t{hi:.2}\t{s}");
    }
}

struct Opts {
    runs: usize,
    leaf: Option<u64>,
    leaf_us: Option<f64>,
    pars: Vec<usize>,
    fib: u64,
    /// `--fib-runs`: runs per fib row (default `--runs`). A fib run is short, and its times
    /// swing with the host more than the 64x256 runs': the lab gives it more runs.
    fib_runs: Option<usize>,
    rows: bool,
    /// `--ours-only`: skip rayon (for a profile of our pool alone).
    ours_only: bool,
    /// `--inside`: also run ours in rayon's shape (`ours_roots_inside`).
    inside: bool,
    /// `--count ours|rayon`: only fib(`--fib`) on that pool at parallelism 1, once, silently
    /// (for valgrind). `Some(true)` is ours.
    count: Option<bool>,
}

/// The command line, for `--help` and for errors.
const USAGE: &str = "forkjoin-steals [--runs N] [--leaf N | --leaf-us U] [--par 1,2,4] [--fib N [--fib-runs N]] [--rows] [--ours-only] [--inside] [--count ours|rayon --fib N] [--perf-ctl CTL,ACK]";

fn main() {
    let o = probes::start("forkjoin-steals", USAGE, parse);
    if let Some(ours) = o.count {
        // By iteration: `fib_plain`'s recursion would add its own instructions per call.
        let want = (0..o.fib).fold((0u64, 1u64), |(a, b), _| (b, a + b)).0;
        if ours {
            ours_fib(1, o.fib, want);
        } else {
            rayon_fib(1, o.fib, want);
        }
        return;
    }
    let n = match (o.leaf, o.leaf_us) {
        (Some(n), _) => n,
        (None, Some(us)) => calibrate(us),
        (None, None) => 20_000,
    };
    let leaf_us = leaf_cost_us(n);
    println!(
        "# forkjoin-steals: 64 roots x 256 leaves, leaf={n} iterations ({leaf_us:.2} us each), \
         {} run(s) per row after a warm-up run, ours' pin fence: {}, {}",
        o.runs,
        reclaim::pin_fence(),
        probes::machine()
    );
    if o.rows {
        println!("leaf\trust\t{n}\t{leaf_us:.3}");
    }
    // At each parallelism ours and rayon alternate, run by run, after one warm-up run of each:
    // a drift of the machine's speed during the probe (other tenants, clocks) then falls on
    // both alike, not on whichever went second. The rows are printed grouped by system.
    let rayon = !o.ours_only;
    let mut ours = Vec::new();
    let mut inside = Vec::new();
    let mut theirs = Vec::new();
    let mut alone = Vec::new();
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    for &par in &o.pars {
        ours_roots(par, n); // warm-up, as the JDK probe does (caches, page faults, allocator)
        if rayon {
            rayon_roots(par, n);
        }
        if o.inside {
            ours_roots_inside(par, n); // its warm-up
        }
        let (mut ms, mut steals, mut rayon_ms, mut alone_ms, mut inside_ms) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for run in 0..o.runs {
            in_turn(
                run,
                rayon,
                || {
                    let (s, t) = ours_roots(par, n);
                    steals.push(s as f64);
                    ms.push(t);
                    if o.inside {
                        inside_ms.push(ours_roots_inside(par, n));
                    }
                },
                || rayon_ms.push(rayon_roots(par, n)),
            );
            if rayon {
                alone_ms.push(leaves_alone(n, par.min(cores)));
            }
        }
        ours.push((par, ms, steals));
        inside.push((par, inside_ms));
        theirs.push((par, rayon_ms));
        alone.push((par, alone_ms));
    }
    println!("# ours (ch07 ThreadPool): steals = get_steal_count after shutdown (exact)");
    for (par, ms, steals) in &mut ours {
        report(&o, "ours", "64x256", *par, ms, steals);
    }
    if o.inside {
        println!("# ours in rayon's shape: the 64 roots forked and joined inside one pool.join");
        for (par, ms) in &mut inside {
            report(&o, "ours-inside", "64x256", *par, ms, &mut []);
        }
    }
    if rayon {
        println!(
            "# rayon (a scope of 64 roots, each a scope spawning 256 leaves): no steal count \
             exposed"
        );
        for (par, ms) in &mut theirs {
            report(&o, "rayon", "64x256", *par, ms, &mut []);
        }
        println!(
            "# the leaves alone: all 16,384 split evenly over min(par, {cores} cores) threads \
             started together, timed in turn with the pools: the floor of a pool on this machine"
        );
        for (par, ms) in &mut alone {
            report(&o, "leaves", "64x256", *par, ms, &mut []);
        }
    }
    if o.fib > 0 {
        fib_rows(&o, rayon);
    }
}

/// fib(`o.fib`) at each parallelism, ours and rayon in turn ([`in_turn`]), as in `main`.
fn fib_rows(o: &Opts, rayon: bool) {
    let want = probes::fib_plain(o.fib);
    let workload = format!("fib{}", o.fib);
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    for &par in &o.pars {
        ours_fib(par, o.fib, want); // warm-up
        if rayon {
            rayon_fib(par, o.fib, want);
        }
        let (mut ms, mut steals, mut reused, mut rayon_ms) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for run in 0..o.fib_runs.unwrap_or(o.runs) {
            in_turn(
                run,
                rayon,
                || {
                    let (s, t, boxes) = ours_fib(par, o.fib, want);
                    steals.push(s as f64);
                    ms.push(t);
                    reused.push(100.0 * boxes.reuse_ratio());
                },
                || rayon_ms.push(rayon_fib(par, o.fib, want)),
            );
        }
        ours.push((par, ms, steals, reused));
        theirs.push((par, rayon_ms));
    }
    println!(
        "# fib({}) with no cutoff = {want}: ours (join_in_task), then rayon (join); {} run(s) per \
         row after a warm-up run",
        o.fib,
        o.fib_runs.unwrap_or(o.runs)
    );
    for (par, ms, steals, reused) in &mut ours {
        report(o, "ours", &workload, *par, ms, steals);
        let (r, lo, hi) = probes::median_min_max(reused);
        println!("#   task boxes recycled: {r:.1}% ({lo:.1}-{hi:.1}%), the rest from malloc");
        if o.rows {
            println!("boxes\t{workload}\t{par}\t{r:.1}");
        }
    }
    for (par, ms) in theirs.iter_mut().filter(|_| rayon) {
        report(o, "rayon", &workload, *par, ms, &mut []);
    }
}

fn parse() -> Result<Opts, lexopt::Error> {
    use lexopt::prelude::*;
    let mut o = Opts {
        runs: 3,
        leaf: None,
        leaf_us: None,
        pars: vec![1, 2, 4, 8, 16],
        fib: 0,
        fib_runs: None,
        rows: false,
        ours_only: false,
        inside: false,
        count: None,
    };
    let (leaf, leaf_us, pars, fib) = (&mut o.leaf, &mut o.leaf_us, &mut o.pars, &mut o.fib);
    let fib_runs = &mut o.fib_runs;
    let (count, inside) = (&mut o.count, &mut o.inside);
    probes::lab_flags(&mut o.runs, &mut o.rows, &mut o.ours_only, |name, p| {
        match name {
            "leaf" => *leaf = Some(p.value()?.parse()?),
            "leaf-us" => {
                let us: f64 = p.value()?.parse()?;
                if !(us > 0.0 && us < 1e6) {
                    return Err(format!("--leaf-us {us}: must be above 0 and below 1e6").into());
                }
                *leaf_us = Some(us);
            }
            "par" => *pars = probes::counts(p, "--par")?,
            "fib" => *fib = p.value()?.parse()?,
            "inside" => *inside = true,
            "perf-ctl" => perf::open(&p.value()?.string()?)?,
            "fib-runs" => match p.value()?.parse()? {
                0 => return Err("--fib-runs 0: at least 1".into()),
                n => *fib_runs = Some(n),
            },
            "count" => {
                *count = match p.value()?.string()?.as_str() {
                    "ours" => Some(true),
                    "rayon" => Some(false),
                    other => return Err(format!("--count takes ours or rayon, not {other}").into()),
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    if o.fib_runs.is_some() && o.fib == 0 {
        return Err("--fib-runs needs --fib N".into());
    }
    if o.count.is_some() && o.fib == 0 {
        return Err("--count needs --fib N: it counts one fib(N)".into());
    }
    if o.fib > 40 {
        return Err(format!("--fib {}: at most 40 (fib(40) forks 300 million tasks)", o.fib).into());
    }
    Ok(o)
}
