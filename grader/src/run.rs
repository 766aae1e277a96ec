//! Running a command with a time limit, capturing what it prints.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Set (by a Ctrl-C handler, where one is installed) to cut the running command at once.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// What a finished (or cut) command left behind.
pub struct Output {
    /// Exit code; `None` when killed by a signal or by the timeout.
    pub code: Option<i32>,
    /// True when the time limit cut it.
    pub timed_out: bool,
    /// When it printed nothing for the quiet limit and was cut: the stacks of its processes'
    /// threads at that moment (gdb's backtraces; empty without gdb).
    pub stalled: Option<String>,
    /// Standard output and standard error, interleaved as they came.
    pub text: String,
}

impl Output {
    pub fn ok(&self) -> bool {
        self.code == Some(0) && !self.timed_out && self.stalled.is_none()
    }
}

/// How long a command may run: in all, and without printing anything (`quiet`; a test run
/// prints a line per finished test, so silence that long means one is stuck).
#[derive(Clone, Copy)]
pub struct Limits {
    pub total: Duration,
    pub quiet: Option<Duration>,
}

/// Runs `cmd` in its own process group, with stdout and stderr in one pipe, and kills the
/// whole group (cargo and the test binary it started) past `limits`; when it was the quiet
/// limit, it first takes the stacks of the group's other processes, to say where it was stuck.
/// While it runs, prints a dot every 10 s so a long step is visibly alive.
pub fn run(mut cmd: Command, limits: Limits, log: Option<&PathBuf>) -> Output {
    let (mut reader, writer) = std::io::pipe().expect("a pipe for the child's output");
    let writer2 = writer.try_clone().expect("a second handle on the pipe");
    cmd.stdin(Stdio::null()).stdout(writer).stderr(writer2).process_group(0);
    let start = Instant::now();
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return Output {
                code: None,
                timed_out: false,
                stalled: None,
                text: format!("could not start {:?}: {e}", cmd.get_program()),
            };
        }
    };
    drop(cmd); // closes our copies of the pipe's write end, so the read sees end-of-file
    let last_output = Arc::new(Mutex::new(Instant::now()));
    let collector = {
        let last_output = last_output.clone();
        std::thread::spawn(move || {
            let (mut buf, mut chunk) = (Vec::new(), [0u8; 4096]);
            while let Ok(n @ 1..) = reader.read(&mut chunk) {
                buf.extend_from_slice(&chunk[..n]);
                *last_output.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
            }
            String::from_utf8_lossy(&buf).into_owned()
        })
    };
    let (mut timed_out, mut stalled) = (false, None);
    let mut next_dot = Duration::from_secs(10);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) => {}
            Err(_) => break None,
        }
        let silent = last_output.lock().unwrap_or_else(|e| e.into_inner()).elapsed();
        let quiet_past = limits.quiet.is_some_and(|q| silent > q);
        if start.elapsed() > limits.total || quiet_past || INTERRUPTED.load(Relaxed) {
            if INTERRUPTED.load(Relaxed) {
                // Cut by Ctrl-C: neither a hang nor a timeout; the caller looks at the flag.
            } else if quiet_past {
                stalled = Some(stacks(child.id()));
            } else {
                timed_out = true;
            }
            // `--` so that the negative number (the process group) is not read as an option.
            let _ =
                Command::new("kill").args(["-KILL", "--"]).arg(format!("-{}", child.id())).status();
            let _ = child.kill();
            break child.wait().ok();
        }
        if start.elapsed() > next_dot {
            eprint!(".");
            next_dot += Duration::from_secs(10);
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let text = collector.join().unwrap_or_default();
    if let Some(path) = log {
        let _ = std::fs::write(path, &text);
    }
    Output { code: status.and_then(|s| s.code()), timed_out, stalled, text }
}

/// gdb's backtraces of every thread of every process in process group `group` but cargo
/// itself (the test binaries); empty when gdb is missing or cannot attach.
fn stacks(group: u32) -> String {
    let mut out = String::new();
    for pid in members(group) {
        let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
        if comm.trim() == "cargo" {
            continue;
        }
        let mut gdb = Command::new("timeout");
        gdb.args(["20", "gdb", "-p", &pid.to_string(), "-batch", "-nx"]).args([
            "-ex",
            "set print frame-arguments none",
            "-ex",
            "thread apply all bt",
        ]);
        if let Ok(o) = gdb.stdin(Stdio::null()).output() {
            out += &String::from_utf8_lossy(&o.stdout);
        }
    }
    out
}

/// The processes whose process group is `group`.
fn members(group: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else { return Vec::new() };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            // Field 5 of /proc/PID/stat, after the command name in parentheses.
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let after = stat.rsplit_once(") ").map_or("", |(_, rest)| rest);
            after.split_whitespace().nth(2).and_then(|g| g.parse::<u32>().ok()) == Some(group)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hang_is_cut_with_its_children() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo started; sleep 30 & wait"]);
        let t0 = Instant::now();
        let out = run(cmd, Limits { total: Duration::from_millis(300), quiet: None }, None);
        assert!(out.timed_out && !out.ok());
        assert!(t0.elapsed() < Duration::from_secs(10), "the child and its sleep were killed");
        assert!(out.text.contains("started"), "output before the cut is kept");
    }

    #[test]
    fn exit_code_and_both_streams_are_kept() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo out; echo err >&2; exit 3"]);
        let out = run(cmd, Limits { total: Duration::from_secs(10), quiet: None }, None);
        assert_eq!((out.code, out.timed_out), (Some(3), false));
        assert!(out.text.contains("out") && out.text.contains("err"));
    }

    #[test]
    fn a_silent_command_is_cut_at_the_quiet_limit_with_its_stacks() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo started; sleep 30"]);
        let t0 = Instant::now();
        let limits =
            Limits { total: Duration::from_secs(60), quiet: Some(Duration::from_millis(500)) };
        let out = run(cmd, limits, None);
        assert!(out.stalled.is_some() && !out.timed_out && !out.ok());
        assert!(t0.elapsed() < Duration::from_secs(25), "cut long before the total limit");
        assert!(out.text.contains("started"));
    }
}
