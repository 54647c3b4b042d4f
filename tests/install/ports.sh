#!/usr/bin/env bash
# ports.sh FABRICSM_PORTS: the PORTS=ALL launcher (etc/systemd/fabricsm-ports) on a fake sysfs:
# two HCAs, three InfiniBand ports and a RoCE one. ALL starts an instance per InfiniBand port,
# NONE none, a GUID list those; a bad GUID is refused before anything is started.
set -uo pipefail
PORTS_SH=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
log() { echo "[ports] $*"; }
fail() { log "FAIL: $*"; failed=$((failed + 1)); }

# port HCA N LINK_LAYER GID0
port() {
  local d=$work/sys/class/infiniband/$1/ports/$2
  mkdir -p "$d/gids"
  echo "$3" > "$d/link_layer"
  echo "$4" > "$d/gids/0"
}
port mlx5_0 1 InfiniBand fe80:0000:0000:0000:0002:c903:00a1:b2c3
port mlx5_0 2 InfiniBand fe80:0000:0000:0000:0002:c903:00a1:b2c4
port mlx5_1 1 Ethernet fe80:0000:0000:0000:0202:c9ff:fe00:0001
port mlx4_0 1 InfiniBand fe80:0000:0000:0000:0008:f104:0399:0001
# A systemctl that records what it was asked.
cat > "$work/systemctl" <<SH
#!/bin/sh
echo "\$*" >> "$work/calls"
SH
chmod +x "$work/systemctl"
export FABRICSM_SYSFS=$work/sys FABRICSM_SYSTEMCTL=$work/systemctl

# run PORTS ARGS...: the launcher with that PORTS; its output in $out, the calls in $calls.
run() {
  local ports=$1; shift
  rm -f "$work/calls"
  out=$(PORTS=$ports "$PORTS_SH" "$@" 2>&1); rc=$?
  calls=$(cat "$work/calls" 2>/dev/null)
}

run ALL list
want=$'0x0008f10403990001\n0x0002c90300a1b2c3\n0x0002c90300a1b2c4'
[ $rc -eq 0 ] && [ "$out" = "$want" ] && log "ALL lists the 3 InfiniBand ports, not the RoCE one" ||
  fail "ALL list -> $rc: $out"
run ALL start
[ $rc -eq 0 ] && [ "$calls" = "start --no-block fabricsm@0x0008f10403990001.service fabricsm@0x0002c90300a1b2c3.service fabricsm@0x0002c90300a1b2c4.service" ] &&
  log "ALL start: $calls" || fail "ALL start -> $rc: $out / calls: $calls"
run "" start  # PORTS unset or empty: ALL, the default file's setting
[ $rc -eq 0 ] && [ "$(echo "$calls" | wc -w)" -eq 5 ] && log "empty PORTS means ALL" || fail "empty PORTS -> $rc: $calls"
run NONE start
[ $rc -eq 0 ] && [ -z "$calls" ] && log "NONE: $out" || fail "NONE start -> $rc: $out / $calls"
run "0x0002c90300a1b2c4  0x0002C90300A1B2C3" start
[ $rc -eq 0 ] && [ "$calls" = "start --no-block fabricsm@0x0002c90300a1b2c4.service fabricsm@0x0002C90300A1B2C3.service" ] &&
  log "a GUID list starts those: $calls" || fail "list start -> $rc: $out / $calls"
run "0x0002c90300a1b2c4 mlx5_0" start
[ $rc -ne 0 ] && [ -z "$calls" ] && echo "$out" | grep -q "'mlx5_0' is not a port GUID" &&
  log "a bad entry -> exit $rc, nothing started: $out" || fail "bad entry -> $rc: $out / $calls"
run ALL bogus
[ $rc -eq 2 ] && log "unknown action -> exit 2" || fail "unknown action -> $rc"
# No HCA: nothing to start, not an error.
FABRICSM_SYSFS=$work/empty run ALL start
[ $rc -eq 0 ] && [ -z "$calls" ] && log "no HCA: $out" || fail "no HCA -> $rc: $out / $calls"
# A GID file that is not a GID is named.
port mlx5_2 1 InfiniBand garbage
run ALL start
[ $rc -ne 0 ] && [ -z "$calls" ] && echo "$out" | grep -q "mlx5_2/ports/1/gids/0: 'garbage' is not a GID" &&
  log "a bad GID file -> exit $rc, nothing started" || fail "bad GID -> $rc: $out / $calls"

[ $failed -eq 0 ] && log "all passed"
exit $((failed > 0))
