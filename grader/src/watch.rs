//! `cargo grade chNN --watch`: noticing that the reader saved the exercise. A poll of the file's
//! modification time and length a few times a second: editors save by writing in place or by
//! renaming a new file over the old one, and both change what `metadata` says.

use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

/// What the file looked like: modification time and length (`None` while it does not exist,
/// as in the middle of an editor's rename).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stamp(Option<(SystemTime, u64)>);

impl Stamp {
    pub fn of(path: &Path) -> Stamp {
        Stamp(std::fs::metadata(path).ok().and_then(|m| Some((m.modified().ok()?, m.len()))))
    }
}

/// Waits until `path` differs from `seen` and exists, checking every `poll`, and returns its new
/// stamp; gives up after `limit` (then returns `seen`), or never without one.
pub fn wait_for_change(path: &Path, seen: Stamp, poll: Duration, limit: Option<Duration>) -> Stamp {
    let start = Instant::now();
    loop {
        std::thread::sleep(poll);
        let now = Stamp::of(path);
        if now != seen && now.0.is_some() {
            // An editor may still be writing: wait until two looks agree.
            std::thread::sleep(poll);
            let settled = Stamp::of(path);
            if settled == now {
                return now;
            }
        }
        if limit.is_some_and(|l| start.elapsed() > l) {
            return seen;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_file_is_noticed_and_an_untouched_one_is_not() {
        let path = std::env::temp_dir().join(format!("grade-watch-{}.rs", std::process::id()));
        std::fs::write(&path, "fn a() {}").unwrap();
        let poll = Duration::from_millis(20);
        let seen = Stamp::of(&path);
        let untouched = wait_for_change(&path, seen, poll, Some(Duration::from_millis(200)));
        assert_eq!(untouched, seen, "nothing changed: it gives up with what it had");
        let writer = {
            let path = path.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(100));
                std::fs::write(&path, "fn a() { todo!() }").unwrap();
            })
        };
        let changed = wait_for_change(&path, seen, poll, Some(Duration::from_secs(10)));
        writer.join().unwrap();
        assert_ne!(changed, seen, "the save is noticed");
        std::fs::remove_file(&path).unwrap();
    }
}
