//! The reader's progress: which checks passed at the last grading of each chapter, and how many
//! hints of each check the reader has been shown.
//! Kept in `.grade/progress.json`; `cargo grade --reset` removes it.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

pub struct State {
    path: PathBuf,
    data: Value,
}

impl State {
    pub fn load(root: &Path) -> State {
        let path = root.join(".grade/progress.json");
        let data = std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_else(|| json!({}));
        State { path, data }
    }

    pub fn record(&mut self, chapter: &str, checks: &[(&str, bool)]) {
        let when = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let passed: Vec<_> = checks.iter().filter(|c| c.1).map(|c| c.0).collect();
        let failed: Vec<_> = checks.iter().filter(|c| !c.1).map(|c| c.0).collect();
        // The hints already read stay read: a new grading does not hide them again.
        let hints = self.data[chapter].get("hints").cloned().unwrap_or_else(|| json!({}));
        self.data[chapter] = json!({ "passed": passed, "failed": failed, "done": failed.is_empty(), "unix_time": when, "hints": hints });
        self.save();
    }

    /// `Some(done)` if the chapter was graded before.
    pub fn done(&self, chapter: &str) -> Option<bool> {
        self.data.get(chapter)?.get("done")?.as_bool()
    }

    /// Names of the checks that failed at the last grading.
    pub fn failed(&self, chapter: &str) -> Vec<String> {
        self.data[chapter]["failed"]
            .as_array()
            .map(|a| a.iter().filter_map(|v| v.as_str().map(String::from)).collect())
            .unwrap_or_default()
    }

    /// How many hints of `check` the reader was shown (`cargo grade chNN --hint`).
    pub fn hints_shown(&self, chapter: &str, check: &str) -> usize {
        self.data[chapter]["hints"][check].as_u64().unwrap_or(0) as usize
    }

    pub fn set_hints_shown(&mut self, chapter: &str, check: &str, n: usize) {
        if !self.data[chapter].is_object() {
            self.data[chapter] = json!({});
        }
        if !self.data[chapter]["hints"].is_object() {
            self.data[chapter]["hints"] = json!({});
        }
        self.data[chapter]["hints"][check] = json!(n);
        self.save();
    }

    pub fn reset(&mut self, chapter: Option<&str>) {
        match chapter {
            Some(c) => {
                if let Some(map) = self.data.as_object_mut() {
                    map.remove(c);
                }
            }
            None => self.data = json!({}),
        }
        self.save();
    }

    fn save(&self) {
        if let Some(dir) = self.path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let text = serde_json::to_string_pretty(&self.data).unwrap_or_default();
        if let Err(e) = std::fs::write(&self.path, text) {
            eprintln!("grade: could not save progress to {}: {e}", self.path.display());
        }
    }
}
