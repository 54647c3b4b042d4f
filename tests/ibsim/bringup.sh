#!/usr/bin/env bash
# bringup.sh FABRICSM SM FABRIC...: for each fabric, a fresh ibsim, one bring-up by SM
# (fabricsm: `fabricsm run --once`; opensm: `opensm -o -R minhop`), then the checks of lib.sh:
# every node with its LID, every LFT walked to every CA LID, ibtracert on sampled pairs, every
# linked port Active with the SM's LID, and SMInfo answered by the SM as MASTER.
# A FABRIC is a net file, or "topo:ARGS" for a file that `fabricsm topo ARGS` generates.
# Files that do not exist are skipped with a note (the shared topologies live outside the repo).
. "$(dirname "$0")/lib.sh"

FABRICSM=$(realpath "$1")
sm=$2
shift 2
ibsim_init "$sm-$$"

failed=0
tested=0
i=0
for fabric in "$@"; do
  i=$((i + 1))
  if [[ $fabric == topo:* ]]; then
    net="$work/gen$i.net"
    read -ra targs <<< "${fabric#topo:}"
    "$FABRICSM" topo "${targs[@]}" -o "$net" || { log "FAIL: fabricsm topo ${fabric#topo:}"; failed=$((failed + 1)); continue; }
    label="topo ${fabric#topo:}"
  else
    net=$fabric
    label=$(basename "$net")
    [ -f "$net" ] || { log "note: $net not found, skipped"; continue; }
  fi
  name="$sm $label"
  tested=$((tested + 1))
  ibsim_start "$net" || { failed=$((failed + 1)); continue; }
  if bring_up "$sm"; then
    check_all "$net" 6 || failed=$((failed + 1))
    check_sminfo "$sm" || failed=$((failed + 1))
  else
    failed=$((failed + 1))
  fi
  ibsim_stop
done
name=$sm
[ $tested -gt 0 ] || { echo "SKIP: no fabric found"; exit 77; }
log "$tested fabrics, $failed failures"
[ $failed -eq 0 ]
