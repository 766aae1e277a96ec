#!/usr/bin/env python3
"""Turns a criterion run into a Markdown table for the book, labelled with the
machine, the date and the command, so that every figure says where it came from.

usage: bench_table.py CRITERION_HOME OUT.md ELEMENTS_PER_ITER "COMMAND" GROUP:ID[,ID...] ...

Each GROUP becomes a row; each ID a column (ns per element); the last column is the
ratio of the first ID to the last one (ours over the peer we race).
"""
import datetime
import json
import os
import platform
import subprocess
import sys


def machine():
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.strip()
    return f"{model}, {os.cpu_count()} cores, load average {load:.2f} at the start; {platform.system()}; {rustc}"


def mean_ns(home, group, bench_id):
    folder = bench_id.replace("/", "_")
    path = os.path.join(home, group, folder, "new", "estimates.json")
    with open(path) as f:
        return json.load(f)["mean"]["point_estimate"]


def main(argv):
    if len(argv) < 6:
        sys.exit(__doc__)
    home, out, per_iter, command = argv[1], argv[2], float(argv[3]), argv[4]
    specs = [a.split(":", 1) for a in argv[5:]]
    ids = specs[0][1].split(",")
    lines = [
        f"| ns per operation | {' | '.join(ids)} | {ids[0]} / {ids[-1]} |",
        "|---|" + "---:|" * (len(ids) + 1),
    ]
    for group, id_list in specs:
        row = [mean_ns(home, group, i) / per_iter for i in id_list.split(",")]
        lines.append(f"| `{group}` | " + " | ".join(f"{v:.2f}" for v in row) + f" | {row[0] / row[-1]:.2f} |")
    label = (
        f"\n*Measured {datetime.date.today().isoformat()} on {machine()}, with "
        f"`{command}`. Mean of criterion's samples; one run, so differences under ~10% are noise.*\n"
    )
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n" + label)
    print(open(out).read())


if __name__ == "__main__":
    main(sys.argv)
