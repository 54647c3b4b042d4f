#!/usr/bin/env bash
# cli_config.sh FABRICSM SOURCE_ROOT: the configuration, without a fabric.
# - etc/fabricsm.conf is what `fabricsm run --dump-config` prints (every option at its default);
#   with every line uncommented it parses, and gives the defaults again.
# - Refused with the file, the line and the key (exit 2): an unknown key, a bad value, a key
#   given twice, a root GUID file with a bad line; the command line wins over the file; the
#   short forms (--priority, -R, --db) mean the long names.
# (The systemd units are checked as installed: tests/install/install.sh.)
set -u
FABRICSM=$(realpath "$1")
ROOT=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
log() { echo "[config] $*"; }
fail() { log "FAIL: $*"; failed=$((failed + 1)); }

# expect STATUS PATTERN ARGS...: `fabricsm run ARGS` exits STATUS, its stdout+stderr match PATTERN.
expect() {
  local want=$1 pattern=$2 rc; shift 2
  "$FABRICSM" run "$@" > "$work/out" 2>&1; rc=$?
  if [ $rc -ne "$want" ] || ! grep -q -e "$pattern" "$work/out"; then
    fail "run $* -> exit $rc (want $want), output:"; sed 's/^/    /' "$work/out" | head -5
  else
    log "run ${*//$work\//} -> $rc: $(grep -m1 -e "$pattern" "$work/out")"
  fi
}

# The shipped file is the dump of the defaults.
"$FABRICSM" run --dump-config > "$work/dump.conf" || fail "--dump-config failed"
if diff -u "$ROOT/etc/fabricsm.conf" "$work/dump.conf" > "$work/diff"; then
  log "etc/fabricsm.conf is --dump-config's output ($(grep -c '^# [a-z_]* =' "$work/dump.conf") options)"
else
  fail "etc/fabricsm.conf differs from --dump-config (regenerate it):"; head -20 "$work/diff"
fi
sed -E 's/^# ([a-z_]+ =)/\1/' "$ROOT/etc/fabricsm.conf" > "$work/all.conf"
"$FABRICSM" run --config "$work/all.conf" --dump-config > "$work/all.dump" 2>&1 || fail "uncommented file refused: $(cat "$work/all.dump")"
diff -q "$work/dump.conf" "$work/all.dump" > /dev/null || fail "the uncommented file does not give the defaults"

printf 'routing_engine = updn\n\n# a comment\nsm_priority = 3   # trailing comment\nno_such_key = 1\n' > "$work/bad.conf"
expect 2 'bad.conf:5: unknown key .no_such_key.' --config "$work/bad.conf" --dump-config
printf 'sm_priority = high\n' > "$work/bad2.conf"
expect 2 'bad2.conf:1: bad value for .sm_priority.' --config "$work/bad2.conf" --dump-config
printf 'sm_priority = 16\n' > "$work/bad3.conf"
expect 2 'bad3.conf:1: .*outside 0..15' --config "$work/bad3.conf" --dump-config
printf 'sweep_interval = 5\nsweep_interval = 6\n' > "$work/twice.conf"
expect 2 "twice.conf:2: 'sweep_interval' is given twice (first on line 1)" --config "$work/twice.conf" --dump-config
printf 'db_group = no-such-group\n' > "$work/group.conf"
expect 2 "group.conf:1: .*no group 'no-such-group'" --config "$work/group.conf" --dump-config
# Lines that are not key = value, directories, binary bytes and huge values (issue 15).
printf 'sm_priority = 3\nguid\n' > "$work/noeq.conf"
expect 2 "noeq.conf:2: 'guid' is not 'key = value' (or OpenSM's 'key value')" --config "$work/noeq.conf" --dump-config
mkdir -p "$work/dir.conf"
expect 2 'dir.conf: is a directory, not a configuration file' --config "$work/dir.conf" --dump-config
expect 2 'is a directory, not the partitions file' --partition_config_file "$work/dir.conf" --dump-config
printf 'sm_priority = \001\002\377\n' > "$work/binary.conf"
expect 2 "binary.conf:1: bad value for 'sm_priority': '.x01.x02.xff' is not a number" --config "$work/binary.conf" --dump-config
python3 -c "print('log_level = ' + 'x' * 1000000)" > "$work/huge.conf"
expect 2 "huge.conf:1: bad value for 'log_level': 'xxxx*'... (1000000 bytes) is not" --config "$work/huge.conf" --dump-config
[ "$(wc -c < "$work/out")" -lt 400 ] || fail "a 1 MB value is echoed into the error ($(wc -c < "$work/out") bytes)"
printf 'routing_engine = nosuch\n' > "$work/engine.conf"
expect 2 "engine.conf:1: bad value for 'routing_engine'" --config "$work/engine.conf" --dump-config
printf '0x0002c903000000aa\n# comment\nnot-a-guid\n' > "$work/roots"
expect 2 'roots:3: .not-a-guid. is not a GUID' --root_guid_file "$work/roots" --dump-config
expect 2 'cannot read' --config "$work/missing.conf" --dump-config
expect 2 'unrecognised option' --no-such-option
printf 'sm_priority = 3\nrouting_engine = updn\n' > "$work/good.conf"
# The settings in effect are active lines of the dump (it was all comments: not usable as a config).
expect 0 '^sm_priority = 7$' --config "$work/good.conf" --priority 7 -R minhop --db "$work/x.db" --dump-config \
  --sm_key 0xabc
grep -q '^routing_engine = minhop$' "$work/out" && grep -q "^db_path = $work/x.db$" "$work/out" &&
  grep -q '^sm_key = 0x0000000000000abc$' "$work/out" && grep -q '^# lmc = 0$' "$work/out" ||
  fail "short forms / command line not applied"
# OpenSM's short options.
expect 0 '^sm_priority = 9$' -p 9 -s 3 -l 1 --dump-config
grep -q '^sweep_interval = 3$' "$work/out" && grep -q '^lmc = 1$' "$work/out" || fail "OpenSM's -s/-l not applied"

exit $failed
