#!/usr/bin/env bash
# import_lfts.sh FABRICSM NETFILE: another SM's routing scored by fabricsm's metrics. OpenSM
# (ftree, then updn) brings NETFILE up on ibsim; dump_fts reads its tables back; `fabricsm sim
# --import-lfts` puts those LIDs and LFTs on the same fabric in the simulator. Every pair must be
# routed and the all-to-all link loads must be what an independent walk of the same dump
# (check_fabric.py loads) counts. A dump that names a GUID the fabric lacks, or a bad line, is
# refused with its line and nothing measured.
. "$(dirname "$0")/lib.sh"

FABRICSM=$(realpath "$1")
NET=$2
[ -f "$NET" ] || { echo "SKIP: $NET not found"; exit 77; }
command -v opensm > /dev/null || { echo "FAIL: opensm missing"; exit 1; }
ibsim_init import-$$
name="import $(basename "$NET")"
trap ibsim_cleanup EXIT
py() { python3 -c "import json, sys; j = json.load(sys.stdin); print($1)"; }

ibsim_start "$NET" || exit 1
for engine in ftree updn; do
  sm_daemon opensm -R $engine || exit 1
  discover || exit 1
  sm_stop
  cp "$work/fts.txt" "$work/opensm-$engine.fts"
  want=$($CHECK loads "$work/ibnet.txt" "$work/fts.txt")
  got=$("$FABRICSM" sim --topology "$NET" --import-lfts "$work/fts.txt" --metrics --json |
        py 'j["unrouted"], j["metrics"]["max_link_load"], round(j["metrics"]["mean_link_load"], 4)')
  [ "$got" = "0 $want" ] && log "OpenSM $engine imported: unrouted 0, max and mean link load $want as the independent walk" ||
    fail "OpenSM $engine imported: unrouted, max, mean = '$got', the independent walk says max, mean = '$want'"
done
# One table: fabricsm's engines beside OpenSM's imported ones.
out=$("$FABRICSM" sim --topology "$NET" --compare "ftree,updn,lfts:$work/opensm-ftree.fts,lfts:$work/opensm-updn.fts" 2>&1) &&
  grep -q "lfts:opensm-ftree.fts" <<< "$out" && log "--compare with lfts: entries: OK" || fail "--compare with lfts: $out"

# Refused: a switch GUID this fabric does not have, and a line that is not an LFT entry.
sed '0,/guid 0x/s/guid 0x[0-9a-f]*/guid 0x00000000deadbeef/' "$work/fts.txt" > "$work/foreign.fts"
out=$("$FABRICSM" sim --topology "$NET" --import-lfts "$work/foreign.fts" 2>&1); rc=$?
[ $rc = 1 ] && grep -q 'line 1: no switch with GUID 0x00000000deadbeef' <<< "$out" && log "a foreign switch GUID: refused, line named" ||
  fail "foreign GUID: exit $rc: $out"
{ head -5 "$work/fts.txt"; echo "0x0005 garbage"; } > "$work/bad.fts"
out=$("$FABRICSM" sim --topology "$NET" --import-lfts "$work/bad.fts" 2>&1); rc=$?
[ $rc = 1 ] && grep -q "bad.fts:6: the entry's output port" <<< "$out" && log "a bad line: refused with file:line" ||
  fail "bad line: exit $rc: $out"
ibsim_stop
exit $((failed > 0))
