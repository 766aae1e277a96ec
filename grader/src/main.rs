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
//!                             benchmark gate, times within 1.4x of itself), the shipped
//!                             stub fails, every mutant is caught by the check it names, and
//!                             every mutant cargo-mutants generates from the reference fails
//!                             a check or is listed as equivalent, with its reason
//! cargo grade --list          the chapters
//! cargo grade ch02 --mutant NAME  write that known-wrong variant to target/grade, print its path
//! cargo grade ch02 --file PATH     grade PATH as the exercise (progress is not recorded)
//! cargo grade --library-mutants [NAME...] [--self-test]
//!                             known-wrong variants of library code that is no exercise
//!                             (chapters/*/mutants), each caught by the tests it names
//! ```

mod chapters;
mod checks;
mod generated;
mod hints;
mod library;
mod mutants;
mod run;
mod state;
mod watch;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use chapters::Chapter;
use checks::{Check, Target, Verdict, bench_ratio};
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
        return self_check(&root, &all);
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

/// Runs the checks in order; after the first failure the rest are skipped.
fn run_checks(target: &Target, only: Option<&[Check]>) -> Vec<(Check, Verdict)> {
    let mut results = Vec::new();
    let mut blocked: Option<Check> = None;
    for check in Check::ALL {
        if only.is_some_and(|o| !o.contains(&check)) {
            continue;
        }
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
        if matches!(verdict, Verdict::Fail(_)) && blocked.is_none() {
            blocked = Some(check);
        }
        results.push((check, verdict));
    }
    results
}

fn target<'a>(root: &'a Path, chapter: &'static Chapter, file: PathBuf, tag: &str) -> Target<'a> {
    Target { root, chapter, file, scratch: root.join("target/grade").join(&chapter.id).join(tag) }
}

/// How to grade: `quick` leaves the benchmark gate out (a first verdict in seconds), `watch`
/// grades again each time the file changes.
#[derive(Clone, Copy)]
struct Mode {
    quick: bool,
    watch: bool,
}

/// Grades once, or, with `--watch`, again after every change to `file` until Ctrl-C.
fn grade_or_watch(
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
        Check::Build => format!("the compiler's messages above, in {}", chapter.exercise()),
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

/// How far the reference, compiled as the exercise, may time from itself in `--check`.
const FAIR_GATE: f64 = 1.4;

/// `--check`: one line per claim, then `N passed, N failed`.
fn self_check(root: &Path, chapters: &[&'static Chapter]) -> ExitCode {
    let (mut passed, mut failed) = (0u32, 0u32);
    let mut generated_total = Tally::default();
    let mut claim = |ok: bool, text: String| {
        println!("{} {text}", if ok { "ok  " } else { "FAIL" });
        if ok { passed += 1 } else { failed += 1 }
    };
    for &chapter in chapters {
        println!("== {}: the reference solution", chapter.id);
        let reference = root.join(&chapter.solution);
        for (check, v) in run_checks(&target(root, chapter, reference.clone(), "solution"), None) {
            let ok = !matches!(v, Verdict::Fail(_));
            claim(ok, format!("{} solution passes {}: {}", chapter.id, check.name(), one_line(&v)));
            if let (Check::Bench, Verdict::Pass(text)) = (check, &v) {
                // The gate must compare like with like: the reference, compiled as the exercise,
                // times about as the reference. (A loop straddling a 32-byte boundary in one copy
                // once made a verbatim copy 1.46x slower; see .cargo/config.toml.)
                let fair = bench_ratio(text).is_some_and(|r| r <= FAIR_GATE);
                claim(
                    fair,
                    format!(
                        "{} gate is fair: the reference as exercise within {FAIR_GATE}x of itself ({})",
                        chapter.id,
                        bench_ratio(text).map_or("no ratio".into(), |r| format!("{r:.2}x"))
                    ),
                );
            }
        }

        println!("== {}: the shipped stub", chapter.id);
        let stub = shipped_stub(root, chapter);
        let only = [Check::Build, Check::Tests];
        let r = run_checks(&target(root, chapter, stub, "stub"), Some(&only));
        let builds = r.first().is_some_and(|(_, v)| v.passed());
        let tests_fail = r.get(1).is_some_and(|(_, v)| matches!(v, Verdict::Fail(_)));
        claim(
            builds && tests_fail,
            format!("{} stub compiles and fails its tests: {}", chapter.id, summary(&r)),
        );

        let dir = root.join(chapter.mutants());
        let mutants = match mutants::load::<Check>(&dir) {
            Ok(m) => m,
            Err(e) => {
                claim(false, format!("{} mutants load: {e}", chapter.id));
                continue;
            }
        };
        claim(!mutants.is_empty(), format!("{} has mutants ({})", chapter.id, mutants.len()));
        for m in mutants {
            println!(
                "== {}: mutant {} (must be caught by {}): {}",
                chapter.id,
                m.name,
                m.caught_by.name(),
                m.why
            );
            let file = match write_mutant(root, chapter, &m.name) {
                Ok(f) => f,
                Err(e) => {
                    claim(false, e);
                    continue;
                }
            };
            // A wrong mutant must compile and fail the check it names. A slow-but-correct one
            // (caught by the bench gate) must first pass every other check: that it is correct
            // is the point.
            let upto: Vec<Check> = if m.caught_by == Check::Bench {
                Check::ALL.to_vec()
            } else {
                vec![Check::Build, m.caught_by]
            };
            let r = run_checks(
                &target(root, chapter, file, &format!("mutant-{}", m.name)),
                Some(&upto),
            );
            let (last, earlier) = r.split_last().expect("at least the named check");
            let ok = earlier.iter().all(|(_, v)| !matches!(v, Verdict::Fail(_)))
                && matches!(last.1, Verdict::Fail(_));
            claim(
                ok,
                format!(
                    "{} mutant {} is caught by {}: {}",
                    chapter.id,
                    m.name,
                    m.caught_by.name(),
                    summary(&r)
                ),
            );
        }
        let tally = generated_mutants(root, chapter, &mut claim);
        generated_total.add(&tally);
    }
    let g = generated_total;
    println!(
        "generated mutants: {} caught, {} equivalent, {} missed ({} that do not compile)",
        g.caught, g.equivalent, g.missed, g.unviable
    );
    println!("grade --check: {passed} passed, {failed} failed");
    if failed == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

/// What became of a chapter's generated mutants.
#[derive(Default)]
struct Tally {
    caught: u32,
    equivalent: u32,
    missed: u32,
    unviable: u32,
}

impl Tally {
    fn add(&mut self, o: &Tally) {
        self.caught += o.caught;
        self.equivalent += o.equivalent;
        self.missed += o.missed;
        self.unviable += o.unviable;
    }
}

/// Grades each mutant cargo-mutants generates from the chapter's reference as an exercise
/// (`generated.rs`): caught when a check fails, missed when every check passes and
/// `equivalent.txt` does not list it with a reason. Claims one line per chapter, naming each
/// mutant missed or listed wrongly.
fn generated_mutants(
    root: &Path,
    chapter: &'static Chapter,
    claim: &mut dyn FnMut(bool, String),
) -> Tally {
    let mut tally = Tally::default();
    if let Err(e) = generated::check_version(root) {
        claim(false, format!("{} generated mutants: {e}", chapter.id));
        return tally;
    }
    let reference_path = root.join(&chapter.solution);
    let file = match reference_path.canonicalize() {
        Ok(p) => p
            .strip_prefix(root.canonicalize().unwrap_or(root.to_path_buf()))
            .map(Path::to_path_buf)
            .unwrap_or(p),
        Err(e) => {
            claim(false, format!("{} reference {}: {e}", chapter.id, chapter.solution));
            return tally;
        }
    };
    let equivalent_file = root.join(chapter.equivalents());
    let (list, equivalents) = match (
        generated::list(root, &chapter.name, &file.display().to_string()),
        generated::equivalents(&equivalent_file),
    ) {
        (Ok(l), Ok(e)) => (l, e),
        (Err(e), _) | (_, Err(e)) => {
            claim(false, format!("{} generated mutants: {e}", chapter.id));
            return tally;
        }
    };
    let reference = std::fs::read_to_string(&reference_path).unwrap_or_default();
    let mut wrong = Vec::new();
    for (i, m) in list.iter().enumerate() {
        let listed = equivalents.iter().find(|(n, _)| *n == m.name);
        println!("== {}: generated mutant {}/{}: {}", chapter.id, i + 1, list.len(), m.name);
        let text = match m.apply(&reference) {
            Ok(t) => t,
            Err(e) => {
                wrong.push(e);
                continue;
            }
        };
        let dir = root.join("target/grade").join(&chapter.id).join(format!("generated-{i}"));
        let path = dir.join("exercise.rs");
        if let Err(e) = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, text)) {
            wrong.push(format!("{}: {e}", path.display()));
            continue;
        }
        // Clippy is left out: a lint on the edited line says nothing of its behaviour.
        let only = [Check::Build, Check::Tests, Check::Loom, Check::Bench];
        let r = run_checks(&target(root, chapter, path, &format!("generated-{i}")), Some(&only));
        let failed = r.iter().find(|(_, v)| matches!(v, Verdict::Fail(_)));
        match (failed, listed) {
            (Some((Check::Build, _)), _) => tally.unviable += 1,
            (Some((check, _)), None) => {
                tally.caught += 1;
                println!("   caught by {}: {}", check.name(), summary(&r));
            }
            (Some((check, _)), Some(_)) => wrong.push(format!(
                "{} is listed as equivalent in {} but {} catches it",
                m.name,
                chapter.equivalents(),
                check.name()
            )),
            (None, Some((_, why))) => {
                tally.equivalent += 1;
                println!("   equivalent: {why}");
            }
            (None, None) => {
                tally.missed += 1;
                wrong.push(format!("{} passes every check (missed)", m.name));
            }
        }
    }
    for (name, _) in &equivalents {
        if !list.iter().any(|m| m.name == *name) {
            wrong.push(format!("{name} is listed in {} but not generated", chapter.equivalents()));
        }
    }
    claim(
        wrong.is_empty(),
        format!(
            "{} generated mutants: {} caught, {} equivalent, {} missed, {} do not compile{}",
            chapter.id,
            tally.caught,
            tally.equivalent,
            tally.missed,
            tally.unviable,
            if wrong.is_empty() { String::new() } else { format!(": {}", wrong.join("; ")) }
        ),
    );
    tally
}

/// The stub as committed (so a reader's edits do not change what `--check` proves),
/// or the file on disk outside a git checkout.
fn shipped_stub(root: &Path, chapter: &Chapter) -> PathBuf {
    let path = chapter.exercise();
    let out = std::process::Command::new("git")
        .current_dir(root)
        .args(["show", &format!("HEAD:{path}")])
        .output();
    match out {
        Ok(o) if o.status.success() => {
            let file = root.join("target/grade").join(&chapter.id).join("stub.rs");
            let _ = std::fs::create_dir_all(file.parent().expect("a parent folder"));
            match std::fs::write(&file, o.stdout) {
                Ok(()) => file,
                Err(_) => root.join(path),
            }
        }
        _ => root.join(path),
    }
}

fn one_line(v: &Verdict) -> String {
    match v {
        Verdict::Pass(t) | Verdict::Fail(t) | Verdict::Skip(t) => {
            t.lines().next().unwrap_or("").to_string()
        }
    }
}

fn summary(results: &[(Check, Verdict)]) -> String {
    results
        .iter()
        .map(|(c, v)| {
            if v.passed() {
                format!("{} ok", c.name())
            } else {
                format!("{} {}", c.name(), one_line(v))
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
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
