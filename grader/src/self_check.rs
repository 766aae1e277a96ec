//! `cargo grade --check`: every check can fail. The reference passes each check (and times
//! within [`FAIR_GATE`] of itself, in the best of up to [`FAIR_TRIES`] gate runs), the shipped
//! stub fails, each hand-written mutant is caught by the check it names (with the failure its
//! `expect:` line names, where it has one), and each mutant cargo-mutants generates fails a
//! check or is listed as equivalent, with its reason.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::chapters::Chapter;
use crate::checks::{Check, Verdict};
use crate::gate::bench_ratio;
use crate::{generated, mutants};

use super::{run_checks, target, write_mutant};

/// How far the reference, compiled as the exercise, may time from itself in `--check`.
const FAIR_GATE: f64 = 1.4;
/// How many gate runs `--check` takes at most to find the reference within [`FAIR_GATE`].
const FAIR_TRIES: usize = 3;

/// `--check`: one line per claim, then `N passed, N failed`.
pub fn self_check(root: &Path, chapters: &[&'static Chapter]) -> ExitCode {
    let (mut passed, mut failed) = (0u32, 0u32);
    let mut generated_total = Tally::default();
    let mut claim = |ok: bool, text: String| {
        println!("{} {text}", if ok { "ok  " } else { "FAIL" });
        if ok { passed += 1 } else { failed += 1 }
    };
    for &chapter in chapters {
        println!("== {}: the reference solution", chapter.id);
        let reference = root.join(&chapter.solution);
        let solution = target(root, chapter, reference.clone(), "solution");
        for (check, v) in run_checks(&solution, None) {
            let ok = !matches!(v, Verdict::Fail(_));
            claim(ok, format!("{} solution passes {}: {}", chapter.id, check.name(), one_line(&v)));
            if let (Check::Bench, Verdict::Pass(text)) = (check, &v) {
                // The gate must compare like with like: the reference, compiled as the exercise,
                // times about as the reference. (A loop straddling a 32-byte boundary in one copy
                // once made a verbatim copy 1.46x slower; see .cargo/config.toml.) Such a cause
                // is in every run; a busy moment is not: over the limit, the gate runs again, up
                // to FAIR_TRIES runs in all, and the best ratio counts.
                let mut ratios: Vec<f64> = bench_ratio(text).into_iter().collect();
                while ratios.iter().all(|&r| r > FAIR_GATE)
                    && (1..FAIR_TRIES).contains(&ratios.len())
                {
                    let again = run_checks(&solution, Some(&[Check::Bench]));
                    match again.first() {
                        Some((_, Verdict::Pass(t))) => ratios.extend(bench_ratio(t)),
                        _ => break,
                    }
                }
                let best = ratios.iter().copied().reduce(f64::min);
                let runs: Vec<String> = ratios.iter().map(|r| format!("{r:.2}x")).collect();
                claim(
                    best.is_some_and(|r| r <= FAIR_GATE),
                    format!(
                        "{} gate is fair: the reference as exercise within {FAIR_GATE}x of itself ({})",
                        chapter.id,
                        if runs.is_empty() { "no ratio".into() } else { runs.join(", then ") }
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
            // A mutant must fail the check it names, and pass every check before it whose
            // failure would skip it (`Check::blocks`): then a reader who makes this mistake sees
            // that check's report on the card. Only those run here (a loom mutant's tests may
            // fail too: its card shows both). For a slow-but-correct one, caught by the bench
            // gate, that is every other check: that it is correct is the point.
            let upto: Vec<Check> = Check::ALL
                .into_iter()
                .take_while(|&c| c != m.caught_by)
                .filter(|c| c.blocks(m.caught_by))
                .chain([m.caught_by])
                .collect();
            let t = target(root, chapter, file, &format!("mutant-{}", m.name));
            // A log from an earlier run must not answer for this one (the build check can fail
            // before cargo runs, and then the named check writes nothing).
            t.forget(m.caught_by);
            let r = run_checks(&t, Some(&upto));
            let (last, earlier) = r.split_last().expect("at least the named check");
            let ok = earlier.iter().all(|(_, v)| !matches!(v, Verdict::Fail(_)))
                && matches!(last.1, Verdict::Fail(_));
            // `expect:`: the failure must be the one the mutant's page names (a model, a
            // message), not any failure of that check. And the rule must be able to say no on
            // this very log: a model it shows passing, where it shows one, must not count.
            let printed = t.printed(m.caught_by);
            let missing =
                if ok { mutants::unprinted(m.expect.as_deref(), printed.as_deref()) } else { None };
            let decoy = m.expect.as_ref().and(printed.as_deref()).and_then(mutants::decoy);
            let decoy_counted =
                decoy.filter(|&d| mutants::unprinted(Some(d), printed.as_deref()).is_none());
            claim(
                ok && missing.is_none() && decoy_counted.is_none(),
                format!(
                    "{} mutant {} is caught by {}{}{}: {}",
                    chapter.id,
                    m.name,
                    m.caught_by.name(),
                    missing.map_or(String::new(), |e| format!(", but it never printed {e:?}")),
                    match (decoy, decoy_counted) {
                        (_, Some(d)) => format!(", but a wrong expect: {d:?} counted too"),
                        (Some(d), None) => format!(" (a wrong expect: {d:?} would not count)"),
                        (None, None) => String::new(),
                    },
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
        // Clippy is left out: a lint on the edited line says nothing of its behaviour. One
        // failure is enough here: the loom models and the gate run only if the tests pass
        // (the card would run the models after failed tests, for nothing this tally uses).
        let t = target(root, chapter, path, &format!("generated-{i}"));
        let mut r = run_checks(&t, Some(&[Check::Build, Check::Tests]));
        if r.iter().all(|(_, v)| !matches!(v, Verdict::Fail(_))) {
            r.extend(run_checks(&t, Some(&[Check::Loom, Check::Bench])));
        }
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
