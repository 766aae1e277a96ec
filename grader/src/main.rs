//! `cargo grade`: grades the reader's exercises, and proves that every check can fail.
//!
//! ```text
//! cargo grade                 progress over all chapters
//! cargo grade ch01            grade chapters/ch01-ring/src/exercise.rs, print a report card
//! cargo grade ch01 --quick    the same without the benchmark gate: a first verdict in seconds
//! cargo grade ch01 --watch    grade again each time the file is saved (with --quick too)
//! cargo grade ch01 --hint     one more hint for each check that failed last time
//! cargo grade ch01 --hint --all   every hint for those checks
//! cargo grade --reset [ch01]  forget saved progress
//! cargo grade --check [ch01]  for CI: the reference passes every check (and, through the
//!                             benchmark gate, times within 1.4x of itself, the best of
//!                             up to 3 runs), the shipped
//!                             stub fails, every mutant is caught by the check it names
//!                             (with the failure its `expect:` line names, if any), and
//!                             every mutant cargo-mutants generates from the reference fails
//!                             a check or is listed as equivalent, with its reason
//! cargo grade --list          the chapters
//! cargo grade ch02 --mutant NAME  write that known-wrong variant to target/grade, print its path
//! cargo grade ch02 --file PATH     grade PATH as the exercise (progress is not recorded)
//! cargo grade --library-mutants [NAME...] [--self-test]
//!                             known-wrong variants of library code that is no exercise
//!                             (chapters/*/mutants), each caught by the tests it names
//! ```

mod card;
mod chapters;
mod checks;
mod gate;
mod generated;
mod hints;
mod library;
mod mutants;
mod own;
mod run;
mod self_check;
mod state;
mod stuck;
mod testlog;
mod watch;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use card::{Mode, grade_or_watch};
use chapters::Chapter;
use checks::{Check, Target, Verdict};
use state::State;

fn main() -> ExitCode {
    // SAFETY: restores the default action of SIGPIPE (end the process), which Rust's runtime
    // set to "ignore", so that `cargo grade | head` ends quietly instead of panicking; called
    // before the grader starts any thread or child process.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let root = workspace_root();
    let args = match Args::parse(std::env::args_os().skip(1)) {
        Ok(a) => a,
        Err(e) => return refuse(&e.to_string()),
    };
    let flag = |f: &str| args.switches.contains(&f);
    let names: Vec<&str> = args.names.iter().map(String::as_str).collect();
    let (mutant, file) = (args.mutant.clone(), args.file.clone());
    // Switches that mean something only beside another.
    for (switch, needs, why) in [
        ("--all", "--hint", "every hint at once"),
        ("--self-test", "--library-mutants", "the library mutants' self-test"),
    ] {
        if flag(switch) && !flag(needs) {
            return refuse(&format!("{switch} goes with {needs} ({why})"));
        }
    }
    if flag("--help") {
        println!("{}", usage());
        return ExitCode::SUCCESS;
    }
    if flag("--library-mutants") {
        // Bare words name library mutants here, not chapters.
        return library::main(&root, &names, flag("--self-test"));
    }
    let mut chosen = Vec::new();
    for name in &names {
        match chapters::find(name) {
            Some(c) => chosen.push(c),
            None => {
                eprintln!("grade: no chapter called {name:?}. The chapters are:");
                eprint!("{}", list());
                return ExitCode::from(2);
            }
        }
    }
    if flag("--list") {
        print!("{}", list());
        return ExitCode::SUCCESS;
    }
    let mut state = State::load(&root);
    if flag("--reset") {
        match chosen.as_slice() {
            [] => state.reset(None),
            cs => cs.iter().for_each(|c| state.reset(Some(&c.id))),
        }
        println!("grade: progress reset");
        return ExitCode::SUCCESS;
    }
    if flag("--check") {
        let all: Vec<&'static Chapter> =
            if chosen.is_empty() { chapters::all().iter().collect() } else { chosen };
        return self_check::self_check(&root, &all);
    }
    if let Some(name) = mutant {
        let [c] = chosen.as_slice() else {
            eprintln!(
                "grade: --mutant needs one chapter: cargo grade ch02 --mutant relaxed_slot_load"
            );
            return ExitCode::from(2);
        };
        return match write_mutant(&root, c, &name) {
            Ok(path) => {
                println!("{}", path.display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("grade: {e}");
                ExitCode::from(2)
            }
        };
    }
    let mode = Mode { quick: flag("--quick"), watch: flag("--watch") };
    match chosen.as_slice() {
        [] => {
            progress(&state);
            ExitCode::SUCCESS
        }
        [c] if flag("--hint") => hints(&root, c, &mut state, flag("--all")),
        [c] => match file {
            Some(f) if f.is_empty() => {
                eprintln!("grade: --file needs a path: cargo grade ch02 --file my_poll.rs");
                ExitCode::from(2)
            }
            Some(f) if !Path::new(&f).is_file() => {
                eprintln!("grade: {f}: no such file");
                ExitCode::from(2)
            }
            Some(f) => {
                let path = std::fs::canonicalize(&f).unwrap_or_else(|_| PathBuf::from(&f));
                grade_or_watch(&root, c, &path, None, mode)
            }
            None => grade_or_watch(&root, c, &root.join(c.exercise()), Some(&mut state), mode),
        },
        _ => {
            eprintln!("grade: one chapter at a time, please (or --check for all)");
            ExitCode::from(2)
        }
    }
}

/// The command line: chapter names (or, with `--library-mutants`, mutant names), the switches
/// given, and the values of `--mutant` and `--file`.
#[derive(Debug, Default, PartialEq)]
struct Args {
    names: Vec<String>,
    switches: Vec<&'static str>,
    mutant: Option<String>,
    file: Option<String>,
}

impl Args {
    const SWITCHES: [&'static str; 10] = [
        "--check",
        "--hint",
        "--all",
        "--reset",
        "--list",
        "--help",
        "--library-mutants",
        "--self-test",
        "--quick",
        "--watch",
    ];

    fn parse(args: impl IntoIterator<Item = std::ffi::OsString>) -> Result<Args, lexopt::Error> {
        use lexopt::prelude::*;
        let mut parser = lexopt::Parser::from_args(args);
        let mut out = Args::default();
        while let Some(arg) = parser.next()? {
            match arg {
                Long("mutant") => out.mutant = Some(parser.value()?.string()?),
                Long("file") => out.file = Some(parser.value()?.string()?),
                Short('h') => out.switches.push("--help"),
                Long(name) => match Self::SWITCHES.iter().find(|s| s[2..] == *name) {
                    Some(s) => out.switches.push(s),
                    None => return Err(arg.unexpected()),
                },
                Value(name) => out.names.push(name.string()?),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(out)
    }
}

/// Says what is wrong with the command line, then the usage; exit status 2.
fn refuse(why: &str) -> ExitCode {
    eprintln!("grade: {why}\n");
    eprintln!("{}", usage());
    ExitCode::from(2)
}

fn usage() -> &'static str {
    "usage: cargo grade [CHAPTER] [--quick] [--watch] [--hint [--all]] | --reset [CHAPTER] | --check [CHAPTER...] | --list\n\
     \x20      cargo grade CHAPTER --mutant NAME   (write a known-wrong variant, print its path;\n\
     \x20                                          it is the reference with one bug: the answer, nearly)\n\
     \x20      cargo grade CHAPTER --file PATH     (grade PATH as the exercise; progress not kept)\n\
     \x20      cargo grade --library-mutants [NAME...] [--self-test]   (mutants of library code)\n\
     CHAPTER is ch01, ch1, ch01-ring or 1."
}

/// The chapters, one per line.
fn list() -> String {
    chapters::all().iter().map(|c| format!("  {:<5} {:<16} {}\n", c.id, c.name, c.title)).collect()
}

/// The workspace root: where `Cargo.lock` sits above this crate.
fn workspace_root() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.parent().map(Path::to_path_buf).unwrap_or(here)
}

fn progress(state: &State) {
    println!("Progress (cargo grade CHAPTER to grade one):");
    for c in chapters::all() {
        let mark = match state.done(&c.id) {
            Some(true) => "✓ done",
            Some(false) => "✗ not yet",
            None => "· not graded",
        };
        println!("  {:<5} {:<12} {}", c.id, mark, c.title);
    }
}

/// Runs the checks in order; a failure skips the checks it blocks ([`Check::blocks`]: all
/// that follow, but for the loom models after failed tests).
fn run_checks(target: &Target, only: Option<&[Check]>) -> Vec<(Check, Verdict)> {
    let mut results = Vec::new();
    let mut failed: Vec<Check> = Vec::new();
    for check in Check::ALL {
        if only.is_some_and(|o| !o.contains(&check)) {
            continue;
        }
        let blocked = failed.iter().copied().find(|f| f.blocks(check));
        let verdict = match (target.not_applicable(check), blocked) {
            (Some(v), _) => v,
            (None, Some(b)) => Verdict::Skip(format!("not run: {} failed", b.name())),
            (None, None) => {
                {
                    print!("  running {:<7}", check.name());
                    let _ = std::io::stdout().flush();
                }
                let t0 = std::time::Instant::now();
                let v = target.run(check);
                {
                    let word = match v {
                        Verdict::Pass(_) => "ok",
                        Verdict::Fail(_) => "FAILED",
                        Verdict::Skip(_) => "-",
                    };
                    println!(" {word} ({:.0} s)", t0.elapsed().as_secs_f64());
                }
                v
            }
        };
        if matches!(verdict, Verdict::Fail(_)) {
            failed.push(check);
        }
        results.push((check, verdict));
    }
    results
}

fn target<'a>(root: &'a Path, chapter: &'static Chapter, file: PathBuf, tag: &str) -> Target<'a> {
    Target { root, chapter, file, scratch: root.join("target/grade").join(&chapter.id).join(tag) }
}

/// Prints, for each check that failed last time (each check before a first grading), one hint
/// more than the last `--hint` showed, or every hint with `all`.
fn hints(root: &Path, chapter: &Chapter, state: &mut State, all: bool) -> ExitCode {
    let path = root.join(chapter.hints());
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("grade: no hints file at {}", path.display());
        return ExitCode::FAILURE;
    };
    let failed = state.failed(&chapter.id);
    let mut shown = 0;
    for section in hints::sections(&text) {
        if !(failed.is_empty() || failed.contains(&section.check)) {
            continue;
        }
        let before = state.hints_shown(&chapter.id, &section.check);
        let (text, n) = hints::reveal(&section, before, all);
        state.set_hints_shown(&chapter.id, &section.check, n);
        let total = section.hints.len();
        println!("Hints for {} ({n} of {total}):\n{}", section.check, text.trim_end());
        if n < total {
            println!(
                "(cargo grade {} --hint again for the next one; --hint --all for every one)",
                chapter.id
            );
        }
        println!();
        shown += 1;
    }
    if shown == 0 {
        println!(
            "No failing checks at the last grading: nothing to hint. Run cargo grade {}.",
            chapter.id
        );
    }
    ExitCode::SUCCESS
}

/// Writes the reference with mutant `name` applied under target/grade, and returns its path
/// (`cargo grade ch02 --mutant relaxed_slot_load` shows a mistake as code; GRADE_EXERCISE_FILE
/// set to that path runs any check on it).
fn write_mutant(root: &Path, chapter: &Chapter, name: &str) -> Result<PathBuf, String> {
    let all = mutants::load::<Check>(&root.join(chapter.mutants()))?;
    let Some(m) = all.iter().find(|m| m.name == name) else {
        let names: Vec<&str> = all.iter().map(|m| m.name.as_str()).collect();
        return Err(format!("{} has no mutant {name:?}; it has: {}", chapter.id, names.join(", ")));
    };
    let reference = std::fs::read_to_string(root.join(&chapter.solution))
        .map_err(|e| format!("{}: {e}", chapter.solution))?;
    // Named `exercise.rs`, in a folder of its own: reports name the reader's file so.
    let file =
        root.join("target/grade").join(&chapter.id).join("mutants").join(name).join("exercise.rs");
    std::fs::create_dir_all(file.parent().expect("a parent folder")).map_err(|e| e.to_string())?;
    std::fs::write(&file, m.apply(&reference)?).map_err(|e| format!("{}: {e}", file.display()))?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(words: &[&str]) -> Result<Args, String> {
        Args::parse(words.iter().map(Into::into)).map_err(|e| e.to_string())
    }

    #[test]
    fn reads_names_switches_and_values_in_any_order() {
        let a = parse(&["--mutant", "relaxed_slot_load", "ch02", "--hint", "--file=f.rs"]).unwrap();
        assert_eq!(a.names, ["ch02"]);
        assert_eq!(a.switches, ["--hint"]);
        assert_eq!(
            (a.mutant.as_deref(), a.file.as_deref()),
            (Some("relaxed_slot_load"), Some("f.rs"))
        );
        assert_eq!(parse(&["-h"]).unwrap().switches, ["--help"]);
    }

    #[test]
    fn refuses_what_it_does_not_know_by_name() {
        assert!(parse(&["--chek"]).unwrap_err().contains("--chek"));
        assert!(parse(&["ch02", "--mutant"]).unwrap_err().contains("--mutant"));
        assert!(parse(&["-x"]).is_err());
    }
}
