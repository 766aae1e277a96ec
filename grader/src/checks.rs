//! The checks of one chapter, run against one exercise file.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use seam::criterion::{bench_dir, mean_ns};

use crate::chapters::Chapter;
use crate::gate::bench_numbers;
use crate::run::{Limits, Output, run};
use crate::stuck::where_stuck;
use crate::testlog::{count_tests, explain_loom, failure_lines, first_panic, without_failures};

/// The checks, in the order they run. A later check needs the earlier ones to pass (a file
/// that does not compile is not tested; a wrong answer is not timed), with one exception: the
/// loom models run after failed tests ([`Check::blocks`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    Build,
    Tests,
    Loom,
    Clippy,
    Bench,
}

impl Check {
    pub const ALL: [Check; 5] =
        [Check::Build, Check::Tests, Check::Loom, Check::Clippy, Check::Bench];

    pub fn name(self) -> &'static str {
        match self {
            Check::Build => "build",
            Check::Tests => "tests",
            Check::Loom => "loom",
            Check::Clippy => "clippy",
            Check::Bench => "bench",
        }
    }

    /// Whether a failure of `self` skips `later`. Failed tests do not skip the loom models: a
    /// concurrency mistake that a stress test happens to catch ("task 4224 ran twice") is
    /// explained only by loom's failing execution, in the reader's lines.
    pub fn blocks(self, later: Check) -> bool {
        !(self == Check::Tests && later == Check::Loom)
    }

    pub fn parse(s: &str) -> Option<Check> {
        Check::ALL.into_iter().find(|c| c.name() == s.trim())
    }

    /// How long the check may take before it is cut and reported as a hang: in all, and, for
    /// the tests, without a test finishing (the reference's longest silence is about a second).
    fn limits(self) -> Limits {
        let total = Duration::from_secs(match self {
            Check::Build => 600,
            Check::Tests => 120,
            Check::Loom => 600,
            Check::Clippy => 300,
            Check::Bench => 300,
        });
        let quiet = (self == Check::Tests).then_some(QUIET);
        Limits { total, quiet }
    }
}

/// Sets `cmd` (a `cargo test`) to run loom models as every loom run of this project does, with
/// the settings of `scripts/loom.env` (`--cfg loom`, a target folder of its own, at most three
/// preemptions), which the shell scripts read too.
pub fn under_loom<'c>(cmd: &'c mut Command, root: &Path) -> &'c mut Command {
    for (key, value) in loom_env(root) {
        // A path in the file is relative to the workspace root; cargo runs elsewhere.
        let value = if key == "CARGO_TARGET_DIR" { root.join(value) } else { value.into() };
        cmd.env(key, value);
    }
    cmd
}

/// The `KEY=VALUE` lines of `scripts/loom.env`. A missing or empty file would make loom checks
/// pass without loom: the grader stops instead.
fn loom_env(root: &Path) -> Vec<(String, String)> {
    let path = root.join("scripts/loom.env");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("grade: {}: {e} (it says how loom runs)", path.display()));
    let pairs: Vec<(String, String)> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    assert!(
        pairs.iter().any(|(k, v)| k == "RUSTFLAGS" && v.contains("--cfg loom")),
        "grade: {} sets no RUSTFLAGS with --cfg loom",
        path.display()
    );
    pairs
}

/// The verdict's words for a run cut because no test finished for [`QUIET`]: where its
/// threads were (`stacks`), and the first panic printed before it (`text`, its output), from
/// a test that ended earlier: the same `todo!()` may be what the stuck test waits behind. (A
/// panic that a test expects, whose message says "expected", is left out.)
fn stuck(stacks: &str, text: &str, log: &str) -> String {
    let panic = first_panic(text)
        .filter(|p| !p.contains("expected"))
        .map(|p| format!("; before it, a panic: {p}"))
        .unwrap_or_default();
    format!(
        "stuck: no test finished for {} s, so something loops or waits forever; {}{panic} \
         (log: {log})",
        QUIET.as_secs(),
        where_stuck(stacks)
    )
}

/// How long the tests may go without one finishing before they count as stuck.
pub const QUIET: Duration = Duration::from_secs(10);

/// How one check ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    Pass(String),
    Fail(String),
    /// Not run: an earlier check failed, or the chapter has nothing to check here.
    Skip(String),
}

impl Verdict {
    pub fn passed(&self) -> bool {
        matches!(self, Verdict::Pass(_))
    }
}

/// Where the checks run: the workspace, the file compiled as the exercise, and a
/// scratch folder for logs and criterion's output.
pub struct Target<'a> {
    pub root: &'a Path,
    pub chapter: &'static Chapter,
    /// Absolute path of the file compiled as `<crate>::exercise`.
    pub file: PathBuf,
    /// Scratch folder for this file's logs (under `target/grade`).
    pub scratch: PathBuf,
}

impl Target<'_> {
    fn cargo(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
        let (sub, rest) = args.split_first().expect("a cargo subcommand");
        cmd.current_dir(self.root)
            .arg(sub)
            .args(["-p", &self.chapter.name, "--features", "exercise"])
            .args(rest)
            .env("GRADE_EXERCISE_FILE", &self.file)
            .env("CARGO_TERM_COLOR", "never")
            .env("RUST_BACKTRACE", "0");
        cmd
    }

    fn go(&self, check: Check, cmd: Command) -> Output {
        let _ = std::fs::create_dir_all(&self.scratch);
        let log = self.scratch.join(format!("{}.log", check.name()));
        let mut out = run(cmd, check.limits(), Some(&log));
        // Paths relative to the workspace, as the reader sees them.
        out.text = out.text.replace(&format!("{}/", self.root.display()), "");
        out
    }

    fn log(&self, check: Check) -> String {
        self.scratch.join(format!("{}.log", check.name())).display().to_string()
    }

    /// Removes `check`'s log from an earlier run, so that [`printed`](Self::printed) answers
    /// for the next run only.
    pub fn forget(&self, check: Check) {
        let _ = std::fs::remove_file(self.log(check)); // absent already: nothing to forget
    }

    /// What `check` printed when it last ran on this file (its log), if it ran.
    pub fn printed(&self, check: Check) -> Option<String> {
        std::fs::read_to_string(self.log(check)).ok()
    }

    /// `Some` when the chapter has nothing for this check to do.
    pub fn not_applicable(&self, check: Check) -> Option<Verdict> {
        match check {
            Check::Loom if !self.chapter.loom => Some(Verdict::Skip(
                "no loom models in this chapter (its page says why, under \"Models and tests\")"
                    .into(),
            )),
            Check::Bench if self.chapter.gate_ratio.is_none() => {
                Some(Verdict::Skip("no benchmark gate in this chapter".into()))
            }
            _ => None,
        }
    }

    /// Runs `check`, assuming the checks before it that [`Check::blocks`] it passed (the build,
    /// for the loom models; every earlier one, for the rest).
    pub fn run(&self, check: Check) -> Verdict {
        match check {
            Check::Build => self.build(),
            Check::Tests => self.tests(),
            Check::Loom => self.loom(),
            Check::Clippy => self.clippy(),
            Check::Bench => self.bench(),
        }
    }

    fn hang(&self, check: Check, out: &Output) -> Option<Verdict> {
        if let Some(stacks) = &out.stalled {
            return Some(Verdict::Fail(stuck(stacks, &out.text, &self.log(check))));
        }
        out.timed_out.then(|| {
            Verdict::Fail(format!(
                "cut after {} s: something loops or waits forever (log: {})",
                check.limits().total.as_secs(),
                self.log(check)
            ))
        })
    }

    fn build(&self) -> Verdict {
        let module = self.chapter.reference_module();
        let code = std::fs::read_to_string(&self.file).unwrap_or_default();
        let file = self.file.strip_prefix(self.root).unwrap_or(&self.file).display();
        let unread = match crate::own::names_the_reference(&code, module) {
            Ok(Some(found)) => {
                return Verdict::Fail(format!("{file}:{} {}", found.line, found.why()));
            }
            Ok(None) => None,
            Err(e) => Some(e),
        };
        let cmd = self.cargo(&["test", "--no-run", "--message-format", "short"]);
        match (self.compiler_check(Check::Build, cmd, "compiles", "does not compile"), unread) {
            // The compiler read what the check could not: it must not pass unread.
            (Verdict::Pass(_), Some(e)) => Verdict::Fail(format!(
                "{file}: compiles, but the grader cannot read it to check that it does not \
                 call the chapter's reference ({e})"
            )),
            (v, _) => v,
        }
    }

    fn clippy(&self) -> Verdict {
        let cmd =
            self.cargo(&["clippy", "--lib", "--message-format", "short", "--", "-D", "warnings"]);
        self.compiler_check(Check::Clippy, cmd, "no warnings", "clippy warns")
    }

    /// A check that passes when rustc (or clippy) is silent, and otherwise quotes its
    /// first few messages.
    fn compiler_check(&self, check: Check, cmd: Command, pass: &str, fail: &str) -> Verdict {
        let out = self.go(check, cmd);
        if let Some(v) = self.hang(check, &out) {
            return v;
        }
        if out.ok() {
            return Verdict::Pass(pass.into());
        }
        let messages: Vec<&str> = out
            .text
            .lines()
            .filter(|l| l.contains("error") && !l.starts_with("error: could not compile"))
            .take(4)
            .collect();
        Verdict::Fail(format!("{fail}:\n{}", messages.join("\n")))
    }

    fn tests(&self) -> Verdict {
        // Every test target runs even after one fails: the telling test may be in the last.
        let out =
            self.go(Check::Tests, self.cargo(&["test", "--no-fail-fast", "--", "exercise::"]));
        self.test_check(Check::Tests, &out, "tests", &|_| None)
    }

    fn loom(&self) -> Verdict {
        let mut cmd = self.cargo(&[
            "test",
            "--release",
            "--test",
            "loom",
            "--",
            "exercise::",
            "--test-threads=1",
        ]);
        under_loom(&mut cmd, self.root).env("LOOM_LOCATION", "1");
        let out = self.go(Check::Loom, cmd);
        let models =
            std::fs::read_to_string(self.root.join(self.chapter.loom_models())).unwrap_or_default();
        self.test_check(Check::Loom, &out, "loom models", &|text| explain_loom(text, &models))
    }

    /// A check run by the libtest harness: passes when at least one test ran and none
    /// failed (a filter that selects nothing must not pass), and otherwise names the
    /// failed tests and explains the first failure with `explain`.
    fn test_check(
        &self,
        check: Check,
        out: &Output,
        what: &str,
        explain: &dyn Fn(&str) -> Option<String>,
    ) -> Verdict {
        if let Some(v) = self.hang(check, out) {
            return v;
        }
        let (passed, failed) = count_tests(&out.text);
        if out.ok() && passed > 0 && failed == 0 {
            return Verdict::Pass(format!("{passed} {what} pass"));
        }
        if out.ok() && passed == 0 {
            return Verdict::Fail(format!(
                "no {what} ran: the exercise's {what} were not selected"
            ));
        }
        if failed == 0 {
            let log = self.log(check);
            return Verdict::Fail(without_failures(&out.text, &log, explain(&out.text)));
        }
        let log = self.log(check);
        // The check's explanation, if it has one; the card's last line names the logs' folder
        // for every failed check alike.
        let why = explain(&out.text).map(|w| format!("\n{w}")).unwrap_or_default();
        let list = failure_lines(&out.text, &log);
        Verdict::Fail(format!("{failed} of {} {what} failed:\n{list}{why}", passed + failed))
    }

    fn bench(&self) -> Verdict {
        let Some(limit) = self.chapter.gate_ratio else {
            return Verdict::Skip("no benchmark gate in this chapter".into());
        };
        // A ratio over the limit is measured once more before it counts: on a small shared
        // machine one run can be skewed by a neighbour; two in a row are not.
        let mut best: Option<(f64, f64)> = None;
        for _ in 0..2 {
            match self.gate_run() {
                Ok((exercise, reference)) => {
                    if best.is_none_or(|(e, r)| exercise / reference < e / r) {
                        best = Some((exercise, reference));
                    }
                }
                Err(v) => return v,
            }
            if best.is_some_and(|(e, r)| e / r <= limit) {
                break;
            }
        }
        let (exercise, reference) = best.expect("at least one run");
        let ratio = exercise / reference;
        let numbers = bench_numbers(exercise, reference, limit);
        if ratio <= limit {
            Verdict::Pass(numbers)
        } else {
            Verdict::Fail(format!("too slow: {numbers}"))
        }
    }

    /// One run of `benches/gate.rs`: the fastest mean of each side, in ns.
    fn gate_run(&self) -> Result<(f64, f64), Verdict> {
        let home = self.scratch.join("criterion");
        let _ = std::fs::remove_dir_all(&home);
        let mut cmd = self.cargo(&[
            "bench",
            "--bench",
            "gate",
            "--",
            "--warm-up-time",
            "1",
            "--measurement-time",
            "2",
            "--noplot",
        ]);
        cmd.env("CRITERION_HOME", &home);
        let out = self.go(Check::Bench, cmd);
        if let Some(Verdict::Fail(s)) = self.hang(Check::Bench, &out) {
            return Err(Verdict::Fail(format!("{s}; far slower than the reference")));
        }
        if !out.ok() {
            let why =
                first_panic(&out.text).unwrap_or_else(|| format!("see {}", self.log(Check::Bench)));
            return Err(Verdict::Fail(format!("the benchmark did not finish: {why}")));
        }
        let fastest = |side: &str| {
            (1..=2)
                .filter_map(|round| mean_ns(&bench_dir(&home, "gate", &format!("{side}-{round}"))))
                .reduce(f64::min)
        };
        match (fastest("exercise"), fastest("reference")) {
            (Some(e), Some(r)) => Ok((e, r)),
            _ => {
                Err(Verdict::Fail(format!("criterion wrote no estimates under {}", home.display())))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_stuck_run_names_the_panic_before_it() {
        let text = "test exercise::a ... FAILED\n\
                    thread '<unnamed>' panicked at src/exercise.rs:26:5:\n\
                    not yet implemented: poll\nnote: run with `RUST_BACKTRACE=1`\n";
        let said = super::stuck("", text, "tests.log");
        assert!(said.starts_with("stuck: no test finished for 10 s"), "{said}");
        assert!(
            said.contains(
                "before it, a panic: not yet implemented: poll (at src/exercise.rs:26:5)"
            ),
            "{said}"
        );
        assert!(!super::stuck("", "test exercise::a ... ", "t.log").contains("panic"));
    }
}
