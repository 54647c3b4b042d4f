#!/usr/bin/env bash
# web_sim.sh FABRICSM: `fabricsm sim --serve` on a 3-level radix-16 tree (320 switches,
# 1,024 CAs), loaded by headless Chromium:
# - the overview shows the switch and CA counts, the topology is drawn as groups (pods and
#   spine planes), a node search finds a GUID, a node page and a path come up;
# - the API's nodes and cables are those `fabricsm show --json` reads from the run's store;
# - an access token: requests without it get 401, with it (Bearer, or the login form's cookie)
#   200; off loopback --serve refuses to start without one.
# Screenshots go to $ARTIFACTS (default ./artifacts).
set -uo pipefail
FABRICSM=$(realpath "$1")
name="web sim"
work=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
. "$(dirname "$0")/browser.sh"
browser_check
failed=0
log() { echo "[$name] $*"; }
fail() { log "FAIL: $*"; failed=$((failed + 1)); }
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# jq-like: python3 over JSON on stdin; the expression sees it as `j`.
py() { python3 -c "import json, sys; j = json.load(sys.stdin); print($1)"; }

# serve ARGS...: a sim with --serve in the background, back when its API answers.
serve() {
  port=$(free_port)
  "$FABRICSM" sim "$@" --serve "127.0.0.1:$port" > "$work/sim.out" 2> "$work/sim.err" &
  pid=$!
  for _ in $(seq 600); do
    # 200, or 401 with a token: it answers, and it has published (before that: no connection).
    case $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/api/nodes?limit=1") in 200|401) return 0 ;; esac
    kill -0 $pid 2> /dev/null || break
    sleep 0.1
  done
  log "FAIL: sim --serve never answered"; cat "$work/sim.err"; return 1
}
stop() { kill -TERM $pid; wait $pid; local rc=$?; pid=""; return $rc; }

serve --fat-tree 3,16 --perfmgr 2 --db "$work/sim.db" || exit 1
url="http://127.0.0.1:$port"
sum=$(curl -sf "$url/api/summary")
[ "$(py 'j["counts"]["switches"], j["counts"]["cas"], j["drawing"]["tree"]' <<< "$sum")" = "320 1024 True" ] ||
  fail "summary counts: $sum"

page=$(dom "$url/#/")
grep -q 'id="count-switches">320<' <<< "$page" && grep -q 'id="count-cas">1024<' <<< "$page" &&
  log "overview: 320 switches, 1024 CAs" || fail "overview counts not shown: $(grep -o 'id="count-[a-z]*">[^<]*' <<< "$page")"

groups=$(py 'j["drawing"]["groups"]' <<< "$sum")
page=$(dom "$url/#/topology")
drawn=$(grep -o 'data-kind="group"' <<< "$page" | wc -l)
grep -q 'data-mode="groups"' <<< "$page" && [ "$drawn" = "$groups" ] && log "topology: $drawn groups drawn" ||
  fail "topology: $drawn groups drawn of $groups"
page=$(dom "$url/#/topology/0")
[ "$(grep -o 'data-kind="switch"' <<< "$page" | wc -l)" = 16 ] && log "pod 0 opened: 16 switches" || fail "pod 0 not drawn switch by switch"

# A CA's GUID, searched for as a user types it.
guid=$(curl -sf "$url/api/nodes?type=CA&limit=1&offset=500" | py 'j["nodes"][0]["guid"]')
page=$(dom "$url/#/search/$guid")
grep -q "<li data-guid=\"$guid\"" <<< "$page" && log "search: $guid found" || fail "search did not find $guid"
page=$(dom "$url/#/node/$guid")
grep -q "id=\"node-title\" data-guid=\"$guid\"" <<< "$page" || fail "node page of $guid"
other=$(curl -sf "$url/api/nodes?type=CA&limit=1&offset=3" | py 'j["nodes"][0]["lid"]')
page=$(dom "$url/#/path/$guid/$other")
grep -q 'id="path-result">reached in' <<< "$page" && log "path to LID $other: $(grep -o 'reached in [0-9]* hop' <<< "$page")" ||
  fail "path not reached"

# The API against what `fabricsm show --json` reads from the same run's store.
api_nodes=$(curl -sf "$url/api/nodes?limit=5000" | py '"\n".join(sorted(n["guid"] + " " + n["description"] for n in j["nodes"]))')
show_nodes=$("$FABRICSM" show nodes --db "$work/sim.db" --json |
  py '"\n".join(sorted(n["guid"] + " " + n["description"] for n in j if n["present"]))')
[ "$api_nodes" = "$show_nodes" ] && log "nodes: the API's $(wc -l <<< "$api_nodes") = show nodes --json" ||
  fail "nodes differ from show nodes --json: $(diff <(echo "$api_nodes") <(echo "$show_nodes") | head -3)"
api_links=$(curl -sf "$url/api/links?state=up&limit=5000" | py 'j["total"]')
show_links=$("$FABRICSM" show links --db "$work/sim.db" --json | py 'sum(1 for l in j if l["present"])')
[ "$api_links" = "$show_links" ] && log "cables: $api_links = show links --json" || fail "cables: API $api_links, show $show_links"

dir=$(artifacts)
for v in "overview:#/" "topology:#/topology" "pod:#/topology/0" "node:#/node/$guid"; do
  shot "$url/${v#*:}" "$dir/web-sim-${v%%:*}.png" || fail "no screenshot of ${v%%:*}"
done
log "screenshots in $dir; first render of the overview $(first_render "$url/#/") ms"
stop || fail "sim --serve: exit $? on SIGTERM"

# An access token: 401 without, 200 with it (Bearer, or the cookie the login form sets).
printf 'a-token-of-twenty-chars\n' > "$work/token"
chmod 600 "$work/token"
serve --fat-tree 2,8 --web-token-file "$work/token" --traffic shift:4 || exit 1
url="http://127.0.0.1:$port"
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
[ "$(code "$url/api/summary")" = 401 ] && [ "$(code "$url/")" = 401 ] || fail "no token: not 401"
[ "$(code -H 'Authorization: Bearer a-token-of-twenty-chars' "$url/api/summary")" = 200 ] || fail "Bearer token refused"
[ "$(code -H 'Authorization: Bearer a-token-of-twenty-charX' "$url/api/summary")" = 401 ] || fail "a wrong token let in"
cookie=$(curl -s -o /dev/null -D - --data 'token=a-token-of-twenty-chars' "$url/login" | tr -d '\r' | awk -F': ' 'tolower($1) == "set-cookie" { print $2 }')
grep -q 'HttpOnly' <<< "$cookie" && [ "$(code -H "Cookie: ${cookie%%;*}" "$url/api/summary")" = 200 ] &&
  log "token: 401 without, 200 with Bearer or the login cookie" || fail "login cookie: '$cookie'"
[ "$(code --data 'token=wrong' "$url/login")" = 401 ] || fail "a wrong login token was not 401"
# With --traffic, the cables carry the pattern's utilisation.
top=$(curl -s -H 'Authorization: Bearer a-token-of-twenty-chars' "$url/api/topology" | py 'j["loads"]["name"], j["loads"]["max"]')
[ "$top" = "utilisation by shift:4 1.0" ] && log "traffic: links coloured by the shift's utilisation" || fail "traffic loads: $top"
stop || fail "sim --serve (token): exit $?"
out=$("$FABRICSM" sim --fat-tree 2,8 --serve 0.0.0.0:1 2>&1); rc=$?
[ $rc = 2 ] && grep -q 'web-token-file' <<< "$out" || fail "--serve off loopback without a token: exit $rc: $out"

[ $failed -eq 0 ] && log "PASS" || log "$failed failure(s)"
exit $((failed > 0))
