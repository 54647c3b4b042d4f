#!/usr/bin/env bash
# bench/sa-load.sh [NETFILE] [options]: the SA of fabricsm and OpenSM's under the same load, on
# the same fabric, in one run; prints figures, never pass/fail. For each SM, on a fresh ibsim:
# the SM as a daemon at the first node of the file until SUBNET UP (OpenSM: until sminfo also
# names it MASTER, as it sweeps again right after), then build/bench/sa_load through the ibsim
# shim from one CA (default: the last CA of the file), --repeat runs of --seconds, firing
# PathRecord SubnAdmGet queries (one record: SLID and DLID given) between pairs of every CA
# LID (as ibnetdiscover sees them), --window of them outstanding; then the SM is stopped.
# Prints answers per second, latency percentiles, errors and timeouts, and the CPU the SM and
# ibsim used while the client ran, side by side, with the ratios fabricsm/OpenSM.
#
# ibsim's shim serialises every client through one simulator process (and has no RMPP, hence
# single-record Gets only): the figures are those of the SA behind ibsim, comparable between
# the two SMs on this machine, not those of a real HCA.
#
# Usage: bench/sa-load.sh [NETFILE] [--window N] [--seconds S] [--repeat N] [--engine E]
#                         [--client HOST] [--seed N] [--json]
#   NETFILE      default: ../shared/topologies/ft3-r16.net next to the repository
#   --window N   queries outstanding (default 16)      --seconds S  per run (default 5)
#   --repeat N   N client runs per SM (default 3), one after another on the same SM, after an
#                uncounted one-second warm-up run; the run with the most qps is shown (on a
#                machine shared with other work, scheduling dominates the figures)
#   --engine E   routing engine of both SMs (default minhop: works on any fabric)
#   --client H   the CA the client runs at (default: the last CA of the file)
#   --seed N     the order of the pairs (default 1; the same for both SMs)
#   --json       the two clients' JSON objects as one, instead of the table
# FABRICSM=path and SA_LOAD=path override build/fabricsm and build/bench/sa_load.
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/tests/ibsim/lib.sh"

net=$ROOT/../shared/topologies/ft3-r16.net
window=16 seconds=5 repeat=3 engine=minhop client="" seed=1 json=0
while [ $# -gt 0 ]; do
  case $1 in
    --window) window=$2; shift ;;
    --seconds) seconds=$2; shift ;;
    --repeat) repeat=$2; shift ;;
    --engine) engine=$2; shift ;;
    --client) client=$2; shift ;;
    --seed) seed=$2; shift ;;
    --json) json=1 ;;
    -*) sed -n '/^# Usage/,/^# FABRICSM/p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
    *) net=$1 ;;
  esac
  shift
done
FABRICSM=$(realpath "${FABRICSM:-$ROOT/build/fabricsm}")
SA_LOAD=$(realpath "${SA_LOAD:-$ROOT/build/bench/sa_load}")
[ -f "$net" ] || { echo "no fabric file $net"; exit 1; }
net=$(realpath "$net")
for x in "$FABRICSM" "$SA_LOAD"; do
  [ -x "$x" ] || { echo "no $x: build first (ninja -C build fabricsm bench/sa_load)"; exit 1; }
done
[ -n "$client" ] || client=$(awk -F'"' '/^(Hca|Ca)[ \t]/ { c = $2 } END { print c }' "$net")

ibsim_init sa-load
name="sa-load $(basename "$net")"
load0=$(cut -d' ' -f1-3 /proc/loadavg)

# cpu PID: CPU seconds (user+sys) the process has used so far.
cpu() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$1/stat" 2> /dev/null || echo 0; }

# measure SM: the SM up on a fresh ibsim, then $repeat client runs: each one's JSON a line of
# $work/SM.json, the CPU seconds the SM and ibsim used while it ran a line of $work/SM.cpu.
measure() {
  local sm=$1 up=$SECONDS k s0 i0 rc=0
  ibsim_start "$net" || return 1
  case $sm in
    fabricsm) SM_UP_WAIT=300 sm_daemon fabricsm --routing "$engine" ;;
    opensm) SM_UP_WAIT=300 sm_daemon opensm -R "$engine" && { sminfo_master || log "sminfo: $sminfo_out"; } ;;
  esac || { ibsim_stop; return 1; }
  log "$sm: SUBNET UP after $((SECONDS - up)) s (ibsim start included)"
  ca_lids "$client" > "$work/lids"
  log "$sm: $(wc -l < "$work/lids") CA LIDs; client at $client (LID $(lid_of "$client"))"
  : > "$work/$sm.json"; : > "$work/$sm.cpu"
  # Warm-up, not counted: the first queries after a sweep, and OpenSM's sweep after SUBNET UP.
  SIM_HOST=$client shim "$SA_LOAD" --lids-file "$work/lids" --window "$window" --seconds 1 > /dev/null
  for ((k = 0; k < repeat && rc == 0; k++)); do
    s0=$(cpu "$sm_pid"); i0=$(cpu "$ibsim_pid")
    SIM_HOST=$client shim "$SA_LOAD" --lids-file "$work/lids" --window "$window" --seconds "$seconds" \
      --seed "$seed" --json >> "$work/$sm.json"
    rc=$?
    awk -v s0="$s0" -v s1="$(cpu "$sm_pid")" -v i0="$i0" -v i1="$(cpu "$ibsim_pid")" \
      'BEGIN { printf "{\"sm\": %.2f, \"ibsim\": %.2f}\n", s1 - s0, i1 - i0 }' >> "$work/$sm.cpu"
  done
  kill -0 "$sm_pid" 2> /dev/null || log "$sm died under the load"
  sm_stop TERM
  ibsim_stop
  [ $rc -eq 0 ] && [ -s "$work/$sm.json" ] || { log "$sm: the client failed (exit status $rc)"; return 1; }
}

failed=0
for sm in fabricsm opensm; do
  measure $sm || failed=1
done

python3 - "$work" "$json" "$(basename "$net")" "$client" "$window" "$seconds" "$engine" "$load0" \
  "$(nproc)" "$repeat" <<'PY'
import json, sys
work, as_json, net, client, window, seconds, engine, load, cpus, repeat = sys.argv[1:11]
def best(sm):  # the run with the most qps, its CPU figures in "cpu_s"; {} when none
    try:
        runs = [json.loads(l) for l in open(f"{work}/{sm}.json") if l.strip()]
        cpu = [json.loads(l) for l in open(f"{work}/{sm}.cpu") if l.strip()]
    except (OSError, ValueError):
        return {}
    for r, c in zip(runs, cpu):
        r["cpu_s"] = c
    return max(runs, key=lambda r: r["qps"], default={})
f, o = best("fabricsm"), best("opensm")
if as_json == "1":
    print(json.dumps({"fabric": net, "client": client, "engine": engine, "fabricsm": f, "opensm": o}))
    sys.exit(0)
print(f"SA load on ibsim: {net}, PathRecord SubnAdmGet (SLID, DLID) from {client} to the SM, "
      f"window {window}, {seconds} s per run, best of {repeat} run(s) per SM, {f.get('lids', o.get('lids', '-'))} "
      f"CA LIDs, routing {engine};")
print(f"qps = answers with status 0 per second; latency of every answer in us; SM and ibsim CPU")
print(f"seconds while the client ran, SM CPU us per answer; load average at start {load} on {cpus} CPUs")
cols = "{:<10} {:>9} {:>8} {:>8} {:>8} {:>9} {:>9} {:>7} {:>8} {:>7} {:>8} {:>9}"
print(cols.format("SM", "qps", "p50_us", "p90_us", "p99_us", "max_us", "answered", "errors", "timeouts",
                  "sm_cpu", "ibsim_cpu", "cpu_us/q"))
def per_answer(r):
    return r["cpu_s"].get("sm", 0) * 1e6 / r["answered"] if r["answered"] else 0
def row(name, r):
    if not r:
        print(cols.format(name, *["-"] * 11)); return
    l, c = r["latency_us"], r["cpu_s"]
    print(cols.format(name, f'{r["qps"]:.0f}', f'{l["p50"]:.0f}', f'{l["p90"]:.0f}', f'{l["p99"]:.0f}',
                      f'{l["max"]:.0f}', r["answered"], r["errors"], r["timeouts"], f'{c.get("sm", 0):.2f}',
                      f'{c.get("ibsim", 0):.2f}', f"{per_answer(r):.1f}"))
row("fabricsm", f)
row("opensm", o)
def q(a, b):
    return f"{a / b:.2f}" if b else "-"
if f and o:
    fl, ol = f["latency_us"], o["latency_us"]
    print(cols.format("ratio f/o", q(f["qps"], o["qps"]), q(fl["p50"], ol["p50"]), q(fl["p90"], ol["p90"]),
                      q(fl["p99"], ol["p99"]), q(fl["max"], ol["max"]), "", "", "",
                      q(f["cpu_s"].get("sm", 0), o["cpu_s"].get("sm", 0)),
                      q(f["cpu_s"].get("ibsim", 0), o["cpu_s"].get("ibsim", 0)), q(per_answer(f), per_answer(o))))
for name, r in (("fabricsm", f), ("opensm", o)):
    if r.get("statuses"):
        print(f"{name} error statuses: {r['statuses']}")
PY
exit $failed
