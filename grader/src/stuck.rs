//! Where a test that hung was stuck: the exercise's lines in gdb's backtraces of its threads.

/// `a::b<c::D<E>>::f<G>` without its generic arguments: `a::b::f`.
fn without_generics(path: &str) -> String {
    let mut depth = 0usize;
    path.chars()
        .filter(|&c| {
            match c {
                '<' => depth += 1,
                '>' => depth = depth.saturating_sub(1),
                _ => return depth == 0,
            }
            false
        })
        .collect()
}

/// Where the threads of a stuck test were, from gdb's backtraces: each thread that was in the
/// exercise, at its line there, with the test that called it.
pub fn where_stuck(stacks: &str) -> String {
    let mut found = Vec::new();
    for thread in stacks.split("\nThread ").skip(1) {
        let frames: Vec<&str> = thread.lines().filter(|l| l.starts_with('#')).collect();
        let at = |needle: &str| {
            frames.iter().find(|f| f.contains(needle)).map(|f| {
                let file = f.rsplit(" at ").next().unwrap_or("");
                let file = file.rsplit('/').next().unwrap_or(file);
                let func = f.split(" in ").nth(1).and_then(|r| r.split(" (").next()).unwrap_or("?");
                let func = without_generics(func);
                (file.to_string(), func.rsplit("::").next().unwrap_or(&func).to_string())
            })
        };
        let Some((line, func)) = at("exercise.rs:") else { continue };
        let test = at("/tests/").map(|(l, f)| format!(", called from the test {f} ({l})"));
        let here = format!("the exercise's {func} at {line}{}", test.unwrap_or_default());
        if !found.contains(&here) {
            found.push(here);
        }
    }
    match found.len() {
        0 if stacks.trim().is_empty() => "no stacks (gdb missing?)".into(),
        0 => "no thread was inside the exercise (a wait around it, then)".into(),
        _ => format!("stuck in {}", found.into_iter().take(3).collect::<Vec<_>>().join("; ")),
    }
}

#[cfg(test)]
mod stuck_tests {
    use super::where_stuck;

    #[test]
    fn names_the_exercise_line_and_its_test() {
        let gdb = "\nThread 2 (Thread 0x7f (LWP 12) \"exercise::a_mil\"):\n\
            #0  0x1 in core::sync::atomic::atomic_load<i32> () at /rustc/x/atomic.rs:3560\n\
            #1  0x2 in ch02_poll::exercise::poll<usize> () at /w/target/grade/ch02/g/exercise.rs:27\n\
            #2  0x3 in poll::exercise::a_million_tasks_exactly_once () at /w/chapters/ch02-poll/tests/poll.rs:120\n\
            \nThread 1 (Thread 0x7e (LWP 11) \"poll\"):\n\
            #0  0x4 in std::thread::park () at /rustc/x/mod.rs:1\n";
        assert_eq!(
            where_stuck(gdb),
            "stuck in the exercise's poll at exercise.rs:27, called from the test \
             a_million_tasks_exactly_once (poll.rs:120)"
        );
        assert!(where_stuck("").contains("gdb missing"));
        assert!(where_stuck(&gdb.replace("exercise.rs", "queue.rs")).contains("no thread"));
    }
}
