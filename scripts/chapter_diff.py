#!/usr/bin/env python3
"""Writes each chapter's figures/changes.diff: what changed in its crate since the previous chapter.

    python3 scripts/chapter_diff.py              (re)write chapters/chNN-*/figures/changes.diff
    python3 scripts/chapter_diff.py --check      exit 1, naming each file that is stale or missing
    python3 scripts/chapter_diff.py --dir ROOT   read and write ROOT/chapters instead of this checkout's

The crates are not copies of each other: a later chapter depends on the earlier crates and adds
modules of its own. So each figure holds
- a summary: the Cargo.toml dependencies added, removed or changed, and every src/*.rs file
  changed (lines before and after, lines added and removed), new, or not carried over;
- a unified diff of each pair of files that correspond: the same name in both crates, and the
  pieces listed in MOVED below (a function or struct that moved to another file or crate);
- for a new file, only its public items; for the exercise stub (a new exercise each chapter),
  only its functions.
Diffs leave comments out, as the book's other diffs do: what changed is the code.
A piece that the chapter's page shows in its own prose is also written alone, as the figure
its MOVED entry names (chapter 4's poll.diff): one diff, made once, in both places.
The output has no date, so that --check can compare it byte for byte.
"""

import argparse
import difflib
import re
import sys
import tomllib
from pathlib import Path

COMMAND = "python3 scripts/chapter_diff.py"
CONTEXT = 3  # lines of context around each change
HUGE = 80  # a file's diff longer than this shows its stat, hunk headers and public items only

# Pieces that correspond although their file (or crate) changed, keyed by the new chapter.
# Each entry: (old, new, why). `old` names a file under chapters/ and an item in it (a fn, struct
# or trait): it may sit in a crate older than the previous chapter's, when the previous chapter
# used that code unchanged through its dependency. `new` names a file of the new chapter's
# src/ and an item in it. A file of the new chapter that has entries here is shown by these
# pieces and by the diff of its public items, not whole (its summary line counts the whole file).
# An entry may name a fourth thing, a figure: that piece is also written alone to the chapter's
# figures/ folder, for a page that shows it beside its own explanation.
MOVED = {
    2: [
        ("ch01-ring/src/raw.rs::RawRing", "queue.rs::WorkQueue",
         "the ring's fields become atomics, shared by the owner and the thieves"),
        ("ch01-ring/src/ops.rs::push", "queue.rs::push",
         "the owner's push, now with thieves at the other end (and no growth)"),
        ("ch01-ring/src/ops.rs::pop", "queue.rs::pop",
         "the owner's pop: the slot is swapped to null before top moves"),
    ],
    3: [
        ("ch02-poll/src/queue.rs::pop", "take.rs::next_local_task",
         "chapter 2's LIFO pop gains the FIFO mode and the last-slot branch"),
    ],
    4: [
        ("ch02-poll/src/queue.rs::WorkQueue", "queue.rs::WorkQueue",
         "the array goes behind an atomic pointer (chapter 3 used chapter 2's queue)"),
        ("ch02-poll/src/queue.rs::push", "queue.rs::push",
         "push grows the array instead of saying Full"),
        ("ch02-poll/src/poll.rs::poll", "take.rs::poll",
         "the thief rereads the array every round (chapter 3 used chapter 2's poll)", "poll.diff"),
        ("ch03-last-slot/src/take.rs::next_local_task", "take.rs::next_local_task",
         "the owner's take, on the current array"),
    ],
    7: [
        ("ch06-nsteals/src/pool.rs::Shared", "pool/mod.rs::Shared",
         "what the workers share: sleepers, shutdown and a broken flag join the counters"),
        ("ch06-nsteals/src/pool.rs::run_worker", "pool/worker.rs::run_worker",
         "the worker parks instead of sleeping, scans again after a stall, and exits on shutdown"),
        ("ch04-grow/src/take.rs::poll", "scan.rs::try_poll",
         "the scan's poll: on a stalled queue it returns instead of spinning"),
        ("ch06-nsteals/src/pool.rs::steal", "scan.rs::steal",
         "a steal says whether the queue was empty or stalled, and sends the box home"),
        ("ch06-nsteals/src/pool.rs::scan", "scan.rs::scan",
         "the scan passes a stalled queue by, and says so"),
    ],
}

EXERCISE = "exercise.rs"  # the reader's stub: a new exercise each chapter, so never diffed
ITEM_KINDS = r"(?:fn|struct|trait|enum|type|const|static|mod|macro_rules!)"
PUBLIC = re.compile(r"^\s*pub(?:\s+unsafe)?\s+(?:fn|struct|trait|enum|type|const|static|mod|use)\b")
# A line that opens an item: what a hunk header names, as `git diff` names the enclosing function.
CONTEXT_LINE = re.compile(
    r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:unsafe\s+)?(?:fn|struct|trait|impl|macro_rules!|mod)\b"
)
# A path into an earlier chapter's crate: `ch02_poll::reclaim::pin`, `ch02_poll::{Full, sync}`.
EARLIER_CRATE = re.compile(r"\bch\d\d_\w+(?:::(?:\w+|\{[^}]*\}|\*))+")


def strip_trailing_comment(line):
    """`line` without a trailing `// ...` comment; a `//` inside a string literal stays."""
    in_string = False
    for i, c in enumerate(line):
        if c == '"' and (i == 0 or line[i - 1] != "\\"):
            in_string = not in_string
        elif not in_string and line.startswith("//", i):
            return line[:i]
    return line


def code_lines(text):
    """A Rust file's lines without comments (whole-line and trailing), blank runs cut to one."""
    out = []
    for line in text.splitlines():
        if line.strip().startswith("//"):
            continue
        line = strip_trailing_comment(line).rstrip()
        if line or (out and out[-1]):
            out.append(line)
    while out and not out[-1]:
        out.pop()
    return out


def item_lines(lines, name, where):
    """The lines of the item `name` (fn, struct, ...) in `lines`: its first line to its closing brace."""
    head = re.compile(rf"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:unsafe\s+)?{ITEM_KINDS}\s+{re.escape(name)}\b")
    start = next((i for i, line in enumerate(lines) if head.match(line)), None)
    if start is None:
        sys.exit(f"chapter_diff.py: no item `{name}` in {where}: update MOVED in this script")
    depth, opened = 0, False
    for j in range(start, len(lines)):
        depth += lines[j].count("{") - lines[j].count("}")
        opened = opened or "{" in lines[j]
        if (opened and depth <= 0) or (not opened and lines[j].endswith(";")):
            return lines[start : j + 1]
    return lines[start:]


def signature(lines, i):
    """The declaration starting at lines[i], joined onto one line, without its body or `where`."""
    is_use = lines[i].lstrip().startswith("pub use")
    parts = []
    for line in lines[i:]:
        parts.append(line.strip())
        if ("{" in line and not is_use) or line.rstrip().endswith(";"):
            break
    sig = " ".join(parts).split(" where ")[0]
    sig = sig if is_use else re.sub(r"\s*\{.*$", "", sig)
    sig = re.sub(r"([({])\s+", r"\1", re.sub(r",?\s*([)}])", r"\1", sig))  # `( a, b, )` -> `(a, b)`
    return sig.rstrip(";").rstrip()


def public_items(lines):
    """The public items of a file, one signature a line; methods under their `impl` (or `mod`) line."""
    out, impl, seen = [], None, set()
    for i, line in enumerate(lines):
        if line.startswith("impl") or re.match(r"(pub )?mod \w+ \{", line):
            impl = signature(lines, i)
        elif line and not line.startswith(" "):
            impl = None  # any other top-level line ends the impl block
        if not PUBLIC.match(line):
            continue
        method = line.startswith(" ") and impl is not None
        if method and impl not in out:
            out.append(impl)
        key = (impl if method else None, signature(lines, i))
        if key not in seen:  # a `pub use` under two cfgs may repeat itself
            seen.add(key)
            out.append(("    " if method else "") + key[1])
    return out


def dependencies(cargo_toml):
    """{dependency name: set of sections}, a section being '' or 'dev' and/or a target cfg."""
    data = tomllib.loads(cargo_toml.read_text())
    tables = [("", data)] + [(cfg, t) for cfg, t in data.get("target", {}).items()]
    deps = {}
    for cfg, table in tables:
        for kind, label in (("dependencies", ""), ("dev-dependencies", "dev"),
                            ("build-dependencies", "build")):
            for name in table.get(kind, {}):
                deps.setdefault(name, set()).add(", ".join(x for x in (label, cfg) if x))
    return deps


def sections(secs):
    """How a dependency's sections read in the summary: '(normal)', '(dev, cfg(loom))', ..."""
    return f"({'; '.join(sorted(s or 'normal' for s in secs))})"


def earlier_crate_uses(files):
    """What a crate uses from earlier chapters' crates, by crate: `use` lines and inline paths."""
    used = {}
    for lines in files.values():
        for line in lines:
            for path in EARLIER_CRATE.findall(line):
                crate, rest = path.split("::", 1)
                group = re.fullmatch(r"(.*?)\{(.*)\}", rest)
                names = [group[1] + n.strip() for n in group[2].split(",")] if group else [rest]
                used.setdefault(crate, set()).update(n for n in names if n and not n.endswith("::"))
    return {crate: sorted(names) for crate, names in sorted(used.items())}


def wrap(prefix, words, width=96):
    """`prefix` then the words, comma-separated, wrapped into '#' comment lines."""
    lines, line = [], prefix
    for k, word in enumerate(words):
        piece = word + ("," if k < len(words) - 1 else "")
        if len(line) + 1 + len(piece) > width and line.strip("# "):
            lines.append(line)
            line = "#" + " " * (len(prefix) - 1)
        line += ("" if line.endswith(" ") else " ") + piece
    return lines + [line]


def pair_diff(old, new, old_label, new_label):
    """Unified diff lines of two line lists, each hunk header naming the item it starts in."""
    out = []
    for line in difflib.unified_diff(old, new, old_label, new_label, n=CONTEXT, lineterm=""):
        m = re.match(r"@@ -(\d+)", line)
        if m:
            before = old[: max(int(m[1]) - 1, 0)]
            ctx = next((b.strip() for b in reversed(before) if CONTEXT_LINE.match(b)), "")
            head = re.split(r"[({]| where ", ctx)[0].strip()  # `pub fn poll<T>`, `impl<T> Owner<T>`
            line += f" {head}" if head else ""
        out.append(line)
    return out


def stat(diff):
    """(lines added, lines removed) in a unified diff."""
    plus = sum(1 for d in diff if d.startswith("+") and not d.startswith("+++"))
    minus = sum(1 for d in diff if d.startswith("-") and not d.startswith("---"))
    return plus, minus


def shown(diff, old, new, split):
    """A file's diff, whole if it is short enough to read; otherwise (or when MOVED shows the
    file piece by piece: `split`) its stat, its hunk headers if long, and a diff of its public items."""
    if len(diff) <= HUGE and not split:
        return diff
    plus, minus = stat(diff)
    if split:
        out = [f"# shown piece by piece below (+{plus} -{minus} in all); the diff of its public items:"]
    else:
        out = [f"# {len(diff)} lines of diff (+{plus} -{minus}): too long to show whole; its hunk headers"]
        out += diff[:2] + [d for d in diff if d.startswith("@@")]
        out += ["# and the diff of its public items:"]
    labels = (diff[0][4:] + " (public items)", diff[1][4:] + " (public items)")  # from the ---/+++ lines
    items = pair_diff(public_items(old), public_items(new), *labels)
    return out + (items or ["# (the same public items)"])


def chapter_dirs(root):
    """{chapter number: its folder}, for every chapters/chNN-* folder with a crate."""
    found = {}
    for d in sorted((root / "chapters").glob("ch[0-9][0-9]-*")):
        if (d / "Cargo.toml").is_file():
            found[int(d.name[2:4])] = d
    return found


def render(root, old_dir, new_dir, number):
    """The text of chapter `number`'s changes.diff, comparing new_dir's crate with old_dir's, and
    {figure name: text} for the pieces that MOVED also writes alone."""
    def rel(path):  # how the figure names a file: from chapters/, as `ch02-poll/src/poll.rs`
        return path.relative_to(root / "chapters").as_posix()

    def raw_len(crate, name):  # lines in the file, comments included
        return len((crate / "src" / name).read_text().splitlines())

    # Files by their path under src/ (`poll.rs`, `reclaim/pins.rs`): modules in folders count too.
    old, new = ({p.relative_to(d / "src").as_posix(): code_lines(p.read_text())
                 for p in sorted((d / "src").rglob("*.rs"))}
                for d in (old_dir, new_dir))
    moved = MOVED.get(number, [])
    by_item = {n.split("::")[0] for _, n, *_ in moved}
    alone = {}

    out = [
        f"# What changed in the crate from chapter {number - 1} ({old_dir.name}) "
        f"to chapter {number} ({new_dir.name}).",
        f"# Generated by scripts/chapter_diff.py, do not edit; regenerate with `{COMMAND}`.",
        "# Diffs leave comments out; a new file shows only its public items. Later crates depend on",
        "# earlier ones, so a file \"not carried over\" is still in use through the dependency.",
        "#",
        "# Cargo.toml dependencies:",
    ]
    old_deps, new_deps = dependencies(old_dir / "Cargo.toml"), dependencies(new_dir / "Cargo.toml")
    for name in sorted(old_deps.keys() | new_deps.keys()):
        a, b = old_deps.get(name), new_deps.get(name)
        if a == b:
            continue
        if a is None or b is None:
            mark, secs = ("+", b) if a is None else ("-", a)
            note = "" if secs == {""} else f"  {sections(secs)}"
        else:
            mark, note = "~", f"  {sections(a)} -> {sections(b)}"
        out.append(f"#   {mark} {name}{note}")
    same = sum(1 for n in old_deps if old_deps[n] == new_deps.get(n))
    out.append(f"#   ({same} unchanged)")

    out += ["#", "# src/ (lines in the file; +added -removed lines of code):"]
    width = max(len(n) for n in old.keys() | new.keys())
    for name in sorted(new.keys() | old.keys()):
        if name == EXERCISE:
            out.append(f"#   {name:<{width}}  the reader's exercise stub: a new one, its functions below")
        elif name in new and name in old:
            plus, minus = stat(pair_diff(old[name], new[name], "", ""))
            status = f"+{plus} -{minus}" if plus or minus else "same code"
            lines = f"{raw_len(old_dir, name):>4} -> {raw_len(new_dir, name):<4}"
            out.append(f"#   {name:<{width}}  changed   {lines} {status}")
        elif name in new:
            out.append(f"#   {name:<{width}}  new            {raw_len(new_dir, name):<4} public items below")
        else:
            out.append(f"#   {name:<{width}}  not carried over ({raw_len(old_dir, name)} lines)")
    uses = earlier_crate_uses(new)
    if uses:
        out.append("#")
        for crate, names in uses.items():
            out += wrap(f"# builds on {crate}:", names)

    for name in sorted((new.keys() & old.keys()) - {EXERCISE}):
        diff = pair_diff(old[name], new[name], rel(old_dir / "src" / name), rel(new_dir / "src" / name))
        if diff:
            out += ["", f"# {name}: in both crates"]
            out += shown(diff, old[name], new[name], name in by_item)
    # The functions the reader writes in this chapter: their bodies are the exercise's answer,
    # which the page shows only in a fold marked as such, never in this diff.
    answers = set(re.findall(r"\bfn\s+([a-z_][a-z0-9_]*)", (new_dir / "src" / EXERCISE).read_text())) \
        if (new_dir / "src" / EXERCISE).exists() else set()
    for old_spec, new_spec, why, *figure in moved:
        old_file, old_item = old_spec.split("::")
        new_file, new_item = new_spec.split("::")
        if new_item in answers:
            if figure:
                sys.exit(f"chapter_diff.py: MOVED names a figure for {new_spec}, this chapter's "
                         "exercise: the answer is never shown as a diff")
            out += ["", f"# {new_file} {new_item}, from {old_file.replace('/src/', ' ')} {old_item}: {why}",
                    f"# (left out: {new_item} is this chapter's exercise; the page shows the reference",
                    "# in a fold marked as the answer)"]
            continue
        a = item_lines(code_lines((root / "chapters" / old_file).read_text()), old_item, old_file)
        b = item_lines(new[new_file], new_item, rel(new_dir / "src" / new_file))
        labels = (f"{old_file} ({old_item})", f"{rel(new_dir / 'src' / new_file)} ({new_item})")
        old_where = old_file.replace("/src/", " ")
        piece = pair_diff(a, b, *labels)
        out += ["", f"# {new_file} {new_item}, from {old_where} {old_item}: {why}"] + piece
        if figure:
            alone[figure[0]] = "\n".join(piece) + "\n"
    for name in sorted(new.keys() - old.keys() - {EXERCISE}) + [EXERCISE] * (EXERCISE in new):
        label = "the exercise stub, its functions" if name == EXERCISE else "new file, public items only"
        out += ["", f"# {name}: {label}", f"+++ {rel(new_dir / 'src' / name)}"]
        out += ["+" + sig for sig in public_items(new[name])]
    return "\n".join(out) + "\n", alone


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if a figure is stale or missing")
    parser.add_argument("--dir", type=Path, default=Path(__file__).resolve().parent.parent,
                        help="repository root holding chapters/ (default: this checkout)")
    args = parser.parse_args()
    root = args.dir.resolve()
    chapters = chapter_dirs(root)
    if not chapters:
        sys.exit(f"chapter_diff.py: no chapters/chNN-*/Cargo.toml under {root}")

    stale, checked = [], 0
    for number in sorted(chapters):
        if number - 1 not in chapters:
            continue  # the first chapter has nothing to compare with
        changes, alone = render(root, chapters[number - 1], chapters[number], number)
        for file, text in [("changes.diff", changes)] + sorted(alone.items()):
            figure = chapters[number] / "figures" / file
            name = figure.relative_to(root).as_posix()
            current = figure.read_text() if figure.is_file() else None
            if args.check:
                if current != text:
                    stale.append(f"{'missing' if current is None else 'stale'}: {name}")
                checked += 1
                continue
            if current != text:
                figure.parent.mkdir(exist_ok=True)
                figure.write_text(text)
            print(f"{'wrote    ' if current != text else 'unchanged'} {name} ({text.count(chr(10))} lines)")

    if stale:
        fix = COMMAND + ("" if args.dir == parser.get_default("dir") else f" --dir {args.dir}")
        print("\n".join(stale) + f"\nthese figures do not match the crates: run `{fix}`")
        return 1
    if args.check:
        print(f"chapter diffs match the crates ({checked} figures)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
