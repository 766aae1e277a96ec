//! Known-wrong variants of a reference solution or of library code, written as small edits.
//!
//! A mutant file reads:
//!
//! ```text
//! # One or more comment lines: what is wrong and what it breaks.
//! file: src/pins.rs                 (library mutants only: the file it edits, in its crate)
//! caught-by: tests                  (what must catch it; see below)
//! expect: Causality violation       (optional: text the failure must print;
//!                                    `exercise::name` means that model or test failed)
//! --- replace
//! <lines of the reference, exactly as they stand>
//! +++ with
//! <the lines that replace them>
//! ```
//!
//! Two kinds share this format. An exercise's mutants (`solutions/<chapter>/mutants/`) edit
//! the reference solution, and their `caught-by:` names a grader check (`tests`, `loom`,
//! `bench`...). A library mutant (`chapters/<crate>/mutants/`, see `library.rs`) edits the
//! file its `file:` line names, and its `caught-by:` names the tests that must fail.
//!
//! Several `--- replace` / `+++ with` pairs may follow one another. Each `replace`
//! text must occur exactly once in the reference, so a mutant never silently stops
//! applying when the reference changes.

use std::path::Path;

use crate::checks::Check;

/// What a mutant's `caught-by:` line names.
pub trait CaughtBy: Sized {
    /// Whether this kind of mutant needs a `file:` line (library mutants) or must not have
    /// one (an exercise's mutants edit the exercise).
    const NAMES_ITS_FILE: bool;
    /// The value of `caught-by:`; `None` when it names nothing known.
    fn parse(words: &str) -> Option<Self>;
}

impl CaughtBy for Check {
    const NAMES_ITS_FILE: bool = false;
    fn parse(words: &str) -> Option<Check> {
        Check::parse(words)
    }
}

#[derive(Clone)]
pub struct Mutant<C = Check> {
    pub name: String,
    /// What must reject this mutant.
    pub caught_by: C,
    /// The comment lines of its header.
    pub why: String,
    /// The file it edits, relative to its crate (library mutants).
    pub file: Option<String>,
    /// Text the failure must print to count as caught (optional).
    pub expect: Option<String>,
    edits: Vec<(String, String)>,
}

impl<C: CaughtBy> Mutant<C> {
    pub fn parse(name: &str, text: &str) -> Result<Mutant<C>, String> {
        let mut why = Vec::new();
        let (mut caught_by, mut file, mut expect) = (None, None, None);
        let mut edits = Vec::new();
        let mut lines = text.lines().peekable();
        let value = |v: &str| Some(v.trim().to_string()).filter(|v| !v.is_empty());
        while let Some(line) = lines.next_if(|l| !l.starts_with("--- replace")) {
            if let Some(c) = line.strip_prefix('#') {
                why.push(c.trim().to_string());
            } else if let Some(c) = line.strip_prefix("caught-by:") {
                caught_by =
                    Some(C::parse(c).ok_or(format!("{name}: unknown check {c:?} in caught-by"))?);
            } else if let Some(f) = line.strip_prefix("file:") {
                file = value(f);
            } else if let Some(e) = line.strip_prefix("expect:") {
                expect = value(e);
            } else if !line.trim().is_empty() {
                return Err(format!("{name}: unexpected header line {line:?}"));
            }
        }
        while lines.next().is_some() {
            let old: Vec<&str> =
                lines.by_ref().take_while(|l| !l.starts_with("+++ with")).collect();
            let mut new = Vec::new();
            while let Some(l) = lines.next_if(|l| !l.starts_with("--- replace")) {
                new.push(l);
            }
            edits.push((old.join("\n"), new.join("\n").trim_end_matches('\n').to_string()));
        }
        let caught_by = caught_by.ok_or(format!("{name}: no `caught-by:` line"))?;
        if edits.is_empty() {
            return Err(format!("{name}: no `--- replace` edit"));
        }
        match (C::NAMES_ITS_FILE, &file) {
            (true, None) => return Err(format!("{name}: no `file:` line naming what it edits")),
            (false, Some(f)) => {
                return Err(format!(
                    "{name}: `file: {f}`, but an exercise's mutant edits the exercise"
                ));
            }
            _ => {}
        }
        Ok(Mutant { name: name.to_string(), caught_by, why: why.join(" "), file, expect, edits })
    }

    /// A mutant made here rather than read from a file (the library self-test's).
    pub fn new(name: &str, caught_by: C, file: &str, edit: (String, String)) -> Mutant<C> {
        let (why, file, expect) = (String::new(), Some(file.to_string()), None);
        Mutant { name: name.to_string(), caught_by, why, file, expect, edits: vec![edit] }
    }

    /// The reference with this mutant's edits applied.
    pub fn apply(&self, reference: &str) -> Result<String, String> {
        let mut text = reference.to_string();
        for (old, new) in &self.edits {
            match text.matches(old.as_str()).count() {
                1 => text = text.replacen(old.as_str(), new, 1),
                n => {
                    return Err(format!(
                        "{}: the text to replace occurs {n} times in the reference, not once",
                        self.name
                    ));
                }
            }
        }
        Ok(text)
    }
}

/// `expect`'s text when `printed` (a check's or test run's output) does not show it: the
/// one rule for both kinds of mutant. A test's path (`exercise::name`) must be one that
/// failed: libtest names every test it runs (`test exercise::name ... ok`), but only a
/// failing one's thread panics (`thread 'exercise::name' (id) panicked`), also when loom
/// aborts the process after it. Any other text may stand anywhere in the output.
pub fn unprinted<'e>(expect: Option<&'e str>, printed: Option<&str>) -> Option<&'e str> {
    expect.filter(|e| {
        let failed =
            if e.starts_with("exercise::") { format!("thread '{e}'") } else { e.to_string() };
        !printed.is_some_and(|out| out.contains(&failed))
    })
}

/// An `expect:` that `printed` must fail to show, for proving the rule on a real log: a model
/// the log shows passing (`test exercise::x ... ok`), the case a bare `contains` would take
/// for a failure. `None` when the log shows none passing (a loom run aborted by the first
/// model that failed): a name that is nowhere in the log would prove nothing.
pub fn decoy(printed: &str) -> Option<&str> {
    printed.lines().find_map(|l| {
        l.strip_prefix("test ")?.strip_suffix(" ... ok").filter(|t| t.starts_with("exercise::"))
    })
}

/// Every mutant in `dir`, sorted by name.
pub fn load<C: CaughtBy>(dir: &Path) -> Result<Vec<Mutant<C>>, String> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "mutant"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| {
            let name = p.file_stem().unwrap_or_default().to_string_lossy();
            let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
            Mutant::parse(&name, &text)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: &str = "# Masks with cap.\n# Two lines.\ncaught-by: tests\n--- replace\n    a & b\n+++ with\n    a | b\n";

    #[test]
    fn parses_and_applies() {
        let m = Mutant::<Check>::parse("m", M).unwrap();
        assert_eq!((m.caught_by, m.why.as_str()), (Check::Tests, "Masks with cap. Two lines."));
        assert_eq!(m.apply("fn f() {\n    a & b\n}").unwrap(), "fn f() {\n    a | b\n}");
    }

    /// A mutant's `expect:` holds only when the catching check printed that text.
    #[test]
    fn an_expected_text_must_be_in_the_log() {
        let log = "test exercise::a_seqlock_reader_never_sees_half_a_push ... ok\n\
                   thread 'exercise::two_submitters_and_a_poller' (7) panicked at model.rs:34:5:\n\
                   each task taken exactly once, got counts [1, 0, 1]\n";
        let passing = "exercise::a_seqlock_reader_never_sees_half_a_push";
        assert_eq!(decoy(log), Some(passing), "the model that passed");
        assert_eq!(decoy("test tests::other ... ok\n"), None, "not an exercise's model");
        assert_eq!(
            decoy(&format!("test tests::other ... ok\ntest {passing} ... ok")),
            Some(passing)
        );
        let log = Some(log);
        assert_eq!(unprinted(None, log), None, "no expect: any failure counts");
        assert_eq!(unprinted(Some("exercise::two_submitters_and_a_poller"), log), None);
        assert_eq!(unprinted(Some("counts [1, 0, 1]"), log), None, "a message, anywhere");
        let passed = Some("exercise::a_seqlock_reader_never_sees_half_a_push");
        assert_eq!(unprinted(passed, log), passed, "a model that ran and passed is not named");
        let other = Some("exercise::a_held_lock_turns_every_try_away");
        assert_eq!(unprinted(other, log), other, "a model that did not run");
        assert_eq!(unprinted(other, None), other, "no log: nothing was printed");
    }

    #[test]
    fn refuses_an_edit_that_does_not_apply_once() {
        let m = Mutant::<Check>::parse("m", M).unwrap();
        assert!(m.apply("nothing here").is_err());
        assert!(m.apply("    a & b\n    a & b").is_err());
        assert!(
            Mutant::<Check>::parse("m", "caught-by: nope\n--- replace\nx\n+++ with\ny").is_err()
        );
    }
}
