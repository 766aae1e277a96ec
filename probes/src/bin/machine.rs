//! Prints the machine label every figure carries (`probes::machine()`): CPU model, cores and
//! the load average now. `scripts/figures.sh` and `scripts/lab.py` label their figures with it.
//! With `--kind`, prints `amd` or `intel` instead (`probes::machine_kind()`): the set of
//! per-machine figures (`chapters/contention/*-KIND.txt`) that a run writes and cites.
//!
//! usage: machine [--kind]

fn main() {
    match std::env::args().nth(1).as_deref() {
        None => println!("{}", probes::machine()),
        Some("--kind") => println!("{}", probes::machine_kind()),
        Some(other) => {
            eprintln!("machine: unknown argument {other:?}; usage: machine [--kind]");
            std::process::exit(2);
        }
    }
}
