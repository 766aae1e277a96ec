//! Reading what a `cargo test` run printed: how many tests passed and failed, which failed and
//! with what panic, a crash's cause, and a failing loom model's execution with the model's doc.

pub fn count_tests(text: &str) -> (u64, u64) {
    let mut total = (0, 0);
    for line in text.lines().filter(|l| l.starts_with("test result:")) {
        let num = |word: &str| {
            line.split(';')
                .find(|part| part.trim_end().ends_with(word))
                .and_then(|part| part.split_whitespace().rev().nth(1)?.parse::<u64>().ok())
                .unwrap_or(0)
        };
        total.0 += num("passed");
        total.1 += num("failed");
    }
    total
}

/// Each failed test (short name) with its panic's message: from libtest's `---- NAME stdout
/// ----` section of the test, or, without one, the panic of the thread named after the test.
fn failures(text: &str) -> Vec<(String, Option<String>)> {
    failed_tests_full(text)
        .into_iter()
        .map(|full| {
            let section = stdout_section(text, &full);
            let own_thread = || {
                let at = format!("thread '{full}' panicked at");
                let i = text.find(&at)?;
                first_panic(&text[i..])
            };
            let why = section.and_then(first_panic).or_else(own_thread);
            (full.rsplit("::").next().unwrap_or(&full).to_string(), why)
        })
        .collect()
}

/// How a `todo!()` panics.
const TODO: &str = "not yet implemented";

/// The `---- FULL stdout ----` section libtest printed for the failed test named `full`
/// (`exercise::pop`), if it printed one: its lines up to the next section or the list of
/// failures.
fn stdout_section<'t>(text: &'t str, full: &str) -> Option<&'t str> {
    let (_, rest) = text.split_once(&format!("---- {full} stdout ----"))?;
    let mut end = 0;
    for line in rest.split_inclusive('\n') {
        let l = line.trim_end_matches('\n');
        if l.starts_with("---- ") || l == "failures:" {
            break;
        }
        end += line.len();
    }
    Some(&rest[..end])
}

/// The card of a run in which no test reported a failure, yet the run failed: the test process
/// crashed (a double free aborts it, a loom deadlock too), or it never started (see `log`).
/// The first panic, if any, usually says why (a `todo!()` still in the exercise, say); then
/// the check's own explanation (`explained`): a loom model that died printed its failing
/// execution before it died.
pub fn without_failures(text: &str, log: &str, explained: Option<String>) -> String {
    // A panic inside loom itself (its deadlock report) is said better by `crash`.
    let own_panic = first_panic(text).filter(|p| !p.contains("/loom-"));
    let why = match (crash(text), own_panic) {
        (Some(c), Some(p)) => format!("{c}; the first panic: {p}"),
        (Some(c), None) => c,
        (None, _) => format!("did not run: see {log}"),
    };
    let more: String = explained
        .iter()
        .flat_map(|w| w.lines())
        .filter(|l| !l.strip_prefix("it saw: ").is_some_and(|p| why.contains(p)))
        .map(|l| format!("\n{l}"))
        .collect();
    format!("{why}{more}")
}

/// The card's list of failed tests: each with its own message (the telling one is often not
/// the first), the tests that failed the same way on one line, at most eight lines (`log`
/// holds the rest); then, if a test process died, what it took with it.
pub fn failure_lines(text: &str, log: &str) -> String {
    let mut grouped: Vec<(String, Vec<String>)> = Vec::new();
    for (name, why) in failures(text) {
        let why = short(why.as_deref().unwrap_or("(no message: see the log)")) + blame(&why);
        match grouped.iter_mut().find(|(w, _)| *w == why) {
            Some((_, names)) => names.push(name),
            None => grouped.push((why, vec![name])),
        }
    }
    let mut lines: Vec<String> = grouped
        .iter()
        .take(8)
        .map(|(why, names)| match names.as_slice() {
            [first, rest @ ..] if !rest.is_empty() => {
                format!("- {first} and {} more: {why}", rest.len())
            }
            _ => format!("- {}: {why}", names.join("")),
        })
        .collect();
    if grouped.len() > 8 {
        lines.push(format!("- and {} other failures (see {log})", grouped.len() - 8));
    }
    // A test process that died took its tests' reports with it: the count leaves them out,
    // so the card says so (`cargo test --no-fail-fast` ran the other files).
    if let Some(c) = crash(text) {
        lines.push(format!("- and {c}: that file's other tests did not report"));
    }
    lines.join("\n")
}

/// What a panic raised in the course's own library code, not in the reader's file, says about
/// the reader's code: empty for a panic anywhere else.
fn blame(why: &Option<String>) -> &'static str {
    match why {
        Some(w) if w.contains("(at chapters/reclaim/") => {
            " (raised in the box recycling, chapters/reclaim, not in your file: a task's box \
             came back to it twice, so two takers took the same task)"
        }
        _ => "",
    }
}

/// One line of at most 200 characters.
fn short(text: &str) -> String {
    let line = text.replace('\n', " / ");
    match line.char_indices().nth(200) {
        Some((i, _)) => format!("{}...", &line[..i]),
        None => line,
    }
}

/// The failed tests' full names, as libtest prints them (`exercise::pop`).
fn failed_tests_full(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("test ")?.strip_suffix(" ... FAILED"))
        .map(String::from)
        .collect()
}

/// Which test was running when the test process died, and how.
fn crash(text: &str) -> Option<String> {
    let signal = text.lines().find(|l| l.contains("(signal:"))?;
    let how = signal.rsplit("(signal: ").next().unwrap_or(signal).trim_end_matches(')');
    let running = running_test(text).unwrap_or_else(|| "a test that had not reported yet".into());
    let mut why = format!("the test process died ({how}) in {running}");
    // A crate that aborts on purpose says why first, in a line that ends "; aborting".
    if let Some(said) = text.lines().find(|l| l.trim_end().ends_with("; aborting")) {
        why.push_str(&format!(": {}", said.trim()));
    } else if text.contains("double free") {
        why.push_str(": a task was freed twice, so two threads took the same task");
    } else if let Some(heap) = text.lines().find(|l| {
        ["free(): ", "malloc(): ", "malloc_consolidate(): ", "corrupted "]
            .iter()
            .any(|m| l.contains(m))
    }) {
        // glibc's other heap checks: what it saw, then what it means in a queue.
        why.push_str(&format!(
            ": the allocator found its heap broken (\"{}\"): a task's box freed twice or used \
             after its free, so two threads took the same task",
            heap.trim()
        ));
    } else if how.contains("SIGSEGV") {
        why.push_str(
            ": memory was read after it was freed, which a queue does when two threads took the \
             same task (both free its box) or a take returned a slot's stale pointer",
        );
    } else if text.contains("deadlock; threads") {
        why.push_str(
            ": loom found a deadlock, every thread blocked (a worker parked beside a task \
             nobody will signal: a lost wake-up?)",
        );
    }
    Some(why)
}

/// The test (short name) that had begun and not reported when the output ends: the one a dead
/// test process was running.
fn running_test(text: &str) -> Option<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("test "))
        .filter(|l| !l.starts_with("result:"))
        .find(|l| !(l.ends_with(" ok") || l.ends_with(" FAILED") || l.ends_with(" ignored")))
        .map(|l| l.split(" ... ").next().unwrap_or(l).rsplit("::").next().unwrap_or(l).to_string())
}

/// The first panic message and its location, without the backtrace. Panics that tests raise
/// on purpose (their message says "expected") are passed over when another one exists.
pub fn first_panic(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let panics: Vec<String> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.contains("panicked at"))
        .map(|(i, at)| {
            let place = at.split("panicked at").nth(1).unwrap_or("").trim().trim_end_matches(':');
            let msg: Vec<&str> = lines[i + 1..]
                .iter()
                .take_while(|l| !l.starts_with("note:") && !l.is_empty())
                .take(4)
                .copied()
                .collect();
            format!("{} (at {place})", msg.join(" / "))
        })
        .collect();
    let unexpected = panics.iter().find(|p| !p.contains("expected"));
    unexpected.or(panics.first()).cloned()
}

/// Turns loom's report into the reader's terms: what the failed model checks (its doc
/// comment in `tests/loom.rs`, whose source is `models`), what it saw and where, and, for
/// loom's own findings, which accesses raced and what is missing.
pub fn explain_loom(text: &str, models: &str) -> Option<String> {
    // The model explained: the first that failed other than on a `todo!()` (an exercise of
    // several functions may have one written and racy, another not begun), or the one the
    // test process died in. None when every failure is a `todo!()`: the card's list says so,
    // and a model's execution up to it explains nothing.
    let todo = |why: &Option<String>| why.as_deref().is_some_and(|p| p.starts_with(TODO));
    let failed = failures(text);
    let name = match failed.iter().find(|(_, why)| !todo(why)) {
        Some((name, _)) => Some(name.clone()),
        None if failed.is_empty() => running_test(text),
        None => return None,
    };
    // That model's own output where libtest kept one (`---- NAME stdout ----`), else all of it.
    let full = name.as_deref().and_then(|n| {
        failed_tests_full(text).into_iter().find(|f| f.rsplit("::").next() == Some(n))
    });
    let text = full.and_then(|f| stdout_section(text, &f)).unwrap_or(text);
    if first_panic(text).is_some_and(|p| p.starts_with(TODO)) {
        return None;
    }
    let mut out = Vec::new();
    if let Some(name) = name
        && let Some(doc) = model_doc(models, &name)
    {
        out.push(format!("the model `{name}`: {doc}"));
    }
    if text.contains("Causality violation") {
        out.push(
            "loom saw a thread read memory that the writer had not published to it: a load that \
             needs Acquire, or the write it reads from that needs Release, is weaker (or a read \
             goes through a pointer obtained without either). The two places:"
                .to_string(),
        );
    }
    if text.contains("Model exceeded maximum number of branches") {
        out.push(
            "a spin loop never gives way: call `loom::thread::yield_now()` in every retry loop."
                .into(),
        );
    }
    if text.contains("deadlock") && crash(text).is_none() {
        // (A deadlock that killed the process: `crash` names it, on the card's first line.)
        out.push("every thread waits for another: a lock or a spin that nobody releases.".into());
    }
    // With LOOM_LOCATION=1 loom names the racing accesses by file and line. (The compiler's
    // warnings, which point at lines with `-->` too, are left out.)
    let mut places: Vec<&str> = Vec::new();
    let mut in_warning = false;
    let loom_lines = text.lines().filter(|l| {
        in_warning = (in_warning && !l.trim().is_empty()) || l.starts_with("warning");
        !in_warning
    });
    for l in loom_lines.filter(|l| l.contains(".rs:") && !l.contains("panicked at")) {
        if (l.contains("created:") || l.contains(" @ ") || l.contains("-->"))
            && !places.contains(&l)
            && places.len() < 4
        {
            places.push(l);
        }
    }
    if !places.is_empty() {
        out.push(places.join("\n"));
    }
    // A panic inside loom itself is its report above, not the model's own assertion.
    if let Some(panic) = first_panic(text).filter(|p| !p.contains("/loom-")) {
        out.push(format!("it saw: {panic}"));
    }
    if let Some(timeline) = timeline(text) {
        out.push(timeline);
    }
    (!out.is_empty()).then(|| out.join("\n"))
}

/// The first failing execution as the chapter's `sync` shim printed it under loom (one column
/// per thread, the lines it names below), if the log has one.
pub fn timeline(text: &str) -> Option<String> {
    const START: &str = "--- loom's failing execution";
    const END: &str = "--- end of the execution ---";
    let from = text.find(START)?;
    let to = text[from..].find(END).map_or(text.len(), |i| from + i + END.len());
    Some(text[from..to].to_string())
}

/// The doc comment (`///` lines) of `fn name` in `source`, joined into one paragraph.
fn model_doc(source: &str, name: &str) -> Option<String> {
    let lines: Vec<&str> = source.lines().collect();
    let at = lines.iter().position(|l| {
        let l = l.trim_start();
        l.starts_with(&format!("fn {name}<")) || l.starts_with(&format!("fn {name}("))
    })?;
    let doc: Vec<&str> = lines[..at]
        .iter()
        .rev()
        .take_while(|l| l.trim_start().starts_with("///"))
        .map(|l| l.trim_start().trim_start_matches("///").trim())
        .collect();
    (!doc.is_empty())
        .then(|| doc.into_iter().rev().collect::<Vec<_>>().join(" ").trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_every_result_line() {
        let text = "test result: ok. 9 passed; 0 failed; 0 ignored\n\
                    test result: FAILED. 1 passed; 2 failed; 0 ignored; 0 measured; 9 filtered out";
        assert_eq!(count_tests(text), (10, 2));
    }

    #[test]
    fn prefers_an_unexpected_panic() {
        let text = "thread 'w' panicked at tests/pool.rs:51:41:\nexpected panic from a test task\n\
                    thread 'x' panicked at src/exercise.rs:16:5:\nnot yet implemented: await_work\nnote: z";
        assert_eq!(
            first_panic(text).unwrap(),
            "not yet implemented: await_work (at src/exercise.rs:16:5)"
        );
    }

    #[test]
    fn explains_a_crash() {
        let text = "running 5 tests\ntest exercise::two_thieves ... free(): double free detected in tcache 2\n\
                    process didn't exit successfully: `x` (signal: 6, SIGABRT: process abort signal)";
        let why = crash(text).unwrap();
        assert!(
            why.contains("two_thieves")
                && why.contains("SIGABRT")
                && why.contains("took the same task"),
            "{why}"
        );
        assert_eq!(crash("test a ... ok"), None);
        let stuck =
            "test exercise::one_worker ... deadlock; threads = [..]\n(signal: 6, SIGABRT: x)";
        assert!(crash(stuck).unwrap().contains("lost wake-up"), "a loom deadlock is named");
        let said = "test exercise::fib ... \nch07-pool: the wait panicked (not yet implemented: \
                    help_until) while ...; aborting\n(signal: 6, SIGABRT: x)";
        assert!(crash(said).unwrap().contains("not yet implemented: help_until"), "its own words");
        let segv = "running 6 tests\nerror: test failed\n\nCaused by:\n  process didn't exit \
                    successfully: `take` (signal: 11, SIGSEGV: invalid memory reference)";
        assert!(crash(segv).unwrap().contains("two threads took the same task"), "a segfault");
        let heap = "test exercise::spsc ... ok\nmalloc(): unaligned tcache chunk detected\n\
                    process didn't exit successfully: `x` (signal: 6, SIGABRT: process abort signal)";
        assert!(
            crash(heap).unwrap().contains("(\"malloc(): unaligned tcache chunk"),
            "glibc's words"
        );
        let later =
            "test result: ok. 0 passed; 0 failed\n(signal: 6, SIGABRT: process abort signal)";
        assert!(
            crash(later).unwrap().contains("in a test that had not reported yet"),
            "a result line is not a test name"
        );
    }

    /// A mutant that takes a task twice (ch03's `lifo_load_then_store`): one test file fails a
    /// test in the box recycling, the other dies. The card names both, in the reader's terms.
    #[test]
    fn lists_a_failure_in_library_code_and_a_dead_test_file() {
        let text = "running 7 tests\ntest exercise::smoke ... ok\ntest exercise::stress ... FAILED\n\n\
                    failures:\n\n---- exercise::stress stdout ----\n\n\
                    thread 'exercise::stress' (1594) panicked at chapters/reclaim/src/chain.rs:120:28:\n\
                    attempt to subtract with overflow\nnote: run with `RUST_BACKTRACE=1`\n\n\
                    test result: FAILED. 6 passed; 1 failed; 0 ignored\n\
                    running 6 tests\nerror: test failed, to rerun pass `--test take`\n\nCaused by:\n  \
                    process didn't exit successfully: `take` (signal: 11, SIGSEGV: invalid memory reference)";
        let card = failure_lines(text, "tests.log");
        let lines: Vec<&str> = card.lines().collect();
        assert_eq!(lines.len(), 2, "{card}");
        assert!(lines[0].starts_with("- stress: attempt to subtract with overflow"), "{card}");
        assert!(lines[0].contains("not in your file") && lines[0].contains("took the same task"));
        assert!(lines[1].contains("SIGSEGV") && lines[1].contains("did not report"), "{card}");
        assert!(!failure_lines("test exercise::a ... FAILED", "l").contains("not in your"));
    }

    /// ch07's `recheck_before_announce`: loom finds the lost wake-up as a deadlock, which
    /// aborts the test process after the shim printed the failing execution. The card shows
    /// that execution and the model's doc, not loom's own panic.
    #[test]
    fn a_loom_deadlock_that_killed_the_process_shows_its_execution() {
        let models = "/// One worker, one task: the worker must not sleep through it.\n\
                      fn one_worker_one_task<I: Impl>() {\n";
        let text = "running 5 tests\ntest exercise::a ... ok\ntest exercise::one_worker_one_task ... \n\
                    --- loom's failing execution: one column per thread ---\n\
                    \x20   6                 sleep.rs:55 add 1 (was 0) SeqCst\n\
                    --- end of the execution ---\n\
                    thread 'exercise::one_worker_one_task' (7042) panicked at \
                    /root/.cargo/registry/src/x/loom-0.7.3/src/rt/execution.rs:215:13:\n\
                    deadlock; threads = [(Id(0), Blocked(..))]\nnote: run with `RUST_BACKTRACE=1`\n\
                    thread caused non-unwinding panic. aborting.\n\
                    process didn't exit successfully: `loom` (signal: 6, SIGABRT: process abort signal)";
        let card = without_failures(text, "loom.log", explain_loom(text, models));
        assert!(card.starts_with("the test process died (6, SIGABRT"), "{card}");
        assert!(card.contains("in one_worker_one_task: loom found a deadlock"), "{card}");
        assert!(card.contains("the model `one_worker_one_task`: One worker, one task"), "{card}");
        assert!(card.contains("sleep.rs:55 add 1") && card.contains("--- end of the"), "{card}");
        assert!(!card.contains("the first panic") && !card.contains("see the loom"), "{card}");
        assert!(!card.contains("every thread waits for another"), "said once: {card}");
        let stub = "test exercise::a ... \nthread 'exercise::a' panicked at src/exercise.rs:9:5:\n\
                    not yet implemented: poll\nnote: run with `RUST_BACKTRACE=1`\n\
                    (signal: 6, SIGABRT: process abort signal)";
        let card = without_failures(stub, "tests.log", None);
        assert!(
            card.ends_with("the first panic: not yet implemented: poll (at src/exercise.rs:9:5)")
        );
        // Under loom the same stub prints the execution up to its `todo!()`: noise, left out.
        let stub =
            format!("--- loom's failing execution ---\n--- end of the execution ---\n{stub}");
        assert_eq!(explain_loom(&stub, models), None);
        assert_eq!(without_failures("", "tests.log", None), "did not run: see tests.log");
    }

    /// An exercise of several functions, one begun and racy, one still `todo!()`: the card
    /// explains the racy one's model, whatever order the models failed in.
    #[test]
    fn a_todo_in_one_function_does_not_hide_a_race_in_another() {
        let models = "/// Two workers, two tasks.\nfn two_workers<I: Impl>() {\n";
        let text = "test exercise::a_forked ... FAILED\ntest exercise::two_workers ... FAILED\n\n\
                    failures:\n\n---- exercise::a_forked stdout ----\n\
                    thread 'exercise::a_forked' panicked at src/exercise.rs:52:5:\n\
                    not yet implemented: help_until\n\n---- exercise::two_workers stdout ----\n\
                    --- loom's failing execution: one column per thread ---\n\
                    \x20   3  exercise.rs:40 load -> null Acquire\n--- end of the execution ---\n\
                    thread 'exercise::two_workers' panicked at tests/loom.rs:9:5:\n\
                    a task never ran\n\nfailures:\n    exercise::a_forked\n";
        let why = explain_loom(text, models).unwrap();
        assert!(why.starts_with("the model `two_workers`: Two workers, two tasks."), "{why}");
        assert!(
            why.contains("it saw: a task never ran") && why.contains("exercise.rs:40"),
            "{why}"
        );
        assert!(!why.contains("not yet implemented"), "{why}");
        let only_todo = text.replace("a task never ran", "not yet implemented: await_work");
        assert_eq!(explain_loom(&only_todo, models), None);
    }

    #[test]
    fn names_the_racing_accesses_of_a_causality_violation() {
        let text = "test exercise::m ... FAILED\n\
                    thread 'exercise::m' panicked at /registry/loom-0.7.3/src/rt/location.rs:115:9:\n\n\
                    Causality violation: Concurrent load and mut accesses.\n\
                    \x20   created: chapters/ch04-grow/src/queue.rs:22:55\n\
                    \x20      load: thread #1 @ chapters/ch04-grow/src/take.rs:29:25\n";
        let why = explain_loom(text, "").unwrap();
        assert!(why.contains("needs Acquire"), "{why}");
        assert!(why.contains("created: chapters/ch04-grow/src/queue.rs:22:55"), "{why}");
        assert!(why.contains("load: thread #1 @ chapters/ch04-grow/src/take.rs:29:25"), "{why}");
    }

    #[test]
    fn explains_a_loom_failure_with_the_models_doc() {
        let models = "/// Unrelated.\nfn other<P>() {}\n\n/// The owner pops while a thief polls:\n\
                      /// the last task is raced for.\nfn owner_and_thief_race<P: PollOps>() {\n";
        assert_eq!(
            model_doc(models, "owner_and_thief_race").unwrap(),
            "The owner pops while a thief polls: the last task is raced for."
        );
        assert_eq!(model_doc(models, "missing"), None);
        let text = "test exercise::owner_and_thief_race ... FAILED\n\
                    thread 'exercise::owner_and_thief_race' panicked at chapters/ch02-poll/tests/loom.rs:38:5:\n\
                    each task taken exactly once, got counts [2, 1]\nnote: run with";
        let why = explain_loom(text, models).unwrap();
        assert!(why.starts_with("the model `owner_and_thief_race`: The owner pops"), "{why}");
        assert!(
            why.contains("it saw: each task taken exactly once, got counts [2, 1] (at chapters/ch02-poll/tests/loom.rs:38:5)"),
            "{why}"
        );
    }

    #[test]
    fn finds_failed_names_and_the_panic() {
        let text = "test exercise::pop ... FAILED\ntest exercise::push ... ok\n\
                    thread 'exercise::pop' panicked at tests/ring.rs:4:9:\nnot yet implemented: pop\nnote: run with";
        assert_eq!(failures(text).into_iter().map(|(name, _)| name).collect::<Vec<_>>(), ["pop"]);
        assert_eq!(first_panic(text).unwrap(), "not yet implemented: pop (at tests/ring.rs:4:9)");
    }

    #[test]
    fn gives_each_failed_test_its_own_message() {
        let text = "test exercise::a ... FAILED\ntest exercise::b ... FAILED\n\nfailures:\n\n\
                    ---- exercise::a stdout ----\n\nthread 'exercise::a' panicked at t.rs:1:1:\n\
                    left == right\nnote: run with\n\n---- exercise::b stdout ----\n\n\
                    thread '<unnamed>' panicked at t.rs:2:2:\nthe owner waited for a paused thief\n\n\
                    failures:\n    exercise::a\n";
        let got = failures(text);
        assert_eq!(got[0], ("a".into(), Some("left == right (at t.rs:1:1)".into())));
        assert_eq!(
            got[1],
            ("b".into(), Some("the owner waited for a paused thief (at t.rs:2:2)".into()))
        );
    }
}
