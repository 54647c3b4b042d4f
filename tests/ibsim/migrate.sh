#!/usr/bin/env bash
# migrate.sh FABRICSM NETFILE: from OpenSM to fabricsm on ibsim. OpenSM brings the fabric up and
# writes its guid2lid cache; then fabricsm, reading OpenSM's generated opensm.conf (with one
# setting changed) and that cache:
#   - on the running fabric, moves no LID;
#   - on a fresh ibsim of the same file (every LID 0), gives every port OpenSM's LID, where
#     without the cache it would give others (so the check can fail);
#   - says what of the opensm.conf it does not carry over, and a missing partitions file
#     (Debian's default path) is a warning with the default partition, not a refusal;
#   - `config import` turns the opensm.conf into a fabricsm.conf that `run` reads;
#   - SIGUSR1 (OpenSM's logrotate) does not stop the daemon; --version answers.
. "$(dirname "$0")/lib.sh"

FABRICSM=$(realpath "$1")
NET=$2
[ -f "$NET" ] || { echo "SKIP: $NET not found"; exit 77; }
ibsim_init migrate-$$
name="migrate $(basename "$NET")"

opensm --create-config "$work/opensm.conf" > /dev/null 2>&1 || { fail "opensm --create-config"; exit 1; }
# The operator's change: a priority; the partitions file stays at Debian's default path.
sed -i -e 's/^sm_priority 0$/sm_priority 5/' \
       -e "s|^partition_config_file .*|partition_config_file $work/no-such-partitions.conf|" "$work/opensm.conf"
grep -q '^sm_priority 5$' "$work/opensm.conf" || { fail "sm_priority not in OpenSM's generated file"; exit 1; }

ibsim_start "$NET" || exit 1
bring_up opensm || exit 1
cp "$work/guid2lid" "$work/osm.guid2lid" || { fail "OpenSM wrote no guid2lid"; exit 1; }
port_lids > "$work/osm.lids"
log "OpenSM: $(grep -c . "$work/osm.guid2lid") ports in its guid2lid, $(wc -l < "$work/osm.lids") ports seen"

# 1. Replacing OpenSM on the running fabric.
bring_up fabricsm --config "$work/opensm.conf" --guid2lid "$work/osm.guid2lid" || exit 1
port_lids > "$work/running.lids"
if diff -q "$work/osm.lids" "$work/running.lids" > /dev/null; then
  log "running fabric: no LID moved OK"
else
  fail "LIDs moved on the running fabric:"; diff "$work/osm.lids" "$work/running.lids" | head -5
fi
grep -q 'W0124.*OpenSM options fabricsm does not implement' "$work/sm.log" &&
  fail "the generated opensm.conf (defaults only) gave an ignored-options warning"
grep -q "W0124.*partition_config_file $work/no-such-partitions.conf does not exist" "$work/sm.log" ||
  fail "no warning for the missing partitions file"
grep -q 'I0101.*priority 5' "$work/sm.log" || fail "sm_priority 5 from opensm.conf not in effect"

# 2. A fabric that lost its LIDs: without the cache, fabricsm's own; with it, OpenSM's.
ibsim_stop; ibsim_start "$NET" || exit 1
bring_up fabricsm --config "$work/opensm.conf" || exit 1
port_lids > "$work/own.lids"
ibsim_stop; ibsim_start "$NET" || exit 1
bring_up fabricsm --config "$work/opensm.conf" --guid2lid "$work/osm.guid2lid" || exit 1
port_lids > "$work/fresh.lids"
differ=$(diff "$work/osm.lids" "$work/own.lids" | grep -c '^>')
if [ "$differ" -eq 0 ]; then
  fail "fabricsm's own LIDs are OpenSM's already: the check below could not fail"
elif diff -q "$work/osm.lids" "$work/fresh.lids" > /dev/null; then
  log "fresh fabric: every port got OpenSM's LID back ($differ would differ without guid2lid) OK"
else
  fail "LIDs on the fresh fabric are not OpenSM's:"; diff "$work/osm.lids" "$work/fresh.lids" | head -5
fi
grep -q 'I0304.*guid2lid' "$work/sm.log" || fail "no I0304 line for the imported LIDs"

# 3. config import: a fabricsm.conf that run reads, meaning the same.
if "$FABRICSM" config import "$work/opensm.conf" > "$work/imported.conf" 2> "$work/import.err"; then
  grep -q '^sm_priority = 5$' "$work/imported.conf" || fail "config import: no 'sm_priority = 5' line"
  "$FABRICSM" run --config "$work/imported.conf" --dump-config > "$work/dump1" 2>&1 || fail "run does not read the import"
  "$FABRICSM" run --config "$work/opensm.conf" --dump-config > "$work/dump2" 2>&1 || fail "run does not read opensm.conf"
  diff -q "$work/dump1" "$work/dump2" > /dev/null && log "config import: the same settings as opensm.conf OK" ||
    fail "config import and opensm.conf differ: $(diff "$work/dump1" "$work/dump2" | head -4)"
else
  fail "config import failed: $(cat "$work/import.err")"
fi
echo "no_such_option 1" >> "$work/opensm.conf"
out=$("$FABRICSM" config check "$work/opensm.conf" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "opensm.conf:$(wc -l < "$work/opensm.conf"): unknown key 'no_such_option'" <<< "$out" ||
  fail "an unknown key: exit $rc, $out"

# 4. SIGUSR1 and --version.
rm -f "$work/fabricsm.db"*
sm_daemon fabricsm --guid2lid "$work/osm.guid2lid" || exit 1
kill -USR1 "$sm_pid"; sleep 0.5
kill -0 "$sm_pid" 2>/dev/null && log "SIGUSR1: the daemon runs on OK" || fail "SIGUSR1 stopped the daemon"
sm_stop TERM
"$FABRICSM" --version | grep -qE '^fabricsm [0-9]+\.[0-9]+' || fail "--version"

exit $failed
