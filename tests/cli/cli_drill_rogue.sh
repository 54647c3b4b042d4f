#!/usr/bin/env bash
# `fabricsm drill --config FILE --events rogue`: a host that runs no SM sends LFT and PortInfo
# Sets to the master's switch. With M_Key protection from the config file (a secret file, level
# 1) every Set is refused and the SM reports the violation (E0610) at once: exit 0. With
# protection level 0 (the same secret) or no key at all the attack lands (routes changed), the
# SM's LFT read-back and light sweep repair it, and the drill fails: exit 1. A config file that
# cannot be read is a usage error (exit 2), as for `fabricsm run`.
set -uo pipefail
fabricsm=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

umask 077
head -c 32 /dev/urandom > "$work/secret"
printf 'm_key_secret_file = %s\nm_key_protection_level = 1\n' "$work/secret" > "$work/protected.conf"
printf 'm_key_secret_file = %s\nm_key_protection_level = 0\n' "$work/secret" > "$work/level0.conf"
printf '# no M_Key\nsweep_interval = 10\n' > "$work/nokey.conf"

# drill CONF NAME EXPECTED_EXIT: the rogue event on the small fabric, its JSON in $work/NAME.json.
drill() {
  "$fabricsm" drill --fat-tree 3,8 --config "$1" --events rogue --json > "$work/$2.json" 2> "$work/$2.err"
  local rc=$?
  [ "$rc" -eq "$3" ] || { cat "$work/$2.err"; fail "$2: exit $rc, expected $3"; }
}

drill "$work/protected.conf" protected 0
drill "$work/level0.conf" level0 1
drill "$work/nokey.conf" nokey 1
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
def rogue(name):
    j = json.load(open(f"{work}/{name}.json"))
    assert [e["event"] for e in j["events"]] == ["rogue"], j["events"]
    e = j["events"][0]
    assert e["one_master"] and e["lids_changed"] == 0, e
    return j, e, e["rogue"]

j, e, r = rogue("protected")
assert j["ok"] is True and r["ok"] is True, r
assert r["attempts"] >= 2 and r["refused"] == r["attempts"] and r["taken"] == 0, r
assert r["routes_changed"] is False and r["repaired_ms"] is None, r
assert "hidden" in r["key_read"], r                   # level 1: the Get shows no key
assert r["reported_ms"] is not None and r["reported_ms"] < 5, r   # trap 256: within microseconds
assert r["reported_by"] == "sm1 E0610", r             # the master, from the trap
assert e["routed"] is True and e["lft_blocks"] == 0, e
print("protected: %d Sets, %d refused, reported after %.3f ms (%s)"
      % (r["attempts"], r["refused"], r["reported_ms"], r["reported_by"]))

for name, key in (("level0", "shown"), ("nokey", "none")):
    j, e, r = rogue(name)
    assert j["ok"] is False and r["ok"] is False, r
    assert key in r["key_read"], r
    assert r["attempts"] >= 2 and r["taken"] == r["attempts"] and r["refused"] == 0, r
    assert r["routes_changed"] is True, r
    assert r["reported_ms"] is None, r                # nothing refused: no violation to report
    # The port comes back at the next light sweep, the LFT blocks when the read-back reaches
    # them (lft_verify_pass 32 light sweeps of 10 s at most).
    assert r["repaired_ms"] is not None and 0 < r["repaired_ms"] <= 330000, r
    assert e["routed"] is True and e["lft_blocks"] >= 2 * (r["attempts"] - 1), e
    print("%s: %d Sets taken, routes changed, repaired after %.0f ms" % (name, r["taken"], r["repaired_ms"]))
PY
[ $? -eq 0 ] || fail "figures (above)"

# The text table says the same.
"$fabricsm" drill --fat-tree 3,8 --config "$work/protected.conf" --events rogue > "$work/text.txt" 2> /dev/null ||
  fail "text drill"
grep -q 'Set(s): [0-9]* refused, 0 taken; routes unchanged' "$work/text.txt" &&
  grep -q 'violation reported after' "$work/text.txt" &&
  grep -q 'every rogue Set refused and reported' "$work/text.txt" || { cat "$work/text.txt"; fail "text output"; }

# A config file that cannot be used: exit 2, naming the problem; the drill does not run.
chmod 0644 "$work/secret"
printf 'no_such_option = 1\n' > "$work/bad.conf"
for conf in "$work/missing.conf" "$work/bad.conf" "$work/protected.conf"; do
  "$fabricsm" drill --fat-tree 3,8 --config "$conf" --events rogue > "$work/out.txt" 2> "$work/err.txt"
  rc=$?
  [ $rc -eq 2 ] && [ -s "$work/err.txt" ] && [ ! -s "$work/out.txt" ] ||
    fail "--config $conf: exit $rc, $(cat "$work/err.txt")"
done
grep -q 'm_key_secret_file' "$work/err.txt" || fail "a world-readable secret: $(cat "$work/err.txt")"
echo "cli_drill_rogue: OK"
