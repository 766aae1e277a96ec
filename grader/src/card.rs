//! Grading one chapter: run its checks on a file and print the report card (once, or again
//! after every save with `--watch`), recording the reader's progress.

use std::path::Path;
use std::process::ExitCode;

use crate::chapters::Chapter;
use crate::checks::{Check, Verdict};
use crate::state::State;
use crate::watch;

use super::{run_checks, target};

/// How to grade: `quick` leaves the benchmark gate out (a first verdict in seconds), `watch`
/// grades again each time the file changes.
#[derive(Clone, Copy)]
pub struct Mode {
    pub quick: bool,
    pub watch: bool,
}

/// Grades once, or, with `--watch`, again after every change to `file` until Ctrl-C.
pub fn grade_or_watch(
    root: &Path,
    chapter: &'static Chapter,
    file: &Path,
    mut state: Option<&mut State>,
    mode: Mode,
) -> ExitCode {
    if !mode.watch {
        return grade(root, chapter, file, state, mode.quick);
    }
    let mut seen = watch::Stamp::of(file);
    loop {
        grade(root, chapter, file, state.as_deref_mut(), mode.quick);
        println!("\n  watching {} for changes (Ctrl-C stops)...", file.display());
        seen = watch::wait_for_change(file, seen, std::time::Duration::from_millis(300), None);
        println!("\n  {} changed: grading again\n", file.display());
    }
}

/// Grades `file` as the chapter's exercise and prints the report card; records the progress in
/// `state` (none for a file given with `--file`). `quick` leaves the benchmark gate out.
fn grade(
    root: &Path,
    chapter: &'static Chapter,
    file: &Path,
    state: Option<&mut State>,
    quick: bool,
) -> ExitCode {
    println!("cargo grade {}: {}", chapter.id, chapter.title);
    let shown = file.strip_prefix(root).unwrap_or(file);
    println!("  exercise: {}\n", shown.display());
    let all_but_the_gate: Vec<Check> =
        Check::ALL.into_iter().filter(|c| *c != Check::Bench).collect();
    let only = quick.then_some(all_but_the_gate.as_slice());
    let mut results = run_checks(&target(root, chapter, file.to_path_buf(), "exercise"), only);
    if quick {
        results.push((Check::Bench, Verdict::Skip("not run (--quick)".into())));
    }
    println!();
    for (check, verdict) in &results {
        let (mark, text) = match verdict {
            Verdict::Pass(t) => ("✓", t),
            Verdict::Fail(t) => ("✗", t),
            Verdict::Skip(t) => ("-", t),
        };
        let mut lines = text.lines();
        println!("  {mark} {:<7} {}", check.name(), lines.next().unwrap_or(""));
        for l in lines {
            println!("            {l}");
        }
        if matches!(verdict, Verdict::Fail(_)) {
            println!("            look at: {}", look_at(chapter, *check));
        }
    }
    // A check the chapter does not have ("no loom models...") does not count; one that did not
    // run (an earlier one failed, or --quick) counts as not passed, but is no failure to hint.
    let counted: Vec<(&str, Option<bool>)> = results
        .iter()
        .filter(|(_, v)| !matches!(v, Verdict::Skip(s) if s.starts_with("no ")))
        .map(|(c, v)| {
            let outcome = match v {
                Verdict::Pass(_) => Some(true),
                Verdict::Fail(_) => Some(false),
                Verdict::Skip(_) => None,
            };
            (c.name(), outcome)
        })
        .collect();
    if let Some(state) = state {
        state.record(&chapter.id, &counted);
    }
    let passed = counted.iter().filter(|c| c.1 == Some(true)).count();
    println!();
    if quick && passed + 1 == counted.len() {
        println!(
            "  All {passed} checks that ran pass; the benchmark gate did not run (--quick).\n  \
             cargo grade {} for the full grade.",
            chapter.id
        );
        ExitCode::SUCCESS
    } else if passed == counted.len() {
        println!("  All {passed} checks pass. On to the next chapter!");
        ExitCode::SUCCESS
    } else {
        println!(
            "  {passed} of {} checks pass. Hints: cargo grade {} --hint   (logs: target/grade/{}/exercise/)",
            counted.len(),
            chapter.id,
            chapter.id
        );
        ExitCode::FAILURE
    }
}

fn look_at(chapter: &Chapter, check: Check) -> String {
    match check {
        Check::Build => format!("the messages above, in {}", chapter.exercise()),
        Check::Tests => format!(
            "chapters/{}/tests/, and the \"Exercise\" section of {}",
            chapter.name,
            chapter.page()
        ),
        Check::Loom => {
            format!(
                "chapters/{}/tests/loom.rs and the page's section \"{}\"",
                chapter.name, chapter.orderings
            )
        }
        Check::Clippy => format!("cargo clippy -p {} --features exercise", chapter.name),
        Check::Bench => format!(
            "chapters/{}/benches/gate.rs; compare your hot path with the page's code",
            chapter.name
        ),
    }
}
