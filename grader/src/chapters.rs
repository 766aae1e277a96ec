//! The chapters the grader knows, and where each one keeps its parts: the table is the data
//! file `chapters/chapters.toml` (the scripts read it too), compiled into the grader.

use std::sync::OnceLock;

use serde::Deserialize;

/// One graded chapter, as `chapters/chapters.toml` describes it (its header says what each
/// field means). Paths are relative to the workspace root.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Chapter {
    /// Short name the reader types: `cargo grade ch01`.
    pub id: String,
    /// Folder under `chapters/` and `solutions/`, and the crate's package name.
    pub name: String,
    /// Title on the report card.
    pub title: String,
    /// The reference solution (a link to the chapter's own mechanism module).
    pub solution: String,
    /// Whether the chapter has loom models in `tests/loom.rs`.
    pub loom: bool,
    /// The page's section that says what each ordering buys, named when a loom model fails;
    /// empty for a chapter without loom models.
    #[serde(default)]
    pub orderings: String,
    /// Largest allowed ratio of the exercise's time to the reference's in the
    /// benchmark gate (`benches/gate.rs`), or `None` for a chapter without a gate.
    pub gate_ratio: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    chapter: Vec<Chapter>,
}

/// The chapters, in the book's order.
pub fn all() -> &'static [Chapter] {
    static ALL: OnceLock<Vec<Chapter>> = OnceLock::new();
    ALL.get_or_init(|| {
        let text = include_str!("../../chapters/chapters.toml");
        // Checked by the tests below, so a grader that compiles with a bad table never ships.
        toml::from_str::<Table>(text).expect("chapters/chapters.toml is a valid table").chapter
    })
}

impl Chapter {
    /// The reader's file.
    pub fn exercise(&self) -> String {
        format!("chapters/{}/src/exercise.rs", self.name)
    }
    /// The reference's module in the chapter's crate, named after its file (`poll` for
    /// `solutions/ch02-poll/poll.rs`, which links to `src/poll.rs`).
    pub fn reference_module(&self) -> &str {
        let file = self.solution.rsplit('/').next().unwrap_or(&self.solution);
        file.strip_suffix(".rs").unwrap_or(file)
    }
    /// The chapter's book page.
    pub fn page(&self) -> String {
        format!("chapters/{}/README.md", self.name)
    }
    /// Hints, one section per check.
    pub fn hints(&self) -> String {
        format!("chapters/{}/hints.md", self.name)
    }
    /// The loom models, whose doc comments the grader quotes when one fails.
    pub fn loom_models(&self) -> String {
        format!("chapters/{}/tests/loom.rs", self.name)
    }
    /// Folder of the known-wrong variants.
    pub fn mutants(&self) -> String {
        format!("solutions/{}/mutants", self.name)
    }
    /// The generated mutants that no correct test can tell from the reference, with reasons.
    pub fn equivalents(&self) -> String {
        format!("solutions/{}/equivalent.txt", self.name)
    }
}

/// Finds a chapter by `ch01`, `ch1`, `ch01-ring`, `1` or `01`.
pub fn find(name: &str) -> Option<&'static Chapter> {
    let name = name.trim().to_ascii_lowercase();
    let number = |s: &str| s.strip_prefix("ch").unwrap_or(s).parse::<u32>().ok();
    all().iter().find(|c| name == c.id || name == c.name || number(&name) == number(&c.id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_chapter_by_any_of_its_names() {
        for name in ["ch01", "ch1", "ch01-ring", "1", "01", " CH01 "] {
            assert_eq!(find(name).map(|c| c.id.as_str()), Some("ch01"), "{name:?}");
        }
        assert_eq!(find("2").map(|c| c.name.as_str()), Some("ch02-poll"));
        for name in ["ch9", "ring", "", "0", "ch", "chx"] {
            assert!(find(name).is_none(), "{name:?}");
        }
    }

    /// `--hint` reveals a section's hints one at a time: every chapter's hints file has a
    /// section per check it runs, each with at least one hint, and no section for anything else.
    #[test]
    fn each_hints_file_has_hints_for_each_check() {
        for c in all() {
            let text = std::fs::read_to_string(format!("../{}", c.hints())).unwrap();
            let sections = crate::hints::sections(&text);
            for s in &sections {
                assert!(crate::checks::Check::parse(&s.check).is_some(), "{}: {:?}", c.id, s.check);
                assert!(!s.hints.is_empty(), "{}: section {} has no hint", c.id, s.check);
            }
            for check in ["build", "tests", "clippy"] {
                assert!(sections.iter().any(|s| s.check == check), "{}: no {check} hints", c.id);
            }
        }
    }

    /// The book lists every chapter's page, in the table's order, and each chapter's parts
    /// exist where the table says.
    #[test]
    fn the_table_matches_the_book_and_the_tree() {
        let summary = std::fs::read_to_string("../chapters/SUMMARY.md").unwrap();
        let pages: Vec<&str> = summary
            .lines()
            .filter_map(|l| l.split_once("](")?.1.strip_suffix("/README.md)"))
            .filter(|p| p.starts_with("ch"))
            .collect();
        let names: Vec<&str> = all().iter().map(|c| c.name.as_str()).collect();
        assert_eq!(pages, names, "chapters/SUMMARY.md against chapters/chapters.toml");
        for (i, c) in all().iter().enumerate() {
            assert_eq!(c.id, format!("ch{:02}", i + 1), "ids follow the book's order");
            assert!(c.name.starts_with(&format!("{}-", c.id)), "{}: name {}", c.id, c.name);
            for path in [c.solution.clone(), c.exercise(), c.page(), c.hints(), c.mutants()] {
                assert!(std::path::Path::new("..").join(&path).exists(), "{}: {path}", c.id);
            }
        }
    }

    /// A failed loom model sends the reader to a section of the page: it must exist.
    #[test]
    fn each_loom_chapter_names_a_section_of_its_page() {
        for c in all() {
            assert_eq!(c.loom, !c.orderings.is_empty(), "{}: loom models <=> a section", c.id);
            if c.loom {
                let page = std::fs::read_to_string(format!("../{}", c.page())).unwrap();
                let heading = format!("\n## {}\n", c.orderings);
                assert!(page.contains(&heading), "{}: no {heading:?} in {}", c.id, c.page());
            }
        }
    }
}
