//! Prints the machine label every figure carries (`probes::machine()`): CPU model, cores and
//! the load average now. `scripts/figures.sh` and `scripts/lab.py` label their figures with it.
//! With `--kind`, prints `amd` or `intel` instead (`probes::machine_kind()`): the set of
//! per-machine figures (`chapters/contention/*-KIND.txt`) that a run writes and cites.
//!
//! usage: machine [--kind]

const USAGE: &str = "machine [--kind]";

/// Whether `--kind` was given.
fn parse() -> Result<bool, lexopt::Error> {
    use lexopt::prelude::*;
    let mut kind = false;
    let mut p = lexopt::Parser::from_env();
    while let Some(arg) = p.next()? {
        match arg {
            Long("kind") => kind = true,
            _ => return Err(arg.unexpected()),
        }
    }
    Ok(kind)
}

fn main() {
    if probes::start("machine", USAGE, parse) {
        println!("{}", probes::machine_kind());
    } else {
        println!("{}", probes::machine());
    }
}
