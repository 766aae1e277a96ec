//! What the probes share: summarizing repeated runs, and the contended run (`contention`, with
//! the protocol's floor in `protocol`) that the probes and `benches/contended.rs` time, and
//! the windows that keep a `perf` profile to the timed runs (`perf`).

pub mod contention;
pub mod perf;
pub mod protocol;
pub mod roots;

/// Sorts `values` and returns their median and a note ` (median of N; min X, max Y)`, empty
/// for a single run. Probes print both: one run on a busy machine is not a measurement.
pub fn median_and_range(values: &mut [f64]) -> (f64, String) {
    let (median, _, _) = median_min_max(values);
    let note = if values.len() > 1 {
        format!(
            "   (median of {}; min {:.3}, max {:.3})",
            values.len(),
            values[0],
            values[values.len() - 1]
        )
    } else {
        String::new()
    };
    (median, note)
}

/// Sorts `values` (at least one) and returns their median, minimum and maximum.
pub fn median_min_max(values: &mut [f64]) -> (f64, f64, f64) {
    assert!(!values.is_empty(), "at least one run");
    values.sort_by(f64::total_cmp);
    (values[values.len() / 2], values[0], values[values.len() - 1])
}

/// The value of `flag` as a comma-separated list of counts, each at least 1 (`--par 1,2,4`).
pub fn counts(parser: &mut lexopt::Parser, flag: &str) -> Result<Vec<usize>, lexopt::Error> {
    use lexopt::ValueExt;
    let value = parser.value()?.string()?;
    let list = value
        .split(',')
        .map(|v| v.trim().parse::<usize>().map_err(|e| format!("{flag} {value}: {v:?}: {e}")))
        .collect::<Result<Vec<usize>, _>>()?;
    match list.contains(&0) {
        true => Err(format!("{flag} {value}: each must be at least 1").into()),
        false => Ok(list),
    }
}

/// Reads the command line of a probe that `scripts/lab.py` runs: the lab's own flags, `--runs N`
/// (at least 1), `--rows` (the tab-separated rows the lab reads) and `--ours-only`, and every
/// other long flag through `own(name, parser)`, which says whether it knew the flag.
pub fn lab_flags(
    runs: &mut usize,
    rows: &mut bool,
    ours_only: &mut bool,
    mut own: impl FnMut(&str, &mut lexopt::Parser) -> Result<bool, lexopt::Error>,
) -> Result<(), lexopt::Error> {
    use lexopt::ValueExt;
    let mut parser = lexopt::Parser::from_env();
    while let Some(arg) = parser.next()? {
        let name = match arg {
            lexopt::Arg::Long(name) => name.to_string(), // owned: `parser` is used below
            other => return Err(other.unexpected()),
        };
        match name.as_str() {
            "runs" => *runs = parser.value()?.parse::<usize>()?.max(1),
            "rows" => *rows = true,
            "ours-only" => *ours_only = true,
            other if own(other, &mut parser)? => {}
            other => return Err(format!("invalid option '--{other}'").into()),
        }
    }
    Ok(())
}

/// The run whose `rate` is the median of `runs` (the upper one of the middle two for an even
/// count), with that rate and [`median_and_range`]'s note on all the rates: a probe prints one
/// run's counts beside its own rate, never a mix of runs.
pub fn median_run<T: Clone>(runs: &[(f64, T)]) -> (T, f64, String) {
    assert!(!runs.is_empty(), "at least one run");
    let mut sorted: Vec<&(f64, T)> = runs.iter().collect();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut rates: Vec<f64> = sorted.iter().map(|r| r.0).collect();
    let (median, note) = median_and_range(&mut rates);
    (sorted[sorted.len() / 2].1.clone(), median, note)
}

/// What every probe does first: `--help` or `-h` anywhere on the command line prints `usage`
/// and exits 0 (so asking for help is never mistaken for a flag missing its value); output
/// piped into `head` ends the probe quietly instead of panicking on a broken pipe; then
/// `parse` reads the command line, and an error is printed with the usage (exit status 2).
pub fn start<A, E: std::fmt::Display>(
    name: &str,
    usage: &str,
    parse: impl FnOnce() -> Result<A, E>,
) -> A {
    // SAFETY: restores the default action of SIGPIPE (end the process), which Rust's runtime
    // set to "ignore"; called first in `main`, before the probe starts any thread.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    answer_help(usage);
    parse().unwrap_or_else(|e| {
        eprintln!("{name}: {e}\nusage: {usage}");
        std::process::exit(2);
    })
}

/// fib(n) by plain recursion: the value a pool's fib must return (`forkjoin-steals`,
/// `pool-drift`).
pub fn fib_plain(n: u64) -> u64 {
    if n < 2 { n } else { fib_plain(n - 1) + fib_plain(n - 2) }
}

/// The machine a measurement ran on (the project's one label, also printed by the notebooks):
/// every timed probe prints it, and so does every figure the scripts write.
pub use machine_label::machine;

/// `amd` or `intel`: which set of per-machine figures a run writes and the lab's verdicts cite.
pub use machine_label::kind as machine_kind;

/// `--help` or `-h` anywhere on the command line: prints `usage` and exits 0.
fn answer_help(usage: &str) {
    if std::env::args().skip(1).any(|a| a == "--help" || a == "-h") {
        println!("usage: {usage}");
        std::process::exit(0);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_median_run_is_printed_with_its_own_rate() {
        let runs = [(0.3, "c"), (0.1, "a"), (0.2, "b"), (0.4, "d")];
        let (run, rate, note) = super::median_run(&runs);
        assert_eq!((run, rate), ("c", 0.3), "the upper of the middle two, with its rate");
        assert_eq!(note, "   (median of 4; min 0.100, max 0.400)");
        let (run, rate, note) = super::median_run(&[(0.5, 7)]);
        assert_eq!((run, rate, note.as_str()), (7, 0.5, ""), "one run: no range");
    }
}
