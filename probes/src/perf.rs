//! Timed windows for `perf record`: a probe started under
//! `perf record -D -1 --control fifo:CTL,ACK` and given `--perf-ctl CTL,ACK` turns the sampling
//! on just before each timed run and off just after it, so that a profile holds the timed runs
//! and nothing else (no pool start-up or shutdown, no calibration, no untimed floor runs).
//! While a window is open the calling thread is named after the run (`main-ours`,
//! `main-inside`, `main-rayon`): with the pools' own thread names, `perf report --sort comm`
//! then tells whose CPU each sample was. `scripts/lab.py` uses it for 64x256's table "where
//! the CPU went".

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::sync::{Mutex, OnceLock};

/// perf's control fifo and the fifo it acknowledges on.
struct Fifos {
    ctl: File,
    ack: File,
}

static WINDOW: OnceLock<Mutex<Fifos>> = OnceLock::new();

/// Opens `CTL,ACK` (the value of `--perf-ctl`), once per process: the two fifos given to
/// `perf record --control fifo:CTL,ACK`. An error names the fifo that could not be opened.
pub fn open(value: &str) -> Result<(), String> {
    let (ctl, ack) = value
        .split_once(',')
        .ok_or_else(|| format!("--perf-ctl {value}: expected CTL,ACK (two fifo paths)"))?;
    let opened = |path: &str, write: bool| {
        // Non-blocking to open: a fifo that no perf has open fails at once (the control fifo)
        // instead of hanging; then blocking again, so that a read waits for perf's answer.
        let file = OpenOptions::new()
            .read(!write)
            .write(write)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
            .map_err(|e| {
                format!("--perf-ctl: {path}: {e} (is perf record --control reading it?)")
            })?;
        // SAFETY: F_GETFL and F_SETFL on a descriptor this function owns; no memory passed.
        unsafe {
            let flags = libc::fcntl(file.as_raw_fd(), libc::F_GETFL);
            libc::fcntl(file.as_raw_fd(), libc::F_SETFL, flags & !libc::O_NONBLOCK);
        }
        Ok::<File, String>(file)
    };
    let fifos = Fifos { ctl: opened(ctl, true)?, ack: opened(ack, false)? };
    WINDOW.set(Mutex::new(fifos)).map_err(|_| "--perf-ctl given twice".to_string())
}

/// Runs `f` with perf's sampling on (when `--perf-ctl` was given) and this thread named `name`
/// (at most 15 bytes, the kernel's limit); without `--perf-ctl` it only runs `f`.
pub fn window<R>(name: &str, f: impl FnOnce() -> R) -> R {
    let Some(fifos) = WINDOW.get() else { return f() };
    let mut fifos = fifos.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let before = thread_name();
    command(&mut fifos, "enable");
    // perf records a thread's name when it changes; the pool's threads were named, and this
    // one renamed, before sampling was on (perf keeps no such events while disabled).
    set_thread_name(name);
    announce_threads();
    let r = f();
    command(&mut fifos, "disable");
    set_thread_name(&before);
    r
}

/// Sends one command to perf and waits for its acknowledgement ("ack\n"): the sampling has
/// changed state before this returns.
fn command(fifos: &mut Fifos, what: &str) {
    let sent = fifos.ctl.write_all(format!("{what}\n").as_bytes());
    let mut ack = [0u8; 5];
    let acked = sent.and_then(|()| fifos.ack.read(&mut ack));
    if let Err(e) = acked {
        eprintln!("perf window: {what}: {e} (is perf record still running?)");
        std::process::exit(1);
    }
}

/// This thread's name as the kernel has it (perf's `comm`).
#[cfg(target_os = "linux")]
fn thread_name() -> String {
    let mut buf = [0u8; 16];
    // SAFETY: PR_GET_NAME writes at most 16 bytes, NUL included, into `buf`.
    unsafe { libc::prctl(libc::PR_GET_NAME, buf.as_mut_ptr()) };
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

/// Writes each thread's name back to itself (`/proc/self/task/TID/comm`): the kernel tells
/// perf of every name written, so the samples of threads named before the window are named.
#[cfg(target_os = "linux")]
fn announce_threads() {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else { return };
    for task in tasks.flatten() {
        let comm = task.path().join("comm");
        if let Ok(name) = std::fs::read_to_string(&comm) {
            // Without the newline that reading adds: written, it would become part of the name.
            let _ = std::fs::write(&comm, name.trim_end_matches('\n')); // gone: nothing to name
        }
    }
}

#[cfg(target_os = "linux")]
fn set_thread_name(name: &str) {
    let mut buf = [0u8; 16];
    let n = name.len().min(15);
    buf[..n].copy_from_slice(&name.as_bytes()[..n]);
    // SAFETY: PR_SET_NAME reads a NUL-terminated string of at most 16 bytes from `buf`.
    unsafe { libc::prctl(libc::PR_SET_NAME, buf.as_ptr()) };
}

// Elsewhere perf's `--control` is not there to drive: the names stay as they are.
#[cfg(not(target_os = "linux"))]
fn thread_name() -> String {
    String::new()
}

#[cfg(not(target_os = "linux"))]
fn set_thread_name(_: &str) {}

#[cfg(not(target_os = "linux"))]
fn announce_threads() {}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value that is not two paths, or a path that no perf reads, is refused with a message
    /// that names it; nothing is opened, so a window only runs its closure.
    #[test]
    fn a_bad_perf_ctl_is_refused_and_named() {
        let not_two = open("one-path").expect_err("one path is not CTL,ACK");
        assert!(not_two.contains("expected CTL,ACK"), "{not_two}");
        let missing = open("/no/such/ctl,/no/such/ack").expect_err("no such fifo");
        assert!(missing.contains("/no/such/ctl"), "{missing}");
        assert_eq!(window("main-test", || 7), 7, "without --perf-ctl a window only runs f");
    }
}
