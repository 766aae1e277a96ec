#!/usr/bin/env python3
"""Executes notebooks headless with the evcxr (Rust) kernel and fails on any error.

    .venv/bin/python scripts/run_notebooks.py [--write | --out DIR] [NOTEBOOK ...]

Without arguments, runs every notebooks/*.ipynb. With --write, saves the executed
outputs back into each notebook (that is how the committed outputs are made); with
--out DIR, saves them as DIR/<name>.ipynb and leaves the committed ones alone (to read
your own run's outputs, e.g. in Jupyter); with neither, nothing is written.

Two failures that nbclient does not report on its own are caught here:
- a compile error: nbclient raises, but the compiler's message is only in the cell's
  error output, so it is printed from there;
- a panic: evcxr prints it on stderr and the cell still "succeeds", so every stderr
  stream is searched for `panicked at`.
"""
import os
import re
import sys
import time

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIMEOUT = int(os.environ.get("NOTEBOOK_CELL_TIMEOUT", "900"))
ANSI = re.compile(r"\x1b\[[0-9;]*m")  # evcxr colours its compiler messages


def problems(nb):
    """(cell number, text) for every error output and every panic in the notebook."""
    found = []
    for n, cell in enumerate(nb.cells):
        outputs = cell.get("outputs", [])
        for out in outputs:
            if out.get("output_type") == "error":
                text = "\n".join(out.get("traceback", [])) or f"{out.get('ename')}: {out.get('evalue')}"
                found.append((n, text))
        # A panic's message can come in several stream chunks: show the cell's whole stderr.
        stderr = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream" and o.get("name") == "stderr")
        if "panicked at" in stderr:
            found.append((n, stderr))
    return found


def run(path, out):
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        kernel_name="rust",
        timeout=TIMEOUT,
        allow_errors=True,  # keep going so that every error is collected and shown
        resources={"metadata": {"path": os.path.dirname(path)}},
    )
    start = time.time()
    try:
        client.execute()
    except CellExecutionError as e:  # with allow_errors this is rare; report it all the same
        return [(-1, str(e))], time.time() - start
    except Exception as e:  # kernel died, timeout, kernel missing
        return [(-1, f"{type(e).__name__}: {e}")], time.time() - start
    if out:
        nbformat.write(nb, out)
    return problems(nb), time.time() - start


USAGE = "usage: run_notebooks.py [--write | --out DIR] [NOTEBOOK ...]"


def main(args):
    if "-h" in args or "--help" in args:
        print(__doc__.strip())
        return 0
    write = "--write" in args
    out_dir = None
    if "--out" in args:
        i = args.index("--out")
        if i + 1 >= len(args) or write:
            print(USAGE, file=sys.stderr)
            return 2
        out_dir = os.path.abspath(args[i + 1])
        args = args[:i] + args[i + 2:]
    unknown = [a for a in args if a.startswith("-") and a != "--write"]
    missing = [a for a in args if not a.startswith("-") and not os.path.isfile(a)]
    if unknown or missing:
        for a in unknown:
            print(f"run_notebooks.py: unknown option {a}", file=sys.stderr)
        for a in missing:
            print(f"run_notebooks.py: no such notebook: {a}", file=sys.stderr)
        print(USAGE, file=sys.stderr)
        return 2
    paths = [a for a in args if not a.startswith("-")]
    if out_dir:
        os.makedirs(out_dir, exist_ok=True)  # only once the command line is known to be good
    if not paths:
        folder = os.path.join(ROOT, "notebooks")
        paths = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".ipynb"))
    # evcxr builds each cell in a cargo project under EVCXR_TMPDIR; keeping it in target/
    # (outside the workspace's members) lets later runs reuse the compiled dependencies.
    os.environ.setdefault("EVCXR_TMPDIR", os.path.join(ROOT, "target", "evcxr"))
    os.makedirs(os.environ["EVCXR_TMPDIR"], exist_ok=True)
    failed = 0
    for path in paths:
        print(f"[notebooks] {os.path.relpath(path, ROOT)}: running...", flush=True)
        out = os.path.abspath(path) if write else out_dir and os.path.join(out_dir, os.path.basename(path))
        found, secs = run(os.path.abspath(path), out)
        if found:
            failed += 1
            print(f"[notebooks] {os.path.relpath(path, ROOT)}: FAILED after {secs:.0f} s")
            for n, text in found:
                where = f"cell {n}" if n >= 0 else "notebook"
                print(f"  --- {where} ---\n" + "\n".join("  " + l for l in ANSI.sub("", text).splitlines()))
        else:
            print(f"[notebooks] {os.path.relpath(path, ROOT)}: ok in {secs:.0f} s"
                  + (f", outputs in {os.path.relpath(out, ROOT)}" if out_dir else ""))
    print(f"notebooks: {len(paths) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
