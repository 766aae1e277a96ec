//! A chapter's `hints.md`, read a hint at a time.
//!
//! The file has one `## <check>` section per check; within a section, each `- ` line starts a
//! hint (indented lines continue it), ordered from a nudge to nearly the answer. `cargo grade
//! chNN --hint` shows, for each check that failed, one hint more than last time; `--all` shows
//! every hint. How many were shown is kept with the progress record (`state.rs`).

/// One `## ` section: the check it is for, the text before its first hint, and its hints.
#[derive(Debug, PartialEq)]
pub struct Section {
    pub check: String,
    pub intro: String,
    pub hints: Vec<String>,
}

/// The sections of a hints file (the text before the first `## ` is the file's own header).
pub fn sections(text: &str) -> Vec<Section> {
    text.split("\n## ")
        .skip(1)
        .map(|section| {
            let (head, body) = section.split_once('\n').unwrap_or((section, ""));
            let (mut intro, mut hints) = (String::new(), Vec::<String>::new());
            for line in body.lines() {
                if line.starts_with("- ") {
                    hints.push(line.to_string());
                } else if let Some(last) = hints.last_mut().filter(|_| line.starts_with(' ')) {
                    last.push('\n');
                    last.push_str(line);
                } else if hints.is_empty() && !line.trim().is_empty() {
                    intro.push_str(line);
                    intro.push('\n');
                }
            }
            Section { check: head.trim().to_string(), intro, hints }
        })
        .collect()
}

/// What to print for `section` when `shown` hints were shown before: the intro and one hint
/// more (all of them with `all`), and how many that makes.
pub fn reveal(section: &Section, shown: usize, all: bool) -> (String, usize) {
    let n = if all { section.hints.len() } else { (shown + 1).min(section.hints.len()) };
    let mut text = section.intro.clone();
    for hint in &section.hints[..n] {
        text.push_str(hint);
        text.push('\n');
    }
    (text, n)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "# Hints\nheader\n\n## build\n- keep the signature\n\n## tests\nRead the \
                        failure first.\n- one loop:\n  read base\n- count attempts\n- last one\n";

    #[test]
    fn sections_split_hints_with_their_continuation_lines() {
        let s = sections(FILE);
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].check, "build");
        assert_eq!(s[0].hints, ["- keep the signature"]);
        assert_eq!(s[1].intro, "Read the failure first.\n");
        assert_eq!(s[1].hints, ["- one loop:\n  read base", "- count attempts", "- last one"]);
    }

    #[test]
    fn each_request_reveals_one_hint_more_until_all_are_shown() {
        let s = &sections(FILE)[1];
        let (first, n) = reveal(s, 0, false);
        assert_eq!(n, 1);
        assert!(first.contains("one loop") && !first.contains("count attempts"), "{first}");
        assert_eq!(reveal(s, 1, false).1, 2);
        assert_eq!(reveal(s, 3, false).1, 3, "no further than the last hint");
        let (every, n) = reveal(s, 0, true);
        assert_eq!(n, 3);
        assert!(every.contains("last one"), "{every}");
    }
}
