//! Known-wrong variants of a reference solution, written as small edits to it.
//!
//! A mutant file (`solutions/<chapter>/mutants/<name>.mutant`) reads:
//!
//! ```text
//! # One or more comment lines: what is wrong and what it breaks.
//! caught-by: tests
//! --- replace
//! <lines of the reference, exactly as they stand>
//! +++ with
//! <the lines that replace them>
//! ```
//!
//! Several `--- replace` / `+++ with` pairs may follow one another. Each `replace`
//! text must occur exactly once in the reference, so a mutant never silently stops
//! applying when the reference changes.

use std::path::Path;

use crate::checks::Check;

pub struct Mutant {
    pub name: String,
    /// The check that must reject this mutant.
    pub caught_by: Check,
    /// The comment lines of its header.
    pub why: String,
    edits: Vec<(String, String)>,
}

impl Mutant {
    pub fn parse(name: &str, text: &str) -> Result<Mutant, String> {
        let mut why = Vec::new();
        let mut caught_by = None;
        let mut edits = Vec::new();
        let mut lines = text.lines().peekable();
        while let Some(line) = lines.next_if(|l| !l.starts_with("--- replace")) {
            if let Some(c) = line.strip_prefix('#') {
                why.push(c.trim().to_string());
            } else if let Some(c) = line.strip_prefix("caught-by:") {
                caught_by = Some(
                    Check::parse(c).ok_or(format!("{name}: unknown check {c:?} in caught-by"))?,
                );
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
        Ok(Mutant { name: name.to_string(), caught_by, why: why.join(" "), edits })
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

/// Every mutant in `dir`, sorted by name.
pub fn load(dir: &Path) -> Result<Vec<Mutant>, String> {
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
        let m = Mutant::parse("m", M).unwrap();
        assert_eq!((m.caught_by, m.why.as_str()), (Check::Tests, "Masks with cap. Two lines."));
        assert_eq!(m.apply("fn f() {\n    a & b\n}").unwrap(), "fn f() {\n    a | b\n}");
    }

    #[test]
    fn refuses_an_edit_that_does_not_apply_once() {
        let m = Mutant::parse("m", M).unwrap();
        assert!(m.apply("nothing here").is_err());
        assert!(m.apply("    a & b\n    a & b").is_err());
        assert!(Mutant::parse("m", "caught-by: nope\n--- replace\nx\n+++ with\ny").is_err());
    }
}
