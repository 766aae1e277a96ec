//! The article's steal experiment on our pool and on rayon: 64 root tasks, each forking 256
//! leaves (16,384 tasks), at parallelism 1, 2, 4, 8 and 16, printed in the article's format
//! (`par= N forked=16384 steals=S ms=T`). Each row is the median of `--runs` runs, with the
//! min and max beside it, and the machine's cores and load average are printed first: on a
//! busy machine, single runs are not stable (the article's were taken at load average 82.6).
//!
//! A leaf loops `--leaf` times (default 20,000) over a bound the compiler cannot see
//! (`black_box`), so the work is not folded away; the cost of one leaf is measured and
//! printed, for comparison with the JDK's run of the same experiment (`probes/jdk/run.sh
//! StealExperiment`).
//!
//! `cargo run --release -p probes --bin forkjoin-steals [-- --runs 5 --leaf 20000 --par 1,2,4,8,16]`

use std::hint::black_box;
use std::time::Instant;

use ch07_pool::{ThreadPool, fork};

fn leaf(n: u64) -> u64 {
    (0..black_box(n)).fold(0u64, |s, i| s.rotate_left(5) ^ i.wrapping_mul(0x9e37_79b9))
}

fn ours(par: usize, n: u64) -> (u64, f64, u64) {
    let pool: ThreadPool = ThreadPool::new(par);
    let t0 = Instant::now();
    let roots: Vec<_> = (0..64)
        .map(|_| {
            pool.submit(move || {
                let leaves: Vec<_> = (0..256).map(|_| fork(move || leaf(n)).unwrap()).collect();
                leaves.into_iter().map(|h| h.join().unwrap()).fold(0, |a, b| a ^ b)
            })
            .unwrap()
        })
        .collect();
    let x = roots.into_iter().map(|h| h.join().unwrap()).fold(0, |a, b| a ^ b);
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    let stats = pool.shutdown();
    (stats.steal_count, ms, x)
}

fn rayon(par: usize, n: u64) -> (f64, u64) {
    use std::sync::atomic::{AtomicU64, Ordering};
    let pool = rayon::ThreadPoolBuilder::new().num_threads(par).build().expect("a rayon pool");
    let x = AtomicU64::new(0);
    let t0 = Instant::now();
    pool.install(|| {
        rayon::scope(|roots| {
            for _ in 0..64 {
                roots.spawn(|_| {
                    let mut leaves = vec![0u64; 256];
                    rayon::scope(|s| {
                        for slot in leaves.iter_mut() {
                            s.spawn(move |_| *slot = leaf(n));
                        }
                    });
                    // Relaxed: a checksum, read after the scope has joined everything.
                    x.fetch_xor(leaves.into_iter().fold(0, |a, b| a ^ b), Ordering::Relaxed);
                });
            }
        })
    });
    (t0.elapsed().as_secs_f64() * 1e3, x.into_inner())
}

fn main() {
    let (runs, n, pars) = parse().unwrap_or_else(|e| {
        eprintln!(
            "forkjoin-steals: {e}\nusage: forkjoin-steals [--runs N] [--leaf N] [--par 1,2,4]"
        );
        std::process::exit(2);
    });
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let t0 = Instant::now();
    let reps = 2000;
    let mut x = 0;
    for _ in 0..reps {
        x = leaf(n);
    }
    let leaf_us = t0.elapsed().as_secs_f64() * 1e6 / reps as f64;
    println!(
        "# forkjoin-steals: 64 roots x 256 leaves, leaf={n} iterations ({leaf_us:.1} us each, \
         checksum {}), {runs} run(s) per row, {cores} cores, load average {}",
        x & 0xff,
        load.split_whitespace().next().unwrap_or("?")
    );
    println!("# ours (ch07 ThreadPool): steals = get_steal_count after shutdown (exact)");
    for &par in &pars {
        let (mut ms, mut steals) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            let (s, t, _) = ours(par, n);
            steals.push(s as f64);
            ms.push(t);
        }
        let (m, lo, hi) = probes::median_min_max(&mut ms);
        let (s, slo, shi) = probes::median_min_max(&mut steals);
        println!(
            "par= {par} forked=16384 steals={s:.0} ms={m:.0}   (steals {slo:.0}-{shi:.0}, ms {lo:.0}-{hi:.0})"
        );
    }
    println!(
        "# rayon (a scope of 64 roots, each a scope spawning 256 leaves): no steal count exposed"
    );
    for &par in &pars {
        let mut ms: Vec<f64> = (0..runs).map(|_| rayon(par, n).0).collect();
        let (m, lo, hi) = probes::median_min_max(&mut ms);
        println!("par= {par} forked=16384 steals=- ms={m:.0}   (ms {lo:.0}-{hi:.0})");
    }
}

fn parse() -> Result<(usize, u64, Vec<usize>), String> {
    let (mut runs, mut n, mut pars) = (3, 20_000u64, vec![1, 2, 4, 8, 16]);
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let v = it.next().ok_or(format!("{flag} needs a value"))?;
        let num = |s: &str| s.parse::<usize>().map_err(|e| format!("{flag} {s:?}: {e}"));
        match flag.as_str() {
            "--runs" => runs = num(&v)?.max(1),
            "--leaf" => n = num(&v)? as u64,
            "--par" => pars = v.split(',').map(num).collect::<Result<_, _>>()?,
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    if pars.contains(&0) {
        return Err("parallelism must be at least 1".into());
    }
    Ok((runs, n, pars))
}
