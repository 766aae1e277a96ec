//! The book includes the output of the deterministic probes from committed files.
//! This test reruns each probe and fails if its output no longer matches the file, so
//! the book never shows output the code no longer produces.
//! `UPDATE_FIGURES=1 cargo test -p probes --test figures` rewrites the files.

use std::path::Path;
use std::process::Command;

fn check(bin: &str, args: &[&str], figure: &str) {
    let out = Command::new(bin).args(args).output().expect("the probe runs");
    assert!(out.status.success(), "{bin} failed: {}", String::from_utf8_lossy(&out.stderr));
    let fresh = String::from_utf8(out.stdout).expect("UTF-8 output");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(figure);
    if std::env::var_os("UPDATE_FIGURES").is_some() {
        std::fs::write(&path, &fresh).expect("write the figure");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "{figure} is stale: rerun with UPDATE_FIGURES=1 cargo test -p probes --test figures\n--- fresh output ---\n{fresh}"
    );
}

#[test]
fn ring_trace_matches_the_book() {
    check(env!("CARGO_BIN_EXE_ring-trace"), &[], "chapters/ch01-ring/figures/ring-trace.txt");
}

#[test]
fn ring_trace_rejects_a_bad_start() {
    let out =
        Command::new(env!("CARGO_BIN_EXE_ring-trace")).args(["--start", "x"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("usage"));
}
