#!/usr/bin/env python3
"""The log codes (sm/log_codes.h): each one logged at exactly one place of the source, none
unused, and the README's table the same as the header's, row for row.
Usage: log_codes.py SOURCE_ROOT"""
import os
import re
import sys

root = sys.argv[1]
header = open(os.path.join(root, "sm/log_codes.h")).read()
rows = re.findall(r'X\((\w+), (\d+), (\w+), (\w+), "((?:[^"\\]|\\.)*)"\)', header)
failures = []
if not rows:
    failures.append("no codes found in sm/log_codes.h")

uses = {name: [] for name, *_ in rows}
for folder in ("sm", "service", "cli", "routing", "ha", "sim", "mad", "fabric"):
    for dirpath, _, files in os.walk(os.path.join(root, folder)):
        for f in files:
            if not f.endswith((".cpp", ".h")) or f == "log_codes.h":
                continue
            path = os.path.join(dirpath, f)
            for n, line in enumerate(open(path), 1):
                for name in re.findall(r"\bcode::(\w+)", line):
                    rel = os.path.relpath(path, root)
                    if name not in uses:
                        failures.append(f"{rel}:{n}: code::{name} is not in sm/log_codes.h")
                    else:
                        uses[name].append(f"{rel}:{n}")
for name, where in uses.items():
    if len(where) == 0:
        failures.append(f"code::{name} is never logged: remove it from sm/log_codes.h")
    elif len(where) > 1:
        failures.append(f"code::{name} is logged at {len(where)} places ({', '.join(where)}): one code, one message")

level_char = {"error": "E", "warn": "W", "info": "I", "debug": "D"}
want = [f"| {num} | {level_char[lvl]} | {'yes' if keep == 'event' else ''} | {meaning} |"
        for _, num, lvl, keep, meaning in rows]
readme = [l.rstrip() for l in open(os.path.join(root, "README.md")) if re.match(r"^\| \d{3,4} \|", l)]
if readme != want:
    missing = [w for w in want if w not in readme]
    extra = [r for r in readme if r not in want]
    failures.append("README.md's table of log codes differs from sm/log_codes.h:\n  missing: "
                    + "\n           ".join(missing[:10]) + "\n  not in the header: " + "\n           ".join(extra[:10]))

for f in failures:
    print(f)
print(f"{len(rows)} log codes, {len(failures)} problem(s)")
sys.exit(1 if failures else 0)
