//! The chapters the grader knows, and where each one keeps its parts.

/// One graded chapter. Paths are relative to the workspace root.
pub struct Chapter {
    /// Short name the reader types: `cargo grade ch01`.
    pub id: &'static str,
    /// Folder under `chapters/` and `solutions/`, and the crate's package name.
    pub name: &'static str,
    /// Title on the report card.
    pub title: &'static str,
    /// The reference solution (a link to the chapter's own mechanism module).
    pub solution: &'static str,
    /// Whether the chapter has loom models in `tests/loom.rs`.
    pub loom: bool,
    /// The page's section that says what each ordering buys, named when a loom model fails;
    /// empty for a chapter without loom models.
    pub orderings: &'static str,
    /// Largest allowed ratio of the exercise's time to the reference's in the
    /// benchmark gate (`benches/gate.rs`), or `None` for a chapter without a gate.
    pub gate_ratio: Option<f64>,
}

impl Chapter {
    /// The reader's file.
    pub fn exercise(&self) -> String {
        format!("chapters/{}/src/exercise.rs", self.name)
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

pub const CHAPTERS: &[Chapter] = &[
    Chapter {
        id: "ch01",
        name: "ch01-ring",
        title: "Chapter 1: a single-owner ring",
        solution: "solutions/ch01-ring/ops.rs",
        loom: false,
        orderings: "",
        gate_ratio: Some(2.0),
    },
    Chapter {
        id: "ch02",
        name: "ch02-poll",
        title: "Chapter 2: the thief's poll()",
        solution: "solutions/ch02-poll/poll.rs",
        loom: true,
        orderings: "What each ordering buys",
        gate_ratio: Some(2.0),
    },
    Chapter {
        id: "ch03",
        name: "ch03-last-slot",
        title: "Chapter 3: the last slot",
        solution: "solutions/ch03-last-slot/take.rs",
        loom: true,
        orderings: "Orderings",
        gate_ratio: Some(2.0),
    },
    Chapter {
        id: "ch04",
        name: "ch04-grow",
        title: "Chapter 4: growing under thieves",
        solution: "solutions/ch04-grow/grow.rs",
        loom: true,
        orderings: "Orderings",
        gate_ratio: Some(2.0),
    },
    Chapter {
        id: "ch05",
        name: "ch05-phase",
        title: "Chapter 5: the phase word",
        solution: "solutions/ch05-phase/lock.rs",
        loom: true,
        orderings: "Orderings",
        gate_ratio: Some(2.0),
    },
    Chapter {
        id: "ch06",
        name: "ch06-nsteals",
        title: "Chapter 6: counting steals",
        solution: "solutions/ch06-nsteals/steals.rs",
        loom: false,
        orderings: "",
        gate_ratio: Some(2.0),
    },
    Chapter {
        id: "ch07",
        name: "ch07-pool",
        title: "Chapter 7: the pool",
        solution: "solutions/ch07-pool/idle.rs",
        loom: true,
        orderings: "Going idle without losing a wake-up",
        gate_ratio: Some(2.0),
    },
];

/// Finds a chapter by `ch01`, `ch01-ring`, `1` or `01`.
pub fn find(name: &str) -> Option<&'static Chapter> {
    let name = name.trim().to_ascii_lowercase();
    CHAPTERS.iter().find(|c| {
        name == c.id || name == c.name || name.parse::<u32>().ok() == c.id[2..].parse::<u32>().ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_chapter_by_any_of_its_names() {
        for name in ["ch01", "ch01-ring", "1", "01", " CH01 "] {
            assert_eq!(find(name).map(|c| c.id), Some("ch01"), "{name:?}");
        }
        assert_eq!(find("2").map(|c| c.name), Some("ch02-poll"));
        for name in ["ch9", "ring", "", "0"] {
            assert!(find(name).is_none(), "{name:?}");
        }
    }

    /// `--hint` reveals a section's hints one at a time: every chapter's hints file has a
    /// section per check it runs, each with at least one hint, and no section for anything else.
    #[test]
    fn each_hints_file_has_hints_for_each_check() {
        for c in CHAPTERS {
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

    /// A failed loom model sends the reader to a section of the page: it must exist.
    #[test]
    fn each_loom_chapter_names_a_section_of_its_page() {
        for c in CHAPTERS {
            assert_eq!(c.loom, !c.orderings.is_empty(), "{}: loom models <=> a section", c.id);
            if c.loom {
                let page = std::fs::read_to_string(format!("../{}", c.page())).unwrap();
                let heading = format!("\n## {}\n", c.orderings);
                assert!(page.contains(&heading), "{}: no {heading:?} in {}", c.id, c.page());
            }
        }
    }
}
