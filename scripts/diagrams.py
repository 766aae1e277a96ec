#!/usr/bin/env python3
"""Draws the book's three diagrams as SVG files, from the rules of the code they picture.

    python3 scripts/diagrams.py                 (re)writes the SVGs
    python3 scripts/diagrams.py --check         exits 1 naming every SVG that is stale or missing
    python3 scripts/diagrams.py --dir DIR ...   the same under DIR instead of the repository root

The diagrams:

    chapters/ch01-ring/figures/ring.svg            the ring: logical indices, base, top, slots
    chapters/ch05-phase/figures/phase-bits.svg     the phase word's bits and one lock cycle
    chapters/ch07-pool/figures/queues-array.svg    the pool's queues array, odd and even slots

Standard library only; the SVG is written by hand. Every number drawn is computed here with
the rule the code uses, asserted, and the rule itself is checked against the Rust source
(`source_says`), so a diagram that disagrees with the code fails to generate. The output is
the same bytes on every run: no dates, integer coordinates, a fixed order.
"""

import argparse
import html
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent

# ---------------------------------------------------------------------------------------------
# Drawing helpers: each returns one line of SVG text.
# ---------------------------------------------------------------------------------------------

SANS = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif"
MONO = "ui-monospace, SFMono-Regular, Menlo, Consolas, 'DejaVu Sans Mono', monospace"

# Dark strokes on an explicit white background: the same picture on mdBook's light and dark
# themes. Each colour that draws arrows gets an arrow head of its own (see `document`).
INK = "#1f2328"
GREY = "#8c959f"
BLUE = "#0550ae"
ORANGE = "#bc4c00"
GREEN = "#1a7f37"
PURPLE = "#6639ba"
ARROW_COLOURS = {"ink": INK, "grey": GREY, "blue": BLUE, "orange": ORANGE, "green": GREEN}

# Light fills for boxes.
TASK = "#ddf4ff"  # a slot or index that holds a task
TAKEN = "#eaeef2"  # an index already taken
WORKER = "#dafbe1"  # a worker's queue
SUBMIT = "#fff1e5"  # a submission queue
VERSION = "#fbefff"  # the phase word's fields: version, IDLE, id
IDLE_FILL = "#fff1e5"
ID_FILL = "#ddf4ff"


def box(x, y, w, h, fill="#ffffff", stroke=INK, dash=False, width=1.5):
    """A rectangle with slightly rounded corners; `dash` draws its outline dashed."""
    dashes = ' stroke-dasharray="5 4"' if dash else ""
    return (f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="3" fill="{fill}" '
            f'stroke="{stroke}" stroke-width="{width}"{dashes}/>')


def text(x, y, s, size=14, anchor="middle", mono=False, bold=False, colour=INK, rotate=False):
    """One line of text; (x, y) is its baseline at the `anchor` (start, middle or end)."""
    attrs = f'x="{x}" y="{y}" font-size="{size}" text-anchor="{anchor}" fill="{colour}"'
    attrs += ' class="mono"' if mono else ' class="sans"'
    if bold:
        attrs += ' font-weight="bold"'
    if rotate:
        attrs += f' transform="rotate(-90 {x} {y})"'
    return f"<text {attrs}>{html.escape(s, quote=False)}</text>"


def arrow(x1, y1, x2, y2, colour="ink", dash=False):
    """A straight arrow from (x1, y1) to (x2, y2), its head drawn by the marker of `colour`."""
    dashes = ' stroke-dasharray="5 4"' if dash else ""
    return (f'<path d="M {x1} {y1} L {x2} {y2}" fill="none" stroke="{ARROW_COLOURS[colour]}" '
            f'stroke-width="1.5"{dashes} marker-end="url(#head-{colour})"/>')


def document(width, height, title, desc, parts):
    """The whole SVG file: viewBox, <title> and <desc> for screen readers, fonts, arrow heads,
    a white background, the drawing, and the footer naming this script."""
    heads = "\n".join(
        f'    <marker id="head-{name}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
        f'markerHeight="7" orient="auto"><path d="M 0 0 L 10 5 L 0 10 z" fill="{colour}"/></marker>'
        for name, colour in ARROW_COLOURS.items())
    head = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-labelledby="title desc">',
        f'  <title id="title">{html.escape(title, quote=False)}</title>',
        f'  <desc id="desc">{html.escape(desc, quote=False)}</desc>',
        "  <style>",
        f"    .sans {{ font-family: {SANS}; }}",
        f"    .mono {{ font-family: {MONO}; }}",
        "  </style>",
        "  <defs>",
        heads,
        "  </defs>",
        f'  <rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
    ]
    footer = text(width - 10, height - 8, "drawn by scripts/diagrams.py", size=11,
                  anchor="end", colour=GREY)
    body = ["  " + p for p in parts + [footer]]
    return "\n".join(head + body + ["</svg>"]) + "\n"


def source_says(path, *snippets):
    """Fails unless the file at `path` (Rust source, or a probe's recorded output) still
    contains every snippet: the diagram pictures it, so a change there must be looked at here."""
    source = (ROOT / path).read_text(encoding="utf-8")
    for snippet in snippets:
        assert snippet in source, f"{path} no longer says `{snippet}`: update scripts/diagrams.py"


# ---------------------------------------------------------------------------------------------
# Chapter 1: the ring.
# ---------------------------------------------------------------------------------------------

def ring():
    """The example of chapter 1's "The picture": capacity 4, index 5 taken, base = 6, top = 9."""
    source_says("chapters/ch01-ring/src/ops.rs", "(capacity - 1) & (index as u32 as usize)")
    capacity, taken, base, top = 4, 5, 6, 9
    mask = capacity - 1
    slots = [None] * capacity  # what the array holds: the index of the task in each slot
    for i in range(base, top):
        slots[i & mask] = i
    assert top - base == 3 and taken == base - 1
    assert slots == [8, None, 6, 7]  # the page: [ 8 ] [ - ] [ 6 ] [ 7 ]
    assert (8 & 3, 9 & 3, 6 & 3, 7 & 3, 5 & 3) == (0, 1, 2, 3, 1)

    parts = [text(20, 30, f"A ring of capacity {capacity}: base = {base}, top = {top}",
                  size=17, anchor="start", bold=True)]

    # The logical indices, one box each, with base and top marked above them.
    ix, iy, iw, ih, pitch = 190, 100, 64, 40, 84
    centre = {i: ix + (i - taken) * pitch + iw // 2 for i in range(taken, top + 1)}
    parts.append(text(20, iy + 26, "logical index", size=15, anchor="start", bold=True))
    for i in range(taken, top + 1):
        x = centre[i] - iw // 2
        if i < base:
            parts.append(box(x, iy, iw, ih, fill=TAKEN, stroke=GREY, dash=True))
            parts.append(text(centre[i], iy + 26, str(i), size=17, mono=True, colour=GREY))
            parts.append(text(centre[i], iy - 10, "taken", size=13, colour=GREY))
        elif i < top:
            parts.append(box(x, iy, iw, ih, fill=TASK, stroke=BLUE))
            parts.append(text(centre[i], iy + 26, str(i), size=17, mono=True, bold=True))
        else:
            parts.append(box(x, iy, iw, ih, stroke=ORANGE, dash=True))
            parts.append(text(centre[i], iy + 26, str(i), size=17, mono=True, colour=ORANGE))
    parts.append(text(centre[base], iy - 30, f"base = {base}", size=14, bold=True, colour=BLUE))
    parts.append(arrow(centre[base], iy - 25, centre[base], iy - 3, "blue"))
    parts.append(text(centre[top], iy - 30, f"top = {top}", size=14, bold=True, colour=ORANGE))
    parts.append(arrow(centre[top], iy - 25, centre[top], iy - 3, "orange"))
    parts.append(text(centre[top], iy + ih + 17, "next push", size=12, colour=ORANGE))
    parts.append(text(centre[taken], iy + ih + 17, f"was in slot {taken & mask}", size=12,
                      colour=GREY))

    # The array, and an arrow from every index to its slot.
    sx, sy, sw, sh, spitch = 214, 250, 80, 46, 96
    scentre = [sx + k * spitch + sw // 2 for k in range(capacity)]
    parts.append(text(20, sy + 20, "array", size=15, anchor="start", bold=True))
    parts.append(text(20, sy + 38, f"capacity {capacity}", size=13, anchor="start"))
    for k, held in enumerate(slots):
        x = scentre[k] - sw // 2
        if held is None:
            parts.append(box(x, sy, sw, sh, stroke=INK))
            parts.append(text(scentre[k], sy + 29, "None", size=15, mono=True, colour=GREY))
        else:
            parts.append(box(x, sy, sw, sh, fill=TASK, stroke=INK))
            parts.append(text(scentre[k], sy + 29, f"task {held}", size=15, mono=True))
        parts.append(text(scentre[k], sy + sh + 20, f"slot {k}", size=14, bold=True))
        into = [i for i in range(taken, top + 1) if i & mask == k]
        for row, i in enumerate(into):  # the indices this slot holds, held or to come
            colour = GREY if i < base else ORANGE if i == top else INK
            parts.append(text(scentre[k], sy + sh + 38 + 17 * row, f"{i} & {mask} = {k}",
                              size=13, mono=True, colour=colour))
    for i in range(taken, top + 1):
        k = i & mask
        start_y = iy + ih + (24 if i in (taken, top) else 3)  # below the label, if there is one
        if i < base:
            parts.append(arrow(centre[i], start_y, scentre[k] - 14, sy - 3, "grey", dash=True))
        elif i < top:
            parts.append(arrow(centre[i], start_y, scentre[k], sy - 3, "blue"))
        else:
            parts.append(arrow(centre[i], start_y, scentre[k] + 14, sy - 3, "orange", dash=True))

    # What the picture says, in one line each.
    ny = sy + sh + 92
    parts.append(text(20, ny, f"tasks: the indices base .. top - 1 = {base}, {base + 1}, "
                      f"{top - 1}; their number is top - base = {top - base}", size=14,
                      anchor="start"))
    parts.append(text(20, ny + 22, f"index i lives in slot i & (capacity - 1) = i & {mask}; "
                      "base and top keep counting up", size=14, anchor="start"))

    desc = (f"A ring buffer of capacity {capacity}. Logical indices {taken} to {top}: index "
            f"{taken} was taken (greyed), base = {base} is the oldest task, {base + 1} and "
            f"{top - 1} follow, and top = {top} is where the next push goes. Each index i lives "
            f"in array slot i & {mask}: 8 in slot 0, 9 (the next push) in slot 1, which is "
            f"empty (None) because index 5 was taken from it, 6 in slot 2 and 7 in slot 3.")
    return document(720, 440, "Chapter 1's ring: logical indices base and top over a "
                    "4-slot array", desc, parts)


# ---------------------------------------------------------------------------------------------
# Chapter 5: the phase word.
# ---------------------------------------------------------------------------------------------

IDLE = 1 << 16
SMASK = 0xFFFF
EXTERNAL_ID_MASK = 0x3FFE


def decode(phase):
    """`phase::decode`: (version, idle, id) of a 32-bit phase word."""
    return phase >> 17, bool(phase & IDLE), phase & SMASK


def phase_bits():
    """The bit layout, and the article's submission queue through creation and one lock cycle."""
    source_says("chapters/ch05-phase/src/phase.rs",
                "pub const IDLE: i32 = 1 << 16;", "pub const SMASK: i32 = 0xffff;",
                "pub const EXTERNAL_ID_MASK: i32 = 0x3ffe;", "version: (phase as u32) >> 17")
    source_says("chapters/ch05-phase/src/lock.rs",
                "phase.compare_exchange(p, p.wrapping_add(IDLE)", "phase.fetch_add(IDLE, SeqCst)")
    source_says("chapters/ch05-phase/src/queues.rs", "Queue::new(id, self.capacities)")
    source_says("chapters/ch05-phase/figures/phase-probe.txt",
                "before=0x000139b8 locked=true during=0x000239b8 after=0x000339b8")

    # The article's submission queue: id 0x39b8 = 14776, index 8 of 16. Its submitter's probe
    # was ThreadLocalRandom's first, 0x9e3779b9 (its probe counter's step, the same on every
    # run); our probe (phase-probe) is 0x39b8 itself. Both mask to the same id.
    probe = 0x9E3779B9
    qid = probe & EXTERNAL_ID_MASK
    assert 0x39B8 & EXTERNAL_ID_MASK == qid
    assert (qid, qid & 15, IDLE, 15 + 1 + 16) == (0x39B8, 8, 0x10000, 32) and qid == 14776
    steps = [  # (phase, what made it, what it means)
        (qid, "Queue::new(id): born locked by its creator", "phase = id"),
        (qid + IDLE, "+ IDLE: unlock_phase, the creator's, after its push", "unlocked"),
        (qid + 2 * IDLE, "+ IDLE: try_lock_phase [tryLockPhase], a CAS; bit 16 clears and "
         "carries into the version", "locked"),
        (qid + 3 * IDLE, "+ IDLE: unlock_phase [unlockPhase]; bit 16 set again, version kept",
         "unlocked"),
    ]
    assert [p for p, _, _ in steps] == [0x000039B8, 0x000139B8, 0x000239B8, 0x000339B8]
    assert [decode(p) for p, _, _ in steps] == [
        (0, False, 14776), (0, True, 14776), (1, False, 14776), (1, True, 14776)]
    assert steps[3][0] - steps[1][0] == 2 * IDLE == 0x20000  # one lock cycle: version + 1

    cw, x0 = 17, 132  # a bit's cell width; x of bit 31

    def cell_x(bit):
        return x0 + (31 - bit) * cw

    def field_fill(bit):
        return VERSION if bit >= 17 else IDLE_FILL if bit == 16 else ID_FILL

    parts = [text(20, 30, "The phase word: one 32-bit int, three fields", size=17,
                  anchor="start", bold=True)]

    # The layout: bit numbers, then one box per field.
    hy = 80
    for bit in (31, 17, 16, 15, 0):
        parts.append(text(cell_x(bit) + cw // 2, hy - 8, str(bit), size=12, mono=True))
    fields = [(31, 17, VERSION, PURPLE, "version (15 bits)"),
              (16, 16, IDLE_FILL, ORANGE, "IDLE"),
              (15, 0, ID_FILL, BLUE, "queue id (16 bits)")]
    for hi, lo, fill, colour, name in fields:
        x, w = cell_x(hi), (hi - lo + 1) * cw
        parts.append(box(x, hy, w, 46, fill=fill, stroke=colour))
        if hi == lo:
            parts.append(text(x + cw // 2 + 4, hy + 42, name, size=11, bold=True,
                              colour=colour, anchor="start", rotate=True))
        else:
            parts.append(text(x + w // 2, hy + 28, name, size=14, bold=True, colour=colour))
    ry = hy + 66  # what each field is, under the layout
    parts.append(text(cell_x(31), ry, "(phase as u32) >> 17: counts lock cycles", size=13,
                      anchor="start", colour=PURPLE))
    parts.append(text(cell_x(0) + cw, ry, "phase & SMASK, SMASK = 0xffff", size=13,
                      anchor="end", colour=BLUE))
    parts.append(text(cell_x(16) + cw // 2, ry + 20, "IDLE = 1 << 16 = 0x10000: set = unlocked "
                      "(a submission queue), idle (a worker's)", size=13, colour=ORANGE))

    # The worked values: each word's 32 bits, the bits that changed outlined.
    parts.append(text(20, ry + 56, f"The article's submission queue: id {qid:#x} = {qid}, "
                      f"at index {qid:#x} & 15 = {qid & 15} of 16", size=14, anchor="start",
                      bold=True))
    parts.append(text(20, ry + 76, f"(the JDK submitter's probe {probe:#x} & EXTERNAL_ID_MASK "
                      f"{EXTERNAL_ID_MASK:#x} = {qid:#x}), from creation through one lock cycle:",
                      size=13, anchor="start"))
    y, pitch, previous = ry + 116, 62, None
    for phase, how, meaning in steps:
        version, idle, qid_bits = decode(phase)
        if previous is not None:  # the step that made this word, above it
            parts.append(arrow(70, y - pitch + 30, 70, y - 5, "ink"))
            parts.append(text(cell_x(31), y - 14, how, size=12, anchor="start"))
        else:
            parts.append(text(cell_x(31), y - 14, how, size=12, anchor="start"))
        parts.append(text(20, y + 17, f"0x{phase:08x}", size=14, mono=True, anchor="start",
                          bold=True))
        for bit in range(31, -1, -1):
            one = phase >> bit & 1
            changed = previous is not None and (phase ^ previous) >> bit & 1
            parts.append(box(cell_x(bit), y, cw, 24, fill=field_fill(bit),
                             stroke=ORANGE if changed else GREY, width=2.5 if changed else 1))
            parts.append(text(cell_x(bit) + cw // 2, y + 17, str(one), size=13, mono=True,
                              bold=bool(one), colour=INK if one else GREY))
        parts.append(text(cell_x(0) + cw + 14, y + 11, f"version {version}, IDLE {int(idle)}: "
                          f"{meaning}", size=13, anchor="start"))
        parts.append(text(cell_x(0) + cw + 14, y + 27, f"id 0x{qid_bits:x} = {qid_bits}",
                          size=13, anchor="start", mono=True))
        y, previous = y + pitch, phase
    parts.append(text(20, y - 8, "One lock cycle adds 2 × IDLE = 0x20000: the version moves "
                      "by one.", size=13, anchor="start"))
    parts.append(text(20, y + 12, "So a reader that sees the same unlocked word before and after "
                      "its read knows no lock came in between (read_stable).", size=13,
                      anchor="start"))
    y += 20

    desc = ("The 32-bit phase word: bits 31 to 17 are the version (15 bits), bit 16 is IDLE "
            "(0x10000, set when a submission queue is unlocked), bits 15 to 0 are the queue id "
            "(SMASK 0xffff). Below, the submission queue with id 0x39b8 = 14776: born locked "
            "as 0x000039b8, unlocked by its creator to 0x000139b8 (version 0, IDLE 1), locked "
            "by tryLockPhase to 0x000239b8 (version 1, IDLE 0: adding IDLE clears bit 16 and "
            "carries into the version), unlocked by unlockPhase to 0x000339b8 (version 1, "
            "IDLE 1). Each step adds IDLE; a lock cycle adds 0x20000.")
    return document(900, y + 24, "Chapter 5's phase word: version, IDLE bit and queue id",
                    desc, parts)


# ---------------------------------------------------------------------------------------------
# Chapter 7: the pool's queues array.
# ---------------------------------------------------------------------------------------------

def queues_array():
    """A pool of parallelism 3 with one outside submitter whose probe is 0x39b8."""
    source_says("chapters/ch07-pool/src/pool/thread_pool.rs",
                "let len = queues_len(parallelism);",
                "queues: Queues::new(len, parallelism, 0)")
    source_says("chapters/ch05-phase/src/queues.rs",
                "(2 * parallelism.next_power_of_two()).max(MIN_QUEUES_SIZE)",
                "pub const MIN_QUEUES_SIZE: usize = 1 << 4;")
    source_says("chapters/ch07-pool/src/pool/worker.rs", "let own = 2 * w + 1;")
    source_says("chapters/ch05-phase/src/queues.rs", "let id = 2 * w + 1;",
                "let id = (*probe as i32) & EXTERNAL_ID_MASK;", "let i = id as usize & mask;")
    source_says("chapters/ch06-nsteals/src/pool.rs", "if j != own")

    parallelism, probe = 3, 0x39B8

    def pool_len(p):  # ch05's queues_len, the JDK constructor's
        return max(16, 2 * (1 << (p - 1).bit_length()))

    assert [pool_len(p) for p in (1, 2, 3, 4, 5, 8, 9, 16)] == [16, 16, 16, 16, 16, 16, 32, 32]
    n = pool_len(parallelism)
    workers = {2 * w + 1: w for w in range(parallelism)}  # Queues::new: index -> worker
    qid = probe & EXTERNAL_ID_MASK
    index = qid & (n - 1)
    assert (n, sorted(workers), qid, index) == (16, [1, 3, 5], 0x39B8, 8)
    assert all((p & EXTERNAL_ID_MASK & (n - 1)) % 2 == 0 for p in range(1 << 16))  # even

    cw, pitch, x0 = 50, 54, 30
    parts = [text(20, 30, f"The pool's queues array: parallelism {parallelism}, len {n}",
                  size=17, anchor="start", bold=True)]

    def cx(i):  # centre of slot i
        return x0 + i * pitch + cw // 2

    # Worker threads above their odd slots.
    ty, sy = 52, 150
    for i, w in workers.items():
        parts.append(box(cx(i) - 46, ty, 92, 44, fill=WORKER, stroke=GREEN))
        parts.append(text(cx(i), ty + 19, f"worker {w}", size=14, bold=True))
        parts.append(text(cx(i), ty + 36, "thread", size=12))
        parts.append(arrow(cx(i), ty + 44, cx(i), sy - 26, "green"))
    parts.append(text(cx(6) + 20, ty + 19, "each worker w owns index 2w + 1", size=13,
                      anchor="start", colour=GREEN))
    parts.append(text(cx(6) + 20, ty + 37, "(run_worker: own = 2 * w + 1)", size=13,
                      anchor="start", colour=GREEN, mono=True))

    # The slots: index above, contents inside.
    for i in range(n):
        x = cx(i) - cw // 2
        parts.append(text(cx(i), sy - 8, str(i), size=14, mono=True, bold=True,
                          colour=GREEN if i % 2 else ORANGE))
        if i in workers:
            parts.append(box(x, sy, cw, 50, fill=WORKER, stroke=GREEN))
            parts.append(text(cx(i), sy + 21, "queue", size=12))
            parts.append(text(cx(i), sy + 39, f"w{workers[i]}", size=14, mono=True, bold=True))
        elif i == index:
            parts.append(box(x, sy, cw, 50, fill=SUBMIT, stroke=ORANGE))
            parts.append(text(cx(i), sy + 21, "id", size=12))
            parts.append(text(cx(i), sy + 39, f"{qid:#x}", size=12, mono=True, bold=True))
        else:
            parts.append(box(x, sy, cw, 50, stroke=GREEN if i % 2 else ORANGE, dash=True,
                             width=1))
            parts.append(text(cx(i), sy + 30, "null", size=12, mono=True, colour=GREY))

    # The submitter below its even slot, how its index is found on the left, a legend right.
    by = sy + 110
    parts.append(box(cx(index) - 100, by, 200, 44, fill=SUBMIT, stroke=ORANGE))
    parts.append(text(cx(index), by + 19, "a thread outside the pool", size=13, bold=True))
    parts.append(text(cx(index), by + 36, f"submit(), probe {probe:#x}", size=12, mono=True))
    parts.append(arrow(cx(index), by, cx(index), sy + 54, "orange"))
    parts.append(text(30, by - 24, "Queues::submission_queue:", size=13, anchor="start",
                      bold=True, colour=ORANGE))
    parts.append(text(30, by - 4, f"id = probe & EXTERNAL_ID_MASK = {qid:#x}", size=12,
                      anchor="start", mono=True))
    parts.append(text(30, by + 14, f"index = id & (len - 1) = {qid:#x} & {n - 1} = {index}",
                      size=12, anchor="start", mono=True))
    parts.append(text(30, by + 32, "EXTERNAL_ID_MASK = 0x3ffe has bit 0 clear:", size=12,
                      anchor="start"))
    parts.append(text(30, by + 48, "a submitter's index is always even", size=12,
                      anchor="start"))
    legend = [(WORKER, GREEN, False, "worker's queue: one owner, no lock"),
              (SUBMIT, ORANGE, False, "submission queue: locked by its phase"),
              ("#ffffff", GREY, True, "null: no queue (yet)")]
    lx = cx(index) + 124
    for k, (fill, stroke, dash, label) in enumerate(legend):
        parts.append(box(lx, by - 32 + 24 * k, 16, 16, fill=fill, stroke=stroke, dash=dash,
                         width=1))
        parts.append(text(lx + 24, by - 19 + 24 * k, label, size=12, anchor="start"))

    rules = [
        f"queues_len: max(16, 2 × parallelism.next_power_of_two()) = {n}, as the JDK's; "
        "Queues::new puts worker w's queue at 2w + 1.",
        "Odd slots past the last worker stay null: the pool adds no worker after it starts.",
        "An even slot gets its queue from the first submitter whose index lands there "
        "(born locked, phase = id);",
        "a submitter that finds it locked moves its probe (advance_probe) and tries another slot.",
        "A worker pops its own queue, then scan() steals from every other non-null slot, "
        "odd or even (odd stride).",
        "A thread's probe is random (new_probe); 0x39b8 is the one chapter 5's probe sets.",
    ]
    ry = by + 90
    for k, rule in enumerate(rules):
        parts.append(text(20, ry + 20 * k, rule, size=13, anchor="start"))

    desc = (f"The queues array of a pool with parallelism {parallelism}: {n} slots, indices 0 to "
            f"{n - 1}. Worker w owns the queue at odd index 2w + 1: workers 0, 1, 2 at indices 1, "
            f"3, 5; the other odd slots are null. Even slots hold submission queues for threads "
            f"outside the pool: a submitter with probe 0x39b8 gets id 0x39b8 & 0x3ffe = 0x39b8 "
            f"and index 0x39b8 & 15 = 8, where its queue is created on first use; the other "
            f"even slots are null until a submitter's probe selects them.")
    return document(900, ry + 20 * len(rules) + 20, "Chapter 7's queues array: worker queues "
                    "at odd indices, submission queues at even ones", desc, parts)


# ---------------------------------------------------------------------------------------------

DIAGRAMS = {
    "chapters/ch01-ring/figures/ring.svg": ring,
    "chapters/ch05-phase/figures/phase-bits.svg": phase_bits,
    "chapters/ch07-pool/figures/queues-array.svg": queues_array,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 naming every SVG that is stale or missing")
    parser.add_argument("--dir", type=pathlib.Path, default=ROOT,
                        help="the tree the SVG paths are under (default: the repository root)")
    args = parser.parse_args()

    bad = []
    for path, draw in DIAGRAMS.items():
        svg = draw().encode("utf-8")
        target = args.dir / path
        shown = path if args.dir == ROOT else target  # the name to report
        if args.check:
            if not target.is_file():
                bad.append(f"{shown} is missing")
            elif target.read_bytes() != svg:
                bad.append(f"{shown} is stale")
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(svg)
            print(f"wrote {shown}")
    for message in bad:
        print(f"diagrams.py: {message}: run python3 scripts/diagrams.py", file=sys.stderr)
    if args.check and not bad:
        print(f"diagrams.py: all {len(DIAGRAMS)} diagrams match")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
