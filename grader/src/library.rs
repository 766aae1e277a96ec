//! `cargo grade --library-mutants`: known-wrong variants of library code that is no exercise,
//! and the tests that must catch them.
//!
//! The exercises' mutants edit a reader's answer. Some protocols are not exercises but are
//! still model-checked: the reclamation crate's pins and box reuse (`chapters/reclaim`), chapter
//! 7's scan. Their mutants live in `chapters/<crate>/mutants/<name>.mutant`, in the format of
//! `mutants.rs` with a `file:` line (the source they edit, relative to the crate) and a
//! `caught-by:` line naming tests:
//!
//! ```text
//! caught-by: loom <test filter>           the crate's tests/loom.rs, under --cfg loom
//! caught-by: test <target> <test filter>  one of the crate's test targets, in release
//!                                         (`lib`: the unit tests in its `src/`)
//! expect: <text the failure must print>   optional: a loom report, an assertion's message
//! ```
//!
//! For each mutant the grader edits the file in place, builds and runs the tests its
//! `caught-by:` line selects, and puts the file back (also on Ctrl-C). While a mutant is
//! applied, a record of it waits in `target/library-mutants/`; a run that was killed leaves
//! it there, and the next run puts the original back if the file still holds that mutant.
//! One run at a time per tree (a lock). A mutant is caught when its tests build, run, fail
//! within the time limit and print its `expect:` text; one that does not build, passes,
//! hangs, or fails for another reason fails the run.
//!
//! ```text
//! cargo grade --library-mutants              every mutant of every crate
//! cargo grade --library-mutants NAME ...     only these
//! cargo grade --library-mutants --self-test  shows that a mutant can fail to be caught
//! ```

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use serde_json::json;

use crate::checks::under_loom;
use crate::mutants::{self, CaughtBy, Mutant};
use crate::run::{INTERRUPTED, Limits, run};
use crate::testlog::count_tests;

/// The tests that must fail under a library mutant.
#[derive(Clone, Debug, PartialEq)]
pub enum Tests {
    /// The models in the crate's `tests/loom.rs` whose names contain the filter.
    Loom(String),
    /// The tests of one test target whose names contain the filter.
    Target { target: String, filter: String },
}

impl CaughtBy for Tests {
    const NAMES_ITS_FILE: bool = true;
    fn parse(words: &str) -> Option<Tests> {
        match words.split_whitespace().collect::<Vec<_>>()[..] {
            ["loom", filter] => Some(Tests::Loom(filter.into())),
            ["test", target, filter] => {
                Some(Tests::Target { target: target.into(), filter: filter.into() })
            }
            _ => None,
        }
    }
}

impl std::fmt::Display for Tests {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Tests::Loom(filter) => write!(f, "loom {filter}"),
            Tests::Target { target, filter } => write!(f, "test {target} {filter}"),
        }
    }
}

/// How long one mutant's build or tests may take.
const LIMIT: Duration = Duration::from_secs(600);

/// One library mutant and the crate (folder under `chapters/`) it belongs to.
struct Found {
    krate: PathBuf,
    mutant: Mutant<Tests>,
}

pub fn main(root: &Path, names: &[&str], self_test: bool) -> ExitCode {
    let records = root.join("target/library-mutants");
    if let Err(e) = std::fs::create_dir_all(&records) {
        eprintln!("grade: {}: {e}", records.display());
        return ExitCode::from(2);
    }
    let Some(_lock) = Lock::take(&records.join(".lock")) else {
        eprintln!("grade: another run is applying library mutants in this tree; wait for it");
        return ExitCode::from(2);
    };
    restore_leftovers(root, &records);
    catch_ctrl_c();
    let all = match load_all(root) {
        Ok(all) if all.is_empty() => {
            eprintln!("grade: no library mutant found under chapters/*/mutants");
            return ExitCode::FAILURE;
        }
        Ok(all) => all,
        Err(e) => {
            eprintln!("grade: {e}");
            return ExitCode::FAILURE;
        }
    };
    if self_test {
        return self_test_run(root, &records, &all[0]);
    }
    let missing: Vec<&str> =
        names.iter().copied().filter(|n| !all.iter().any(|f| f.mutant.name == *n)).collect();
    if !missing.is_empty() {
        eprintln!("grade: no library mutant called {}. They are:", missing.join(", "));
        all.iter().for_each(|f| eprintln!("  {}", f.mutant.name));
        return ExitCode::from(2);
    }
    let chosen: Vec<&Found> = all
        .iter()
        .filter(|f| names.is_empty() || names.contains(&f.mutant.name.as_str()))
        .collect();
    let mut caught = 0;
    for found in &chosen {
        match check(root, &records, found) {
            Ok(()) => caught += 1,
            Err(Stop::Interrupted) => {
                println!("grade: interrupted; every mutated file is back as it was");
                return ExitCode::from(130);
            }
            Err(Stop::Missed(why)) => {
                println!("FAIL {} {}: {why}", crate_name(found), found.mutant.name)
            }
        }
    }
    println!("library mutants: {caught} of {} caught", chosen.len());
    if caught == chosen.len() { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

/// Every library mutant, sorted by crate and name.
fn load_all(root: &Path) -> Result<Vec<Found>, String> {
    let chapters = root.join("chapters");
    let mut crates: Vec<PathBuf> = std::fs::read_dir(&chapters)
        .map_err(|e| format!("{}: {e}", chapters.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("mutants").is_dir())
        .collect();
    crates.sort();
    let mut all = Vec::new();
    for krate in crates {
        for mutant in mutants::load::<Tests>(&krate.join("mutants"))? {
            all.push(Found { krate: krate.clone(), mutant });
        }
    }
    Ok(all)
}

fn crate_name(found: &Found) -> String {
    found.krate.file_name().unwrap_or_default().to_string_lossy().into_owned()
}

enum Stop {
    /// Not caught, and why.
    Missed(String),
    /// Ctrl-C: the file is back as it was; stop here.
    Interrupted,
}

/// Applies one mutant, builds and runs its tests, and puts the file back; `Ok` when the tests
/// caught it.
fn check(root: &Path, records: &Path, found: &Found) -> Result<(), Stop> {
    let m = &found.mutant;
    let file = m.file.as_deref().expect("a library mutant names its file");
    let source = found.krate.join(file);
    let original = std::fs::read_to_string(&source)
        .map_err(|e| Stop::Missed(format!("{}: {e}", source.display())))?;
    let mutated = m.apply(&original).map_err(Stop::Missed)?;
    let record = records.join(format!("{}.json", crate_name(found) + "-" + &m.name));
    let shown = source.strip_prefix(root).unwrap_or(&source).display().to_string();
    let saved = json!({ "path": shown, "original": original, "mutated": mutated });
    std::fs::write(&record, saved.to_string())
        .and_then(|()| std::fs::write(&source, &mutated))
        .map_err(|e| Stop::Missed(format!("could not apply it: {e}")))?;
    let outcome = run_tests(root, &crate_name(found), &m.caught_by);
    // Put the file back before anything else, whatever happened.
    if let Err(e) = std::fs::write(&source, &original) {
        eprintln!(
            "grade: could not restore {shown} ({e}); its record stays in {}",
            record.display()
        );
        return Err(Stop::Interrupted);
    }
    let _ = std::fs::remove_file(&record);
    let out = outcome?;
    let (_, failed) = count_tests(&out.text);
    let said_it = mutants::unprinted(m.expect.as_deref(), Some(&out.text)).is_none();
    if failed > 0 && said_it {
        println!("caught {} {} ({}): {}", crate_name(found), m.name, m.caught_by, m.why);
        return Ok(());
    }
    let tail: Vec<&str> = out.text.lines().rev().take(25).collect();
    let tail: String = tail.into_iter().rev().map(|l| format!("    {l}\n")).collect();
    let reason = if failed > 0 {
        format!("its tests failed without printing {:?}", m.expect.as_deref().unwrap_or(""))
    } else if out.timed_out {
        format!("its tests ran past {} s", LIMIT.as_secs())
    } else if out.ok() {
        "its tests passed".to_string()
    } else {
        "its tests did not run".to_string()
    };
    Err(Stop::Missed(format!("not caught, {reason}\n{tail}")))
}

/// The `cargo test` arguments that select test target `target`: `lib`, the crate's own unit
/// tests; any other name, a target under `tests/`.
fn target_args(target: &str) -> Vec<&str> {
    if target == "lib" { vec!["--lib"] } else { vec!["--test", target] }
}

/// Builds, then runs, the tests `tests` names in crate `krate`. Two steps, so that the test
/// run's output (where `expect:` is looked for) holds no compiler message that quotes the
/// mutated source.
fn run_tests(root: &Path, krate: &str, tests: &Tests) -> Result<crate::run::Output, Stop> {
    let (target, filter) = match tests {
        Tests::Loom(filter) => ("loom", filter.as_str()),
        Tests::Target { target, filter } => (target.as_str(), filter.as_str()),
    };
    let cargo = |args: &[&str]| {
        let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
        cmd.current_dir(root).args(["test", "-p", krate, "--release"]).args(target_args(target));
        cmd.args(args);
        if matches!(tests, Tests::Loom(_)) {
            under_loom(&mut cmd, root);
        }
        cmd
    };
    let limits = Limits { total: LIMIT, quiet: None };
    let built = run(cargo(&["--no-run"]), limits, None);
    if INTERRUPTED.load(Relaxed) {
        return Err(Stop::Interrupted);
    }
    if !built.ok() {
        let errors: Vec<&str> = built.text.lines().filter(|l| l.starts_with("error")).collect();
        return Err(Stop::Missed(format!("it does not build: {}", errors.join("; "))));
    }
    let out = run(cargo(&["--", filter, "--test-threads=1"]), limits, None);
    if INTERRUPTED.load(Relaxed) {
        return Err(Stop::Interrupted);
    }
    Ok(out)
}

/// Shows that a mutant can go uncaught: a harmless edit (a comment of the first mutant's
/// file) must not count as caught, nor the first mutant with an `expect:` text its failure
/// never prints.
fn self_test_run(root: &Path, records: &Path, first: &Found) -> ExitCode {
    let m = &first.mutant;
    let file = m.file.as_deref().expect("a library mutant names its file");
    let text = std::fs::read_to_string(first.krate.join(file)).unwrap_or_default();
    let Some(line) = text.lines().find(|l| l.trim_start().starts_with("//")) else {
        eprintln!("grade: {file} has no comment to edit");
        return ExitCode::FAILURE;
    };
    let edit = (line.to_string(), format!("{line} (edited)"));
    let harmless = Mutant::new("harmless_comment", m.caught_by.clone(), file, edit);
    println!("self-test: a harmless edit (a comment) must not count as caught");
    let harmless = Found { krate: first.krate.clone(), mutant: harmless };
    match check(root, records, &harmless) {
        Ok(()) => {
            println!("grade: the self-test's harmless mutant was reported caught");
            return ExitCode::FAILURE;
        }
        Err(Stop::Interrupted) => return ExitCode::from(130),
        Err(Stop::Missed(why)) => println!("  not caught, as it should: {}", first_line(&why)),
    }
    println!("self-test: {} with an `expect:` its failure never prints must not count", m.name);
    let mut wrong = Found { krate: first.krate.clone(), mutant: m.clone() };
    wrong.mutant.expect = Some("no test prints this".into());
    match check(root, records, &wrong) {
        Ok(()) => {
            println!("grade: a failure without its expected text was reported caught");
            ExitCode::FAILURE
        }
        Err(Stop::Interrupted) => ExitCode::from(130),
        Err(Stop::Missed(why)) => {
            println!("  not caught, as it should: {}", first_line(&why));
            println!(
                "library mutants: a mutant its tests do not catch, or catch for another \
                 reason, fails the run, as it should"
            );
            ExitCode::SUCCESS
        }
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

/// Puts back each source that a killed run left mutated, if it still holds that mutant; a file
/// edited since is left alone, with a warning.
fn restore_leftovers(root: &Path, records: &Path) {
    let Ok(dir) = std::fs::read_dir(records) else { return };
    for record in dir.filter_map(|e| e.ok().map(|e| e.path())) {
        if record.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let saved: serde_json::Value = std::fs::read_to_string(&record)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default();
        let field = |k: &str| saved[k].as_str().unwrap_or_default().to_string();
        let (path, original, mutated) = (field("path"), field("original"), field("mutated"));
        let source = root.join(&path);
        if !path.is_empty() && std::fs::read_to_string(&source).ok() == Some(mutated) {
            match std::fs::write(&source, original) {
                Ok(()) => println!("grade: restored {path}, left mutated by an interrupted run"),
                Err(e) => {
                    eprintln!("grade: could not restore {path}: {e}");
                    continue;
                }
            }
        } else {
            println!(
                "grade: {path} changed since an interrupted run mutated it; left as it is \
                 (compare it with git)"
            );
        }
        let _ = std::fs::remove_file(&record);
    }
}

/// An exclusive `flock` on a file, released when dropped (or when the process ends).
struct Lock(std::fs::File);

impl Lock {
    fn take(path: &Path) -> Option<Lock> {
        use std::os::fd::AsRawFd;
        let file = std::fs::File::create(path).ok()?;
        // SAFETY: flock on a descriptor this function owns; no memory is passed.
        let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        (r == 0).then_some(Lock(file))
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        use std::os::fd::AsRawFd;
        // SAFETY: unlocks the descriptor `self` owns.
        unsafe { libc::flock(self.0.as_raw_fd(), libc::LOCK_UN) };
    }
}

/// Ctrl-C sets `INTERRUPTED` instead of ending the grader, so that the running tests are cut
/// (their process group) and the mutated file is put back before the grader stops.
fn catch_ctrl_c() {
    extern "C" fn on_sigint(_: libc::c_int) {
        INTERRUPTED.store(true, Relaxed); // a store to an atomic: async-signal-safe
    }
    // SAFETY: installs a handler that only stores to an atomic; no thread depends on SIGINT.
    unsafe { libc::signal(libc::SIGINT, on_sigint as *const () as libc::sighandler_t) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caught_by_names_loom_models_or_a_test_target() {
        assert_eq!(
            Tests::parse(" loom a_box_is_reused"),
            Some(Tests::Loom("a_box_is_reused".into()))
        );
        let t = Tests::parse("test reclaim hand_back").unwrap();
        assert_eq!(t.to_string(), "test reclaim hand_back");
        assert_eq!(Tests::parse("tests"), None);
        assert_eq!(Tests::parse("loom"), None);
        // `lib` selects the unit tests in the crate's `src/`, any other target `tests/NAME.rs`.
        let lib = Tests::parse("test lib a_push").unwrap();
        assert_eq!(lib, Tests::Target { target: "lib".into(), filter: "a_push".into() });
        assert_eq!(target_args("lib"), ["--lib"]);
        assert_eq!(target_args("reuse"), ["--test", "reuse"]);
    }

    #[test]
    fn a_library_mutant_must_name_its_file() {
        let body = "caught-by: loom m\n--- replace\nx\n+++ with\ny\n";
        assert!(Mutant::<Tests>::parse("m", body).is_err_and(|e| e.contains("file:")));
        let m = Mutant::<Tests>::parse("m", &format!("file: src/a.rs\nexpect: boom\n{body}"));
        let m = m.unwrap();
        assert_eq!((m.file.as_deref(), m.expect.as_deref()), (Some("src/a.rs"), Some("boom")));
        // And an exercise's mutant must not name one.
        let e = Mutant::<crate::checks::Check>::parse(
            "m",
            "file: a.rs\ncaught-by: tests\n--- replace\nx\n+++ with\ny",
        );
        assert!(e.is_err());
    }
}
