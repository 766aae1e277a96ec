//! What the probes share: summarizing repeated runs.

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
