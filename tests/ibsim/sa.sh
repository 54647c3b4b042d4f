#!/usr/bin/env bash
# sa.sh FABRICSM NETFILE: the SA of fabricsm against OpenSM's, on the same fabric (a fresh ibsim
# each), asked the same single-record questions with saquery (ibsim has no RMPP: a GetTable
# answer must fit one MAD, and saquery counts its records from the length received): PathRecords
# between sampled CA pairs, NodeRecords, the SM ports (saquery -s: PortInfoRecords by IsSM),
# SMInfoRecord, ClassPortInfo, and how many records -g, SMIR and -s print (exactly the real
# ones: a 256-byte MAD would add empty records after them). The answers must agree
# where the IBA defines them (LIDs differ between the SMs, so CAs are named, not numbered); bad
# requests get an IBA error status, and the daemon keeps running.
. "$(dirname "$0")/lib.sh"

FABRICSM=$(realpath "$1")
NET=$2
[ -f "$NET" ] || { echo "SKIP: $NET not found"; exit 77; }
command -v saquery > /dev/null || { echo "SKIP: saquery missing"; exit 77; }
ibsim_init sa-$$
name="SA $(basename "$NET")"

mapfile -t cas < <(ca_names "$NET")
n=${#cas[@]}
client=${cas[$((n - 1))]}
pairs=("${cas[1]} ${cas[2]}" "${cas[1]} ${cas[$((n / 2))]}" "${cas[$((n - 2))]} ${cas[3]}" "${cas[4]} ${cas[4]}")
sa() { SIM_HOST=$client shim timeout 10 saquery "$@" 2>&1; }
# A record dump without the lines that name LIDs (they differ between the two SMs' fabrics).
norm() { grep -v -E '^\s*(lid|dlid|slid|LID)\.\.' | sed 's/[[:space:]]\+/ /g'; }

# answers SM: every question, normalised, into $work/SM.answers
answers() {
  local sm=$1 out=$work/$1.answers a b la lb
  : > "$out"
  for p in "${pairs[@]}"; do
    read -r a b <<< "$p"
    la=$(lid_of "$a"); lb=$(lid_of "$b")
    { echo "== PR $a -> $b"; sa PR --slid "$la" --dlid "$lb" | awk '/PathRecord dump/ { n++ } n == 1' | norm; } >> "$out"
    { echo "== NR $a"; sa NR "$la" | awk '/NodeRecord dump/ { n++ } n == 1' | norm; } >> "$out"
  done
  { echo "== ClassPortInfo"; sa ClassPortInfo | grep -E 'Base version|Class version'; } >> "$out"
  # The SM ports (PortInfoRecords whose CapabilityMask has IsSM, among other bits).
  { echo "== SM ports"; sa -s | awk '/PortInfoRecord dump/ { n++ } n == 1' | grep -E 'capability_mask|PortNum' | norm; } >> "$out"
  { echo "== SMIR"; sa SMIR | awk '/SMInfoRecord dump/ { n++ } n == 1' | grep -E 'GUID|SMState' | norm; } >> "$out"
  # As many records as there are: a one-MAD answer's length gives saquery the count (no RMPP
  # through ibsim), so padding sent with it would show as empty records.
  local q
  for q in -g SMIR -s; do echo "== records of saquery $q: $(sa $q | grep -c -E 'Record (group )?dump')"; done >> "$out"
}

for sm in opensm fabricsm; do
  ibsim_start "$NET" || exit 1
  case $sm in
    fabricsm) SM_UP_WAIT=60 sm_daemon fabricsm --routing minhop --log-level debug ;;
    opensm) SM_UP_WAIT=60 sm_daemon opensm -R minhop ;;
  esac || { fail "$sm: no SUBNET UP"; exit 1; }
  answers $sm
  if [ $sm = fabricsm ]; then
    # Errors: an attribute it does not serve, a Get matching many records, no such LID.
    out=$(sa -g); grep -q 'ff12:401b:ffff::ffff:ffff' <<< "$out" || fail "saquery -g (the IPoIB broadcast group): $out"
    out=$(sa PR --slid 99999 --dlid 1 2>&1); kill -0 $sm_pid || fail "the daemon died on a bad PathRecord query"
    grep -q 'D0904.*PathRecord' "$work/daemon.log" || fail "no SA debug line for PathRecord"
    st=$("$FABRICSM" status --socket "$work/sm.sock" | head -1)
    grep -q 'Master, subnet up' <<< "$st" || fail "status after the SA queries: $st"
  fi
  sm_stop TERM
  ibsim_stop
done

if diff -u "$work/opensm.answers" "$work/fabricsm.answers" > "$work/diff"; then
  log "saquery PR/NR/-s/ClassPortInfo/SMIR: fabricsm's answers equal OpenSM's ($(grep -c '^==' "$work/fabricsm.answers") questions, ${#pairs[@]} CA pairs)"
else
  fail "answers differ from OpenSM's:"; head -40 "$work/diff"
fi
log "one-MAD answers: $(grep '^== records' "$work/fabricsm.answers" | sed 's/^== records of //' | paste -sd, -)"
sm_port=$(awk '/^== SM ports/ { on = 1; next } /^==/ { on = 0 } on && /capability_mask/' "$work/fabricsm.answers")
[ -n "$sm_port" ] && log "saquery -s: the SM's port ($sm_port)" || fail "saquery -s lists no SM port"
grep -A4 '^== PR' "$work/fabricsm.answers" | head -5 | sed "s/^/[$name]   /"
exit $failed
