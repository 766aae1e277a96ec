//! Whether the reader's file is its own answer. The exercise is compiled inside its chapter's
//! crate, beside the reference module it stands in for (`crate::poll` in chapter 2), so a file
//! that hands each call on to the reference would pass every check while the checks graded the
//! reference. Before the build, the grader reads the file's code (comments and string
//! literals left out) for the paths that name the reference from inside the crate:
//! `crate::poll` or `super::poll`, the module in a `use crate::{...}` group, and the same for
//! `Reference`, the type that plugs the reference into the chapter's seam. It catches a file
//! that names the reference, not every road to it: a public function of the crate that calls
//! the reference stays reachable, and the page's contract says which functions those are.

/// The first place where `code` names, from inside its crate, the reference module `module`
/// or the type `Reference`: the line (1-based) and the path as written (`crate::poll`).
pub fn names_the_reference(code: &str, module: &str) -> Option<(usize, String)> {
    let tokens = tokens(&code_only(code));
    let named = |t: &Token| t.text == module || t.text == "Reference";
    for (i, t) in tokens.iter().enumerate() {
        let root = t.text == "crate" || t.text == "super";
        if !root || tokens.get(i + 1).is_none_or(|c| c.text != "::") {
            continue;
        }
        match tokens.get(i + 2) {
            Some(n) if named(n) => return Some((n.line, format!("{}::{}", t.text, n.text))),
            // A group, `crate::{a, b::c}`: any name in it at any depth.
            Some(open) if open.text == "{" => {
                let mut depth = 0;
                for n in &tokens[i + 2..] {
                    match n.text.as_str() {
                        "{" => depth += 1,
                        "}" if depth == 1 => break,
                        "}" => depth -= 1,
                        _ if named(n) => {
                            return Some((n.line, format!("{}::{{{}}}", t.text, n.text)));
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    None
}

/// `code` with its comments and the contents of its string and character literals turned
/// into spaces (newlines kept, so that lines still count). Raw strings are read as plain ones:
/// a reader's answer has no reason to hold a path in one.
fn code_only(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut chars = code.chars().peekable();
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('/', Some('/')) => {
                out.push(' ');
                while let Some(&n) = chars.peek() {
                    if n == '\n' {
                        break;
                    }
                    out.push(' ');
                    chars.next();
                }
            }
            ('/', Some('*')) => {
                out.push(' ');
                let mut prev = ' ';
                for n in chars.by_ref() {
                    out.push(blank(n));
                    if prev == '*' && n == '/' {
                        break;
                    }
                    prev = n;
                }
            }
            // A character literal of a double quote, `'"'`, opens no string.
            ('\'', Some('"')) => {
                chars.next();
                out.push_str("' ");
            }
            ('"', _) => {
                out.push('"');
                let mut escaped = false;
                for n in chars.by_ref() {
                    if n == '"' && !escaped {
                        out.push('"');
                        break;
                    }
                    escaped = n == '\\' && !escaped;
                    out.push(blank(n));
                }
            }
            _ => out.push(c),
        }
    }
    out
}

struct Token {
    text: String,
    line: usize,
}

/// Identifiers, `::`, and every other character but white space, each with its line.
fn tokens(code: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut line = 1;
    let mut chars = code.chars().peekable();
    while let Some(c) = chars.next() {
        let text = if c == '\n' {
            line += 1;
            continue;
        } else if c.is_whitespace() {
            continue;
        } else if c.is_alphanumeric() || c == '_' {
            let mut word = c.to_string();
            while let Some(&n) = chars.peek().filter(|n| n.is_alphanumeric() || **n == '_') {
                word.push(n);
                chars.next();
            }
            word
        } else if c == ':' && chars.peek() == Some(&':') {
            chars.next();
            "::".to_string()
        } else {
            c.to_string()
        };
        out.push(Token { text, line });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::names_the_reference;

    fn found(code: &str) -> Option<String> {
        names_the_reference(code, "poll").map(|(line, path)| format!("{line}: {path}"))
    }

    #[test]
    fn a_path_to_the_reference_module_is_found_with_its_line() {
        let code = "use crate::WorkQueue;\n\npub fn poll() {\n    crate::poll::poll(q, s)\n}\n";
        assert_eq!(found(code).as_deref(), Some("4: crate::poll"));
        assert_eq!(found("fn f() { super::poll::poll() }").as_deref(), Some("1: super::poll"));
        assert_eq!(found("use crate :: poll;").as_deref(), Some("1: crate::poll"));
    }

    #[test]
    fn a_group_import_and_the_reference_type_are_found() {
        let group = "use crate::{PollStats, sync::{Ordering, spin}, poll::poll as theirs};";
        assert_eq!(found(group).as_deref(), Some("1: crate::{poll}"));
        let seam = "fn f() { <crate::Reference as PollOps>::poll() }";
        assert_eq!(found(seam).as_deref(), Some("1: crate::Reference"));
        assert_eq!(found("use super::{Reference};").as_deref(), Some("1: super::{Reference}"));
    }

    #[test]
    fn the_readers_own_names_comments_and_strings_are_not() {
        let own = "use crate::{PollStats, WorkQueue};\n\
                   use crate::sync::Ordering::{Acquire, Relaxed};\n\
                   pub fn poll() { self::poll(); spin::poll(); }\n\
                   // crate::poll::poll would be cheating\n\
                   /* so would crate::Reference */\n\
                   fn g() { panic!(\"not crate::poll::poll \\\" crate::poll\"); }\n\
                   fn h() -> ch04_grow::Reference { std::ops::poll::x() }\n\
                   const Q: char = '\"'; // a quote, then crate::poll in a comment\n";
        assert_eq!(found(own), None);
    }

    /// The check must not refuse a file for the wrong reason: no shipped stub, and no
    /// reference graded as the exercise, names its chapter's reference.
    #[test]
    fn no_stub_and_no_reference_names_the_reference() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        for c in crate::chapters::all() {
            for file in [c.exercise(), c.solution.clone()] {
                let code = std::fs::read_to_string(root.join(&file)).expect("the file is there");
                let hit = names_the_reference(&code, c.reference_module());
                assert_eq!(hit, None, "{file} names {}'s reference", c.id);
            }
        }
    }
}
