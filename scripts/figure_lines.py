#!/usr/bin/env python3
"""Checks that every source line a committed figure quotes is still that line of the source.

    python3 scripts/figure_lines.py              exit 1, naming each figure line gone stale
    python3 scripts/figure_lines.py --dir ROOT   check ROOT (a copy with chapters/) instead

A loom figure ends its failing execution with the lines it names, as `  sleep.rs:94: code`,
and its timeline points at them (`sleep.rs:94 add 1`). When a comment above grows by a line,
the code is the same and the figure's numbers are one off: nothing else notices. A quoted name
is read as the nearest file of that name in a crate's src/ (else its tests/): in the figure's
own chapter, else in the chapters before it, nearest first (a chapter's crate builds on those),
else in the crates beside them (chapters/seam, chapters/reclaim); the line counts as current when that file has that text at
that number (whitespace at the ends aside). Lines of `exercise.rs` are the mutant's or the
stub's, written by the grader, not a file of the tree: they are left out. A run that finds no
quoted line at all fails too: the figures' format would have changed under this check.
"""

import argparse
import re
import sys
from pathlib import Path

# `  queue.rs:108: q.top.store(...)`: a name ending in .rs, a line number, the line's text.
QUOTED = re.compile(r"^\s+([\w/.-]+\.rs):(\d+): (.*)$")
SKIP = {"exercise.rs"}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path(__file__).resolve().parent.parent,
                        help="repository root holding chapters/ (default: this checkout)")
    root = parser.parse_args().dir.resolve()
    chapters = root / "chapters"
    sources = {}  # path -> its lines, read once
    for p in [*chapters.glob("*/src/**/*.rs"), *chapters.glob("*/tests/*.rs")]:
        sources[p] = p.read_text().splitlines()
    def nearest(figure, name):
        """The file a figure's quoted `name` means (see the docstring), or None."""
        own = figure.parent.parent.name  # chNN-*, or contention and the like
        crates = sorted({p.relative_to(chapters).parts[0] for p in sources}, reverse=True)
        order = [own] + [c for c in crates if c.startswith("ch") and c < own] + \
                [c for c in crates if not c.startswith("ch")]
        for crate in order:
            for part in ("src", "tests"):  # a crate's code first (tests/poll.rs beside src/poll.rs)
                found = [p for p in sources if p.relative_to(chapters).parts[:2] == (crate, part)
                         and p.as_posix().endswith("/" + name)]
                if found:
                    return found[0] if len(found) == 1 else None  # two there: ambiguous
        return None

    stale, quoted = [], 0
    for figure in sorted(chapters.glob("*/figures/*.txt")):
        for n, line in enumerate(figure.read_text().splitlines(), 1):
            m = QUOTED.match(line)
            if not m or Path(m[1]).name in SKIP:
                continue
            quoted += 1
            name, at, text = m[1], int(m[2]), m[3].strip()
            p = nearest(figure, name)
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
