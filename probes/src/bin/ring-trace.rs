//! Pushes and takes tasks on a small chapter 1 ring and prints the slots after each
//! step, with `base` and `top` marked: growth, LIFO and FIFO takes, and indices that
//! wrap past `i32::MAX`.
//!
//! `cargo run -p probes --bin ring-trace [-- --start N]` (default start: i32::MAX - 2)

use ch01_ring::{Ring, table};

/// The command line, for `--help` and for errors.
const USAGE: &str = "ring-trace [--start N]   (N an i32)";

fn main() {
    let start = probes::start("ring-trace", USAGE, parse_start);
    let mut ring: Ring<char> = Ring::with_capacity(4, 8).starting_at(start);
    println!("# ring-trace: capacity 4, max 8, first index {start}\n");
    show(&ring, "empty");
    for t in ['a', 'b', 'c'] {
        ring.push(t).expect("room below max capacity");
    }
    show(&ring, "push a, b, c");
    let oldest = ring.poll_fifo();
    show(&ring, &format!("poll_fifo -> {oldest:?} (FIFO: oldest, at base)"));
    ring.push('d').expect("room");
    ring.push('e').expect("room");
    show(
        &ring,
        "push d, e: index i32::MAX + 1 wraps to i32::MIN; the push of e fills the array, which doubles",
    );
    let newest = ring.pop();
    show(&ring, &format!("pop -> {newest:?} (LIFO: newest, at top - 1)"));
    for t in ['f', 'g', 'h', 'i', 'j'] {
        ring.push(t).expect("room");
    }
    show(&ring, "push f, g, h, i, j: full at the maximum capacity of 8");
    match ring.push('k') {
        Ok(()) => println!("push k accepted (unexpected)"),
        Err(full) => println!("push k -> Err: {full}\n         handed back: {:?}\n", full.task),
    }
    let mut order = Vec::new();
    while let Some(t) = ring.poll_fifo() {
        order.push(t);
    }
    println!("drain with poll_fifo: {order:?}");
}

fn show(ring: &Ring<char>, what: &str) {
    println!("## {what}\n{}", table::render(ring.raw()));
}

fn parse_start() -> Result<i32, lexopt::Error> {
    use lexopt::prelude::*;
    let mut start = i32::MAX - 2;
    let mut p = lexopt::Parser::from_env();
    while let Some(arg) = p.next()? {
        match arg {
            Long("start") => start = p.value()?.parse()?,
            _ => return Err(arg.unexpected()),
        }
    }
    Ok(start)
}
