//! Reading what criterion wrote: the one reader of its results, for the grader's benchmark
//! gate and for the book's benchmark tables (`probes`' `bench-table`).

use std::path::{Path, PathBuf};

/// The folder criterion writes one benchmark's results to: `HOME/GROUP/ID`, with every `/` of
/// the id turned into `_` (as criterion names it).
pub fn bench_dir(home: &Path, group: &str, id: &str) -> PathBuf {
    home.join(group).join(id.replace('/', "_"))
}

/// The mean estimate, in nanoseconds per iteration, of the last run of the benchmark whose
/// folder is `dir`; `None` when criterion wrote none there.
pub fn mean_ns(dir: &Path) -> Option<f64> {
    let text = std::fs::read_to_string(dir.join("new/estimates.json")).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    json["mean"]["point_estimate"].as_f64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_mean_of_the_last_run() {
        let home = std::env::temp_dir().join(format!("seam-criterion-{}", std::process::id()));
        let dir = bench_dir(&home, "gate", "ours/1");
        assert!(dir.ends_with("gate/ours_1"));
        assert_eq!(mean_ns(&dir), None, "nothing written yet");
        std::fs::create_dir_all(dir.join("new")).unwrap();
        let json = r#"{"mean":{"point_estimate":12.5},"median":{"point_estimate":11.0}}"#;
        std::fs::write(dir.join("new/estimates.json"), json).unwrap();
        assert_eq!(mean_ns(&dir), Some(12.5));
        std::fs::remove_dir_all(&home).unwrap();
    }
}
