//! Turns a criterion run into a Markdown table for the book, labelled with the machine, the
//! date and the command, so that every figure says where it came from.
//!
//! usage: bench-table CRITERION_HOME OUT.md ELEMENTS_PER_ITER COMMAND GROUP:ID[,ID...] ...
//!
//! Each GROUP becomes a row; each ID a column (ns per element); the last column is the ratio of
//! the first ID to the last one (ours over the peer we race).

use std::path::Path;
use std::process::ExitCode;

use seam::criterion::{bench_dir, mean_ns};

const USAGE: &str =
    "bench-table CRITERION_HOME OUT.md ELEMENTS_PER_ITER COMMAND GROUP:ID[,ID...] ...";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match table(&args) {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("bench-table: {e}\nusage: {USAGE}");
            ExitCode::from(2)
        }
    }
}

fn table(args: &[String]) -> Result<String, String> {
    let [home, out, per_iter, command, rows @ ..] = args else {
        return Err("too few arguments".into());
    };
    if rows.is_empty() {
        return Err("no GROUP:ID,... row".into());
    }
    let per_iter: f64 = per_iter.parse().map_err(|_| format!("{per_iter:?} is not a number"))?;
    let home = Path::new(home);
    let rows: Vec<(&str, Vec<&str>)> = rows
        .iter()
        .map(|r| r.split_once(':').map(|(g, ids)| (g, ids.split(',').collect())))
        .collect::<Option<_>>()
        .ok_or("each row reads GROUP:ID[,ID...]")?;
    let ids = &rows[0].1;
    let mut text = format!(
        "| ns per operation | {} | {} / {} |\n|---|{}\n",
        ids.join(" | "),
        ids[0],
        ids[ids.len() - 1],
        "---:|".repeat(ids.len() + 1)
    );
    for (group, ids) in &rows {
        let mut row = Vec::new();
        for id in ids {
            let dir = bench_dir(home, group, id);
            let ns = mean_ns(&dir).ok_or(format!("no criterion estimates in {}", dir.display()))?;
            row.push(ns / per_iter);
        }
        let cells: Vec<String> = row.iter().map(|v| format!("{v:.2}")).collect();
        let ratio = row[0] / row[row.len() - 1];
        text += &format!("| `{group}` | {} | {ratio:.2} |\n", cells.join(" | "));
    }
    text += &format!(
        "\n*Measured {} on {}; {}, with `{command}`. Mean of criterion's samples; one run, so \
         differences under ~10% are noise.*\n",
        output_of("date", &["-u", "+%F"]),
        probes::machine(),
        output_of("rustc", &["--version"])
    );
    std::fs::write(out, &text).map_err(|e| format!("{out}: {e}"))?;
    Ok(text)
}

/// What `program args` prints, trimmed (the date, the compiler's version).
fn output_of(program: &str, args: &[&str]) -> String {
    std::process::Command::new(program)
        .args(args)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|_| format!("({program} unknown)"))
}
