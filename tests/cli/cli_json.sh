#!/usr/bin/env bash
# cli_json.sh FABRICSM SHARED: every `--json` of the commands that need no daemon, parsed by
# Python's json module and its values' types checked against what the README documents:
# `sim --json` (one engine, and --compare), `drill --json`, and `show TABLE --json` for every
# table, on a store `sim --db --perfmgr` leaves (SM peers and health findings added with
# sqlite3, as the daemon writes them; a node description that is not UTF-8 among them).
# `status --json` and `health clear` need a daemon: tests/cli/cli_status.sh (ibsim).
set -euo pipefail
fabricsm=$1
shared=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
net=$shared/topologies/ft2-r8.net
[ -f "$net" ] || { echo "SKIP: $net not found"; exit 77; }
command -v sqlite3 > /dev/null || { echo "SKIP: sqlite3 missing"; exit 77; }

# check.py KIND FILE: parses FILE (strict: no NaN, UTF-8) and checks the types of KIND.
cat > "$work/check.py" <<'PY'
import json, re, sys
kind, path = sys.argv[1], sys.argv[2]
text = open(path, "rb").read().decode("utf-8")  # not UTF-8: an exception, the test fails
def no_constants(c): raise ValueError(f"not JSON: {c}")
j = json.loads(text, parse_constant=no_constants)
INT, NUM, STR, BOOL, NONE = "int", "num", "str", "bool", "none"
def ok(v, t):
    if t is dict: return type(v) is dict
    return {INT: type(v) is int, NUM: type(v) in (int, float), STR: type(v) is str,
            BOOL: type(v) is bool, NONE: v is None}[t]
def check(obj, schema, where):
    assert isinstance(obj, dict), (where, obj)
    for k, ts in schema.items():
        assert k in obj, f"{where}: no key {k!r} in {obj}"
        ts = ts if isinstance(ts, tuple) else (ts,)
        assert any(ok(obj[k], t) for t in ts), f"{where}.{k} = {obj[k]!r}, want {ts}"
def rows(schema, at_least=1):
    assert isinstance(j, list) and len(j) >= at_least, (kind, j)
    for i, r in enumerate(j):
        check(r, schema, f"{kind}[{i}]")
TIME = (STR, NONE)  # ISO 8601 UTC, null for never
OUTCOME = {"routing": STR, "engine_used": STR, "switches": INT, "cas": INT, "links": INT, "lids": INT,
           "max_lid": INT, "subnet_up": BOOL, "failure": (STR, NONE), "sweeps": INT, "pairs": INT,
           "routed": INT, "unrouted": INT, "loops": INT, "ports_not_active": INT, "max_hops": INT,
           "mean_hops": NUM, "lft_blocks_written": INT, "port_sets": INT,
           "activations": INT, "commit_ms": NUM, "store_error": STR, "build_s": NUM, "sm_s": NUM,
           "verify_s": NUM, "metrics_s": NUM, "wall_s": NUM}
METRICS = {"max_link_load": INT, "mean_link_load": NUM, "switch_links": INT, "shift_congestion": NUM,
           "shift_congestion_max": INT, "shifts": INT, "shifts_sampled": BOOL, "stretch_mean": NUM,
           "stretch_max": NUM, "stretched_pairs": INT, "deadlock_free": BOOL, "cdg_edges": INT}
CUT = {"what": STR, "cas": INT, "channels": INT}
BOUNDS = {"max_link_load": INT, "max_link_load_cut": (dict, NONE), "shift_congestion": NUM,
          "shift_congestion_max": INT, "shift_cut": (dict, NONE), "shifts": INT, "shifts_sampled": BOOL,
          "cuts": INT, "wall_s": NUM}
def bounds(b, where, metrics):
    check(b, BOUNDS, where)
    check(b["max_link_load_cut"], CUT, where + ".max_link_load_cut")
    check(b["shift_cut"], dict(CUT, shifts=INT), where + ".shift_cut")
    # no routing beats them: the measured figures are at or above
    assert 0 < b["max_link_load"] <= metrics["max_link_load"], (b, metrics)
    assert 0 < b["shift_congestion"] <= metrics["shift_congestion"] + 1e-9, (b, metrics)
    assert b["shifts"] == metrics["shifts"], (b, metrics)
def outcome(o, where):
    check(o, OUTCOME, where)
    check(o["mads"], {"sent": INT, "retried": INT, "lost": INT, "per_second": NUM}, where + ".mads")
    for p in ("discovery", "lids", "routing", "programming"):
        check(o["phases"][p], {"wall_ms": NUM, "fabric_ms": NUM}, f"{where}.phases.{p}")
    check(o["phases"]["verify"], {"wall_ms": NUM}, where + ".phases.verify")
    if o["metrics"] is not None:
        check(o["metrics"], METRICS, where + ".metrics")
if kind == "sim":
    outcome(j, "sim")
    check(j, {"fabric": STR, "sm_node": STR, "peak_rss_kb": INT}, "sim")
    assert j["subnet_up"] is True and j["failure"] is None and j["metrics"] is not None, j
    bounds(j["bounds"], "sim.bounds", j["metrics"])
    t = j["traffic"]
    check(t, {"pattern": STR, "cas": INT, "flows": INT, "unrouted": INT, "phases": INT, "adaptive": BOOL,
              "adaptive_switches": INT, "ar_groups_from": (STR, NONE), "seed": INT, "message_bytes": NUM,
              "aggregate_gbps": NUM, "mean_rate": NUM, "min_rate": NUM, "completion_s": (NUM, NONE),
              "completion_exact": BOOL, "max_utilisation": NUM, "wall_s": NUM}, "sim.traffic")
    check(t["ebb"], {"mean": NUM, "min": NUM, "max": NUM, "stddev": NUM, "bisections": INT, "seed": INT,
                     "unrouted": INT}, "sim.traffic.ebb")
    assert isinstance(t["hottest"], list) and t["hottest"], t
    for h in t["hottest"]:
        check(h, {"from": STR, "from_port": INT, "to": STR, "to_port": INT, "utilisation": NUM, "gbps": NUM},
              "sim.traffic.hottest")
    check(t["perfmgr_busiest"], {"node": STR, "port": INT, "xmit_gbps": NUM, "xmit_wait_per_s": NUM},
          "sim.traffic.perfmgr_busiest")
elif kind == "compare":  # minhop routes the torus, ftree cannot
    check(j, {"fabric": STR, "peak_rss_kb": INT}, "compare")
    e = {o["routing"]: o for o in j["engines"]}
    for name, o in e.items():
        outcome(o, name)
    assert e["minhop"]["subnet_up"] is True and e["minhop"]["metrics"]["deadlock_free"] is True, e["minhop"]
    assert e["ftree"]["subnet_up"] is False and "not a fat tree" in e["ftree"]["failure"], e["ftree"]
    bounds(j["bounds"], "compare.bounds", e["minhop"]["metrics"])  # once, for the fabric
    assert e["ftree"]["metrics"] is None, e["ftree"]["metrics"]
elif kind == "drill":
    check(j, {"fabric": STR, "ok": BOOL}, "drill")
    assert all(type(s) is str for s in j["sms"]), j["sms"]
    EVENT = {"event": STR, "detail": STR, "at_ms": NUM, "detection_ms": (NUM, NONE), "master_ms": (NUM, NONE),
             "up_ms": (NUM, NONE), "lids_changed": INT, "lft_blocks": INT, "rereg_ports": INT,
             "false_alarms": INT, "partitions": INT, "one_master": BOOL, "routed": (BOOL, NONE)}
    for i, e in enumerate([j["bring_up"]] + j["events"]):
        check(e, EVENT, f"drill.events[{i}]")
        assert all(type(m) is str for m in e["masters"]) and all(type(n) is str for n in e["notes"]), e
    assert [e["event"] for e in j["events"]] == ["kill", "return"], j["events"]
    assert j["events"][0]["detection_ms"] is not None, j["events"][0]
elif kind == "nodes":
    rows({"guid": STR, "type": STR, "ports": INT, "description": STR, "present": BOOL,
          "first_seen": TIME, "last_seen": TIME}, 44)
    assert all(re.fullmatch(r"0x[0-9a-f]{16}", r["guid"]) for r in j), j[0]
    assert any("\ufffd" in r["description"] for r in j), "the description that is not UTF-8"
elif kind == "links":
    rows({"from": STR, "from_port": INT, "to": STR, "to_port": INT, "rate": (STR, NONE), "state": (STR, NONE),
          "present": BOOL, "first_seen": TIME, "last_seen": TIME}, 64)
elif kind == "lids":
    rows({"lid": INT, "lmc": INT, "port_guid": STR, "node": STR, "port": (INT, NONE),
          "first_seen": TIME, "last_seen": TIME, "present": BOOL}, 44)
elif kind == "routes":
    rows({"switch": STR, "guid": STR, "out_port": (INT, NONE), "next": STR}, 12)
    assert any(type(r["out_port"]) is int for r in j), j
elif kind == "events":
    rows({"time": TIME, "level": STR, "code": STR, "message": STR}, 3)
    # The code as the log line has it: the level's letter and four digits.
    for r in j:
        assert re.fullmatch(r"[EWID]\d{4}", r["code"]) and r["code"][0] == r["level"][0].upper(), r
    assert any(r["code"] == "I0101" for r in j), [r["code"] for r in j]
elif kind == "sweeps":
    rows({"sweep": INT, "started": TIME, "kind": STR, "trigger": STR, "up": BOOL, "switches": INT, "CAs": INT,
          "SMPs": INT, "LFT_blocks": INT, "port_sets": INT, "ms": NUM, "engine": STR})
    assert any(r["up"] is True for r in j), j
elif kind == "sms":
    rows({"guid": STR, "lid": INT, "priority": INT, "state": STR, "act_count": INT, "sm_key_ok": BOOL,
          "first_seen": TIME, "last_heard": TIME})
    assert j[0]["sm_key_ok"] is False and j[0]["state"] == "Standby", j[0]
elif kind == "counters":
    schema = {"node": STR, "node_guid": STR, "port": INT, "lid": INT, "remote": (STR, NONE),
              "remote_guid": (STR, NONE), "remote_port": (INT, NONE), "sampled_ms": INT, "extended": BOOL,
              "port_xmit_data_total": INT, "port_xmit_data_per_s": NUM, "symbol_error_total": INT}
    rows(schema, 44)
elif kind == "health":
    rows({"rule": STR, "severity": STR, "at": STR, "at_guid": STR, "at_lid": INT, "peer": (STR, NONE),
          "peer_guid": (STR, NONE), "peer_lid": (INT, NONE), "what": STR, "first": TIME, "last": TIME,
          "isolated": BOOL})
    assert j[0]["isolated"] is True and j[0]["at_lid"] == 7, j[0]
else:
    sys.exit(f"unknown kind {kind}")
PY
check() { python3 "$work/check.py" "$1" "$2" || fail "$1 --json: $(head -c 600 "$2")"; }

# sim: one engine with metrics, traffic, the store and counter sweeps for `show`.
"$fabricsm" sim -t "$net" --metrics --db "$work/s.db" --perfmgr 2 --traffic random-bisection --bisections 3 \
  --log-level error --json > "$work/sim.json" ||
  fail "sim --json: exit $?"
check sim "$work/sim.json"
# --compare with an engine that fails (ftree on a torus).
"$fabricsm" topo torus --dims 3x3 --cas-per-switch 1 -o "$work/torus.net"
set +e
"$fabricsm" sim -t "$work/torus.net" --compare minhop,ftree --json > "$work/compare.json" 2> /dev/null
rc=$?
set -e
[ $rc -eq 1 ] || fail "sim --compare with a failing engine: exit $rc, want 1"
check compare "$work/compare.json"
"$fabricsm" drill --fat-tree 2,4 --sms 2 --events kill,return --settle-ms 1000 --json > "$work/drill.json" ||
  fail "drill --json: exit $?"
check drill "$work/drill.json"

# What the daemon also writes: an SM peer, a health finding; a description not UTF-8 (64 raw bytes
# from the fabric).
sqlite3 "$work/s.db" <<'SQL'
INSERT INTO sm_peers VALUES (4660, 3, 5, 2, 7, 0, 1764680000000, 1764680001000);
INSERT INTO health_findings VALUES ('symbol_error', 4660, 1, 2, 7, 'S1', 1, 4661, 2, 8, 'S2', 1,
  'SymbolErrorCounter +10', 1764680000000, 1764680001000, 1);
UPDATE nodes SET description = CAST(X'4843412dFF2031' AS TEXT) WHERE guid = (SELECT min(guid) FROM nodes);
SQL
lid=$("$fabricsm" show lids --db "$work/s.db" | awk 'NR == 3 { print $1 }')
for t in nodes links lids routes events sweeps sms counters health; do
  args=("$t")
  [ "$t" = routes ] && args+=("$lid")
  "$fabricsm" show "${args[@]}" --db "$work/s.db" --json > "$work/$t.json" || fail "show $t --json: exit $?"
  check "$t" "$work/$t.json"
done
echo "cli_json: sim, sim --compare, drill and show {nodes,links,lids,routes,events,sweeps,sms,counters,health} --json: OK"
