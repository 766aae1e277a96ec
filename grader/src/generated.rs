//! Mutants that cargo-mutants generates from a chapter's reference solution, beside the
//! hand-written ones of `mutants.rs`.
//!
//! `cargo mutants --list --json` names every small edit it would make to the reference file (an
//! operator swapped, a function's body replaced by a default value, a `!` dropped...) and where.
//! `--check` grades each as an exercise: it must fail the build's later checks (tests or loom),
//! or be listed in `solutions/<chapter>/equivalent.txt` with the reason no correct test can tell
//! it from the reference. One that compiles, passes, and is not listed is *missed*: a hole in
//! the chapter's checks, and `--check` fails.
//!
//! `equivalent.txt` holds one mutant per line, cargo-mutants' own name for it, then ` -- ` and
//! the reason; `#` starts a comment line. A listed mutant that is caught, or that cargo-mutants
//! no longer generates, is an error too: the list must say exactly what it claims.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// One generated mutant: a span of the reference and what replaces it.
pub struct Generated {
    /// cargo-mutants' name: `path:line:col: replace == with != in poll`.
    pub name: String,
    /// 1-based line and column (in characters) of the span's start, and of its end
    /// (exclusive).
    start: (usize, usize),
    end: (usize, usize),
    replacement: String,
}

/// The version `scripts/setup.sh` pins (its `CARGO_MUTANTS=` line): another one may generate
/// and name mutants otherwise, so a different one installed is refused.
pub fn pinned_version(root: &Path) -> Result<String, String> {
    let setup = std::fs::read_to_string(root.join("scripts/setup.sh"))
        .map_err(|e| format!("scripts/setup.sh: {e}"))?;
    setup
        .lines()
        .find_map(|l| l.strip_prefix("CARGO_MUTANTS="))
        .map(|v| v.trim().to_string())
        .ok_or("scripts/setup.sh has no CARGO_MUTANTS= line".into())
}

/// Refuses a cargo-mutants other than the pinned one, or none.
pub fn check_version(root: &Path) -> Result<(), String> {
    let pinned = pinned_version(root)?;
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["mutants", "--version"])
        .output()
        .map_err(|e| format!("could not run cargo mutants: {e}"))?;
    let have = String::from_utf8_lossy(&out.stdout);
    match have.split_whitespace().nth(1) {
        Some(v) if out.status.success() && v == pinned => Ok(()),
        Some(v) if out.status.success() => Err(format!(
            "cargo-mutants {v} is installed, scripts/setup.sh pins {pinned}: run scripts/setup.sh"
        )),
        _ => Err(format!("cargo-mutants {pinned} is not installed: run scripts/setup.sh")),
    }
}

/// The mutants cargo-mutants generates for `file` (relative to `root`) of package `package`.
pub fn list(root: &Path, package: &str, file: &str) -> Result<Vec<Generated>, String> {
    // The names from the plain listing, the spans from the JSON one: the same mutants, in the
    // same order.
    let names = cargo_mutants(root, package, file, false)?;
    let json: Value = serde_json::from_str(&cargo_mutants(root, package, file, true)?)
        .map_err(|e| format!("cargo mutants --list --json printed no JSON: {e}"))?;
    let items = json.as_array().ok_or("cargo mutants --list --json: not a list")?;
    let names: Vec<&str> = names.lines().filter(|l| !l.trim().is_empty()).collect();
    if names.len() != items.len() {
        return Err(format!(
            "cargo mutants listed {} mutants and {} in JSON",
            names.len(),
            items.len()
        ));
    }
    names.iter().zip(items).map(|(name, v)| parse(name, v)).collect()
}

fn cargo_mutants(root: &Path, package: &str, file: &str, json: bool) -> Result<String, String> {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.current_dir(root).args(["mutants", "--list", "--package", package, "--file", file]);
    if json {
        cmd.arg("--json");
    }
    let out = cmd.output().map_err(|e| format!("could not run cargo mutants: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let hint = err.lines().take(3).collect::<Vec<_>>().join(" / ");
        return Err(format!("cargo mutants --list failed: {hint}"));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn parse(name: &str, v: &Value) -> Result<Generated, String> {
    let at = |end: &str| -> Option<(usize, usize)> {
        let p = &v["span"][end];
        Some((p["line"].as_u64()? as usize, p["column"].as_u64()? as usize))
    };
    let (Some(start), Some(end)) = (at("start"), at("end")) else {
        return Err(format!("{name}: no span in cargo-mutants' JSON"));
    };
    let replacement = v["replacement"].as_str().ok_or(format!("{name}: no replacement"))?;
    Ok(Generated { name: name.trim().to_string(), start, end, replacement: replacement.into() })
}

impl Generated {
    /// `reference` with this mutant's span replaced.
    pub fn apply(&self, reference: &str) -> Result<String, String> {
        let offset = |(line, col): (usize, usize)| -> Option<usize> {
            let start: usize = reference.split_inclusive('\n').take(line - 1).map(str::len).sum();
            let text = reference[start..].split('\n').next()?;
            // Columns count characters from 1; the end may sit just past the line's last one.
            let within: usize = text.chars().take(col - 1).map(char::len_utf8).sum();
            (text.chars().count() + 1 >= col).then_some(start + within)
        };
        match (offset(self.start), offset(self.end)) {
            (Some(a), Some(b)) if a <= b => {
                Ok(format!("{}{}{}", &reference[..a], self.replacement, &reference[b..]))
            }
            _ => Err(format!("{}: its span is not in the reference", self.name)),
        }
    }
}

/// The mutants listed as equivalent in `path`, with their reasons (none if the file is absent).
pub fn equivalents(path: &Path) -> Result<Vec<(String, String)>, String> {
    let Ok(text) = std::fs::read_to_string(path) else { return Ok(Vec::new()) };
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| match l.split_once(" -- ") {
            Some((name, why)) if !why.trim().is_empty() => {
                Ok((name.trim().to_string(), why.trim().to_string()))
            }
            _ => Err(format!("{}: {l:?} gives no reason after ` -- `", path.display())),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mutant(start: (usize, usize), end: (usize, usize), with: &str) -> Generated {
        Generated { name: "m".into(), start, end, replacement: with.into() }
    }

    #[test]
    fn replaces_the_span_it_names() {
        let text = "fn f() -> bool {\n    a == b\n}\n";
        // `==` at line 2, columns 7-9 (end exclusive), as cargo-mutants reports it.
        assert_eq!(
            mutant((2, 7), (2, 9), "!=").apply(text).unwrap(),
            "fn f() -> bool {\n    a != b\n}\n"
        );
        // A body across lines, replaced whole.
        assert_eq!(
            mutant((2, 5), (2, 11), "true").apply(text).unwrap(),
            "fn f() -> bool {\n    true\n}\n"
        );
        assert!(mutant((9, 1), (9, 2), "x").apply(text).is_err());
    }

    #[test]
    fn an_equivalent_needs_a_reason() {
        let dir = std::env::temp_dir().join(format!("grade-eq-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ok = dir.join("ok.txt");
        std::fs::write(
            &ok,
            "# comment\nsrc/a.rs:1:2: replace x with y -- a statistic nobody reads\n",
        )
        .unwrap();
        let list = equivalents(&ok).unwrap();
        assert_eq!(
            list,
            [("src/a.rs:1:2: replace x with y".into(), "a statistic nobody reads".into())]
        );
        let bad = dir.join("bad.txt");
        std::fs::write(&bad, "src/a.rs:1:2: replace x with y\n").unwrap();
        assert!(equivalents(&bad).is_err());
        assert!(equivalents(&dir.join("absent.txt")).unwrap().is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
