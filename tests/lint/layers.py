#!/usr/bin/env python3
"""The layers (README, Layout): each folder includes only the folders below it. Run as part of
the build (a custom target of the top-level meson.build), so an upward include fails to build.
Usage: layers.py SOURCE_ROOT [STAMP]"""
import os
import re
import sys

# Folder (longest prefix wins) -> the folders its files may include.
MAD = ["mad/"]
FABRIC = MAD + ["fabric/"]
CORE = FABRIC + ["routing/", "ha/", "sm/partitions/", "sm/qos_policy/", "sm/types.h"]
CORE_ALL = CORE + ["sm/"]  # the core's own files (its sub-libraries excluded below)
RULES = {
    "mad/": MAD,
    "fabric/": FABRIC,
    "sim/": FABRIC + ["sim/"],
    "routing/": FABRIC + ["routing/"],
    "ha/": MAD + ["ha/"],
    "sm/partitions/": FABRIC + ["sm/partitions/", "sm/types.h"],
    "sm/qos_policy/": FABRIC + ["sm/partitions/", "sm/qos_policy/", "sm/types.h"],
    "sm/": CORE_ALL,
    "sm/perfmgr/": CORE_ALL,
    "sm/adapt/": CORE_ALL,
    "sm/store/": CORE_ALL,
    "sm/sa/": CORE_ALL,
    "sm/multicast/": CORE_ALL,
    "service/": CORE_ALL + ["service/"],
    "metrics/": CORE_ALL + ["service/", "metrics/"],  # reads what the service publishes
    "web/": CORE_ALL + ["service/", "metrics/", "web/"],  # reads it too, and the metrics' figures
}
# Inside sm/: the core may not include its sub-libraries; they include each other only upward
# (perfmgr <- adapt, perfmgr <- store <- sa <- multicast).
SM_SUBLIBS = {
    "sm/": ["sm/perfmgr/", "sm/adapt/", "sm/store/", "sm/sa/", "sm/multicast/"],
    "sm/perfmgr/": ["sm/adapt/", "sm/store/", "sm/sa/", "sm/multicast/"],
    "sm/adapt/": ["sm/store/", "sm/sa/", "sm/multicast/"],
    "sm/store/": ["sm/sa/", "sm/multicast/"],
    "sm/sa/": ["sm/multicast/"],
    "sm/multicast/": [],
    "service/": [],
    "metrics/": [],
    "web/": [],
}

root = sys.argv[1]
problems = []
for folder in RULES:
    for dirpath, _, files in os.walk(os.path.join(root, folder)):
        for f in files:
            if not f.endswith((".h", ".cpp")):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, root)
            layer = max((k for k in RULES if rel.startswith(k)), key=len)
            if layer != folder:
                continue
            allowed = RULES[layer]
            forbidden = SM_SUBLIBS.get(layer, [])
            for n, line in enumerate(open(path), 1):
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if not m:
                    continue
                inc = m.group(1)
                if "/" not in inc:
                    continue  # a header beside the file
                ok = any(inc.startswith(a) for a in allowed) and not any(inc.startswith(b) for b in forbidden)
                if not ok:
                    problems.append(f"{rel}:{n}: {layer} may not include {inc}")
for p in problems:
    print(p)
if problems:
    print(f"{len(problems)} upward include(s): see the Layout section of README.md")
    sys.exit(1)
if len(sys.argv) > 2:
    open(sys.argv[2], "w").write("ok\n")
