#!/usr/bin/env bash
# metrics.sh FABRICSM NETFILE: the Prometheus endpoint of `fabricsm run` (metrics_listen) on
# ibsim, read by curl, promtool and a real Prometheus server.
# - /metrics after SUBNET UP: Content-Type 0.0.4, `promtool check metrics` clean, the SM's
#   state, LIDs in use (as ibnetdiscover counts the ports), switches, sweeps; other paths 404.
# - An SA query (saquery NodeRecord) shows in fabricsm_sa_queries_total{attribute="NodeRecord"}.
# - A second daemon on the same address exits 2 naming it, before it opens a port.
# - The PerfMgr (a counter sweep a second): a SymbolErrorCounter set through ibsim's console
#   (PerformanceSet) shows as infiniband_symbolerrorcounter_total with the exporter's labels,
#   and as a health finding.
# - Prometheus, scraping every second, answers /api/v1/query with the same values and labels.
. "$(dirname "$0")/lib.sh"

FABRICSM=$(realpath "$1")
NET=$2
[ -f "$NET" ] || { echo "SKIP: $NET not found"; exit 77; }
for tool in curl promtool prometheus; do
  command -v $tool > /dev/null || { echo "FAIL: $tool missing (apt-get install curl prometheus)"; exit 1; }
done
ibsim_init metrics-$$
name="metrics $(basename "$NET")"
prom_pid=""
trap '[ -n "$prom_pid" ] && kill $prom_pid 2>/dev/null && wait $prom_pid 2>/dev/null; ibsim_cleanup' EXIT

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# value PAGE 'SERIES': the value of one sample line of a page ('' when absent).
value() { awk -v s="$2" 'index($0, s " ") == 1 { print $NF; exit }' <<< "$1"; }

ibsim_start "$NET" console || exit 1
mport=$(free_port)
sm_daemon fabricsm --routing_engine minhop --sweep_interval 0 --metrics_listen "$mport" \
  --perfmgr TRUE --perfmgr_sweep_time_s 1 || exit 1
grep -q "metrics: http://127.0.0.1:$mport/metrics" "$work/daemon.log" || fail "no log line naming the endpoint"
url=http://127.0.0.1:$mport/metrics

# The loop publishes every 200 ms: the first page after SUBNET UP may predate it.
for _ in $(seq 20); do
  page=$(curl -sf "$url") && [ "$(value "$page" fabricsm_subnet_up)" = 1 ] && break
  sleep 0.2
done
ctype=$(curl -s -o /dev/null -w '%{content_type}' "$url")
[ "$ctype" = "text/plain; version=0.0.4; charset=utf-8" ] || fail "Content-Type: $ctype"
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$mport/")" = 404 ] || fail "/ is not 404"
lint=$(promtool check metrics <<< "$page" 2>&1) || fail "promtool check metrics: $lint"
[ -z "$lint" ] && log "promtool check metrics: OK ($(grep -c -v '^#' <<< "$page") samples)"

switches=$(grep -c '^Switch' "$NET")
lids=$(port_lids | wc -l)
for want in 'fabricsm_sm_state{state="master"} 1' 'fabricsm_subnet_up 1' "fabricsm_lids_in_use $lids" \
    "fabricsm_nodes{type=\"switch\"} $switches"; do
  got=$(value "$page" "${want% *}")
  [ "$got" = "${want##* }" ] || fail "${want% *} = '$got', expected ${want##* }"
done
heavy=$(value "$page" 'fabricsm_sweeps_total{kind="heavy"}')
[ "${heavy:-0}" -ge 1 ] || fail "fabricsm_sweeps_total{kind=\"heavy\"} = '$heavy'"
[ "$(value "$page" 'fabricsm_sweep_duration_seconds_count{kind="heavy"}')" = "$heavy" ] ||
  fail "the heavy sweep histogram does not count every heavy sweep"
[ "$(value "$page" fabricsm_smps_sent_total)" -gt 0 ] 2>/dev/null || fail "no SMPs counted as sent"
log "/metrics: master, subnet up, $lids LIDs, $switches switches, $heavy heavy sweep(s)"

if command -v saquery > /dev/null; then
  shim timeout 10 saquery NR > /dev/null 2>&1
  sleep 0.5
  n=$(value "$(curl -sf "$url")" 'fabricsm_sa_queries_total{attribute="NodeRecord"}')
  [ "${n:-0}" -ge 1 ] && log "SA: $n NodeRecord query(ies) counted" || fail "saquery NR not counted: '$n'"
fi

# The address is taken: a second daemon stops at start, exit 2, naming it (no port opened).
out=$(cd "$work/cwd" && LD_PRELOAD=$SHIM timeout 10 "$FABRICSM" run --db "" --control_socket "" \
        --metrics_listen "127.0.0.1:$mport" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "127.0.0.1:$mport" <<< "$out" && log "address in use: exit 2, named" ||
  fail "address in use: exit $rc: $out"

# The PerfMgr: a counter set behind the SM's back, seen at the next counter sweep.
ca=$(ca_names "$NET" | head -1)
ibsim_cmd "PerformanceSet \"$ca\"[1] PortCounters.SymbolErrorCounter=4321"
series="infiniband_symbolerrorcounter_total{component=\"ca\",local_name=\"$ca\""
for _ in $(seq 50); do
  page=$(curl -sf "$url")
  grep -q "^$series.*} 4321\$" <<< "$page" && break
  sleep 0.2
done
line=$(grep "^$series" <<< "$page")
if grep -q -E 'local_port="1",remote_guid="0x[0-9a-f]{16}",remote_port="[0-9]+",remote_name="[^"]+"} 4321$' <<< "$line"; then
  log "PerfMgr: $line"
else
  fail "PerfMgr: no SymbolErrorCounter 4321 at $ca port 1 with the exporter's labels: '$line'"
fi
grep -q '^fabricsm_health_findings_total{rule="symbol_error"} [1-9]' <<< "$page" || fail "no symbol_error finding counted"
lint=$(promtool check metrics <<< "$page" 2>&1) || fail "promtool check metrics (with the PerfMgr's): $lint"

# A real Prometheus scraping every second; its query API must see the SM's figures.
pport=$(free_port)
mkdir -p "$work/prom"
cat > "$work/prom/prometheus.yml" <<EOF
global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: fabricsm
    static_configs: [{targets: ['127.0.0.1:$mport']}]
EOF
prometheus --config.file="$work/prom/prometheus.yml" --storage.tsdb.path="$work/prom/data" \
  --web.listen-address="127.0.0.1:$pport" > "$work/prom/prometheus.log" 2>&1 &
prom_pid=$!
# query PROMQL: its first series as "{labels} value" (without __name__, instance and job).
query() {
  curl -sf -G "http://127.0.0.1:$pport/api/v1/query" --data-urlencode "query=$1" 2>/dev/null | python3 -c '
import json, sys
try:
    r = json.load(sys.stdin)["data"]["result"]
except ValueError:
    r = []
if r:
    m = {k: v for k, v in r[0]["metric"].items() if k not in ("__name__", "instance", "job")}
    print("{" + ",".join(f"{k}={v}" for k, v in sorted(m.items())) + "}", r[0]["value"][1])'
}
expect() {  # expect PROMQL "LABELS VALUE": waits up to 20 s for Prometheus to answer that
  local got="" i
  for i in $(seq 40); do
    got=$(query "$1")
    [ "$got" = "$2" ] && return 0
    kill -0 $prom_pid 2>/dev/null || break
    sleep 0.5
  done
  fail "Prometheus: $1 = '$got', expected '$2'"
  return 1
}
ok=0
expect 'fabricsm_sm_state == 1' "{state=master} 1" || ok=1
expect 'fabricsm_lids_in_use' "{} $lids" || ok=1
expect "fabricsm_nodes{type=\"switch\"}" "{type=switch} $switches" || ok=1
expect 'fabricsm_sweeps_total{kind="heavy"} >= 1' "{kind=heavy} $heavy" || ok=1
expect 'up' "{} 1" || ok=1
expect "infiniband_symbolerrorcounter_total{local_name=\"$ca\"} > 0" \
  "$(python3 -c 'import re, sys; print("{" + ",".join(f"{k}={v}" for k, v in sorted(re.findall(r"(\w+)=\"([^\"]*)\"", sys.argv[1]))) + "} 4321")' "$line")" || ok=1
if [ $ok -eq 0 ]; then
  log "Prometheus: scraped; state, LIDs, sweeps and the port counter as served"
else
  log "prometheus log (last lines):"; tail -20 "$work/prom/prometheus.log"
fi

sm_stop TERM || fail "fabricsm did not stop cleanly"
exit $failed
