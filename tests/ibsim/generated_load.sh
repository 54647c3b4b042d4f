#!/usr/bin/env bash
# Generates one small net file of each kind with `fabricsm topo`, loads it into ibsim and
# checks with ibnetdiscover that ibsim built the fabric our parser reads from the same file:
# the same node counts, node GUIDs, and every cable (ends, ports, width and speed).
# Usage: generated_load.sh FABRICSM. Exit 77 (skip) without ibsim or ibnetdiscover.
set -euo pipefail

fabricsm=$(realpath "$1")
shim=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
if ! command -v ibsim >/dev/null || ! command -v ibnetdiscover >/dev/null || [ ! -f "$shim" ]; then
  echo "SKIP: needs ibsim-utils and infiniband-diags"
  exit 77
fi

work=$(mktemp -d)
ibsim_pid=""
stop_ibsim() {
  if [ -n "$ibsim_pid" ]; then
    kill "$ibsim_pid" 2>/dev/null || true
    wait "$ibsim_pid" 2>/dev/null || true
    ibsim_pid=""
  fi
}
trap 'stop_ibsim; rm -rf "$work"' EXIT
mkdir "$work/cwd"  # the shim writes ./sys-<pid>/ into the client's working directory

# One line per cabled port: node port remote-node remote-port speed. Works on our files and
# on ibnetdiscover's, which name nodes by GUID and carry our names as descriptions: the last
# quoted string on a header or port line is our name either way.
cables() {
  awk '
    function lastq(s,   r) { r = ""; while (match(s, /"[^"]*"/)) { r = substr(s, RSTART + 1, RLENGTH - 2); s = substr(s, RSTART + RLENGTH) } return r }
    /^(Switch|Hca|Ca|Rt)[ \t]/ { node = lastq($0); next }
    /^\[/ {
      match($0, /^\[[0-9]+\]/); lp = substr($0, 2, RLENGTH - 2)
      match($0, /"[^"]*"\[[0-9]+\]/); seg = substr($0, RSTART, RLENGTH); sub(/^"[^"]*"\[/, "", seg); sub(/\]$/, "", seg)
      sp = "-"; if (match($0, /lid [0-9]+ [0-9]+x[A-Z0-9]+/)) { sp = substr($0, RSTART, RLENGTH); sub(/^lid [0-9]+ /, "", sp) }
      print node, lp, lastq($0), seg, sp
    }' "$1" | sort
}

# GUID name, from ibnetdiscover's "xxguid=0x..." line and the header's description.
discovered_guids() {
  awk '/^(switch|ca|rt)guid=/ { g = $0; sub(/^[a-z]*guid=/, "", g); sub(/\(.*/, "", g) }
       /^(Switch|Ca|Rt)\t/ { d = $0; sub(/^[^#]*# "/, "", d); sub(/".*/, "", d); print g, d }' "$1" | sort
}

failures=0
fail() {
  echo "FAIL $kind: $*"
  failures=$((failures + 1))
}

check() {  # check KIND FILE: FILE is already written
  kind=$1
  local file=$2 summary
  summary=$("$fabricsm" topo check --guids "$file") || { fail "fabricsm topo check refused it"; return; }
  local counts
  counts=$(head -1 <<<"$summary" | sed -E 's/.*: ([0-9]+) switches, ([0-9]+) CAs, ([0-9]+) routers, ([0-9]+) links.*/\1 \2 \3 \4/')
  read -r sw ca rt links <<<"$counts"
  grep -q ', connected$' <<<"$summary" || { fail "not connected: $(head -1 <<<"$summary")"; return; }

  export IBSIM_SOCKNAME="fsm-topo-$$-$kind"
  setsid ibsim -s -n -N 4096 -S 1024 -P 32768 -L 49152 "$file" </dev/null >"$work/$kind.ibsim.log" 2>&1 &
  ibsim_pid=$!
  local i
  for i in $(seq 100); do
    ss -xl | grep -q "@$IBSIM_SOCKNAME:ctl" && break
    kill -0 "$ibsim_pid" 2>/dev/null || break
    sleep 0.1
  done
  if ! ss -xl | grep -q "@$IBSIM_SOCKNAME:ctl"; then
    fail "ibsim did not come up:"
    tail -5 "$work/$kind.ibsim.log"
    stop_ibsim
    return
  fi
  (cd "$work/cwd" && LD_PRELOAD=$shim timeout 60 ibnetdiscover >"$work/$kind.disc" 2>"$work/$kind.disc.err") ||
    fail "ibnetdiscover failed: $(tail -2 "$work/$kind.disc.err")"
  stop_ibsim

  local d_sw d_ca d_rt d_ports
  d_sw=$(grep -c '^Switch' "$work/$kind.disc" || true)
  d_ca=$(grep -c '^Ca' "$work/$kind.disc" || true)
  d_rt=$(grep -c '^Rt' "$work/$kind.disc" || true)
  d_ports=$(grep -c '^\[' "$work/$kind.disc" || true)
  [ "$d_sw $d_ca $d_rt $((d_ports / 2))" = "$sw $ca $rt $links" ] ||
    fail "ibsim has $d_sw switches, $d_ca CAs, $d_rt routers, $((d_ports / 2)) links; we have $sw $ca $rt $links"
  diff <(tail -n +2 <<<"$summary" | sort) <(discovered_guids "$work/$kind.disc") >"$work/$kind.guids.diff" ||
    { fail "node GUIDs differ:"; head -5 "$work/$kind.guids.diff"; }
  diff <(cables "$file") <(cables "$work/$kind.disc") >"$work/$kind.cables.diff" ||
    { fail "cables differ:"; head -5 "$work/$kind.cables.diff"; }
  # And our parser reads what ibnetdiscover wrote, to the same counts.
  local back
  back=$("$fabricsm" topo check "$work/$kind.disc" | head -1 | sed -E 's/^[^:]*: //')
  [ "$back" = "$(head -1 <<<"$summary" | sed -E 's/^[^:]*: //')" ] || fail "ibnetdiscover's file reads as: $back"
  echo "ok   $kind: $sw switches, $ca CAs, $rt routers, $links links"
}

generate() {  # generate KIND fabricsm-topo-args...
  local kind=$1
  shift
  "$fabricsm" topo "$@" -o "$work/$kind.net" || { fail "fabricsm topo $*"; return; }
  check "$kind" "$work/$kind.net"
}

start=$SECONDS
generate fat-tree-3 fat-tree --levels 3 --radix 8
generate fat-tree-degraded fat-tree --levels 3 --radix 8 --drop-links 0.1 --seed 2
generate two-level two-level --leaves 4 --spines 2 --radix 8 --cas-per-leaf 4
generate pgft pgft --h 3 --m 2,2,4 --w 1,2,2 --p 1,2,1
generate torus torus --dims 3x3x2 --cas-per-switch 1
generate mesh torus --dims 4x3 --mesh --cas-per-switch 2
generate random random --switches 16 --ports 8 --cas-per-switch 2 --seed 4
generate hyperx hyperx --dims 3x3x2 --trunk 2 --cas-per-switch 1
generate dragonfly dragonfly --p 2 --a 4 --h 2
generate dragonfly-plus dragonfly --p 2 --a 2 --h 2 --plus

# GUID directives, system GUIDs, IDs, a router, cables listed on one side only and other link
# widths and speeds, normalised by convert (ibsim 0.10 refuses one-sided cables): ibsim must
# give the converted file the GUIDs our parser gave the original.
cat >"$work/directives.src" <<'NET'
Hca	2 "H1"
[1]	"S1"[1]
[2]	"S1"[2]	# lid 0 4xSDR

Switch	8 "S1"
[1]	"H1"[1]
[3]	"S2"[3]	w=12
[4]	"H2"[1]	# lid 0 4xEDR
[5]	"R1"[1]

switchguid=0x1000
Switch	8 "S2"
[3]	"S1"[3]	w=12
[4]	"H3"[1]

Hca	1 "H2"

caguid=0x500
sysimgguid=0x777
vendid=0x2c9
devid=0xb924
Ca	1 "H3"

caguid+0x10
Ca	1 "H4"
[1]	"S2"[5]	# lid 0 4xDDR

rtguid=0x9000
Rt	1 "R1"
NET
kind=directives
if "$fabricsm" topo convert "$work/directives.src" -o "$work/directives.net"; then
  diff <("$fabricsm" topo check --guids "$work/directives.src" | tail -n +2) \
       <("$fabricsm" topo check --guids "$work/directives.net" | tail -n +2) >/dev/null ||
    fail "convert changed GUIDs"
  check directives "$work/directives.net"
else
  fail "fabricsm topo convert refused it"
fi

echo "$((SECONDS - start)) s, $failures failures"
[ "$failures" -eq 0 ]
