//! Prints the machine label every figure carries (`probes::machine()`): CPU model, cores and
//! the load average now. `scripts/figures.sh` and `scripts/lab.py` label their figures with it.
//!
//! usage: machine

fn main() {
    println!("{}", probes::machine());
}
