//! The book includes the output of the deterministic probes from committed files.
//! This test reruns each probe and fails if its output no longer matches the file, so
//! the book never shows output the code no longer produces.
//! `UPDATE_EXPECT=1 cargo test -p probes --test figures` rewrites the files (expect-test's
//! `expect_file!`).

use std::process::Command;

use expect_test::{ExpectFile, expect_file};

/// Runs a probe that must succeed and returns its standard output (with stderr on failure).
fn run_ok(bin: &str, args: &[&str]) -> String {
    let out = Command::new(bin).args(args).output().expect("the probe runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{bin} {args:?}: {text}{}", String::from_utf8_lossy(&out.stderr));
    text
}

/// The ring trace the book shows (a macro: `expect_file!` takes the path as written).
fn ring_trace() -> ExpectFile {
    expect_file!["../../chapters/ch01-ring/figures/ring-trace.txt"]
}

#[test]
fn ring_trace_matches_the_book() {
    ring_trace().assert_eq(&run_ok(env!("CARGO_BIN_EXE_ring-trace"), &[]));
}

#[test]
fn phase_probe_matches_the_book() {
    expect_file!["../../chapters/ch05-phase/figures/phase-probe.txt"]
        .assert_eq(&run_ok(env!("CARGO_BIN_EXE_phase-probe"), &[]));
}

#[test]
fn phase_probe_rejects_a_zero_probe() {
    let out =
        Command::new(env!("CARGO_BIN_EXE_phase-probe")).args(["--probe", "0"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("non-zero"));
}

/// The steal-lag probe at a small size: it checks its own invariants (never over the truth,
/// exact when quiescent and after shutdown) and exits 1 when one breaks.
#[test]
fn steal_lag_smoke_run() {
    let text = run_ok(env!("CARGO_BIN_EXE_steal-lag"), &["--workers", "2", "--tasks", "5000"]);
    assert!(text.contains("exact when quiescent and after shutdown: yes"), "{text}");
}

/// The steal experiment at a tiny size, on our pool and rayon.
#[test]
fn forkjoin_steals_smoke_run() {
    let text = run_ok(
        env!("CARGO_BIN_EXE_forkjoin-steals"),
        &["--runs", "1", "--leaf", "10", "--par", "1,2"],
    );
    // ours, rayon and the leaves alone (the floor), at two parallelisms
    assert_eq!(text.lines().filter(|l| l.starts_with("par= ")).count(), 6, "{text}");
    assert!(
        text.contains("par= 1 forked=16384 steals=64 "),
        "one worker steals only the 64 roots: {text}"
    );
}

/// fib with no cutoff at a tiny size: both pools must return fib(12) = 144 (the probe exits 1
/// on a wrong value), the fib rows take their own number of runs (`--fib-runs`, which the lab
/// sets), and the tab-separated rows for scripts/lab.py are all there.
#[test]
fn forkjoin_fib_smoke_run() {
    let text = run_ok(
        env!("CARGO_BIN_EXE_forkjoin-steals"),
        &[
            "--runs",
            "1",
            "--leaf-us",
            "1",
            "--par",
            "1,2",
            "--fib",
            "12",
            "--fib-runs",
            "3",
            "--rows",
        ],
    );
    assert!(text.contains("fib(12) with no cutoff = 144"), "{text}");
    assert!(text.contains("; 3 run(s) per row after a warm-up run"), "{text}");
    assert_eq!(text.lines().filter(|l| l.starts_with("row\t")).count(), 10, "{text}");
    assert_eq!(text.lines().filter(|l| l.starts_with("row\tleaves\t64x256\t")).count(), 2);
    assert!(text.lines().any(|l| l.starts_with("leaf\trust\t")), "{text}");
}

/// Our queue beside crossbeam-deque at a tiny size: every operation has a run of both (the lines
/// the lab pools), each contended one the protocol's floors, and the contended runs
/// checked that every task was taken once (the probe exits 1 otherwise).
#[test]
fn queue_ops_smoke_run() {
    let text = run_ok(
        env!("CARGO_BIN_EXE_queue-ops"),
        &["--runs", "1", "--tasks", "2000", "--thieves", "1,2", "--rows"],
    );
    let rows =
        |who: &str| text.lines().filter(|l| l.starts_with(&format!("qrun\t{who}\t"))).count();
    // ours and crossbeam: push+pop, push+steal, one race per thief count and the heels race;
    // the protocol's floors: push+pop and each race bare, push+steal and each race pinned, and
    // the heels race unfenced too.
    let counts = (rows("ours"), rows("crossbeam"), rows("protocol"), rows("protocol+pin"));
    assert_eq!(counts, (5, 5, 4, 4), "{text}");
    assert_eq!(rows("protocol-unfenced"), 1, "{text}");
    assert!(text.contains("qrun\tprotocol-unfenced\theels\t1\t"), "{text}");
    assert!(text.contains("check: every task taken exactly once: yes"), "{text}");
    // `--pace 0` leaves the heels row out (the lab's profile of the queue alone).
    let unpaced = run_ok(
        env!("CARGO_BIN_EXE_queue-ops"),
        &["--runs", "1", "--tasks", "2000", "--thieves", "1", "--pace", "0", "--rows"],
    );
    assert!(!unpaced.contains("heels"), "{unpaced}");
}

/// `--count`, the silent run that valgrind counts (`scripts/figures.sh lab`): each queue and
/// operation runs and prints nothing; anything else is refused with a message and exit 2.
#[test]
fn queue_ops_count_runs_silently_and_refuses_unknown_names() {
    for what in ["ours:push+pop", "ours:push+steal", "crossbeam:push+pop", "crossbeam:push+steal"] {
        let out = Command::new(env!("CARGO_BIN_EXE_queue-ops"))
            .args(["--count", what, "--tasks", "640"])
            .output()
            .expect("run queue-ops");
        assert!(out.status.success() && out.stdout.is_empty(), "{what}: {out:?}");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_queue-ops"))
        .args(["--count", "ours:push+poll"])
        .output()
        .expect("run queue-ops");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--count takes"), "{out:?}");
}

/// `forkjoin-steals --count`, the silent fib run that valgrind counts: both pools run and print
/// nothing; an unknown pool, or no `--fib`, is refused with a message and exit 2, as are
/// `--fib-runs` of 0 or without `--fib`.
#[test]
fn forkjoin_count_runs_silently_and_refuses_bad_input() {
    for who in ["ours", "rayon"] {
        let out = Command::new(env!("CARGO_BIN_EXE_forkjoin-steals"))
            .args(["--count", who, "--fib", "12"])
            .output()
            .expect("run forkjoin-steals");
        assert!(out.status.success() && out.stdout.is_empty(), "{who}: {out:?}");
    }
    for (args, says) in [
        (&["--count", "jdk", "--fib", "12"][..], "--count takes ours or rayon"),
        (&["--count", "ours"][..], "--count needs --fib N"),
        (&["--fib", "12", "--fib-runs", "0"][..], "--fib-runs 0: at least 1"),
        (&["--fib-runs", "3"][..], "--fib-runs needs --fib N"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_forkjoin-steals"))
            .args(args)
            .output()
            .expect("run forkjoin-steals");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains(says), "{args:?}: {out:?}");
    }
}

/// The cost of single atomic operations: every measure prints a line.
#[test]
fn atomic_costs_smoke_run() {
    let text = run_ok(env!("CARGO_BIN_EXE_atomic-costs"), &["--runs", "1"]);
    for name in [
        "load Acquire",
        "swap SeqCst",
        "CAS SeqCst",
        "store + fence",
        "CAS ping-pong",
        "seal fence",
    ] {
        assert!(text.lines().any(|l| l.starts_with(name) && l.contains(" ns ")), "{name}: {text}");
    }
}

/// The long-lived pool probe at a tiny size, both ways: it checks every fib value (exit 1 on a
/// wrong one) and prints a row per round, then the first, slowest and last rounds.
#[test]
fn pool_drift_smoke_run() {
    for fresh in [false, true] {
        let mut args = vec!["--par", "1,2", "--rounds", "2", "--runs", "2", "--fib", "12"];
        if fresh {
            args.push("--fresh");
        }
        let text = run_ok(env!("CARGO_BIN_EXE_pool-drift"), &args);
        for par in [1, 2] {
            let rounds =
                text.lines().filter(|l| l.starts_with(&format!("par={par:>3} round="))).count();
            assert_eq!(rounds, 2, "two rounds at par {par}: {text}");
            assert!(text.contains(&format!("par={par:>3} first round ")), "{text}");
        }
    }
}

/// One owner and one thief round by round at a tiny size: each round checks that every task
/// was taken once (exit 1 otherwise) and prints a row, and the summary counts the rounds the
/// owner paced; too few tasks to time are refused.
#[test]
fn race_rounds_smoke_run() {
    let text = run_ok(env!("CARGO_BIN_EXE_race-rounds"), &["--rounds", "3", "--tasks", "2000"]);
    let rounds = text
        .lines()
        .filter(|l| l.split_whitespace().next().is_some_and(|w| w.parse::<usize>().is_ok()))
        .count();
    assert_eq!(rounds, 3, "a row per round: {text}");
    assert!(text.contains("took at least 90% of the round: ours "), "{text}");
    let out =
        Command::new(env!("CARGO_BIN_EXE_race-rounds")).args(["--tasks", "10"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--tasks 10: at least 1000"), "{out:?}");
}

/// Every probe answers `--help` with its usage and exit status 0 (it used to read `--help` as
/// a flag missing its value).
#[test]
fn every_probe_answers_help() {
    for bin in [
        env!("CARGO_BIN_EXE_ring-trace"),
        env!("CARGO_BIN_EXE_poll-contention"),
        env!("CARGO_BIN_EXE_phase-probe"),
        env!("CARGO_BIN_EXE_steal-lag"),
        env!("CARGO_BIN_EXE_forkjoin-steals"),
        env!("CARGO_BIN_EXE_cas-contention"),
        env!("CARGO_BIN_EXE_queue-ops"),
        env!("CARGO_BIN_EXE_atomic-costs"),
        env!("CARGO_BIN_EXE_pool-drift"),
        env!("CARGO_BIN_EXE_race-rounds"),
    ] {
        let out = Command::new(bin).arg("--help").output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && text.starts_with("usage: "), "{bin}: {text}");
    }
}

/// The CAS-contention replica at a tiny size, in both models and both start modes: it checks
/// that every task is taken once and that the attempts add up, and exits 1 otherwise.
#[test]
fn cas_contention_smoke_run() {
    for (model, start) in
        [("index", "staggered"), ("index", "barrier"), ("slot", "staggered"), ("slot", "barrier")]
    {
        let text = run_ok(
            env!("CARGO_BIN_EXE_cas-contention"),
            &["--model", model, "--start", start, "--tasks", "3000", "--thieves", "1,3"],
        );
        assert!(text.contains("thieves=3 attempts="), "{text}");
        assert!(text.contains("check: every task taken exactly once"), "{text}");
    }
}

/// The comparison can fail: the same probe started elsewhere prints another trace, and
/// that must be reported as a stale figure.
#[test]
fn a_figure_that_differs_from_the_probe_is_stale() {
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        return; // updating: comparing would write the other trace over the book's figure
    }
    let other = run_ok(env!("CARGO_BIN_EXE_ring-trace"), &["--start", "100"]);
    let caught = std::panic::catch_unwind(|| ring_trace().assert_eq(&other));
    assert!(caught.is_err(), "a different trace must not match the book's figure");
}

/// The contention probe at tiny sizes: it checks its own invariants (each task taken once,
/// attempts = successes + failures) and exits 1 when one breaks.
#[test]
fn poll_contention_smoke_run() {
    let text = run_ok(
        env!("CARGO_BIN_EXE_poll-contention"),
        &["--tasks", "2000", "--thieves", "1,2", "--runs", "2"],
    );
    assert_eq!(text.lines().filter(|l| l.starts_with("thieves=")).count(), 2, "{text}");
    assert!(text.contains("check: every task taken exactly once"), "{text}");
    let bad = Command::new(env!("CARGO_BIN_EXE_poll-contention"))
        .args(["--thieves", "0"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2), "a thief count of 0 is refused with usage");
}

#[test]
fn ring_trace_rejects_a_bad_start() {
    let out =
        Command::new(env!("CARGO_BIN_EXE_ring-trace")).args(["--start", "x"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("usage"));
}
