#!/usr/bin/env python3
"""Checks that every source line a committed figure quotes is still that line of the source.

    python3 scripts/figure_lines.py              exit 1, naming each figure line gone stale
    python3 scripts/figure_lines.py --dir ROOT   check ROOT (a copy with chapters/) instead

A loom figure ends its failing execution with the lines it names, as `  sleep.rs:94: code`,
and its timeline points at them (`sleep.rs:94 add 1`). When a comment above grows by a line,
the code is the same and the figure's numbers are one off: nothing else notices. A quoted name
is read as the nearest file of that name in a crate's src/ (else its tests/): in the figure's
own chapter, else in the chapters before it, nearest first (a chapter's crate builds on those),
else in the crates beside them (chapters/seam, chapters/reclaim); the line counts as current
when that file has that text at that number (whitespace at the ends aside). Lines of
`exercise.rs` are the mutant's or the stub's, written by the grader, not a file of the tree:
they are left out. A run that finds no quoted line at all fails too: the figures' format would
have changed under this check.
"""

import argparse
import re
import sys
from pathlib import Path

# `  queue.rs:108: q.top.store(...)`: a name ending in .rs, a line number, the line's text.
QUOTED = re.compile(r"^\s+([\w/.-]+\.rs):(\d+): (.*)$")
SKIP = {"exercise.rs"}


def search_order(chapters, own):
    """Where a figure of crate `own` looks for a quoted name: itself, the chapters before it
    (nearest first), then the crates that are not chapters."""
    crates = sorted((p.name for p in chapters.iterdir() if (p / "Cargo.toml").exists()),
                    reverse=True)
    return [own] + [c for c in crates if c.startswith("ch") and c < own] + \
        [c for c in crates if not c.startswith("ch") and c != own]


def nearest(files, order, name):
    """The file a quoted `name` means: the first crate of `order` with one file of that name
    (its src/ before its tests/, as tests/poll.rs sits beside src/poll.rs), else None; two
    files of that name there are ambiguous, also None."""
    for crate in order:
        for part in ("src", "tests"):
            found = [p for p in files.get((crate, part), []) if p.as_posix().endswith("/" + name)]
            if found:
                return found[0] if len(found) == 1 else None
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path(__file__).resolve().parent.parent,
                        help="repository root holding chapters/ (default: this checkout)")
    root = parser.parse_args().dir.resolve()
    chapters = root / "chapters"
    sources = {}  # path -> its lines, read once
    files = {}  # (crate, "src" or "tests") -> the .rs files there
    for p in [*chapters.glob("*/src/**/*.rs"), *chapters.glob("*/tests/*.rs")]:
        sources[p] = p.read_text().splitlines()
        files.setdefault(p.relative_to(chapters).parts[:2], []).append(p)
    orders = {}  # a figure folder's crate -> its search order, worked out once

    stale, quoted = [], 0
    for figure in sorted(chapters.glob("*/figures/*.txt")):
        for n, line in enumerate(figure.read_text().splitlines(), 1):
            m = QUOTED.match(line)
            if not m or Path(m[1]).name in SKIP:
                continue
            quoted += 1
            name, at, text = m[1], int(m[2]), m[3].strip()
            own = figure.parent.parent.name  # chNN-*, or contention and the like
            if own not in orders:
                orders[own] = search_order(chapters, own)
            order = orders[own]
            p = nearest(files, order, name)
            if p is None or not (at <= len(sources[p]) and sources[p][at - 1].strip() == text):
                where = p.relative_to(root).as_posix() if p else "no one file of that name"
                stale.append(f"{figure.relative_to(root)}:{n}: {name}:{at} is not `{text[:60]}` "
                             f"({where})")
    if quoted == 0:
        print("figure_lines.py: no figure quotes a source line: has the figures' format changed?")
        return 1
    if stale:
        print("\n".join(stale))
        print("these figures quote lines their sources no longer have there: rerun their section "
              "of scripts/figures.sh (loom figures: `scripts/figures.sh loom`)")
        return 1
    print(f"figure_lines.py: the {quoted} source lines the figures quote are current")
    return 0


if __name__ == "__main__":
    sys.exit(main())
