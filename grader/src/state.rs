//! The reader's progress: which checks passed at the last grading of each chapter, and how many
//! hints of each check the reader has been shown.
//! Kept in `.grade/progress.json`; `cargo grade --reset` removes it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// One chapter's record in the progress file.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Progress {
    /// The checks that passed at the last grading.
    pub passed: Vec<String>,
    /// The checks that failed at the last grading (`--hint` hints for these).
    pub failed: Vec<String>,
    /// The checks that did not run at the last grading (an earlier one failed, or `--quick`).
    pub not_run: Vec<String>,
    /// Every check passed at the last grading.
    pub done: bool,
    /// When that grading ended, in seconds since 1970.
    pub unix_time: u64,
    /// How many hints of each check the reader has been shown; kept across gradings.
    pub hints: BTreeMap<String, usize>,
}

pub struct State {
    path: PathBuf,
    /// Chapter id (`ch01`) to its record; a chapter never graded has none.
    chapters: BTreeMap<String, Progress>,
}

impl State {
    /// Reads the progress file; a missing one is no progress. One that cannot be read as
    /// progress is set aside (renamed, with a warning), never silently overwritten.
    pub fn load(root: &Path) -> State {
        let path = root.join(".grade/progress.json");
        let chapters = match std::fs::read_to_string(&path) {
            Err(_) => BTreeMap::new(),
            Ok(text) => serde_json::from_str(&text).unwrap_or_else(|e| {
                let aside = path.with_extension("json.unreadable");
                let _ = std::fs::rename(&path, &aside);
                eprintln!(
                    "grade: {} could not be read ({e}); moved to {}, starting afresh",
                    path.display(),
                    aside.display()
                );
                BTreeMap::new()
            }),
        };
        State { path, chapters }
    }

    /// Records a grading: each check passed (`Some(true)`), failed (`Some(false)`) or did not
    /// run (`None`: an earlier one failed, or `--quick`). Done when every check passed.
    pub fn record(&mut self, chapter: &str, checks: &[(&str, Option<bool>)]) {
        let when = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let names = |outcome: Option<bool>| -> Vec<String> {
            checks.iter().filter(|c| c.1 == outcome).map(|c| c.0.to_string()).collect()
        };
        let record = self.chapters.entry(chapter.to_string()).or_default();
        // The hints already read stay read: a new grading does not hide them again.
        *record = Progress {
            passed: names(Some(true)),
            failed: names(Some(false)),
            not_run: names(None),
            done: checks.iter().all(|c| c.1 == Some(true)),
            unix_time: when,
            hints: std::mem::take(&mut record.hints),
        };
        self.save();
    }

    /// `Some(done)` if the chapter was graded before.
    pub fn done(&self, chapter: &str) -> Option<bool> {
        self.chapters.get(chapter).filter(|p| p.unix_time > 0).map(|p| p.done)
    }

    /// Names of the checks that failed at the last grading.
    pub fn failed(&self, chapter: &str) -> Vec<String> {
        self.chapters.get(chapter).map(|p| p.failed.clone()).unwrap_or_default()
    }

    /// How many hints of `check` the reader was shown (`cargo grade chNN --hint`).
    pub fn hints_shown(&self, chapter: &str, check: &str) -> usize {
        self.chapters.get(chapter).and_then(|p| p.hints.get(check)).copied().unwrap_or(0)
    }

    pub fn set_hints_shown(&mut self, chapter: &str, check: &str, n: usize) {
        let record = self.chapters.entry(chapter.to_string()).or_default();
        record.hints.insert(check.to_string(), n);
        self.save();
    }

    pub fn reset(&mut self, chapter: Option<&str>) {
        match chapter {
            Some(c) => {
                self.chapters.remove(c);
            }
            None => self.chapters.clear(),
        }
        self.save();
    }

    fn save(&self) {
        if let Some(dir) = self.path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let text = serde_json::to_string_pretty(&self.chapters).unwrap_or_default();
        if let Err(e) = std::fs::write(&self.path, text) {
            eprintln!("grade: could not save progress to {}: {e}", self.path.display());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("grade-state-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn progress_and_hints_survive_a_reload_and_a_regrade() {
        let root = scratch("reload");
        let mut s = State::load(&root);
        assert_eq!(s.done("ch01"), None, "never graded");
        s.set_hints_shown("ch01", "tests", 2);
        assert_eq!(s.done("ch01"), None, "hints read before any grading are no grading");
        s.record("ch01", &[("build", Some(true)), ("tests", Some(false)), ("loom", None)]);
        let mut s = State::load(&root);
        assert_eq!((s.done("ch01"), s.failed("ch01")), (Some(false), vec!["tests".to_string()]));
        s.record("ch01", &[("build", Some(true)), ("tests", Some(true))]);
        let s = State::load(&root);
        assert_eq!((s.done("ch01"), s.hints_shown("ch01", "tests")), (Some(true), 2));
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn an_unreadable_file_is_set_aside_not_lost() {
        let root = scratch("unreadable");
        std::fs::create_dir_all(root.join(".grade")).unwrap();
        std::fs::write(root.join(".grade/progress.json"), "{ not json").unwrap();
        let s = State::load(&root);
        assert_eq!(s.done("ch01"), None);
        let aside = std::fs::read_to_string(root.join(".grade/progress.json.unreadable"));
        assert_eq!(aside.unwrap(), "{ not json", "the reader's file is kept");
        std::fs::remove_dir_all(&root).unwrap();
    }
}
