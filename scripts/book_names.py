#!/usr/bin/env python3
"""Checks that every snake_case name the book quotes in backticks still exists in the project,
and every lowerCamelCase one in JDK 25's sources.

    python3 scripts/book_names.py              exit 1, naming each page line whose name is gone
    python3 scripts/book_names.py --dir ROOT   check ROOT (a git checkout) instead of this one
    python3 scripts/book_names.py --page FILE  check FILE too (a draft page git does not track)

The pages cite tests (`two_pools_waiting_on_each_other_finish`), mutants (`no_base_recheck`),
functions and fields by name, and the code renames them. A name counts as existing when it is
a word of a tracked source file (Rust, Python, shell, TOML, mutant files, the code cells of
notebooks; not this script) or the stem of a tracked file's name. Names with no underscore are
too short to tell from prose and are not checked; names from other projects are listed in
ELSEWHERE, each with its origin.

The JDK's names are camelCase (`tryRemoveAndExec`, `getAndSetReference`), and a misspelt or
invented one reads as well as a real one. So a backticked lowerCamelCase word counts as existing
when it is a word of `java.util.concurrent`'s sources in the `lib/src.zip` of the JDK 25 that
`probes/jdk/run.sh --home` finds, or is listed in NOT_JDK. Without a JDK 25, or a JDK without
its sources, that half is skipped with a message, never failed.

Measured figures and lab tables are not pages: they are written by the probes.
"""

import argparse
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

# Names the book quotes from projects other than this one, and where they come from.
ELSEWHERE = {
    "steal_batch": "crossbeam-deque's Stealer",
    "steal_batch_and_pop": "crossbeam-deque's Stealer",
    "steal_into": "tokio's queue Steal",
    "native_write_msr": "the Linux kernel (a perf profile's symbol)",
    "smp_call_function_many_cond": "the Linux kernel (a perf profile's symbol)",
    "irqentry_exit_to_user_mode": "the Linux kernel (a perf profile's symbol)",
    "callgrind_annotate": "valgrind (its report tool for callgrind's output)",
}

# camelCase words the book quotes that are not the JDK's, and what they are.
NOT_JDK = {
    "chNN": "this book's stand-in for a chapter's id (`ch01` to `ch07`)",
    "idBits": "a field of the article's phase probe's output, quoted",
}

# A backticked snake_case name with at least one underscore, optionally called: `pop_own()`.
NAME = re.compile(r"`([a-z][a-z0-9]*(?:_[a-z0-9]+)+)(?:\(\))?`")
# A backticked span, and a lowerCamelCase word in it (`WorkQueue.tryUnpush` gives `tryUnpush`).
SPAN = re.compile(r"`([^`]+)`")
CAMEL = re.compile(r"(?<![A-Za-z0-9_])([a-z][a-z0-9]*[A-Z][A-Za-z0-9]*)")
SOURCES = (".rs", ".py", ".sh", ".toml", ".ipynb", ".mutant", ".java", ".env", ".mjs")


def tracked(root):
    out = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True)
    return [root / f for f in out.stdout.split()]


def is_page(path, root):
    rel = path.relative_to(root).as_posix()
    return (rel.endswith(".md") and "/figures/" not in rel
            and not Path(rel).name.startswith("lab-table"))


def missing_names(root, files, extra=()):
    """(page:line, name) for every quoted name found nowhere in the sources."""
    words, stems = set(), {f.stem for f in files}
    for f in files:
        if f.name == Path(__file__).name:
            continue  # its own docstring quotes names as examples
        if f.suffix == ".ipynb":
            # Only the code cells: a notebook's prose and outputs may quote a name that is gone.
            cells = json.loads(f.read_text())["cells"]
            text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
        elif f.suffix in SOURCES or f.name == "run":
            text = f.read_text(errors="replace")
        else:
            continue
        words.update(re.findall(r"[A-Za-z0-9_]+", text))
    return [(where, name) for where, line in page_lines(root, files, extra)
            for name in NAME.findall(line)
            if name not in words and name not in stems and name not in ELSEWHERE]


def page_lines(root, files, extra):
    """Every line of the book's pages (tracked, or given), with its `page:line` to show."""
    found = [f for f in files if is_page(f, root)] + [Path(e).resolve() for e in extra]
    for page in found:
        shown = page.relative_to(root) if page.is_relative_to(root) else page
        for n, line in enumerate(page.read_text().splitlines(), 1):
            yield f"{shown}:{n}", line


def jdk_words(root):
    """The words of JDK 25's `java.util.concurrent` sources, or a reason there are none."""
    run = root / "probes" / "jdk" / "run.sh"
    try:
        home = subprocess.run([str(run), "--home"], capture_output=True, text=True).stdout.strip()
    except OSError as e:
        return None, f"{run} did not run: {e}"
    if not home:
        return None, "no JDK 25 found (JAVA_HOME, /usr/lib/jvm)"
    src = Path(home) / "lib" / "src.zip"
    if not src.is_file():
        return None, f"the JDK 25 at {home} has no lib/src.zip"
    words = set()
    with zipfile.ZipFile(src) as z:
        for name in z.namelist():
            if name.startswith("java.base/java/util/concurrent/") and name.endswith(".java"):
                words.update(re.findall(r"[A-Za-z0-9_]+", z.read(name).decode(errors="replace")))
    return words, str(src)


def missing_jdk_names(root, files, extra, words):
    """(page:line, name) for every quoted lowerCamelCase name that JDK 25 does not have."""
    return [(where, name) for where, line in page_lines(root, files, extra)
            for span in SPAN.findall(line) for name in CAMEL.findall(span)
            if name not in words and name not in NOT_JDK]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dir", type=Path, default=Path(__file__).resolve().parent.parent,
                   help="the checkout to check (default: this one)")
    p.add_argument("--page", action="append", default=[], help="a page to check beside the book's")
    args = p.parse_args()
    root = args.dir.resolve()
    files = tracked(root)
    gone = missing_names(root, files, args.page)
    for where, name in gone:
        print(f"{where}: `{name}` is named by the book but found in no source file",
              file=sys.stderr)
    words, source = jdk_words(root)
    jdk_gone = [] if words is None else missing_jdk_names(root, files, args.page, words)
    for where, name in jdk_gone:
        print(f"{where}: `{name}` is quoted as the JDK's but JDK 25 has no such name "
              f"({source})", file=sys.stderr)
    if gone:
        print(f"book_names.py: {len(gone)} name(s) the book quotes no longer exist: rename them "
              "on the page, or add a name from another project to ELSEWHERE", file=sys.stderr)
    if jdk_gone:
        print(f"book_names.py: {len(jdk_gone)} camelCase name(s) JDK 25 does not have: correct "
              "them on the page, or add a name that is not the JDK's to NOT_JDK", file=sys.stderr)
    if gone or jdk_gone:
        return 1
    print("book_names.py: every snake_case name the pages quote exists in the sources")
    if words is None:
        print(f"book_names.py: the JDK's camelCase names were not checked: {source}")
    else:
        print(f"book_names.py: every camelCase name they quote is a word of JDK 25's "
              f"java.util.concurrent ({source})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
