//! A failing execution as a table: one column per thread, then the source lines it names.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::panic::Location;

use super::{Event, Value};

/// The execution as a table, one column per thread, then the lines it names.
pub(crate) fn render(events: &[Event]) -> String {
    let mut threads: Vec<&str> = Vec::new();
    for e in events {
        if !threads.contains(&e.thread.as_str()) {
            threads.push(&e.thread);
        }
    }
    // Pointers by the order they first appear: p1, p2, ... (null stays null).
    let mut names: HashMap<usize, usize> = HashMap::new();
    let mut show = |v: Value| match v {
        Value::Int(n) => n.to_string(),
        Value::Ptr(0) => "null".into(),
        Value::Ptr(a) => {
            let next = names.len() + 1;
            format!("p{}", names.entry(a).or_insert(next))
        }
        Value::Pending => "?".into(),
    };
    let file = |e: &Event| e.at.file().rsplit('/').next().unwrap_or(e.at.file()).to_string();
    let cells: Vec<String> = events
        .iter()
        .map(|e| {
            let order = e.order.map(|o| format!("{o:?}")).unwrap_or_default();
            let what = match (e.op, e.arg) {
                ("cas", Some((expected, Some(new)))) => {
                    let (exp, new) = (show(expected), show(new));
                    match e.ok {
                        Some(true) => format!("cas {exp}->{new} ok"),
                        Some(false) => format!("cas {exp}->{new} failed, saw {}", show(e.result)),
                        None => format!("cas {exp}->{new}"),
                    }
                }
                ("store", Some((v, _))) => format!("store {}", show(v)),
                ("swap", Some((v, _))) => format!("swap {} (was {})", show(v), show(e.result)),
                ("add" | "sub", Some((v, _))) => {
                    format!("{} {} (was {})", e.op, show(v), show(e.result))
                }
                ("fence", _) => "fence".into(),
                _ => format!("{} -> {}", e.op, show(e.result)),
            };
            format!("{}:{} {what} {order}", file(e), e.at.line())
        })
        .collect();
    let width = cells.iter().map(String::len).max().unwrap_or(0).clamp(20, 60) + 2;
    let mut out = String::from(
        "\n--- loom's failing execution: one column per thread, every atomic access in the order \
         they took effect (>>: begun, never finished) ---\n",
    );
    let _ = write!(out, "{:>5}  ", "step");
    for t in &threads {
        let _ = write!(
            out,
            "{:<width$}",
            format!("thread {}", t.trim_start_matches("ThreadId(").trim_end_matches(')'))
        );
    }
    out.push('\n');
    for (i, (e, cell)) in events.iter().zip(&cells).enumerate() {
        let mark = if matches!(e.result, Value::Pending) { ">>" } else { "  " };
        let column = threads.iter().position(|t| *t == e.thread).unwrap_or(0);
        let _ = write!(out, "{:>5}{mark}", i + 1);
        out.push_str(&" ".repeat(column * width));
        let _ = writeln!(out, "{cell}");
    }
    // The lines named, exercise first.
    let mut lines: Vec<(&'static Location<'static>, String)> = Vec::new();
    for e in events {
        if !lines.iter().any(|(l, _)| l.file() == e.at.file() && l.line() == e.at.line()) {
            lines.push((e.at, source_line(e.at).unwrap_or_default()));
        }
    }
    lines.sort_by_key(|(l, _)| (!l.file().ends_with("exercise.rs"), l.file(), l.line()));
    out.push_str("the lines named:\n");
    for (l, text) in lines {
        let name = l.file().rsplit('/').next().unwrap_or(l.file());
        let _ = writeln!(out, "  {name}:{}: {}", l.line(), text.trim());
    }
    out.push_str("--- end of the execution ---");
    out
}

/// The text of the line `at` names, read from its file (found from the working directory or
/// one of its parents: paths are relative to the workspace, tests run in the crate's folder).
fn source_line(at: &Location) -> Option<String> {
    let mut dir = std::env::current_dir().ok()?;
    loop {
        let path = dir.join(at.file());
        if let Ok(text) = std::fs::read_to_string(&path) {
            return text.lines().nth(at.line() as usize - 1).map(str::to_string);
        }
        if !dir.pop() {
            return None;
        }
    }
}
