//! Whether the reader's file is its own answer. The exercise is compiled inside its chapter's
//! crate, beside the reference module it stands in for (`crate::poll` in chapter 2), so a file
//! that hands each call on to the reference would pass every check while the checks graded the
//! reference. Before the build, the grader reads the file's code (comments and literals left
//! out) for the paths that reach the crate's root and go on to the reference: `crate::poll`,
//! `super::poll` (from the file's top level; one `super` more in each module the file opens),
//! the module in a `use crate::{...}` group, a glob of the root (`use super::*` at the top
//! level, after which `poll::poll` is the reference), and the same for `Reference`, the type
//! that plugs the reference into the chapter's seam. It catches a file that names the
//! reference, not every road to it: a public function of the crate that calls the reference,
//! or the crate renamed (`use crate as me`), stays reachable.

/// A path in the reader's file that reaches the reference.
#[derive(Debug, PartialEq)]
pub struct Found {
    /// Its line, 1-based.
    pub line: usize,
    /// As written: `crate::poll`, `super::{Reference}`, `crate::*`.
    pub path: String,
    /// Whether it is a glob of the crate's root, which brings the reference in unnamed.
    glob: bool,
}

impl Found {
    fn at(name: &Token, path: String) -> Found {
        Found { line: name.line, path, glob: name.text == "*" }
    }

    /// What the build check tells the reader.
    pub fn why(&self) -> String {
        let path = &self.path;
        if self.glob {
            format!(
                "imports the crate's root with a glob (`{path}`), which brings in the chapter's \
                 reference too: import what you use by name"
            )
        } else {
            format!(
                "names the chapter's reference (`{path}`): the checks would grade the reference, \
                 not your code. Write the exercise yourself (the library's other functions, and \
                 `crate::sync`, are yours to use)"
            )
        }
    }
}

/// The first place where `code` names, from inside its crate, the reference module `module`
/// or the type `Reference`, or globs the crate's root.
pub fn names_the_reference(code: &str, module: &str) -> Option<Found> {
    let tokens = tokens(&code_only(code));
    let named = |t: &Token| t.text == module || t.text == "Reference" || t.text == "*";
    let depths = module_depths(&tokens);
    let mut i = 0;
    while i < tokens.len() {
        let Some((root, next)) = root_path(&tokens, i, depths[i]) else {
            i += 1;
            continue;
        };
        match tokens.get(next) {
            Some(n) if named(n) => return Some(Found::at(n, format!("{root}::{}", n.text))),
            // A group, `crate::{a, b::c}`: any name in it at any depth.
            Some(open) if open.text == "{" => {
                let mut depth = 0;
                for n in &tokens[next..] {
                    match n.text.as_str() {
                        "{" => depth += 1,
                        "}" if depth == 1 => break,
                        "}" => depth -= 1,
                        _ if named(n) => {
                            return Some(Found::at(n, format!("{root}::{{{}}}", n.text)));
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
        i = next;
    }
    None
}

/// Whether a path starting at token `i` names the crate's root: `crate::`, or as many
/// `super::` as it takes from `depth` modules deep in the file (one at the top level, which
/// is the module `crate::exercise`). Returns the root as written and the token after it.
fn root_path(tokens: &[Token], i: usize, depth: usize) -> Option<(String, usize)> {
    // Only a path's first segment: `x::crate` is no path to the root.
    if i > 0 && tokens[i - 1].text == "::" {
        return None;
    }
    let sep = |j: usize| tokens.get(j).is_some_and(|t| t.text == "::");
    if tokens[i].text == "crate" && sep(i + 1) {
        return Some(("crate".into(), i + 2));
    }
    let mut j = i;
    while tokens.get(j).is_some_and(|t| t.text == "super") && sep(j + 1) {
        j += 2;
    }
    let supers = (j - i) / 2;
    (supers > 0 && supers == depth + 1).then(|| (vec!["super"; supers].join("::"), j))
}

/// For each token, how many `mod NAME { ... }` of the file enclose it.
fn module_depths(tokens: &[Token]) -> Vec<usize> {
    // The brace depth at which each open module began.
    let mut open: Vec<usize> = Vec::new();
    let (mut braces, mut out) = (0, Vec::with_capacity(tokens.len()));
    for (i, t) in tokens.iter().enumerate() {
        out.push(open.len());
        match t.text.as_str() {
            "{" => {
                let is_mod = i >= 2 && tokens[i - 2].text == "mod";
                braces += 1;
                if is_mod {
                    open.push(braces);
                }
            }
            "}" => {
                if open.last() == Some(&braces) {
                    open.pop();
                }
                braces -= 1;
            }
            _ => {}
        }
    }
    out
}

/// `code` with its comments (nested block comments too) and the contents of its string, raw
/// string and character literals turned into spaces; newlines are kept, so that lines still
/// count.
fn code_only(code: &str) -> String {
    let c: Vec<char> = code.chars().collect();
    let mut out = String::with_capacity(code.len());
    let blank = |ch: char| if ch == '\n' { '\n' } else { ' ' };
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    let mut i = 0;
    while i < c.len() {
        let (c0, c1, c2) = (c.get(i).copied(), c.get(i + 1).copied(), c.get(i + 2).copied());
        if c0 == Some('/') && c1 == Some('/') {
            while i < c.len() && c[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c0 == Some('/') && c1 == Some('*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(c[i]));
                    i += 1;
                }
            }
        } else if c0 == Some('r')
            && (i == 0 || !ident(c[i - 1]) || c[i - 1] == 'b')
            && matches!(c1, Some('"') | Some('#'))
        {
            // A raw string, r"..." or r#"..."#: it ends at a quote and as many hashes.
            let hashes = c[i + 1..].iter().take_while(|&&ch| ch == '#').count();
            if c.get(i + 1 + hashes) != Some(&'"') {
                out.push_str(&" ".repeat(1 + hashes)); // `r#poll`, a raw identifier: `poll`
                i += 1 + hashes;
                continue;
            }
            out.push_str(&" ".repeat(2 + hashes));
            i += 2 + hashes;
            while i < c.len() {
                let closes = c[i] == '"' && c[i + 1..].iter().take(hashes).all(|&ch| ch == '#');
                if closes && c.len() - i > hashes {
                    out.push_str(&" ".repeat(1 + hashes));
                    i += 1 + hashes;
                    break;
                }
                out.push(blank(c[i]));
                i += 1;
            }
        } else if c0 == Some('"') {
            out.push(' ');
            i += 1;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < c.len() {
                    out.push(blank(c[i]));
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c0 == Some('\'') && (c1 == Some('\\') || c2 == Some('\'')) {
            // A character literal ('x', '\'', '\u{1F600}'); `'a` alone is a lifetime.
            out.push(' ');
            i += 1;
            if c.get(i) == Some(&'\\') {
                out.push(' ');
                i += 1;
            }
            while i < c.len() && c[i] != '\'' {
                out.push(' ');
                i += 1;
            }
            out.push(' ');
            i += 1;
        } else {
            out.push(c[i]);
            i += 1;
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
        names_the_reference(code, "poll").map(|f| format!("{}: {}", f.line, f.path))
    }

    #[test]
    fn a_path_to_the_reference_module_is_found_with_its_line() {
        let code = "use crate::WorkQueue;\n\npub fn poll() {\n    crate::poll::poll(q, s)\n}\n";
        assert_eq!(found(code).as_deref(), Some("4: crate::poll"));
        assert_eq!(found("fn f() { super::poll::poll() }").as_deref(), Some("1: super::poll"));
        assert_eq!(found("use crate :: poll;").as_deref(), Some("1: crate::poll"));
        assert_eq!(found("fn f() { crate::r#poll::poll() }").as_deref(), Some("1: crate::poll"));
    }

    #[test]
    fn a_group_a_glob_and_the_reference_type_are_found() {
        let group = "use crate::{PollStats, sync::{Ordering, spin}, poll::poll as theirs};";
        assert_eq!(found(group).as_deref(), Some("1: crate::{poll}"));
        let seam = "fn f() { <crate::Reference as PollOps>::poll() }";
        assert_eq!(found(seam).as_deref(), Some("1: crate::Reference"));
        assert_eq!(found("use super::{Reference};").as_deref(), Some("1: super::{Reference}"));
        // After a glob of the root, `poll::poll` is the reference's.
        assert_eq!(found("use super::*;\nfn f() { poll::poll() }").as_deref(), Some("1: super::*"));
        assert_eq!(found("use crate::{sync::*, *};").as_deref(), Some("1: crate::{*}"));
        // From a module the file opens, the root is one `super` further.
        let nested = "mod inner {\n    use super::super::poll;\n}\n";
        assert_eq!(found(nested).as_deref(), Some("2: super::super::poll"));
    }

    #[test]
    fn the_readers_own_names_comments_and_literals_are_not() {
        let own = "use crate::{PollStats, WorkQueue};\n\
                   use crate::sync::Ordering::{Acquire, Relaxed};\n\
                   pub fn poll() { self::poll(); spin::poll(); }\n\
                   // crate::poll::poll would be cheating\n\
                   /* so would crate::Reference /* nested */ crate::poll::poll() */\n\
                   fn g() { panic!(\"not crate::poll::poll \\\" crate::poll\"); }\n\
                   fn h<'a>(x: &'a u8) -> ch04_grow::Reference { std::ops::poll::x() }\n\
                   const Q: char = '\"'; // a quote, then crate::poll in a comment\n\
                   const R: &str = r#\"a \" crate::poll\"#;\n\
                   #[cfg(test)]\nmod tests {\n    use super::*;\n    use super::poll;\n}\n";
        assert_eq!(found(own), None);
        // What follows a literal is code again.
        let after = "const Q: char = '\"';\nconst R: &str = r#\"\"#;\nfn f() { crate::poll::x() }";
        assert_eq!(found(after).as_deref(), Some("3: crate::poll"));
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
