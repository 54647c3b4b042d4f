#!/usr/bin/env bash
# web.sh FABRICSM NETFILE: the web view of `fabricsm run` (web_listen) on ibsim, in headless
# Chromium and through its API:
# - the overview shows as many switches and CAs as the net file has; a node search finds a
#   GUID; the API's nodes and cables are those `fabricsm show nodes/links --json` read from the
#   daemon's store;
# - a cable cut on ibsim's console shows as failed (API, cables page, topology) within a sweep;
# - web_listen off loopback without web_token_file, or with a token file others can read, stops
#   `fabricsm run` at start (exit 2, the option named).
# Screenshots go to $ARTIFACTS (default ./artifacts).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../web/browser.sh"

FABRICSM=$(realpath "$1")
NET=$2
[ -f "$NET" ] || { echo "SKIP: $NET not found"; exit 77; }
ibsim_init web-$$
name="web $(basename "$NET")"
trap ibsim_cleanup EXIT
browser_check
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
py() { python3 -c "import json, sys; j = json.load(sys.stdin); print($1)"; }

ibsim_start "$NET" console || exit 1
port=$(free_port)
sm_daemon fabricsm --routing_engine minhop --web_listen "$port" --perfmgr TRUE --perfmgr_sweep_time_s 1 \
  --perfmgr_sample_interval_s 1 || exit 1
grep -q "web view: http://127.0.0.1:$port/" "$work/daemon.log" || fail "no log line naming the web view"
url=http://127.0.0.1:$port
# The loop publishes every 200 ms: the first answer may predate SUBNET UP.
for _ in $(seq 50); do
  sum=$(curl -sf "$url/api/summary") && [ "$(py 'j["sm"].get("up")' <<< "$sum")" = True ] && break
  sleep 0.2
done
switches=$(grep -c '^Switch' "$NET")
cas=$(grep -c '^\(Hca\|Ca\)' "$NET")
[ "$(py 'j["counts"]["switches"], j["counts"]["cas"]' <<< "$sum")" = "$switches $cas" ] || fail "summary counts: $sum"
page=$(dom "$url/#/")
grep -q "id=\"count-switches\">$switches<" <<< "$page" && grep -q "id=\"count-cas\">$cas<" <<< "$page" &&
  log "overview: $switches switches, $cas CAs" || fail "overview: $(grep -o 'id="count-[a-z]*">[^<]*' <<< "$page")"

guid=$(curl -sf "$url/api/nodes?type=CA&limit=1&offset=5" | py 'j["nodes"][0]["guid"]')
page=$(dom "$url/#/search/$guid")
grep -q "<li data-guid=\"$guid\"" <<< "$page" && log "search: $guid found" || fail "search did not find $guid"

api_nodes=$(curl -sf "$url/api/nodes?limit=5000" | py '"\n".join(sorted(n["guid"] + " " + n["type"] for n in j["nodes"]))')
show_nodes=$("$FABRICSM" show nodes --db "$work/fabricsm.db" --json |
  py '"\n".join(sorted(n["guid"] + " " + n["type"] for n in j if n["present"]))')
[ "$api_nodes" = "$show_nodes" ] && log "nodes: the API's $(wc -l <<< "$api_nodes") = show nodes --json" ||
  fail "nodes differ from show nodes --json: $(diff <(echo "$api_nodes") <(echo "$show_nodes") | head -3)"
up_links() { "$FABRICSM" show links --db "$work/fabricsm.db" --json | py 'sum(1 for l in j if l["present"])'; }
api_links=$(curl -sf "$url/api/links?state=up&limit=5000" | py 'j["total"]')
[ "$api_links" = "$(up_links)" ] && log "cables: $api_links = show links --json" || fail "cables: API $api_links, show $(up_links)"

# Counters over time: data set behind the SM's back shows in the stored samples' rates, and
# the node page plots them.
ibsim_cmd 'PerformanceSet "S1_001"[1] PortCountersExtended.PortXmitData=123456789'
sw=$(curl -sf "$url/api/nodes?q=S1_001" | py 'j["nodes"][0]["guid"]')
peak=0
for _ in $(seq 40); do
  peak=$(curl -sf "$url/api/counters?node=$sw&port=1" | py 'int(max(j["series"]["xmit_bytes_per_s"] or [0]))')
  [ "$peak" -gt 100000000 ] && break
  sleep 0.25
done
[ "$peak" -gt 100000000 ] && log "counters: S1_001[1] xmit peaked at $peak bytes/s in the stored samples" || fail "no rate in the stored samples"
page=$(dom "$url/#/node/$sw?port=1")
[ "$(grep -o '<polyline' <<< "$page" | wc -l)" = 4 ] && log "node page: 4 plots of S1_001[1]" || fail "node page: no plots"

# A cable cut: failed within a sweep (the trap, then the SM's incremental sweep).
t0=$(date +%s%N)
ibsim_cmd 'Unlink "S1_000"[5]'
failed_total=0
for _ in $(seq 100); do
  failed_total=$(curl -sf "$url/api/links?state=failed" | py 'j["total"]') && [ "$failed_total" -ge 1 ] && break
  sleep 0.1
done
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$failed_total" = 1 ] && log "cable cut: failed in the API after $ms ms" || fail "cable cut: $failed_total failed after $ms ms"
page=$(dom "$url/#/links?state=failed")
grep -q 'data-state="failed"' <<< "$page" && grep -q '>S1_000<' <<< "$page" && log "cables page: the cut cable, failed, S1_000 named" ||
  fail "cables page does not show the cut cable"
page=$(dom "$url/#/topology")
grep -q 'class="edge failed"' <<< "$page" && log "topology: the cut cable drawn failed" || fail "topology: no failed edge"
api_links=$(curl -sf "$url/api/links?state=up&limit=5000" | py 'j["total"]')
[ "$api_links" = "$(up_links)" ] || fail "after the cut: API $api_links cables up, show $(up_links)"
dir=$(artifacts)
shot "$url/#/topology" "$dir/web-ibsim-topology.png" && shot "$url/#/links?state=failed" "$dir/web-ibsim-cables.png" &&
  shot "$url/#/" "$dir/web-ibsim-overview.png" && shot "$url/#/node/$sw?port=1" "$dir/web-ibsim-node.png" 1400,1100 && log "screenshots in $dir" || fail "no screenshot"
sm_stop

# Off loopback, a token is needed; a token file others can read is refused (nothing sent).
run_cfg() { (cd "$work/cwd" && LD_PRELOAD=$SHIM timeout 10 "$FABRICSM" run --db "" --control_socket "" "$@" 2>&1); }
out=$(run_cfg --web_listen "0.0.0.0:$port"); rc=$?
[ $rc -eq 2 ] && grep -q web_token_file <<< "$out" && log "off loopback without a token: exit 2" || fail "no token off loopback: exit $rc: $out"
printf 'a-token-of-twenty-chars\n' > "$work/token"
chmod 644 "$work/token"
out=$(run_cfg --web_listen "0.0.0.0:$port" --web_token_file "$work/token"); rc=$?
[ $rc -eq 2 ] && grep -q web_token_file <<< "$out" && log "a world-readable token file: exit 2" || fail "token file 0644: exit $rc: $out"
grep -q a-token-of-twenty <<< "$out" && fail "the token is in the error message"
ibsim_stop
exit $((failed > 0))
