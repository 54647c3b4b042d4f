#!/usr/bin/env bash
# ha_busy.sh FABRICSM NETFILE: a busy master is not a lost one, a hung one steps down, a stopped
# one is replaced. Two `fabricsm run` on one ibsim, at different CAs, priorities 10 and 5; sminfo
# from a third CA. Three drills, each on a fresh ibsim:
# 1. Busy: every routing after the first takes 1.5 s longer on the master's worker
#    (FABRICSM_TEST_ROUTING_DELAY=2:1500); three heavy sweeps asked for (`status --resweep`). The
#    standby logs no 'lost' and never enters Master, the master's longest loop turn (status
#    --json) stays under 200 ms, and sminfo from the third CA shows it as MASTER throughout.
#    Negative control: the same with FABRICSM_TEST_WORKER_INLINE=1 (the loop waits for the
#    worker, as when routing ran on it) makes the standby log 'lost': the drill can fail.
# 2. Hung: routing never ends (FABRICSM_TEST_ROUTING_DELAY=2:100000000), worker_timeout 2 s;
#    after a resweep the master logs E0410, hands over, exits 1 (E0134), and the standby
#    answers as MASTER within 5 s of the timeout (7 s from the resweep).
# 3. SIGSTOP of the master: the standby answers as MASTER within 3 s (target under 1 s); after
#    SIGCONT the old master does not stay a second master (at most one Master within 5 s).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ha_lib.sh"

FABRICSM=$(realpath "$1")
NET=$2
[ -f "$NET" ] || { echo "SKIP: $NET not found"; exit 77; }
ha_init ha-busy-$$
name="HA busy $(basename "$NET")"

mapfile -t cas < <(ca_names "$NET")
A=${cas[0]}
B=${cas[$((${#cas[@]} / 2))]}
C=${cas[$((${#cas[@]} - 1))]}
short() { printf '0x%x' "$1"; }  # sminfo prints GUIDs without leading zeros
status_of() { local n=$1; shift; "$FABRICSM" status --socket "$work/$n.sock" "$@"; }
# json_of NAME EXPR: a field of the daemon's `status --json` (EXPR in Python, on d), or "-".
json_of() {
  status_of "$1" --json 2>/dev/null |
    python3 -c "import json, sys; d = json.load(sys.stdin); print($2)" 2>/dev/null || echo -
}
loop_figures() {
  json_of "$1" '"turns {} longest {} ms ({}) p99 {} ms, {} over 50 ms".format(d["loop"]["turns"], d["loop"]["longest_ms"], d["loop"]["longest_doing"] or "-", d["loop"]["p99_ms"], d["loop"]["over_50ms"])'
}
# sminfo with a bound: a client that no SM answers waits on (the shim ignores umad timeouts).
sminfo_c() {
  local host=$1; shift
  (cd "$work/cwd" && timeout 5 env SIM_HOST="$host" LD_PRELOAD=$SHIM sminfo "$@" 2>&1 | grep -v 'sim_connect: attached')
}
# state_of NAME: the daemon's state from `status` (Master, Standby, ...), or "-".
state_of() { status_of "$1" 2>/dev/null | sed -n -E '1s/^[^:]*: ([A-Za-z]+).*/\1/p' | grep . || echo -; }
guid_of() { grep -m1 -o 'port GUID 0x[0-9a-f]*' "$work/$1.log" | awk '{ print $3 }'; }
sweeps_done() { grep -c 'I0105' "$work/$1.log"; }

# pair_up MASTER STANDBY [MASTER ARGS...]: a fresh ibsim, MASTER (priority 10) at $A up, then
# STANDBY (priority 5) at $B in Standby; sets guid_m, guid_s, lid_s.
pair_up() {
  local m=$1 s=$2; shift 2
  ibsim_stop
  ibsim_start "$NET" || exit 1
  start_fabricsm "$m" "$A" --priority 10 "$@"
  wait_log "$m" 'SUBNET UP' 60 || exit 1
  start_fabricsm "$s" "$B" --priority 5
  wait_log "$s" 'entering Standby' 30 || exit 1
  guid_m=$(guid_of "$m"); guid_s=$(guid_of "$s")
  lid_s=$(lid_of "$B")
  local out
  out=$(sminfo_c "$C")
  grep -q "sm guid $(short "$guid_m"),.*state 3 SMINFO_MASTER" <<< "$out" || fail "$m: sminfo from $C: $out"
}

# 1. busy_drill worker|inline: three heavy sweeps on a master whose routing takes 1.5 s longer.
busy_drill() {
  local mode=$1 m=busy-$1 s=standby-$1 inline=0 i n t0 t1 ms rc pid polls=0 bad=0 lost entered longest slowest=0
  [ "$mode" = inline ] && inline=1
  FABRICSM_TEST_ROUTING_DELAY=2:1500 FABRICSM_TEST_WORKER_INLINE=$inline pair_up "$m" "$s"
  grep -q 'test only: routing from the 2th on' "$work/$m.log" || fail "$m: FABRICSM_TEST_ROUTING_DELAY not taken"
  log "$mode: before the resweeps, the master's loop: $(loop_figures "$m")"
  for i in 1 2 3; do
    n=$(sweeps_done "$m")
    t0=$(now)
    status_of "$m" --resweep > /dev/null 2>&1 &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do  # the third CA asks who is master meanwhile
      polls=$((polls + 1))
      t1=$(now)
      out=$(sminfo_c "$C")
      slowest=$(awk -v s="$slowest" -v d="$(elapsed "$t1" "$(now)")" 'BEGIN { print (d > s) ? d : s }')
      grep -q "sm guid $(short "$guid_m"),.*state 3 SMINFO_MASTER" <<< "$out" ||
        { bad=$((bad + 1)); [ $bad -le 3 ] && log "$mode: sminfo from $C during resweep $i: ${out:-no answer}"; }
      sleep 0.1
    done
    wait "$pid"; rc=$?
    [ $rc -eq 0 ] || fail "$m: status --resweep exit status $rc"
    for _ in $(seq 600); do [ "$(sweeps_done "$m")" -gt "$n" ] && break; sleep 0.05; done
    ms=$(grep 'I0105' "$work/$m.log" | tail -1 | sed -E 's/.* ([0-9.]+) ms$/\1/')
    if [ "$(sweeps_done "$m")" -le "$n" ]; then
      fail "$m: resweep $i: no 'sweep N done' line"
    else
      log "$mode: resweep $i: $(grep 'I0105' "$work/$m.log" | tail -1 | sed -E 's/.*\]: //'), $(elapsed "$t0" "$(now)") s"
      awk -v ms="$ms" 'BEGIN { exit !(ms >= 1500) }' || fail "$m: resweep $i took $ms ms: the routing delay did not apply"
    fi
  done
  lost=$(grep -c 'lost' "$work/$s.log"); entered=$(grep -c 'entering Master' "$work/$s.log")
  longest=$(json_of "$m" 'd["loop"]["longest_ms"]')
  # Turns over 1 s by the histogram of `status --json` (cumulative buckets, as on /metrics).
  over_1s=$(json_of "$m" 'd["loop"]["turns"] - next(b["turns"] for b in d["loop"]["buckets"] if b["le_ms"] == 1000)')
  log "$mode: after the resweeps, the master's loop: $(loop_figures "$m"); W0133 lines: $(grep -c 'W0133' "$work/$m.log")"
  log "$mode: the standby: $lost 'lost' line(s), entered Master $entered time(s); sminfo from $C: $((polls - bad)) of $polls" \
      "polls show the master, the slowest answer (sminfo's own start included) $slowest s"
  grep 'W0133' "$work/$m.log" | tail -2 | sed "s/^/[$name]   /"
  grep 'lost\|HA: ' "$work/$s.log" | tail -4 | sed "s/^/[$name]   /"
  if [ "$mode" = worker ]; then
    [ "$lost" -eq 0 ] || fail "the standby took the busy master for lost"
    [ "$entered" -eq 0 ] || fail "the standby entered Master beside a busy master"
    [ $bad -eq 0 ] || fail "sminfo from $C did not show the master $bad time(s) of $polls"
    awk -v l="$longest" 'BEGIN { exit !(l != "-" && l <= 200) }' || fail "the master's longest loop turn: $longest ms (over 200 ms)"
    [ "$over_1s" = 0 ] || fail "status --json's loop histogram: $over_1s turn(s) over 1 s"
    [ $failed -eq 0 ] && log "worker: 3 heavy sweeps of 1.5 s more each: the standby kept still, the loop answered (longest turn $longest ms) OK"
  else
    if [ "$lost" -ge 1 ]; then
      log "negative control (inline): the standby took the silent master for lost ($lost time(s)): the drill can fail OK"
      # The loop's own figures must show the silence too, or the worker check above proves nothing.
      awk -v l="$longest" 'BEGIN { exit !(l != "-" && l > 1000) }' ||
        fail "negative control: the loop was silent for 1.5 s per sweep but its longest turn says $longest ms"
      [ "$over_1s" != - ] && [ "$over_1s" -ge 3 ] ||
        fail "negative control: 3 resweeps silent for 1.5 s each, but the loop histogram has $over_1s turn(s) over 1 s"
    else
      fail "negative control: with the loop waiting for the worker the standby never logged 'lost': the drill proves nothing"
    fi
  fi
  stop_sm "$s" KILL; stop_sm "$m" KILL
}

# 2. A routing that never ends, worker_timeout 2 s.
hung_drill() {
  local m=hung s=heir t0 pid rc="" t_answer="" t_port="" t_exit="" t
  FABRICSM_TEST_ROUTING_DELAY=2:100000000 pair_up "$m" "$s" --worker_timeout 2
  t0=$(now)
  status_of "$m" --resweep > /dev/null 2>&1 &
  pid=$!
  for _ in $(seq 300); do
    t=$(now)
    if [ -z "$t_exit" ] && ! kill -0 "${ha_pids[$m]}" 2>/dev/null; then
      t_exit=$t; wait "${ha_pids[$m]}"; rc=$?; unset "ha_pids[$m]"
    fi
    # First the standby itself, then (as its port's SM LID moves only once it swept) the third
    # CA's SM: an sminfo to an SM that does not answer waits for its own timeout.
    if [ -z "$t_answer" ]; then
      grep -q 'state 3 SMINFO_MASTER' <<< "$(sminfo_c "$C" "$lid_s")" && t_answer=$t
    elif [ -z "$t_port" ]; then
      grep -q "sm guid $(short "$guid_s"),.*state 3 SMINFO_MASTER" <<< "$(sminfo_c "$C")" && t_port=$t
    fi
    [ -n "$t_answer" ] && [ -n "$t_port" ] && [ -n "$t_exit" ] && break
    awk -v a="$t0" -v b="$t" 'BEGIN { exit !(b - a > 15) }' && break
    sleep 0.05
  done
  kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  grep 'E0410\|E0134\|HA: \|NotActive' "$work/$m.log" | tail -6 | sed "s/^/[$name]   /"
  grep -q 'E0410.*did not end within' "$work/$m.log" || fail "the hung master logged no E0410"
  grep -q 'E0134' "$work/$m.log" || fail "the hung master logged no E0134"
  if [ -z "$t_exit" ]; then
    fail "the hung master did not exit within 15 s"
  else
    log "hung: the master exited with status $rc $(elapsed "$t0" "$t_exit") s after the resweep"
    [ "$rc" = 1 ] || fail "the hung master's exit status: $rc (1 expected)"
  fi
  if [ -z "$t_answer" ] || [ -z "$t_port" ]; then
    fail "the standby never answered as MASTER after the hung master stepped down"; grep 'HA: ' "$work/$s.log" | tail -5
  else
    log "hung: resweep -> the standby answers as MASTER: $(elapsed "$t0" "$t_answer") s; sminfo from $C" \
        "(its port's SM LID) shows it: $(elapsed "$t0" "$t_port") s (worker_timeout 2 s)"
    awk -v a="$t0" -v b="$t_answer" 'BEGIN { exit !(b - a <= 7) }' || fail "the standby answered as MASTER more than 5 s after the timeout"
  fi
  grep 'HA: \|entering' "$work/$s.log" | tail -3 | sed "s/^/[$name]   /"
  stop_sm "$s" KILL; stop_sm "$m" KILL
}

# 3. SIGSTOP of the master, then SIGCONT: no second master.
stop_drill() {
  local m=stopped s=heir3 t0 t t_answer="" t_port="" both=0 samples=0 sa ss last="" first_both="" last_both=""
  pair_up "$m" "$s"
  t0=$(now)
  kill -STOP "${ha_pids[$m]}"
  for _ in $(seq 200); do
    t=$(now)
    # First the standby itself, then (as its port's SM LID moves only once it swept) the third
    # CA's SM: an sminfo to an SM that does not answer waits for its own timeout.
    if [ -z "$t_answer" ]; then
      grep -q 'state 3 SMINFO_MASTER' <<< "$(sminfo_c "$C" "$lid_s")" && t_answer=$t
    elif [ -z "$t_port" ]; then
      grep -q "sm guid $(short "$guid_s"),.*state 3 SMINFO_MASTER" <<< "$(sminfo_c "$C")" && t_port=$t
    fi
    [ -n "$t_answer" ] && [ -n "$t_port" ] && break
    awk -v a="$t0" -v b="$t" 'BEGIN { exit !(b - a > 10) }' && break
    sleep 0.02
  done
  if [ -z "$t_answer" ] || [ -z "$t_port" ]; then
    fail "the standby never answered as MASTER after SIGSTOP of the master"; grep 'HA: ' "$work/$s.log" | tail -5
  else
    log "SIGSTOP of the master -> the standby answers as MASTER: $(elapsed "$t0" "$t_answer") s; sminfo from $C" \
        "shows it: $(elapsed "$t0" "$t_port") s ($(awk -v a="$t0" -v b="$t_port" 'BEGIN { print (b - a < 1) ? "under" : "over" }') 1 s)"
    awk -v a="$t0" -v b="$t_port" 'BEGIN { exit !(b - a < 3) }' || fail "takeover after SIGSTOP took more than 3 s"
  fi
  grep 'lost\|entering' "$work/$s.log" | tail -3 | sed "s/^/[$name]   /"
  # SIGCONT: the old master wakes up believing it is master. Sampled for 5 s: each one's state
  # (status --json) and who sminfo from the third CA names.
  t0=$(now)
  kill -CONT "${ha_pids[$m]}"
  while awk -v a="$t0" -v b="$(now)" 'BEGIN { exit !(b - a < 5) }'; do
    t=$(now); sa=$(state_of "$m"); ss=$(state_of "$s")
    samples=$((samples + 1))
    if [ "$sa" = Master ] && [ "$ss" = Master ]; then
      both=$((both + 1)); last_both=$(elapsed "$t0" "$t"); [ -z "$first_both" ] && first_both=$last_both
    fi
    [ "$sa/$ss" != "$last" ] && { log "SIGCONT +$(elapsed "$t0" "$t") s: old master $sa, standby $ss"; last="$sa/$ss"; }
    sleep 0.05
  done
  out=$(sminfo_c "$C")
  log "SIGCONT: both Master in $both of $samples samples over 5 s${first_both:+ (from +$first_both to +$last_both s)};" \
      "at the end old master $sa, standby $ss; sminfo from $C: $out"
  [ "$sa" = Master ] && [ "$ss" = Master ] && fail "split brain: both SMs Master 5 s after SIGCONT"
  [ "$sa" = Master ] || [ "$ss" = Master ] || fail "no master 5 s after SIGCONT (old master $sa, standby $ss)"
  grep 'HA: \|entering\|handing\|handover' "$work/$m.log" | tail -6 | sed "s/^/[$name]   old: /"
  grep 'HA: \|entering\|handing\|handover' "$work/$s.log" | tail -4 | sed "s/^/[$name]   standby: /"
  stop_sm "$s"; stop_sm "$m"
}

busy_drill worker
busy_drill inline
hung_drill
stop_drill
ibsim_stop
exit $failed
