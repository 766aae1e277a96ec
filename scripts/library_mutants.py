#!/usr/bin/env python3
"""Known-wrong variants of the chapters' library code, and the tests that must catch them.

The grader's mutants (`solutions/<chapter>/mutants`) edit a reader's exercise. Some protocols
are not exercises but are still model-checked: chapter 2's pins (`chapters/reclaim/src/pins.rs`)
are one. Their mutants live in `chapters/<crate>/mutants/<name>.mutant`, in the grader's format plus a
`file:` line naming the source they edit (relative to the crate):

    # What is wrong and what it breaks.
    file: src/pins.rs
    caught-by: loom <test filter>          (the crate's tests/loom.rs, under --cfg loom)
    caught-by: test <target> <test filter> (one of the crate's test targets, in release)
    expect: <text the failure must print>  (optional: a loom report, an assertion's message)
    --- replace
    <lines exactly as they stand, occurring once>
    +++ with
    <the lines that replace them>

For each mutant this script edits the file in place, runs the tests that its `caught-by` line
selects, and restores the file (also on an error or Ctrl-C; while a mutant is applied, a
record of it waits in target/library-mutants/, and a later run puts the original back if a
killed run left the file mutated). One run at a time per tree (a lock file). A mutant is caught when those tests compile, run, fail within the time
limit, and print its `expect:` text; one that does not compile, passes, hangs, or fails for
another reason fails the script.

    python3 scripts/library_mutants.py            # every mutant of every chapter
    python3 scripts/library_mutants.py NAME ...   # only these
    python3 scripts/library_mutants.py --self-test

`--self-test` shows that the script can fail: it runs a harmless mutant (an edit to a comment
of the first mutant's file) and must report it as not caught.
"""

import fcntl
import hashlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BACKUPS = ROOT / "target" / "library-mutants"
TIMEOUT_S = 600


def parse(path: Path):
    """(why, file, caught-by words, expect, edits) of one mutant file; ValueError if malformed."""
    why, file, caught, expect, edits = [], None, None, None, []
    lines = path.read_text().split("\n")
    i = 0
    while i < len(lines) and not lines[i].startswith("--- replace"):
        line = lines[i]
        if line.startswith("#"):
            why.append(line[1:].strip())
        elif line.startswith("expect:"):
            expect = line[len("expect:"):].strip() or None
        elif line.startswith("file:"):
            file = line[len("file:"):].strip()
        elif line.startswith("caught-by:"):
            caught = line[len("caught-by:"):].split()
            if not ((len(caught) == 2 and caught[0] == "loom")
                    or (len(caught) == 3 and caught[0] == "test")):
                raise ValueError(f"{path.name}: caught-by must read `loom <filter>` or "
                                 f"`test <target> <filter>`, not {line!r}")
        elif line.strip():
            raise ValueError(f"{path.name}: unexpected header line {line!r}")
        i += 1
    while i < len(lines):
        i += 1  # the `--- replace` line
        old = []
        while i < len(lines) and not lines[i].startswith("+++ with"):
            old.append(lines[i])
            i += 1
        i += 1
        new = []
        while i < len(lines) and not lines[i].startswith("--- replace"):
            new.append(lines[i])
            i += 1
        edits.append(("\n".join(old), "\n".join(new).rstrip("\n")))
    if file is None or caught is None or not edits:
        raise ValueError(f"{path.name}: needs a `file:` line, a `caught-by:` line and an edit")
    return " ".join(why), file, caught, expect, edits


def apply(text: str, edits, name: str) -> str:
    for old, new in edits:
        n = text.count(old)
        if n != 1:
            raise ValueError(f"{name}: the text to replace occurs {n} times, not once")
        text = text.replace(old, new, 1)
    return text


def run_tests(crate: str, caught):
    """Runs what `caught` (`["loom", filter]` or `["test", target, filter]`) names."""
    if caught[0] == "loom":
        env = dict(os.environ, RUSTFLAGS="--cfg loom", LOOM_MAX_PREEMPTIONS="3",
                   CARGO_TARGET_DIR=str(ROOT / "target" / "loom"))
        target, flt = "loom", caught[1]
    else:
        env = dict(os.environ)
        target, flt = caught[1], caught[2]
    cmd = ["cargo", "test", "-p", crate, "--release", "--test", target, "--", flt,
           "--test-threads=1"]
    # A session of its own, so that a timeout kills the test binary too, not only cargo.
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def backup_of(source: Path) -> Path:
    """Where the record of a mutant applied to `source` waits while its tests run."""
    rel = str(source.relative_to(ROOT))
    return BACKUPS / (hashlib.sha256(rel.encode()).hexdigest()[:16] + ".json")


def restore_leftovers() -> None:
    """Puts back a source that a killed run left mutated, if it still holds that mutant (a file
    edited since is left alone, with a warning)."""
    for record in sorted(BACKUPS.glob("*.json")) if BACKUPS.is_dir() else []:
        saved = json.loads(record.read_text())
        source = ROOT / saved["path"]
        if source.read_text() == saved["mutated"]:
            source.write_text(saved["original"])
            print(f"library_mutants: restored {saved['path']}, left mutated by an interrupted run")
        else:
            print(f"library_mutants: {saved['path']} changed since an interrupted run mutated it;"
                  " left as it is (check it against git)")
        record.unlink()


def check(crate_dir: Path, name: str, why: str, file: str, caught, expect, edits) -> bool:
    """Applies one mutant, runs its tests, restores the file; True when the tests caught it."""
    crate = crate_dir.name
    source = crate_dir / file
    try:
        original = source.read_text()
        mutated = apply(original, edits, name)
    except (ValueError, OSError) as e:
        print(f"FAIL {crate} {name}: {e}")
        return False
    copy = backup_of(source)
    copy.write_text(json.dumps({"path": str(source.relative_to(ROOT)), "original": original,
                                "mutated": mutated}))
    try:
        source.write_text(mutated)
        out = run_tests(crate, caught)
    except subprocess.TimeoutExpired:
        print(f"FAIL {crate} {name}: not caught, its tests ran past {TIMEOUT_S} s")
        return False
    finally:
        source.write_text(original)
        copy.unlink()
    log = out.stdout + out.stderr
    failed = out.returncode != 0 and "test result: FAILED" in out.stdout
    # The tests' own output (stdout), not the compiler's, must show the expected failure.
    if failed and (expect is None or expect in out.stdout):
        print(f"caught {crate} {name} ({' '.join(caught)}): {why}")
        return True
    if failed:
        reason = f"its tests failed without printing {expect!r}"
    elif out.returncode == 0:
        reason = "its tests passed"
    else:
        reason = "it did not compile or run"
    print(f"FAIL {crate} {name}: not caught, {reason}")
    print("\n".join(log.splitlines()[-25:]))
    return False


def self_test(first: Path) -> int:
    """Two mutants that must not count as caught: a comment edit, which changes no behaviour,
    and `first` with its `expect:` text replaced by one its failure never prints."""
    why, file, caught, _, edits = parse(first)
    text = (first.parent.parent / file).read_text()
    line = next(l for l in text.split("\n") if l.lstrip().startswith("//"))
    print("self-test: a harmless edit (a comment) must not count as caught")
    if check(first.parent.parent, "harmless_comment", "a comment edited", file, caught, None,
             [(line, line + " (edited)")]):
        print("library_mutants: the self-test's harmless mutant was reported caught")
        return 1
    print(f"self-test: {first.stem} with an `expect:` its failure never prints must not count")
    if check(first.parent.parent, first.stem, why, file, caught, "no test prints this", edits):
        print("library_mutants: a failure without its expected text was reported caught")
        return 1
    print("library_mutants: a mutant its tests do not catch, or catch for another reason, fails "
          "the run, as it should")
    return 0


def main() -> int:
    BACKUPS.mkdir(parents=True, exist_ok=True)
    lock = open(BACKUPS / ".lock", "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        print("library_mutants: another run is applying mutants in this tree; wait for it")
        return 2
    restore_leftovers()
    args = sys.argv[1:]
    if args == ["--self-test"]:
        firsts = sorted(ROOT.glob("chapters/*/mutants/*.mutant"))
        return self_test(firsts[0]) if firsts else 1
    wanted = set(args)
    mutants = sorted(ROOT.glob("chapters/*/mutants/*.mutant"))
    if wanted:
        mutants = [m for m in mutants if m.stem in wanted]
        missing = wanted - {m.stem for m in mutants}
        if missing:
            print(f"library_mutants: no such mutant: {', '.join(sorted(missing))}")
            return 2
    if not mutants:
        print("library_mutants: no mutant found under chapters/*/mutants")
        return 1
    failed = 0
    for path in mutants:
        try:
            why, file, caught, expect, edits = parse(path)
        except (ValueError, OSError) as e:
            print(f"FAIL {path}: {e}")
            failed += 1
            continue
        if not check(path.parent.parent, path.stem, why, file, caught, expect, edits):
            failed += 1
    print(f"library_mutants: {len(mutants) - failed} of {len(mutants)} caught")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
