# tests/ibsim/lib.sh: sourced by the ibsim integration tests. Starts one private ibsim per
# fabric, brings the fabric up with an SM (fabricsm or OpenSM) through the umad2sim shim, and
# checks what the SM left with infiniband-diags, one checker after another (ibsim serves 10
# clients). Everything started here is stopped by PID on exit, failures included.
#
#   ibsim_init NAME          work dir, traps; exit 77 (skip) without the tools
#   ibsim_start NETFILE      a fresh ibsim, -N/-S/-P sized from the file, -L 49152
#   bring_up SM [ARGS...]    SM = fabricsm (`run --once`) or opensm (`-o`); must reach SUBNET UP
#   check_all NETFILE        every check below; returns the number of failed checks
#   check_sminfo SM          the SM, running as a daemon, answers SMInfo as MASTER
#   sm_daemon SM [ARGS...]   the SM as a daemon in the background, back at SUBNET UP
#   partitions_sm SM         the same with $work/partitions.conf (fabricsm or OpenSM, minhop)
#   sminfo_master [ARGS...]  sminfo, a few tries, until it names a MASTER
#   ca_lids [HOST]           the LIDs of the CA ports, one a line
#   lid_of [HOST], port_lids [HOST]    a port's LID; every port's LID (ibnetdiscover -p)
#   ca_names NETFILE         the CA names of a net file, in file order
#   fail MESSAGE             logs a failure and counts it in $failed (scripts exit $failed)
#   ibsim_stop
set -uo pipefail

SHIM=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
NET_EXAMPLES=/usr/share/doc/ibsim-utils/net-examples
CHECK="python3 $HERE/check_fabric.py"

ibsim_pid=""
sm_pid=""
work=""
name=""

log() { echo "[$name] $*"; }
failed=0
fail() { log "FAIL: $*"; failed=$((failed + 1)); }
ca_names() { awk -F'"' '/^(Hca|Ca)[ \t]/ { print $2 }' "$1"; }

ibsim_init() {
  name=$1
  for tool in ibsim ibnetdiscover dump_fts ibtracert smpquery sminfo iblinkinfo opensm python3 ss; do
    command -v "$tool" >/dev/null || { echo "SKIP: $tool missing (ibsim-utils, infiniband-diags, opensm)"; exit 77; }
  done
  [ -f "$SHIM" ] || { echo "SKIP: $SHIM missing"; exit 77; }
  work=$(mktemp -d "${TMPDIR:-/tmp}/fsm-ibsim-$name.XXXXXX")
  mkdir -p "$work/cwd"  # the clients' working directory: the shim writes ./sys-<pid>/ there
  trap ibsim_cleanup EXIT
  trap 'exit 130' INT TERM
}

sm_stop() {  # sm_stop [SIGNAL]: stops the background SM; its exit status
  local rc=0
  if [ -n "$sm_pid" ]; then
    kill -"${1:-TERM}" "$sm_pid" 2>/dev/null
    wait "$sm_pid"; rc=$?
    sm_pid=""
  fi
  return $rc
}

ibsim_stop() {
  if [ -n "$ibsim_pid" ]; then
    kill "$ibsim_pid" 2>/dev/null
    wait "$ibsim_pid" 2>/dev/null
    ibsim_pid=""
  fi
}

ibsim_cleanup() {
  local rc=$?
  sm_stop KILL
  ibsim_stop
  if [ "$rc" -ne 0 ] && [ -n "${KEEP_WORK:-}" ]; then
    echo "work dir kept: $work"
  else
    rm -rf "$work"
  fi
  exit "$rc"
}

# ibsim_start NETFILE [console]: a fresh simulator with its own socket name (clients inherit
# it). With `console`, its console reads the fifo $work/console (Unlink, PerformanceSet, ...:
# `ibsim_cmd 'Unlink "S1_000"[5]'`).
ibsim_start() {
  local net sw ca ports i=0
  net=$(readlink -f "$1")
  sw=$(grep -c '^Switch' "$net"); ca=$(grep -c -E '^(Hca|Ca)' "$net")
  ports=$(awk '/^(Switch|Hca|Ca)/{n+=$2+1} END{print n+16}' "$net")
  export IBSIM_SOCKNAME="fsm_$$_$RANDOM"
  if [ "${2:-}" = console ]; then
    rm -f "$work/console" && mkfifo "$work/console"
    (cd "$work" && exec setsid ibsim -s -N $((sw + ca + 16)) -S $((sw + 16)) -P "$ports" -L 49152 \
       "$net" 0<> console > ibsim.log 2>&1) &
  else
    (cd "$work" && exec setsid ibsim -s -n -N $((sw + ca + 16)) -S $((sw + 16)) -P "$ports" -L 49152 \
       "$net" > ibsim.log 2>&1) &
  fi
  ibsim_pid=$!
  until ss -xl 2>/dev/null | grep -q "@$IBSIM_SOCKNAME:ctl"; do
    if ! kill -0 "$ibsim_pid" 2>/dev/null; then
      log "ibsim died:"; tail -5 "$work/ibsim.log"; ibsim_pid=""; return 1
    fi
    i=$((i + 1)); [ $i -gt 1200 ] && { log "ibsim socket never appeared"; return 1; }
    sleep 0.05
  done
}

# ibsim_cmd LINE: a console command (ibsim_start ... console).
ibsim_cmd() { echo "$1" > "$work/console"; }

# A libibumad program as a client of this ibsim (its stderr "attached as client" noise dropped).
shim() { (cd "$work/cwd" && LD_PRELOAD=$SHIM "$@" 2> >(grep -v 'sim_connect: attached' >&2)); }
# shim_at HOST CMD...: the same, attached at node HOST (the default node when HOST is empty).
shim_at() {
  local host=$1; shift
  if [ -n "$host" ]; then SIM_HOST=$host shim "$@"; else shim "$@"; fi
}
# lid_of [HOST]: the LID the port of HOST (default: the default node) holds.
lid_of() { shim_at "${1:-}" smpquery -D portinfo 0 2>/dev/null | awk -F. '/^Lid:/ { print $NF }'; }
# port_lids [HOST]: "type GUID LID" of every port as ibnetdiscover -p sees it from HOST, sorted.
port_lids() {
  shim_at "${1:-}" ibnetdiscover -p 2>/dev/null |
    awk '{ print $1, $4, $2; if (NF >= 11) print $8, $11, $9 }' | sort -u
}

# ca_lids [HOST]: the LID of every CA port as ibnetdiscover sees it from HOST, one a line.
ca_lids() { port_lids "${1:-}" | awk '$1 == "CA" { print $3 }'; }

# bring_up fabricsm [ARGS...] | bring_up opensm [ENGINE]: one bring-up that must end in
# SUBNET UP. The LIDs the SM says it assigned go to $work/sm-lids ("port-GUID LID"):
# fabricsm's from its debug lines, OpenSM's from its guid2lid file.
bring_up() {
  local sm=$1 rc t0 t1; shift
  : > "$work/sm-lids"
  t0=$(date +%s.%N)
  case $sm in
    fabricsm)
      rm -f "$work"/fabricsm.db*  # each fabric starts afresh (a restart on one is check_sminfo's)
      (cd "$work/cwd" && LD_PRELOAD=$SHIM timeout 120 "$FABRICSM" run --once --log-level debug \
         --db "$work/fabricsm.db" --control_socket "$work/sm.sock" "$@" 2> "$work/sm.log")
      rc=$?
      grep -v -e 'D0111' -e 'sim_connect: attached' "$work/sm.log" | sed "s/^/[$name]   /"
      awk '/D0111\]: LID/ { print $NF, $3 }' "$work/sm.log" | sort > "$work/sm-lids"
      ;;
    opensm)
      rm -f "$work/guid2lid"  # left by the previous fabric's OpenSM: each fabric starts afresh
      (cd "$work/cwd" && LD_PRELOAD=$SHIM OSM_TMP_DIR=$work OSM_CACHE_DIR=$work \
         timeout 120 opensm -o -f "$work/sm.log" -R "${1:-minhop}" > "$work/osm.out" 2>&1)
      rc=$?
      grep -q 'SUBNET UP' "$work/sm.log" || rc=1
      # OpenSM's own view of the LIDs: its guid2lid file ("0xGUID 0xLID 0xLID").
      cp "$work/guid2lid" "$work/sm-lids" 2> /dev/null
      ;;
  esac
  t1=$(date +%s.%N)
  if [ "$rc" -ne 0 ]; then
    log "FAIL: $sm bring-up exit status $rc"; tail -5 "$work/sm.log"; return 1
  fi
  log "$sm: SUBNET UP in $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b - a}') s"
}

# Checks ------------------------------------------------------------------------------------

discover() {
  shim ibnetdiscover -g > "$work/ibnet.txt" || { log "ibnetdiscover failed"; return 1; }
  shim dump_fts > "$work/fts.txt" || { log "dump_fts failed"; return 1; }
}

# ibtracert between N sampled CA pairs (and to the highest CA LID, which dump_fts may leave
# out) ends at the CA with the right node GUID: in a loop ibsim delivers to whatever it reached.
check_tracert() {
  local n=$1 bad=0 slid dlid guid out
  while read -r slid dlid guid; do
    out=$(shim ibtracert "$slid" "$dlid" 2>&1)
    if ! grep -q "^To ca {$guid}" <<< "$out"; then
      log "ibtracert $slid -> $dlid did not end at CA $guid:"; tail -3 <<< "$out" | sed 's/^/    /'
      bad=$((bad + 1))
    fi
  done < <($CHECK pairs "$work/ibnet.txt" "$n")
  [ $bad -eq 0 ] && log "ibtracert: $n CA pairs end at the right node GUID OK"
  return $bad
}

# Every port with a physical link is Active (iblinkinfo), and sampled ports (CAs and switch
# port 0) hold the SM's LID as SMLid.
check_ports() {
  local bad=0 lid port out state smlid sm_lid n=0
  shim iblinkinfo > "$work/links.txt" || { log "iblinkinfo failed"; return 1; }
  $CHECK links "$work/links.txt" | sed "s/^/[$name] /"
  [ "${PIPESTATUS[0]}" -eq 0 ] || bad=1
  sm_lid=$(lid_of)
  while read -r lid port; do
    n=$((n + 1))
    out=$(shim smpquery portinfo "$lid" "$port" 2>&1) || { log "smpquery portinfo $lid $port failed: $out"; bad=1; continue; }
    state=$(awk -F. '/^LinkState:/ {print $NF}' <<< "$out")
    smlid=$(awk -F. '/^SMLid:/ {print $NF}' <<< "$out")
    [ "$state" = "Active" ] || { log "LID $lid port $port: LinkState $state"; bad=1; }
    [ "$smlid" = "$sm_lid" ] || { log "LID $lid port $port: SMLid $smlid, the SM is at LID $sm_lid"; bad=1; }
  done < <($CHECK lids "$work/ibnet.txt" 6)
  [ $bad -eq 0 ] && log "smpquery portinfo: $n sampled ports Active with SMLid $sm_lid OK"
  return $bad
}

# check_all NETFILE [PAIRS]: the number of failed checks.
check_all() {
  local failed=0
  discover || return 1
  $CHECK topology "$1" "$work/ibnet.txt" "$work/sm-lids" | sed "s/^/[$name] /"
  [ "${PIPESTATUS[0]}" -eq 0 ] || failed=$((failed + 1))
  $CHECK routes "$work/ibnet.txt" "$work/fts.txt" | sed "s/^/[$name] /"
  [ "${PIPESTATUS[0]}" -eq 0 ] || failed=$((failed + 1))
  check_tracert "${2:-6}" || failed=$((failed + 1))
  check_ports || failed=$((failed + 1))
  return $failed
}

# sm_daemon fabricsm|opensm [ARGS...]: the SM as a daemon at the default node ($sm_pid, its
# log in $work/daemon.log), back once it logged SUBNET UP (within SM_UP_WAIT seconds, 30 by
# default). ARGS go to the SM (fabricsm run, or opensm). Stop it with sm_stop.
sm_daemon() {
  local sm=$1 i=0; shift
  rm -f "$work/daemon.log"  # or the wait below could see the previous fabric's SUBNET UP
  case $sm in
    fabricsm) (cd "$work/cwd" && LD_PRELOAD=$SHIM exec "$FABRICSM" run --db "$work/fabricsm.db" --control_socket "$work/sm.sock" \
                 "$@" 2> "$work/daemon.log") & ;;
    opensm) (cd "$work/cwd" && LD_PRELOAD=$SHIM OSM_TMP_DIR=$work OSM_CACHE_DIR=$work \
               exec opensm -d 2 -f "$work/daemon.log" "$@" > /dev/null 2>&1) & ;;  # -d 2: flush the log
  esac
  sm_pid=$!
  until grep -q 'SUBNET UP' "$work/daemon.log" 2>/dev/null; do
    i=$((i + 1))
    if [ $i -gt $((${SM_UP_WAIT:-30} * 20)) ] || ! kill -0 "$sm_pid" 2>/dev/null; then
      log "FAIL: $sm daemon never reached SUBNET UP"; tail -5 "$work/daemon.log"; sm_stop KILL; return 1
    fi
    sleep 0.05
  done
}

# sminfo_master [ARGS...]: `sminfo ARGS` until it names a MASTER, 10 tries 0.3 s apart: OpenSM
# sweeps again right after SUBNET UP (the trap its own IsSM raises) and does not answer
# meanwhile, so a few tries, as an admin would. The tries it took in $sminfo_tries, the last
# output in $sminfo_out.
sminfo_master() {
  for sminfo_tries in 1 2 3 4 5 6 7 8 9 10; do
    sminfo_out=$(shim sminfo "$@" 2>&1)
    grep -q 'state 3 SMINFO_MASTER' <<< "$sminfo_out" && return 0
    sleep 0.3
  done
  return 1
}

# check_sminfo fabricsm|opensm: the SM as a daemon on the fabric it brought up answers SMInfo
# Get, LID-routed and by directed route, as MASTER; then stops cleanly on SIGTERM.
check_sminfo() {
  local sm=$1 bad=0 rc
  sm_daemon "$sm" || return 1
  for args in "" "-D 0"; do
    # shellcheck disable=SC2086  # "-D 0" is two words
    sminfo_master $args || { log "sminfo $args: $sminfo_out"; bad=1; }
    [ "$sm" = fabricsm ] && [ "$sminfo_tries" -gt 1 ] && { log "fabricsm needed $sminfo_tries tries to answer sminfo $args"; bad=1; }
  done
  sm_stop TERM; rc=$?
  if [ "$sm" = fabricsm ] && { [ $rc -ne 0 ] || ! grep -q 'stopping on SIGTERM' "$work/daemon.log"; }; then
    log "fabricsm did not stop cleanly on SIGTERM (exit status $rc)"; tail -3 "$work/daemon.log"; bad=1
  fi
  [ $bad -eq 0 ] && log "sminfo: $sm answers as MASTER (LID routed and DR) OK"
  return $bad
}

# partitions_sm SM: fabricsm or OpenSM as a daemon (minhop) with $work/partitions.conf, its log
# in $work/daemon.log; returns at SUBNET UP (exits the test without it).
partitions_sm() {
  rm -f "$work/daemon.log"
  case $1 in
    fabricsm) (cd "$work/cwd" && LD_PRELOAD=$SHIM exec "$FABRICSM" run --db "$work/fabricsm.db" \
                 --control_socket "$work/sm.sock" --routing minhop --partition_config_file "$work/partitions.conf" \
                 --log-level debug 2> "$work/daemon.log") & ;;
    opensm) (cd "$work/cwd" && LD_PRELOAD=$SHIM OSM_TMP_DIR=$work OSM_CACHE_DIR=$work \
               exec opensm -d 2 -R minhop -P "$work/partitions.conf" -f "$work/daemon.log" > /dev/null 2>&1) & ;;
  esac
  sm_pid=$!
  local i=0
  until grep -q 'SUBNET UP' "$work/daemon.log" 2>/dev/null || [ $i -gt 300 ]; do i=$((i + 1)); sleep 0.1; done
  grep -q 'SUBNET UP' "$work/daemon.log" || { fail "$1: no SUBNET UP"; tail -5 "$work/daemon.log"; exit 1; }
}
