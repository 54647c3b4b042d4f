#!/usr/bin/env bash
# `fabricsm sim` as a user runs it: exit codes, the JSON summary, --compare with --link-loads
# and --plot (the SVG must render), a non-zero exit when pairs are unrouted, generated HyperX and
# Dragonfly(+) fabrics routed in full by updn, and clear errors for bad input.
set -euo pipefail
fabricsm=$1
shared=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# Default fabric, JSON summary with the documented keys.
"$fabricsm" sim --json --log-level error > "$work/default.json" || fail "default fabric not up"
python3 - "$work/default.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for k in ("switches", "cas", "subnet_up", "pairs", "unrouted", "mads", "wall_s", "phases"):
    assert k in j, f"missing key {k}"
assert j["subnet_up"] is True and j["unrouted"] == 0, j
assert j["switches"] == 320 and j["cas"] == 1024, j
assert j["pairs"] == 1024 * 1023, j
assert j["mads"]["sent"] > 0 and j["mads"]["lost"] == 0, j
for p in ("discovery", "lids", "routing", "programming"):
    assert j["phases"][p]["wall_ms"] >= 0, p
# The timing keys sit at the end of one long format string: a missing placeholder shifts them.
assert j["wall_s"] > 0 and j["wall_s"] >= j["sm_s"] > 0, j
parts = j["build_s"] + j["sm_s"] + j["verify_s"] + j["metrics_s"]
assert abs(j["wall_s"] - parts) < 0.005, (j["wall_s"], parts)
PY

# Two engines side by side with per-link loads and a plot.
"$fabricsm" sim -t "$shared/topologies/ft3-r8.net" --compare minhop,ftree --json \
  --link-loads "$work/loads.csv" --plot "$work/loads.svg" > "$work/cmp.json" || fail "compare run"
python3 - "$work/cmp.json" "$work/loads.csv" <<'PY'
import csv, json, sys
j = json.load(open(sys.argv[1]))
engines = {e["routing"]: e for e in j["engines"]}
assert set(engines) == {"minhop", "ftree"}, engines.keys()
for e in engines.values():
    m = e["metrics"]
    assert e["unrouted"] == 0 and m["deadlock_free"] is True, e
links = engines["ftree"]["metrics"]["switch_links"]
rows = list(csv.DictReader(open(sys.argv[2])))
assert len(rows) == 2 * links, (len(rows), links)
for eng in ("minhop", "ftree"):
    mx = max(int(r["routes"]) for r in rows if r["engine"] == eng)
    assert mx == engines[eng]["metrics"]["max_link_load"], (eng, mx)
PY
rsvg-convert "$work/loads.svg" -o "$work/loads.png" || fail "the SVG does not render"
[ "$(stat -c %s "$work/loads.png")" -gt 2000 ] || fail "rendered PNG is suspiciously small"
grep -q "minhop (max" "$work/loads.svg" || fail "legend missing"

# The cut bounds beside the figures: on ft3-r8 a leaf sends 4 x 124 routes over 4 uplinks, which
# ftree meets; --compare names them once for the fabric, and each engine's figure over them.
"$fabricsm" sim -t "$shared/topologies/ft3-r8.net" -R ftree --metrics --log-level error > "$work/bounds.txt" ||
  fail "sim --metrics"
grep -q "^link load .* max 124 (cut bound 124, 1.00x)" "$work/bounds.txt" &&
  grep -q "^shifts .* (cut bound 1.000, 1.00x)" "$work/bounds.txt" &&
  grep -q "^cut bounds  all-to-all 124 from leaf S1_00_00 (4 CAs, 4 channels out)" "$work/bounds.txt" ||
  fail "sim --metrics, bounds: $(grep -E '^(link load|shifts|cut bounds)' "$work/bounds.txt")"
"$fabricsm" sim -t "$shared/topologies/ft3-r8.net" --compare minhop,ftree --log-level error > "$work/cmp.txt" ||
  fail "compare, text"
[ "$(grep -c '^cut bounds  all-to-all 124 ' "$work/cmp.txt")" -eq 1 ] &&
  grep -q "^  x its cut bound (124) .* 1.00$" "$work/cmp.txt" || fail "compare, bounds: $(cat "$work/cmp.txt")"

# A fabric in two pieces (radix 3: each leaf has one uplink, and dropping half the switch links
# cuts one leaf off, whatever the seed): the SM routes the piece it is on, the verifier finds
# the other leaf's pairs unrouted, and the exit status says so.
"$fabricsm" topo two-level --leaves 2 --spines 1 --radix 3 --cas-per-leaf 2 --drop-links 0.5 \
  -o "$work/split.net" || fail "generating the split fabric"
"$fabricsm" topo check "$work/split.net" | grep -q "2 separate subnets" || fail "split fabric: $("$fabricsm" topo check "$work/split.net")"
set +e
"$fabricsm" sim -t "$work/split.net" --log-level error > "$work/split.txt"; rc=$?
[ $rc -ne 0 ] && grep -q "12 CA pairs: 2 routed, 10 unrouted" "$work/split.txt" ||
  fail "split fabric: rc $rc, $(grep verified "$work/split.txt")"
"$fabricsm" sim -t "$work/split.net" --log-level error --json > "$work/split.json"; rc=$?
set -e
[ $rc -ne 0 ] || fail "split fabric, --json: rc 0"
python3 - "$work/split.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["subnet_up"] is True and j["pairs"] == 12 and j["unrouted"] == 10, j
PY

# --db: the store the same stack leaves under `fabricsm run`, readable by `fabricsm show`.
"$fabricsm" sim -t "$shared/topologies/ft2-r8.net" --db "$work/sim.db" --log-level error > /dev/null ||
  fail "sim --db"
show() { "$fabricsm" show "$@" --db "$work/sim.db"; }
[ "$(show nodes | tail -n +2 | wc -l)" -eq 44 ] || fail "show nodes: $(show nodes | wc -l) lines"
[ "$(show lids | tail -n +2 | wc -l)" -eq 44 ] || fail "show lids: $(show lids | wc -l) lines"
[ "$(show links | tail -n +2 | wc -l)" -eq 64 ] || fail "show links: $(show links | wc -l) lines"
show sweeps | grep -q 'heavy  start' || fail "show sweeps: $(show sweeps)"
show events | grep -q 'SUBNET UP' || fail "show events has no SUBNET UP: $(show events)"
[ "$(show routes 5 | tail -n +2 | wc -l)" -eq 12 ] || fail "show routes 5: $(show routes 5)"
[ "$(stat -c %a "$work/sim.db")" = 600 ] || fail "the database is mode $(stat -c %a "$work/sim.db")"
# Again on the same store (a fresh fabric: every LID 0): the store gives every port its LID back.
"$fabricsm" sim -t "$shared/topologies/ft2-r8.net" --db "$work/sim.db" --log-level info > /dev/null 2> "$work/again.log" ||
  fail "sim --db, second run"
grep -q 'I0704.*44 LIDs' "$work/again.log" && grep -q 'LIDs: 0 kept, 44 restored, 0 new' "$work/again.log" ||
  fail "second run on the store: $(grep -E 'I0704|I0303' "$work/again.log")"
[ "$(show sweeps | tail -n +2 | wc -l)" -eq 2 ] || fail "show sweeps after two runs: $(show sweeps)"

# A store that takes nothing (immutable: even root cannot write it): the run fails and says
# which file, instead of reporting success with nothing stored.
if chattr +i "$work/sim.db" 2> /dev/null; then
  set +e
  "$fabricsm" sim -t "$shared/topologies/ft2-r8.net" --db "$work/sim.db" > "$work/ro.txt" 2> "$work/ro.err"; rc=$?
  set -e
  chattr -i "$work/sim.db"
  [ $rc -ne 0 ] && grep -q "E0702.*$work/sim.db: commit of sweep [0-9]* failed" "$work/ro.err" &&
    grep -q "store       FAILED" "$work/ro.txt" || fail "read-only store: rc $rc, $(cat "$work/ro.err" "$work/ro.txt" | head -5)"
else
  fail "chattr +i does not work here: cannot make a store that refuses writes"
fi

# --compare with an engine that cannot route the fabric (ftree on a torus): shown as failed with
# its reason, no metrics of its empty tables (they read as a perfect, deadlock-free engine), and
# in the plot's legend as failed, not drawn as a flat line.
"$fabricsm" topo torus --dims 3x3 --cas-per-switch 1 -o "$work/torus.net"
set +e
"$fabricsm" sim -t "$work/torus.net" --compare minhop,ftree --plot "$work/torus.svg" > "$work/torus.txt" 2> /dev/null; rc=$?
set -e
[ $rc -eq 1 ] || fail "compare with a failing engine: rc $rc"
row() { grep "^$1" "$work/torus.txt" | sed "s/^$1 *//" | tr -s ' '; }
[ "$(row 'subnet up')" = "yes NO (failed)" ] || fail "compare: subnet up row: $(row 'subnet up')"
[ "$(row 'max routes on a switch link' | cut -d' ' -f2)" = "-" ] || fail "compare: $(row 'max routes on a switch link')"
[ "$(row 'deadlock-free (acyclic CDG)')" = "yes -" ] || fail "compare: $(row 'deadlock-free (acyclic CDG)')"
grep -q "^ftree FAILED: routing failed: .*not a fat tree" "$work/torus.txt" || fail "compare: no reason: $(cat "$work/torus.txt")"
[ "$(grep -c '<polyline' "$work/torus.svg")" -eq 1 ] && grep -q '>ftree: failed<' "$work/torus.svg" ||
  fail "plot: $(grep -c '<polyline' "$work/torus.svg") curves, legend: $(grep -o '>[a-z]*[:(][^<]*<' "$work/torus.svg")"
rsvg-convert "$work/torus.svg" -o "$work/torus.png" || fail "the SVG with a failed engine does not render"

# The HyperX and Dragonfly(+) generators' files come up under up/down routing, every pair routed.
gen_up() {  # gen_up NAME TOPO-ARGS...
  local name=$1
  shift
  "$fabricsm" topo "$@" -o "$work/$name.net" || fail "topo $*"
  "$fabricsm" sim -t "$work/$name.net" -R updn --json --log-level error > "$work/$name.json" ||
    fail "sim -R updn on topo $*"
  python3 - "$work/$name.json" "$*" <<'PY' || fail "sim -R updn on topo $*: $(cat "$work/$name.json")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["subnet_up"] is True and j["unrouted"] == 0, sys.argv[2]
assert j["pairs"] == j["cas"] * (j["cas"] - 1) > 0, sys.argv[2]
PY
}
gen_up hyperx hyperx --dims 4x4x2 --trunk 2
gen_up dragonfly dragonfly --p 2 --a 4 --h 2
gen_up dragonfly-plus dragonfly --p 2 --a 2 --h 2 --plus --groups 4

# --steady: the SM runs on after SUBNET UP (its periodic sweeps every 10 s, the counter sweeps
# with --perfmgr), its loop turns timed.
"$fabricsm" sim -t "$shared/topologies/ft2-r8.net" --steady 25 --perfmgr 2 > "$work/steady.txt" || fail "--steady run"
grep -Eq '^steady +2[5-9]\.[0-9] s after SUBNET UP \(simulated\): [1-9][0-9]* loop turns, longest [0-9.]+ ms wall' "$work/steady.txt" ||
  fail "--steady line: $(grep -E '^(steady|counters)' "$work/steady.txt")"
[ "$(grep -c '^counters    sweep' "$work/steady.txt")" -ge 3 ] || fail "counter sweeps over 25 s: $(grep '^counters' "$work/steady.txt")"

set +e
"$fabricsm" sim --routing nosuch > /dev/null 2> "$work/err"; rc=$?
[ $rc -eq 2 ] && grep -q "unknown routing engine 'nosuch'" "$work/err" || fail "bad engine: rc $rc $(cat "$work/err")"
printf 'Switch 4 "S1"\n[1] "H1"[1]\n[9] "H2"[1]\n' > "$work/bad.net"
"$fabricsm" sim -t "$work/bad.net" > /dev/null 2> "$work/err"; rc=$?
[ $rc -eq 1 ] && grep -q "bad.net:3" "$work/err" || fail "bad net file: rc $rc $(cat "$work/err")"
"$fabricsm" sim --fat-tree 3 > /dev/null 2> "$work/err"; rc=$?
[ $rc -eq 2 ] && grep -q "LEVELS,RADIX" "$work/err" || fail "bad --fat-tree: rc $rc"
set -e
echo "cli_sim: ok"
