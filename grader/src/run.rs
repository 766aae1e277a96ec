//! Running a command with a time limit, capturing what it prints.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What a finished (or cut) command left behind.
pub struct Output {
    /// Exit code; `None` when killed by a signal or by the timeout.
    pub code: Option<i32>,
    /// True when the time limit cut it.
    pub timed_out: bool,
    /// Standard output and standard error, interleaved as they came.
    pub text: String,
}

impl Output {
    pub fn ok(&self) -> bool {
        self.code == Some(0) && !self.timed_out
    }
}

/// Runs `cmd` in its own process group, with stdout and stderr in one pipe, and
/// kills the whole group (cargo and the test binary it started) after `limit`.
/// While it runs, prints a dot every 10 s so a long step is visibly alive.
pub fn run(mut cmd: Command, limit: Duration, log: Option<&PathBuf>) -> Output {
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
                text: format!("could not start {:?}: {e}", cmd.get_program()),
            };
        }
    };
    drop(cmd); // closes our copies of the pipe's write end, so the read sees end-of-file
    let collector = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = reader.read_to_end(&mut buf);
        String::from_utf8_lossy(&buf).into_owned()
    });
    let mut timed_out = false;
    let mut next_dot = Duration::from_secs(10);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) => {}
            Err(_) => break None,
        }
        if start.elapsed() > limit {
            timed_out = true;
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
    Output { code: status.and_then(|s| s.code()), timed_out, text }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hang_is_cut_with_its_children() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo started; sleep 30 & wait"]);
        let t0 = Instant::now();
        let out = run(cmd, Duration::from_millis(300), None);
        assert!(out.timed_out && !out.ok());
        assert!(t0.elapsed() < Duration::from_secs(10), "the child and its sleep were killed");
        assert!(out.text.contains("started"), "output before the cut is kept");
    }

    #[test]
    fn exit_code_and_both_streams_are_kept() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo out; echo err >&2; exit 3"]);
        let out = run(cmd, Duration::from_secs(10), None);
        assert_eq!((out.code, out.timed_out), (Some(3), false));
        assert!(out.text.contains("out") && out.text.contains("err"));
    }
}
