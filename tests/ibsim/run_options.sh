#!/usr/bin/env bash
# run_options.sh FABRICSM: `fabricsm run`'s port selection, errors and options on a small ibsim
# fabric: clear errors (exit 1) for no device, a CA or port GUID that does not exist; usage
# errors (exit 2) for a bad --db or config file, with the file's line; a config file that
# sets the options; the port chosen by --ca/--port and by GUID; SIGINT stops the daemon with
# exit status 0; a store that refuses writes makes `--once` fail (exit 1); -B runs it in the
# background with its log file.
. "$(dirname "$0")/lib.sh"

FABRICSM=$(realpath "$1")
ibsim_init options-$$
name="run options"
failed=0

# expect STATUS PATTERN CMD...: CMD exits with STATUS and its stderr matches PATTERN.
expect() {
  local want=$1 pattern=$2 rc; shift 2
  (cd "$work/cwd" && "$@") > /dev/null 2> "$work/err.txt"; rc=$?
  if [ $rc -ne "$want" ] || ! grep -q -e "$pattern" "$work/err.txt"; then
    log "FAIL: '$*' exit $rc (want $want), stderr:"; sed 's/^/    /' "$work/err.txt"; failed=$((failed + 1))
  else
    log "'${*#"$FABRICSM" }' -> $rc: $(grep -m1 -e "$pattern" "$work/err.txt")"
  fi
}

run=("$FABRICSM" run --once --db "$work/fabricsm.db" --control_socket "$work/sm.sock")
expect 1 'no InfiniBand device found' env -u LD_PRELOAD "${run[@]}"
expect 2 'directory /nonexistent does not exist' "$FABRICSM" run --once --db /nonexistent/fabricsm.db
printf 'routing_engine = updn\n\n# a comment\nsm_priority = 3   # trailing comment\nno-such-key = 1\n' > "$work/bad.conf"
expect 2 'bad.conf:5: unknown key .no-such-key.' "${run[@]}" --config "$work/bad.conf"
printf 'sm_priority = high\n' > "$work/bad2.conf"
expect 2 'bad2.conf:1: .*sm_priority' "${run[@]}" --config "$work/bad2.conf"

ibsim_start "$NET_EXAMPLES/net.2sw2path4hca" || exit 1
expect 1 'CA nosuch has no InfiniBand port' env LD_PRELOAD=$SHIM "${run[@]}" --ca nosuch
expect 1 'no local port has GUID 0x0000000000001234' env LD_PRELOAD=$SHIM "${run[@]}" --port-guid 0x1234
# --ca and --port: the shim shows the node a client attaches to (SIM_HOST) as CA "ibsim0",
# whatever its name in the file (ibstat under the shim); Hca2 shows its port 1 only.
expect 1 'CA ibsim0 has no port 2' env SIM_HOST=Hca2 LD_PRELOAD=$SHIM "${run[@]}" --ca ibsim0 --port 2
expect 0 'on ibsim0 port 1 (port GUID 0x0000000000100004' \
  env SIM_HOST=Hca2 LD_PRELOAD=$SHIM "${run[@]}" --ca ibsim0 --port 1
# The SM's port in this file is Switch1's port 0, GUID 0x200000 (ibsim's numbering).
printf 'routing_engine = updn\nsm_priority = 3 # trailing comment\nguid = 0x200000\ndb_path = %s\ncontrol_socket = %s\n' \
  "$work/fabricsm.db" "$work/sm.sock" > "$work/good.conf"
expect 0 'starting: routing updn, .* priority 3' env LD_PRELOAD=$SHIM "$FABRICSM" run --once --config "$work/good.conf"
expect 0 'SUBNET UP' env LD_PRELOAD=$SHIM "$FABRICSM" run --once --config "$work/good.conf" --routing minhop

# A store that takes nothing (immutable: even root cannot write it): `--once` reaches SUBNET UP
# but fails, naming the file, instead of exiting 0 with nothing stored.
if chattr +i "$work/fabricsm.db" 2> /dev/null; then
  expect 1 "E0702.*$work/fabricsm.db" env LD_PRELOAD=$SHIM "$FABRICSM" run --once --config "$work/good.conf"
  chattr -i "$work/fabricsm.db"
  grep -q 'E0123' "$work/err.txt" || { log "FAIL: no E0123 for a store that took nothing"; failed=$((failed + 1)); }
else
  log "FAIL: chattr +i does not work here: cannot make a store that refuses writes"; failed=$((failed + 1))
fi

# The daemon stops on SIGINT with exit status 0.
(cd "$work/cwd" && LD_PRELOAD=$SHIM exec "$FABRICSM" run --db "$work/fabricsm.db" --control_socket "$work/sm.sock" \
   2> "$work/daemon.log") &
sm_pid=$!
i=0
until grep -q 'SUBNET UP' "$work/daemon.log" 2>/dev/null || [ $i -gt 200 ]; do i=$((i + 1)); sleep 0.05; done
sm_stop INT; rc=$?
if [ $rc -eq 0 ] && grep -q 'stopping on SIGINT' "$work/daemon.log"; then
  log "SIGINT: exit status 0"
else
  log "FAIL: SIGINT gave exit status $rc"; tail -3 "$work/daemon.log"; failed=$((failed + 1))
fi
# OpenSM's -B: the command returns at once, the SM runs detached and logs to its -f file only;
# without a log file it is refused.
expect 2 'daemon: a daemon in the background has no stderr' "$FABRICSM" run -B --once --db "$work/bg.db"
out=$(cd "$work/cwd" && LD_PRELOAD=$SHIM timeout 10 "$FABRICSM" run -B --once --db "$work/bg.db" \
        --control_socket "$work/bg.sock" -f "$work/bg.log" 2> "$work/bg.err")
bg=$(grep -o 'PID [0-9]*' <<< "$out" | grep -o '[0-9]*')
i=0
until grep -q 'SUBNET UP' "$work/bg.log" 2>/dev/null || [ $i -gt 200 ]; do i=$((i + 1)); sleep 0.05; done
i=0
while [ -n "$bg" ] && kill -0 "$bg" 2>/dev/null && [ $i -lt 200 ]; do i=$((i + 1)); sleep 0.05; done
if [ -n "$bg" ] && grep -q 'SUBNET UP' "$work/bg.log" && [ ! -s "$work/bg.err" ] && ! kill -0 "$bg" 2>/dev/null; then
  log "-B: in the background as PID $bg, SUBNET UP in its log file, nothing on the terminal"
else
  log "FAIL: -B: '$out', log: $(tail -2 "$work/bg.log" 2>&1), stderr: $(cat "$work/bg.err")"; failed=$((failed + 1))
fi
[ -z "$(ls "$work/cwd")" ] || { log "FAIL: the shim's sys-<pid> directories were left behind: $(ls "$work/cwd")"; failed=$((failed + 1)); }
exit $failed
