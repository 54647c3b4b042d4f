#!/usr/bin/env bash
# sa_lmc.sh FABRICSM NETFILE: LMC 1 on ibsim, fabricsm against OpenSM (-l 1, minhop, a fresh
# ibsim each). `saquery PR` between CA pairs by GIDs with NumbPath 2 (the two Preference 0
# pairs) and 1, from one named SLID or to one named DLID of the range (2 records each, OpenSM's
# order), between two named LIDs, and the SL and Preference of each: the same under both SMs,
# LIDs compared as offsets from each port's base LID (the two SMs may hand out other bases).
# Under ibsim an answer is one MAD (no RMPP): at most 3 PathRecords, so a query answered with
# all 4 LID pairs is left to the unit tests (tests/sm/sa/test_sa_lmc.cpp). Then a MultiPathRecord
# GetMulti (tests/ibsim/sa_client, NumbPath 2): GetMultiResp with PathRecords, the two
# Preference 0 pairs, as OpenSM answers. (Under ibsim the third record slot of an answer came
# back garbled from both SMs, so no more than 2 records are compared.)
. "$(dirname "$0")/lib.sh"

FABRICSM=$(realpath "$1")
SA_CLIENT=$(realpath "$2")
NET=$3
[ -f "$NET" ] || { echo "SKIP: $NET not found"; exit 77; }
command -v saquery > /dev/null || { echo "SKIP: saquery missing"; exit 77; }
ibsim_init sa-lmc-$$
name="SA with LMC 1 $(basename "$NET")"

mapfile -t cas < <(ca_names "$NET")
n=${#cas[@]}
client=${cas[$((n - 1))]}
guid_of() { shim_at "$1" smpquery -D nodeinfo 0 2>/dev/null | awk -F. '/^PortGuid:/ { print $NF }'; }
gid_of() {
  local g
  g=$(guid_of "$1")
  g=${g#0x}; g=$(printf '%016x' "0x$g")
  echo "fe80::${g:0:4}:${g:4:4}:${g:8:4}:${g:12:4}"
}
sa() { SIM_HOST=$client shim timeout 10 saquery "$@" 2>&1; }
# records BASE_S BASE_D SAQUERY-ARGS...: one line per PathRecord: SLID-offset DLID-offset SL pref
records() {
  local bs=$1 bd=$2 d s sl pref; shift 2
  sa PR "$@" | awk -F. '
    /^[[:space:]]*dlid\./ { d = $NF }
    /^[[:space:]]*slid\./ { s = $NF }
    /^[[:space:]]*sl\./ { sl = $NF }
    /^[[:space:]]*preference\./ { print d, s, sl, $NF }' |
  while read -r d s sl pref; do echo "slid+$((s - bs)) dlid+$((d - bd)) sl $((sl)) pref $((pref))"; done
}

answers() {
  local out=$work/$1.answers a b la lb ga gb
  : > "$out"
  for q in "${cas[0]} ${cas[$((n - 2))]}" "${cas[1]} ${cas[2]}" "${cas[3]} ${cas[0]}"; do
    read -r a b <<< "$q"
    la=$(lid_of "$a"); lb=$(lid_of "$b"); ga=$(gid_of "$a"); gb=$(gid_of "$b")
    [ $((la % 2)) -eq 0 ] || fail "$1: base LID $la of $a is not 2-aligned"
    { echo "$a -> $b by GIDs, NumbPath 2:"; records "$la" "$lb" --sgid "$ga" --dgid "$gb" --numb_path 2
      echo "$a -> $b by GIDs, NumbPath 1:"; records "$la" "$lb" --sgid "$ga" --dgid "$gb" --numb_path 1
      echo "$a -> $b from SLID base+1:"; records "$la" "$lb" --slid $((la + 1)) --dgid "$gb"
      echo "$a -> $b to DLID base+1:"; records "$la" "$lb" --sgid "$ga" --dlid $((lb + 1))
      echo "$a -> $b SLID base+1 to DLID base:"; records "$la" "$lb" --slid $((la + 1)) --dlid "$lb"
    } >> "$out"
  done
}

for sm in opensm fabricsm; do
  ibsim_start "$NET" || exit 1
  case $sm in
    opensm) SM_UP_WAIT=60 sm_daemon opensm -R minhop -l 1 || exit 1 ;;
    fabricsm) sm_daemon fabricsm --routing minhop --lmc 1 || exit 1 ;;
  esac
  sleep 1
  answers $sm
  a=${cas[0]}; b=${cas[$((n - 2))]}
  la=$(lid_of "$a"); lb=$(lid_of "$b")
  SIM_HOST=$client shim timeout 20 "$SA_CLIENT" multipath "$(guid_of "$a")" "$(guid_of "$b")" 2 \
    > "$work/$sm.multipath" 2>&1
  # The answer's head, then each PathRecord as SLID and DLID offsets and Preference.
  { head -1 "$work/$sm.multipath"
    awk '/^PathRecord/ { print $3 - '"$la"', $5 - '"$lb"', $9 }' "$work/$sm.multipath" | head -2
  } > "$work/$sm.mpr"
  log "$sm: GetMulti MultiPathRecord $a -> $b, NumbPath 2: $(tr '\n' ';' < "$work/$sm.mpr")"
  sm_stop TERM
  ibsim_stop
done

got=$(grep -c '^slid' "$work/fabricsm.answers")
log "fabricsm: $got PathRecords for 3 CA pairs"
[ "$got" -eq 24 ] || fail "$got records, not 3 x (2 + 1 + 2 + 2 + 1)"
[ "$(tr '\n' ';' < "$work/fabricsm.mpr")" = "method 0x94 attribute 0x0035 status 0x0000;0 0 0;1 1 0;" ] ||
  fail "fabricsm's MultiPathRecord answer: $(cat "$work/fabricsm.multipath")"
cmp -s "$work/opensm.mpr" "$work/fabricsm.mpr" || fail "MultiPathRecord answers differ from OpenSM's"
if diff -u "$work/opensm.answers" "$work/fabricsm.answers" > "$work/diff"; then
  log "saquery PR with LMC 1: the same records (LID offsets, SL, Preference) under fabricsm and OpenSM"
  sed "s/^/[$name]   /" "$work/fabricsm.answers" | head -9
else
  fail "answers differ from OpenSM's:"; cat "$work/diff"
fi
exit $failed
