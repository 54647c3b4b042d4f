#!/usr/bin/env bash
# daemon.sh FABRICSM NETFILE: `fabricsm run` as systemd runs it, on ibsim.
# - Type=notify: with our own $NOTIFY_SOCKET (and WATCHDOG_USEC), READY=1 comes after SUBNET
#   UP, with STATUS= lines and WATCHDOG=1 pings.
# - The control socket: `fabricsm status` (text and JSON) says Master and subnet up;
#   `status --resweep` makes a heavy sweep, which sends no PortInfo Set to the unchanged fabric.
# - The store, read while the daemon runs: `fabricsm show nodes/sweeps/events/sms`.
# - SIGHUP: a good change (routing_engine) is taken and re-routes; a bad file is refused, the
#   daemon keeps running with its settings; restart-only keys (sm_priority, lmc) are reported as such.
# - SIGTERM: STOPPING=1, exit 0. A restart on the same database keeps every LID and writes no
#   LFT block. The store is 0640 and group db_group even under umask 000.
. "$(dirname "$0")/lib.sh"

FABRICSM=$(realpath "$1")
NET=$2
[ -f "$NET" ] || { echo "SKIP: $NET not found"; exit 77; }
ibsim_init daemon-$$
name="daemon $(basename "$NET")"
ibsim_start "$NET" || exit 1

# The notify socket: every datagram, one per line (newlines inside become '|').
python3 - "$work/notify.sock" "$work/notify.txt" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a", buffering=1) as out:
    while True:
        out.write(s.recv(4096).decode().replace("\n", "|") + "\n")
PY
notify_pid=$!
trap 'kill $notify_pid 2>/dev/null; ibsim_cleanup' EXIT
for _ in $(seq 100); do [ -S "$work/notify.sock" ] && break; sleep 0.05; done

conf=$work/fabricsm.conf
printf 'routing_engine = minhop\ndb_path = %s\ncontrol_socket = %s\nsweep_interval = 0\ndb_group = daemon\n' \
  "$work/fabricsm.db" "$work/sm.sock" > "$conf"
start_daemon() {
  (cd "$work/cwd" && umask 000 && NOTIFY_SOCKET=$work/notify.sock WATCHDOG_USEC=400000 LD_PRELOAD=$SHIM \
     exec "$FABRICSM" run --config "$conf" 2> "$work/daemon.log") &
  sm_pid=$!
}
wait_for() {  # wait_for PATTERN FILE [TENTHS]
  local i=0
  until grep -q -e "$1" "$2" 2>/dev/null; do
    i=$((i + 1)); [ $i -gt "${3:-300}" ] && return 1
    sleep 0.1
  done
}
status() { "$FABRICSM" status --socket "$work/sm.sock" "$@"; }

start_daemon
wait_for 'SUBNET UP' "$work/daemon.log" || { fail "no SUBNET UP"; tail -5 "$work/daemon.log"; exit 1; }
wait_for '^READY=1' "$work/notify.txt" 50 && log "notify: $(grep -m1 '^READY=1' "$work/notify.txt")" ||
  fail "no READY=1 after SUBNET UP: $(cat "$work/notify.txt")"
sleep 1
n=$(grep -c '^WATCHDOG=1' "$work/notify.txt")
[ "$n" -ge 2 ] && log "notify: $n WATCHDOG=1 in the first second or so (WATCHDOG_USEC=400000)" ||
  fail "WATCHDOG=1 sent $n times"

out=$(status) || fail "fabricsm status failed"
grep -q 'Master, subnet up' <<< "$out" && log "status: $(head -1 <<< "$out")" || fail "status: $out"
json=$(status --json)
python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["state"]=="Master" and d["subnet_up"] and d["commits"]>=1 and d["failed_commits"]==0, d' \
  "$json" && log "status --json: state Master, subnet_up, committed" || fail "status --json: $json"
# The SM's own port shows the LID the bring-up gave it, not the 0 it had when the daemon opened it.
own=$(lid_of)
python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["port"]["lid"] == int(sys.argv[2]) != 0, d["port"]' \
  "$json" "$own" && grep -q "LID $own\$" <<< "$out" && log "status: the SM's port has LID $own" ||
  fail "status shows the SM's port with LID $(grep -o 'LID [0-9]*$' <<< "$out"), the port has LID $own"

sweeps=$(grep -c 'I0104\|I0105' "$work/daemon.log")
status --resweep > /dev/null || fail "status --resweep failed"
wait_for 'heavy sweep requested: asked for on the control socket' "$work/daemon.log" 30 || fail "resweep not asked for"
i=0; until [ "$(grep -c 'I0104\|I0105' "$work/daemon.log")" -gt "$sweeps" ] || [ $i -gt 100 ]; do i=$((i + 1)); sleep 0.1; done
[ "$(grep -c 'I0104\|I0105' "$work/daemon.log")" -gt "$sweeps" ] && log "status --resweep: a heavy sweep ran" ||
  fail "no sweep after --resweep"
# ibsim keeps neither SubnetTimeOut nor M_KeyLeasePeriod: the first sweep's Sets taught that, and
# a heavy sweep of the unchanged fabric sends no PortInfo Set (it sent one per LID before).
sets=$(grep 'I0503' "$work/daemon.log" | tail -1 | grep -o '[0-9]* port Sets' | awk '{ print $1 }')
[ "$sets" = 0 ] && log "the resweep of an unchanged fabric: 0 PortInfo Sets" ||
  fail "the resweep of an unchanged fabric sent ${sets:-?} PortInfo Sets: $(grep 'I0503' "$work/daemon.log" | tail -1)"

# The store while the daemon runs: mode 0640 and group db_group, even under umask 000.
show() { "$FABRICSM" show "$@" --db "$work/fabricsm.db"; }
modes=$(cd "$work" && stat -c '%n %a %G' fabricsm.db fabricsm.db-wal fabricsm.db-shm | tr '\n' ' ')
[ "$modes" = "fabricsm.db 640 daemon fabricsm.db-wal 640 daemon fabricsm.db-shm 640 daemon " ] &&
  log "store files: $modes" || fail "store files (want 640, group daemon): $modes"
nodes=$(show nodes | tail -n +2 | wc -l)
want=$(grep -c -E '^(Switch|Hca|Ca)' "$NET")
[ "$nodes" -eq "$want" ] && log "show nodes: $nodes nodes, as in the net file" || fail "show nodes: $nodes, want $want"
show sweeps | grep -q 'minhop' && log "show sweeps: $(show sweeps | tail -n +2 | wc -l) sweeps recorded" ||
  fail "show sweeps: $(show sweeps)"
show events | grep -q 'SUBNET UP' || fail "show events has no SUBNET UP: $(show events | tail -3)"
# The same stack on the in-process simulator leaves the same store: the same LIDs and routes.
"$FABRICSM" sim -t "$NET" --routing minhop --db "$work/sim.db" --log-level error > /dev/null || fail "fabricsm sim --db"
sim_show() { "$FABRICSM" show "$@" --db "$work/sim.db"; }
cols() { awk '{ print $1, $2, $3, $4, $5 }'; }  # without the first/last seen times
lid=$(show lids | awk 'NR == 3 { print $1 }')
if diff <(show lids | cols) <(sim_show lids | cols) > /dev/null &&
   diff <(show routes "$lid") <(sim_show routes "$lid") > /dev/null; then
  log "fabricsm sim --db: the same $(show lids | tail -n +2 | wc -l) LIDs and the same routes to LID $lid as the daemon's store"
else
  fail "fabricsm sim --db and the daemon stored other LIDs or routes: $(diff <(show lids | cols) <(sim_show lids | cols) | head -4)"
fi

# SIGHUP: a good change, then a bad file, then a restart-only key.
sed -i 's/^routing_engine = minhop/routing_engine = updn/' "$conf"
kill -HUP $sm_pid
wait_for 'I0117.*routing_engine = updn' "$work/daemon.log" 30 || fail "SIGHUP: no reload line"
wait_for 'routing: updn' "$work/daemon.log" 100 && log "SIGHUP: routing_engine = updn taken, re-routed with updn" ||
  fail "SIGHUP: not re-routed with updn"
cp "$conf" "$work/good.conf"
echo 'no_such_key = 1' >> "$conf"
kill -HUP $sm_pid
wait_for 'E0116.*no_such_key' "$work/daemon.log" 30 && log "SIGHUP, bad file: $(grep -m1 -o 'E0116.*' "$work/daemon.log")" ||
  fail "SIGHUP: bad file not refused"
sleep 0.3
kill -0 $sm_pid 2>/dev/null && status | grep -q 'Master, subnet up' || fail "the daemon did not keep running after a bad SIGHUP"
grep -q '"routing_engine": "updn"' <<< "$(status --json)" || fail "settings changed by a refused file"
cp "$work/good.conf" "$conf"
printf 'sm_priority = 9\nlmc = 1\n' >> "$conf"
kill -HUP $sm_pid
wait_for 'W0119.*sm_priority = 9, lmc = 1' "$work/daemon.log" 30 && log "SIGHUP, restart-only keys: $(grep -m1 -o 'W0119.*' "$work/daemon.log")" ||
  fail "SIGHUP: sm_priority and lmc changes not reported as restart-only"
cp "$work/good.conf" "$conf"
grep -q 'RELOADING=1' "$work/notify.txt" || fail "no RELOADING=1 on SIGHUP"

# SIGTERM: clean stop; then a restart on the same database changes nothing.
port_lids > "$work/lids.before"
sm_stop TERM; rc=$?
[ $rc -eq 0 ] && grep -q 'STOPPING=1' "$work/notify.txt" && log "SIGTERM: exit 0, STOPPING=1" ||
  fail "SIGTERM: exit $rc, notify: $(tail -2 "$work/notify.txt")"
: > "$work/notify.txt"
start_daemon
wait_for 'SUBNET UP' "$work/daemon.log" || fail "no SUBNET UP after the restart"
line=$(grep -m1 'I0704' "$work/daemon.log")
log "restart: ${line#*]: }"
blocks=$(grep -m1 'I0503' "$work/daemon.log" | sed -E 's/.*programming: ([0-9]+) LFT blocks written.*/\1/')
lids=$(grep -m1 'I0303' "$work/daemon.log" | sed -E 's/.*LIDs: //')
[ "$blocks" = 0 ] && log "restart: 0 LFT blocks written; LIDs: $lids" || fail "restart wrote $blocks LFT blocks"
port_lids > "$work/lids.after"
diff -q "$work/lids.before" "$work/lids.after" > /dev/null && log "restart: all $(wc -l < "$work/lids.after") ports keep their LIDs" ||
  fail "LIDs changed across the restart"
# Sweep numbers go on across the restart (one number a sweep in the store).
dup=$(sqlite3 "$work/fabricsm.db" 'SELECT count(*) - count(DISTINCT number) FROM sweeps')
[ "$dup" = 0 ] && log "restart: sweep numbers go on ($(sqlite3 "$work/fabricsm.db" 'SELECT group_concat(number) FROM sweeps'))" ||
  fail "sweep numbers repeat across the restart: $(sqlite3 "$work/fabricsm.db" 'SELECT group_concat(number) FROM sweeps')"
sm_stop TERM || fail "second SIGTERM: non-zero exit"

# A log file (OpenSM's -f): timestamps and codes, 0640, reopened on SIGUSR1 after logrotate's
# move. Light sweeps a second: a second SM on the same port (no SIM_HOST) clears IsSM when it
# exits (ibsim does); the master takes it back.
(cd "$work/cwd" && LD_PRELOAD=$SHIM exec "$FABRICSM" run --config "$conf" --sweep_interval 1 -f "$work/sm-file.log" \
   2> "$work/daemon.log") &
sm_pid=$!
wait_for 'SUBNET UP' "$work/sm-file.log" || fail "log file: no SUBNET UP in it"
grep -q -E '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}[+-][0-9]{4} fabricsm\[I0101\]: starting' "$work/sm-file.log" &&
  cmp -s <(sed -E 's/^[^ ]+ //' "$work/sm-file.log" | head -5) <(grep '^fabricsm\[' "$work/daemon.log" | head -5) &&
  log "log file: $(head -1 "$work/sm-file.log")" || fail "log file lines: $(head -2 "$work/sm-file.log")"
[ "$(stat -c %a "$work/sm-file.log")" = 640 ] || fail "log file mode $(stat -c %a "$work/sm-file.log"), want 640"
mv "$work/sm-file.log" "$work/sm-file.log.1"
kill -USR1 "$sm_pid"
wait_for 'I0131' "$work/sm-file.log" 30 && kill -0 "$sm_pid" && log "SIGUSR1: $(grep -m1 -o 'I0131.*' "$work/sm-file.log")" ||
  fail "SIGUSR1: no reopened log file"
is_sm() { shim smpquery -D portinfo 0 2>/dev/null | grep -q 'IsSM'; }
is_sm || fail "the master's port has no IsSM"
(cd "$work/cwd" && LD_PRELOAD=$SHIM timeout 60 "$FABRICSM" run --once --sm_priority 0 --db_path "$work/second.db" \
   --control_socket "$work/second.sock" > "$work/second.log" 2>&1)
wait_for 'W0130' "$work/sm-file.log" 50 && is_sm &&
  log "a second SM on the master's port came and went: $(grep -m1 -o 'W0130.*' "$work/sm-file.log"); IsSM set" ||
  fail "IsSM after a second SM on the same port: $(shim smpquery -D portinfo 0 2>&1 | grep CapMask)"
sm_stop TERM || fail "third SIGTERM: non-zero exit"
exit $failed
