//! The label every figure carries, in one place: the probes print it (`probes::machine`), the
//! scripts get it from the `machine` probe, and the notebooks load this crate (`:dep`) and print
//! [`run`] above their measured cells. Single runs on a busy machine are not measurements, so
//! no figure goes without it.

use std::time::{SystemTime, UNIX_EPOCH};

/// The machine a measurement ran on: `AMD EPYC (family 23, model 1), 2 cores, load average
/// 0.84`. The family and model are there because a virtual machine may name its processor only
/// "AMD EPYC": two such hosts of this project, of different generations, paid 2.2 and 10.2 ns
/// for the same SeqCst swap.
pub fn machine() -> String {
    let cpuinfo = cpuinfo();
    let field = |key: &str| cpuinfo_field(&cpuinfo, key);
    let mut model = field("model name").unwrap_or_else(|| std::env::consts::ARCH.to_string());
    if let (Some(family), Some(number)) = (field("cpu family"), field("model")) {
        model = format!("{model} (family {family}, model {number})");
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load = load.split_whitespace().next().unwrap_or("?");
    format!("{model}, {cores} cores, load average {load}")
}

/// The kind of machine, `amd` or `intel` (by the first processor's `vendor_id`; anything not
/// AMD counts as `intel`): the profiles and round-by-round figures are kept one set per kind,
/// `chapters/contention/*-KIND.txt`, and the lab's verdicts cite this machine's set.
pub fn kind() -> &'static str {
    kind_of(&cpuinfo())
}

/// [`kind`], from the text of a `/proc/cpuinfo`.
fn kind_of(cpuinfo: &str) -> &'static str {
    if cpuinfo_field(cpuinfo, "vendor_id").as_deref() == Some("AuthenticAMD") {
        "amd"
    } else {
        "intel"
    }
}

/// `/proc/cpuinfo`, or nothing where there is none.
fn cpuinfo() -> String {
    std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default()
}

/// The first processor's value of `key` in `cpuinfo` (the line `key<tabs>: value`).
fn cpuinfo_field(cpuinfo: &str, key: &str) -> Option<String> {
    cpuinfo.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == key).then(|| v.trim().to_string())
    })
}

/// Two lines for the top of a notebook's measured output: `run: 2026-12-05 02:15 UTC` and
/// `machine: ` [`machine`].
pub fn run() -> String {
    format!("run: {}\nmachine: {}", utc_now(), machine())
}

/// The time now, `2026-12-05 02:15 UTC`.
pub fn utc_now() -> String {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    utc(secs)
}

/// `secs` after the Unix epoch as `YYYY-MM-DD HH:MM UTC` (the proleptic Gregorian calendar,
/// from the day count by the usual era arithmetic: 400-year eras of 146,097 days).
fn utc(secs: u64) -> String {
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let z = days + 719_468; // days since 0000-03-01
    let era = z / 146_097;
    let doe = z % 146_097; // day of the era
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365; // year of the era
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // day of the year, from March 1
    let mp = (5 * doy + 2) / 153; // month, from March = 0
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = era * 400 + yoe + u64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02} UTC", rest / 3_600, rest % 3_600 / 60)
}

#[cfg(test)]
mod tests {
    use super::utc;

    /// Dates checked against `date -u -d @SECS`: the epoch, a leap day, a year's last minute,
    /// and this project's own days.
    #[test]
    fn utc_formats_known_instants() {
        assert_eq!(utc(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc(951_782_400), "2000-02-29 00:00 UTC");
        assert_eq!(utc(1_735_689_599), "2024-12-31 23:59 UTC");
        assert_eq!(utc(1_796_437_740), "2026-12-05 02:29 UTC");
    }

    #[test]
    fn the_label_names_cores_and_load() {
        let m = super::machine();
        assert!(m.contains(" cores, load average "), "{m}");
    }

    /// The vendor line decides, not a model name that mentions a vendor.
    #[test]
    fn the_kind_comes_from_the_vendor_line() {
        let amd = "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC\n";
        let intel = "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R)\n";
        let odd = "vendor_id\t: GenuineIntel\nmodel name\t: an AuthenticAMD lookalike\n";
        assert_eq!(super::kind_of(amd), "amd");
        assert_eq!(super::kind_of(intel), "intel");
        assert_eq!(super::kind_of(odd), "intel");
        assert_eq!(super::kind_of(""), "intel");
    }
}
