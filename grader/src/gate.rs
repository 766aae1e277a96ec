//! The benchmark gate's words: its verdict's numbers, and the ratio read back from them.

/// What a bench verdict says: both times per run, their ratio and the limit.
pub fn bench_numbers(exercise: f64, reference: f64, limit: f64) -> String {
    let ratio = exercise / reference;
    format!(
        "{} vs reference {} per run: {ratio:.2}x (limit {limit:.1}x)",
        human(exercise),
        human(reference)
    )
}

/// The ratio in the text of a bench verdict (`bench_numbers`), as printed, to two decimals.
pub fn bench_ratio(text: &str) -> Option<f64> {
    let (_, rest) = text.split_once("per run: ")?;
    rest.split_once('x')?.0.parse().ok()
}

fn human(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.1} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--check` reads the gate's ratio back from the verdict's text.
    #[test]
    fn reads_the_ratio_back_from_a_bench_verdict() {
        assert_eq!(bench_ratio(&bench_numbers(105_000.0, 100_000.0, 2.0)), Some(1.05));
        assert_eq!(bench_ratio("no benchmark gate in this chapter"), None);
    }
}
