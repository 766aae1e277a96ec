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

use proc_macro2::{Delimiter, Spacing, Span, TokenStream, TokenTree};

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
/// or the type `Reference`, or globs the crate's root. Err with the lexer's message when
/// `code` does not lex: the caller asks the compiler, which either says why, or accepts what
/// this check could not read (and the check must not pass unread).
pub fn names_the_reference(code: &str, module: &str) -> Result<Option<Found>, String> {
    let tokens = tokens(code)?;
    let named = |t: &Token| t.text == module || t.text == "Reference" || t.text == "*";
    let depths = module_depths(&tokens);
    let mut i = 0;
    while i < tokens.len() {
        let Some((root, next)) = root_path(&tokens, i, depths[i]) else {
            i += 1;
            continue;
        };
        match tokens.get(next) {
            Some(n) if named(n) => return Ok(Some(Found::at(n, format!("{root}::{}", n.text)))),
            // A group, `crate::{a, b::c}`: any name in it at any depth.
            Some(open) if open.text == "{" => {
                let mut depth = 0;
                for n in &tokens[next..] {
                    match n.text.as_str() {
                        "{" => depth += 1,
                        "}" if depth == 1 => break,
                        "}" => depth -= 1,
                        _ if named(n) => {
                            return Ok(Some(Found::at(n, format!("{root}::{{{}}}", n.text))));
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
        i = next;
    }
    Ok(None)
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

struct Token {
    text: String,
    line: usize,
}

/// The file's code as rustc's lexer reads it (proc-macro2's lexer, which follows rustc's):
/// identifiers (a raw one, `r#poll`, as `poll`), `::`, the brackets of each group and every
/// other punctuation character, each with its line. Comments and literals leave nothing. A
/// first line that is a shebang (`#!` not opening an inner attribute, `#![...]`) is skipped, as
/// rustc skips it and proc-macro2 does not. Err: the lexer's message.
fn tokens(code: &str) -> Result<Vec<Token>, String> {
    let stream: TokenStream = without_shebang(code).parse().map_err(|e| format!("{e}"))?;
    let mut out = Vec::new();
    flatten(stream, &mut out);
    Ok(out)
}

/// `code` with a first-line shebang blanked (the line stays, so that lines still count).
fn without_shebang(code: &str) -> std::borrow::Cow<'_, str> {
    let Some(rest) = code.strip_prefix("#!") else { return code.into() };
    if rest.trim_start().starts_with('[') {
        return code.into(); // `#![attr]`: code, not a shebang
    }
    let end = code.find('\n').unwrap_or(code.len());
    code[end..].to_string().into()
}

fn flatten(stream: TokenStream, out: &mut Vec<Token>) {
    let mut joint_colon = false; // the last token was a `:` with another right after it
    for tree in stream {
        let was_joint = std::mem::take(&mut joint_colon);
        match tree {
            TokenTree::Ident(i) => {
                let text = i.to_string();
                push(out, text.strip_prefix("r#").unwrap_or(&text), i.span());
            }
            TokenTree::Punct(p) if p.as_char() == ':' && was_joint => {
                out.last_mut().expect("the first `:`").text = "::".into();
            }
            TokenTree::Punct(p) => {
                joint_colon = p.as_char() == ':' && p.spacing() == Spacing::Joint;
                push(out, &p.as_char().to_string(), p.span());
            }
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::None => ("", ""),
                };
                push(out, open, g.span_open());
                flatten(g.stream(), out);
                push(out, close, g.span_close());
            }
            TokenTree::Literal(_) => {}
        }
    }
}

fn push(out: &mut Vec<Token>, text: &str, span: Span) {
    out.push(Token { text: text.into(), line: span.start().line });
}

#[cfg(test)]
mod tests {
    use super::names_the_reference;

    fn found(code: &str) -> Option<String> {
        let hit = names_the_reference(code, "poll").expect("the code lexes");
        hit.map(|f| format!("{}: {}", f.line, f.path))
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
        // Doc comments, byte and C strings, escapes: rustc's lexer reads them all as literals.
        let more = "//! crate::poll\n/// crate::Reference\nfn f() {\n\
                    let _ = (b\"crate::poll\", br##\"\"# crate::poll\"##, c\"crate::poll\");\n\
                    let _ = ('\\u{1F600}', b'\\'', \"\\\\\", crate::poll::x());\n}\n";
        assert_eq!(found(more).as_deref(), Some("5: crate::poll"));
        // A shebang is skipped, as rustc skips it; an inner attribute is code.
        assert_eq!(found("#!)\nuse crate::poll::poll;").as_deref(), Some("2: crate::poll"));
        assert_eq!(
            found("#![allow(dead_code)]\nuse crate::poll;").as_deref(),
            Some("2: crate::poll")
        );
        // A file that does not lex: the lexer's message, for the build check to weigh.
        assert!(names_the_reference("fn f() { \"crate::poll::poll() }", "poll").is_err());
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
                assert_eq!(hit, Ok(None), "{file} names {}'s reference", c.id);
            }
        }
    }
}
