#!/usr/bin/env bash
# negative_control.sh FABRICSM LFT_POKE: shows that the checks of lib.sh have teeth. fabricsm
# brings a generated 3-level fat tree up and the checks pass; then one LFT entry is rewritten
# on purpose (lft_poke: a DR Set of one block) so that a CA's LID loops back up the tree, and
# the LFT walk and ibtracert must both catch it; and a LID map that disagrees with the fabric
# must fail the topology check.
. "$(dirname "$0")/lib.sh"

FABRICSM=$(realpath "$1")
POKE=$(realpath "$2")
ibsim_init negative-$$
name="negative control"

net="$work/ft3-r8.net"
"$FABRICSM" topo fat-tree --levels 3 --radix 8 -o "$net" || { log "FAIL: fabricsm topo"; exit 1; }
ibsim_start "$net" || exit 1
bring_up fabricsm || exit 1
check_all "$net" 2 || { log "FAIL: the checks fail before anything was broken"; exit 1; }

read -r path lid port guid src < <($CHECK corrupt "$work/ibnet.txt" "$work/fts.txt")
[ -n "${lid:-}" ] || { log "FAIL: found no LFT entry to corrupt"; exit 1; }
shim "$POKE" "$path" "$lid" "$port" | sed "s/^/[$name] lft_poke: /"
[ "${PIPESTATUS[0]}" -eq 0 ] || { log "FAIL: lft_poke"; exit 1; }

failed=0
discover || exit 1
if $CHECK routes "$work/ibnet.txt" "$work/fts.txt" > "$work/routes.txt"; then
  log "FAIL: the LFT walk did not notice the corrupted entry"; failed=1
else
  log "LFT walk caught it: $(grep -m1 'LID '"$lid" "$work/routes.txt" | sed 's/^ *//')"
fi

# From a CA on another leaf, ibtracert to that LID must not end at its CA.
out=$(shim ibtracert "$src" "$lid" 2>&1)
if grep -q "^To ca {$guid}" <<< "$out"; then
  log "FAIL: ibtracert $src -> $lid still reaches $guid"; failed=1
else
  log "ibtracert $src -> $lid caught it: $(tail -1 <<< "$out")"
fi

# A LID map that disagrees with the fabric (two LIDs swapped) must fail the topology check.
awk 'NR == 2 { l2 = $2; g2 = $1; next } NR == 3 { print $1, l2; print g2, $2; next } { print }' \
  "$work/sm-lids" > "$work/sm-lids.bad"
if $CHECK topology "$net" "$work/ibnet.txt" "$work/sm-lids.bad" > /dev/null; then
  log "FAIL: the topology check accepted swapped LIDs"; failed=1
else
  log "topology check caught two swapped LIDs"
fi
[ $failed -eq 0 ] && log "the checks have teeth"
exit $failed
