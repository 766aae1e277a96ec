//! The phase probe: builds a 16-slot queues array with three worker queues (indices 1, 3, 5),
//! submits one task from a thread whose probe is `--probe` (default 0x39b8, which lands at
//! index 8 as in the article's run), then prints, in the article's format, the array length,
//! each queue's phase taken apart, and one lock/unlock cycle of the submission queue:
//!
//! ```text
//! queues.length=16
//! idx=8 phase=0x000139b8 idBits=14776 IDLE=true
//! seqlock idx=8 before=0x000139b8 locked=true during=0x000239b8 after=0x000339b8
//! ```
//!
//! It checks `during = before + 0x10000` and `after = before + 0x20000` and exits 1 if not.
//! `cargo run -p probes --bin phase-probe [-- --probe N]`

use std::sync::atomic::Ordering;

use ch05_phase::{IDLE, Queues, describe};

/// The command line, for `--help` and for errors.
const USAGE: &str = "phase-probe [--probe N]   (N a non-zero u32, 0x.. allowed)";

fn main() {
    let probe = probes::start("phase-probe", USAGE, parse);
    // Worker queues tagged like the article's worker (version bits 0x3c6e...); ours are
    // active (IDLE clear): chapter 7's workers set IDLE when they go idle, as the JDK's do.
    let queues: Queues<u32> = Queues::new(16, 3, 0x3c6e_0000);
    let mut p = probe;
    let index = {
        let guard = queues.submission_queue(&mut p);
        let q = guard.queue();
        guard.push(0).expect("an empty queue has room");
        (0..queues.len()).find(|&i| queues.get(i).is_some_and(|x| std::ptr::eq(x, q))).unwrap()
    };
    println!("queues.length={}", queues.len());
    for (i, q) in queues.iter() {
        println!("{}", describe(i, q.phase.load(Ordering::Relaxed)));
    }
    let q = queues.get(index).unwrap();
    let before = q.phase.load(Ordering::Relaxed);
    let guard = q.try_lock::<ch05_phase::Reference>();
    let locked = guard.is_some();
    let during = q.phase.load(Ordering::Relaxed);
    drop(guard); // unlocks
    let after = q.phase.load(Ordering::Relaxed);
    println!(
        "seqlock idx={index} before={:#010x} locked={locked} during={:#010x} after={:#010x}",
        before as u32, during as u32, after as u32
    );
    let ok =
        locked && during == before.wrapping_add(IDLE) && after == before.wrapping_add(2 * IDLE);
    println!(
        "check: during = before + 0x10000, after = before + 0x20000: {}",
        if ok { "yes" } else { "NO" }
    );
    if !ok {
        std::process::exit(1);
    }
}

fn parse() -> Result<u32, lexopt::Error> {
    use lexopt::prelude::*;
    let mut probe = 0x39b8;
    let mut p = lexopt::Parser::from_env();
    while let Some(arg) = p.next()? {
        match arg {
            Long("probe") => {
                let n = p.value()?.string()?;
                probe = match n.strip_prefix("0x") {
                    Some(hex) => u32::from_str_radix(hex, 16),
                    None => n.parse(),
                }
                .map_err(|e| format!("--probe {n:?}: {e}"))?;
            }
            _ => return Err(arg.unexpected()),
        }
    }
    if probe == 0 {
        return Err("--probe 0 means 'no probe yet' in the JDK: give a non-zero one".into());
    }
    Ok(probe)
}
