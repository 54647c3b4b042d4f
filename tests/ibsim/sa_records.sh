#!/usr/bin/env bash
# sa_records.sh FABRICSM SA_CLIENT NETFILE...: SwitchInfoRecord, LinkRecord, LFTRecord and
# GUIDInfoRecord of fabricsm against OpenSM's on the same fabric (a fresh ibsim each), asked with
# saquery. ibsim has no RMPP: an answer is one 256-byte MAD, so only the records that fit in it
# are compared (one SWIR, LFTR or GIR; up to 25 LinkRecords). LIDs differ between the two SMs, so
# every LID is replaced by the port GUID that holds it (ibnetdiscover -p); fabricsm's answer MAD
# is always 256 bytes long, and saquery reads records past the real ones out of it (zeros, or
# bytes past the MAD's data): LinkRecords that name no port of the fabric are left out. LFT blocks depend on
# each SM's LIDs and tie-breaking, so each SM's LFTRecord must equal what `ibroute` reads from
# that switch, and the two must route the same destinations. Then a ServiceRecord Set by
# SA_CLIENT (libibumad) must show in `saquery SR` on both, the same.
. "$(dirname "$0")/lib.sh"

FABRICSM=$(realpath "$1")
CLIENT=$(realpath "$2")
shift 2
command -v saquery > /dev/null || { echo "SKIP: saquery missing"; exit 77; }
ibsim_init sarec-$$

sa() { SIM_HOST=$client shim timeout 10 saquery "$@" 2>&1; }
# LID -> port GUID of the fabric as it is now, as sed expressions for the record lines that name LIDs.
lid_map() { port_lids "$client" | awk '{ printf "%d %s\n", $3, $2 }' > "$work/lids"; }
guid_of() { awk -v l="$1" '$1 == l { print $2 }' "$work/lids"; }
# Replaces the LID values of LID/FromLID/ToLID lines by GUIDs; squeezes blanks.
by_guid() {
  awk 'NR == FNR { g[$1] = $2; next }
       match($0, /^[ \t]*(LID|FromLID|ToLID)\.+/) { n = split($0, a, "."); v = a[n]; sub(/[0-9]+$/, (v in g ? g[v] : "?" v)) }
       { gsub(/[ \t]+/, " "); print }' "$work/lids" -
}
# The first record of an answer (saquery shows empty ones after it under ibsim), by GUID. A
# record of LID 0 is one of those empty ones (no port has LID 0): an answer without records.
first() { awk -v h="$1" '$0 ~ h { n++ } n == 1' | by_guid | awk '{ r = r $0 "\n" } /^ ?(LID|FromLID)\.+\?0$/ { z = 1 } END { if (!z) printf "%s", r }'; }
# An LFTRecord block (as first() leaves it) as "destination-GUID port" lines (255: no route), sorted.
lft_by_guid() {
  awk 'NR == FNR { g[$1] = $2; next } /^ ?[0-9]+ [0-9]+$/ { if ($1 in g) print g[$1], $2 }' "$work/lids" - | sort
}
# What ibroute reads from the switch, the same way.
ibroute_by_guid() {
  SIM_HOST=$client shim ibroute "$1" 2>/dev/null |
    awk 'function hex(s,  v, i) { v = 0; s = tolower(substr(s, 3)); for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
         NR == FNR { g[$1] = $2; next }
         /^0x[0-9a-f]+ [0-9]+ :/ { l = hex($1); if (l in g && l < 64) print g[l], $2 + 0 }' "$work/lids" - | sort
}

# answers SM NET: every question, normalised, into $work/SM.answers; LFT checks as they go.
answers() {
  local sm=$1 net=$2 out=$work/$1.answers s lid ca
  : > "$out"
  lid_map
  for s in "${switches[@]}"; do
    lid=$(lid_of "$s")
    { echo "== SWIR $s"; sa SWIR "$lid" | first 'SwitchInfoRecord dump'; } >> "$out"
    { echo "== LR from $s"; sa LR "$lid" | by_guid | awk '/LinkRecord dump/ { if (r != "") print r; r = ""; next } { r = r $0 } END { if (r != "") print r }' |
        grep 'ToLID' | grep -v '?' | sort; } >> "$out"
    { echo "== GIR $s"; sa GIR "$lid" | first 'GUIDInfo Record dump'; } >> "$out"
    sa LFTR "$lid/0" | first 'LFT Record dump' > "$work/lftr"
    grep -q 'Block.*0$' "$work/lftr" || fail "$sm: LFTR $s block 0: $(head -3 "$work/lftr")"
    lft_by_guid < "$work/lftr" > "$work/lftr.g"
    ibroute_by_guid "$lid" > "$work/ibroute.g"
    # ibroute leaves out LIDs it finds no route for; the LFTRecord shows them as 255.
    if ! diff <(grep -v ' 255$' "$work/lftr.g") "$work/ibroute.g" > /dev/null; then
      fail "$sm: LFTR $s block 0 is not the switch's LFT"; diff <(grep -v ' 255$' "$work/lftr.g") "$work/ibroute.g" | head -5
    fi
    # Block 0 holds LIDs 0-63: the same ports on both SMs only when every LID is below 64.
    if [ "$(wc -l < "$work/lids")" -lt 64 ]; then
      { echo "== LFTR $s routes to"; grep -v ' 255$' "$work/lftr.g" | awk '{ print $1 }' | sort | tr '\n' ' '; echo; } >> "$out"
    else
      { echo "== LFTR $s entries routed in block 0"; grep -v -c ' 255$' "$work/lftr.g"; } >> "$out"
    fi
  done
  for ca in "${sample_cas[@]}"; do
    lid=$(lid_of "$ca")
    { echo "== LR from $ca"; sa LR "$lid" | first 'LinkRecord dump'; } >> "$out"
    { echo "== GIR $ca"; sa GIR "$lid" | first 'GUIDInfo Record dump'; } >> "$out"
    { echo "== SWIR $ca (none)"; sa SWIR "$lid" | first 'SwitchInfoRecord dump'; } >> "$out"
  done
  # A service registered by an application on a CA, then looked up by everyone.
  SIM_HOST=${sample_cas[0]} shim "$CLIENT" set-service 0x100000000000abcd fabricsm-test > "$work/client.out" 2>&1 ||
    fail "$sm: ServiceRecord Set: $(cat "$work/client.out")"
  sa SR > "$work/sr"
  { echo "== SR after a Set"; first 'ServiceRecord dump' < "$work/sr"; } >> "$out"
  grep -q 'ServiceName.*fabricsm-test$' "$work/sr" || fail "$sm: saquery SR does not show the service: $(cat "$work/client.out" "$work/sr")"
}

for net in "$@"; do
  [ -f "$net" ] || { log "SKIP: $net not found"; continue; }
  name="SA records $(basename "$net")"
  mapfile -t cas < <(ca_names "$net")
  mapfile -t all_switches < <(awk -F'"' '/^Switch[ \t]/ { print $2 }' "$net")
  n=${#cas[@]}; ns=${#all_switches[@]}
  client=${cas[$((n - 1))]}
  switches=("${all_switches[0]}" "${all_switches[$((ns / 2))]}" "${all_switches[$((ns - 1))]}")
  sample_cas=("${cas[1]}" "${cas[$((n / 2))]}")
  for sm in opensm fabricsm; do
    ibsim_start "$net" || exit 1
    rm -f "$work/daemon.log"
    case $sm in
      fabricsm) (cd "$work/cwd" && LD_PRELOAD=$SHIM exec "$FABRICSM" run --db "$work/fabricsm.db" \
                   --control_socket "$work/sm.sock" --routing minhop 2> "$work/daemon.log") & ;;
      opensm) (cd "$work/cwd" && LD_PRELOAD=$SHIM OSM_TMP_DIR=$work OSM_CACHE_DIR=$work \
                 exec opensm -d 2 -R minhop -f "$work/daemon.log" > /dev/null 2>&1) & ;;
    esac
    sm_pid=$!
    i=0; until grep -q 'SUBNET UP' "$work/daemon.log" 2>/dev/null || [ $i -gt 600 ]; do i=$((i + 1)); sleep 0.1; done
    grep -q 'SUBNET UP' "$work/daemon.log" || { fail "$sm: no SUBNET UP"; exit 1; }
    t0=$(date +%s.%N)
    answers $sm "$net"
    # Nothing compared is empty: every switch has its SWIR, links, GUID and LFT routes.
    a=$work/$sm.answers
    [ "$(grep -c 'LinearFDBCap' "$a")" -eq ${#switches[@]} ] || fail "$sm: a switch without its SwitchInfoRecord"
    [ "$(grep -c 'FromLID.*0x.*ToLID.*0x' "$a")" -ge $((${#switches[@]} * 2 + ${#sample_cas[@]})) ] || fail "$sm: too few LinkRecords"
    [ "$(grep -c 'GUID 0\.*0x0*[1-9a-f]' "$a")" -eq $((${#switches[@]} + ${#sample_cas[@]})) ] || fail "$sm: a GUIDInfoRecord missing"
    [ "$(grep -A1 '^== LFTR' "$a" | grep -c -E '0x|^[1-9]')" -eq ${#switches[@]} ] || fail "$sm: an LFTRecord without routes"
    log "$sm: $(grep -c '^==' "$work/$sm.answers") questions in $(echo "$(date +%s.%N) - $t0" | bc | cut -c1-5) s"
    sm_stop TERM
    ibsim_stop
    rm -f "$work/fabricsm.db"*
  done
  if diff -u "$work/opensm.answers" "$work/fabricsm.answers" > "$work/diff"; then
    log "saquery SWIR/LR/GIR/LFTR/SR: fabricsm's answers equal OpenSM's ($(grep -c '^==' "$work/fabricsm.answers") questions); LFTRs equal ibroute"
  else
    fail "answers differ from OpenSM's:"; head -60 "$work/diff"
  fi
done
exit $failed
