#!/usr/bin/env bash
# cli_errors.sh FABRICSM SHARED: usage errors and failed lookups, over every subcommand.
# - A bad option, a missing argument and an extra one exit 2 (cli::kExitUsage) in every command,
#   with a message on stderr and nothing on stdout; an extra word is named, not ignored.
# - An option out of range is named alone (`--loss 2` says --loss, not every option checked).
# - `show routes LID` of a LID no port has exits 1 saying so (not a table of "(no route)").
# - An option naming a file that cannot be read is refused with the file, line and key.
# - The default routing engine is the same for `run`, `sim` and `drill`, and `sim` routes with it.
# - --help after a command's words is its help (exit 0).
# - `--routing help` lists every engine (one a line, with deadlock freedom, VLs and fabrics), the
#   same for `run` and `sim`, without a config file or a topology.
set -uo pipefail
fabricsm=$(realpath "$1")
shared=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
net=$shared/topologies/ft2-r8.net
[ -f "$net" ] || { echo "SKIP: $net not found"; exit 77; }
"$fabricsm" sim -t "$net" --db "$work/s.db" --log-level error > /dev/null || { echo "FAIL: sim --db"; exit 1; }
printf 'sm_priority = 1\n' > "$work/ok.conf"
"$fabricsm" topo torus --dims 2x2 -o "$work/t.net" || { echo "FAIL: topo torus"; exit 1; }
db=(--db "$work/s.db")

# expect RC PATTERN ARGS...: exit status RC, stderr matching PATTERN (grep -E), stdout empty.
expect() {
  local want=$1 pattern=$2 rc
  shift 2
  (cd "$work" && timeout 60 "$fabricsm" "$@" > "$work/out" 2> "$work/err")
  rc=$?
  if [ "$rc" -ne "$want" ] || ! grep -q -E -e "$pattern" "$work/err" || [ -s "$work/out" ]; then
    fail "fabricsm $*: exit $rc (want $want), stderr '$(head -c 300 "$work/err")' (want /$pattern/), stdout $(wc -c < "$work/out") bytes"
  fi
}

# A bad option: named, exit 2, in every command.
for cmd in "sim" "drill" "run" "show nodes" "status" "health clear" "config import $work/ok.conf" \
           "config check $work/ok.conf" "topo fat-tree" "topo two-level" "topo pgft" "topo torus" "topo hyperx" "topo dragonfly" "topo random" \
           "topo check $work/t.net" "topo convert $work/t.net"; do
  # shellcheck disable=SC2086
  expect 2 "--bogus" $cmd --bogus
done
# An extra argument: named, exit 2 (sim, drill, run and status ignored it and ran).
expect 2 "unexpected argument 'extra'" sim extra
expect 2 "unexpected argument 'extra'" drill extra
expect 2 "unexpected argument 'extra'" run extra
expect 2 "unexpected argument 'extra'" status extra --socket "$work/none.sock"
expect 2 "unexpected argument 'extra'" show nodes extra "${db[@]}"
expect 2 "one destination LID" show routes 1 2 "${db[@]}"
expect 2 "too many" health clear extra
expect 2 "usage" config import "$work/ok.conf" extra
expect 2 "too many" topo check "$work/t.net" extra
expect 2 "too many" topo convert "$work/t.net" extra
# A missing argument or value: exit 2, the same with or without a store (usage comes first).
expect 2 "usage"
expect 2 "unknown command 'bogus'" bogus
expect 2 "which table" show "${db[@]}"
expect 2 "which table" show --db "$work/none.db"
expect 2 "unknown table 'bogus'" show bogus --db "$work/none.db"
expect 2 "one destination LID" show routes --db "$work/none.db"
expect 2 "not a unicast LID" show routes 0x1x "${db[@]}"
expect 2 "nothing asked" health
expect 2 "usage" config
expect 2 "usage" config import
expect 2 "usage" topo
expect 2 "required" topo check
expect 2 "required" topo fat-tree
expect 2 "missing" sim --window
expect 2 "missing" status --socket
# A value out of range names that option alone.
expect 2 "^fabricsm sim: --loss 2: must be in \[0, 1\)$" sim --loss 2
expect 2 "^fabricsm drill: --loss 2: must be in \[0, 1\)$" drill --loss 2
expect 2 "^fabricsm sim: --window 0: must be 1 or more$" sim --window 0
expect 2 "^fabricsm sim: --max-sweeps 0: must be 1 or more$" sim --max-sweeps 0
expect 2 "^fabricsm sim: --steady -1: must be 0..86400 seconds$" sim --steady -1
expect 2 "^fabricsm drill: --settle-ms 50: must be 100 or more$" drill --settle-ms 50
expect 2 "^fabricsm drill: --sms 20: must be 1-16$" drill --sms 20
expect 2 "unknown drill event 'explode'" drill --events kill,explode
expect 2 "LEVELS,RADIX" sim --fat-tree 3
expect 2 "radix 3" drill --fat-tree 3,3
expect 2 "--limit 0" show events --limit 0 "${db[@]}"
expect 2 "--top 0" show counters --top 0 "${db[@]}"
expect 2 "options of .show counters." show nodes --top 3 "${db[@]}"
expect 2 "^fabricsm run: --sm_priority: " run --sm_priority 99
# A lookup that finds nothing: exit 1, said plainly.
expect 1 "no port has LID 9999" show routes 9999 "${db[@]}"
"$fabricsm" show routes 1 "${db[@]}" > "$work/routes.txt" || fail "show routes 1: exit $?"
[ "$(tail -n +2 "$work/routes.txt" | wc -l)" -eq 12 ] || fail "show routes 1: $(cat "$work/routes.txt")"
# An option naming a file that cannot be read: the file, the line and the key (the config file's
# line, or the command line's option).
printf 'lmc = 0\nroot_guid_file = (null)\n' > "$work/null.conf"
expect 2 "null.conf:2: root_guid_file: \(null\): " config check "$work/null.conf"
expect 2 "^fabricsm run: --root_guid_file: /nonexistent: " run --root_guid_file /nonexistent --dump-config

# --help anywhere in a command's words is its help, exit 0 (`config import --help` read --help
# as a file once).
for cmd in "config" "config import" "config check $work/ok.conf" "show nodes" "sim" "drill" "run" "status" "topo fat-tree"; do
  # shellcheck disable=SC2086
  out=$("$fabricsm" $cmd --help 2> "$work/err"); rc=$?
  [ $rc -eq 0 ] && [ -n "$out" ] || fail "fabricsm $cmd --help: exit $rc, stdout ${#out} bytes, stderr '$(head -c 200 "$work/err")'"
done

# One default routing engine: what each command's help says, and what sim routes with.
engine_run=$("$fabricsm" run --help | tr -s ' \n' ' ' | grep -o -e '--routing_engine VALUE [^[]*\[default: [^]]*\]')
engine_sim=$("$fabricsm" sim --help | grep -e '--routing' | grep -o '(=[^)]*)')
engine_drill=$("$fabricsm" drill --help | grep -e '--routing' | grep -o '(=[^)]*)')
engine_run=${engine_run##*\[default: }; engine_run=${engine_run%]}
engine_sim=${engine_sim#(=}; engine_sim=${engine_sim%)}
engine_drill=${engine_drill#(=}; engine_drill=${engine_drill%)}
if [ -z "$engine_run" ] || [ "$engine_run" != "$engine_sim" ] || [ "$engine_run" != "$engine_drill" ]; then
  fail "default routing engine: run '$engine_run', sim '$engine_sim', drill '$engine_drill'"
fi
dump=$("$fabricsm" run --dump-config)
grep -q -x -E "(# )?routing_engine = $engine_run" <<< "$dump" || fail "run --dump-config: $(grep routing_engine <<< "$dump")"
"$fabricsm" sim -t "$net" --log-level error --json > "$work/sim.json" || fail "sim: exit $?"
python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); assert j["routing"] == sys.argv[2], j["routing"]' \
  "$work/sim.json" "$engine_run" || fail "sim does not route with the default '$engine_run'"

# --routing help: every engine the config help names, one row each, what it promises.
list_sim=$("$fabricsm" sim -R help 2> "$work/err") || fail "sim -R help: exit $?, $(head -c 200 "$work/err")"
list_run=$("$fabricsm" run --routing help --config /nonexistent 2> "$work/err") || fail "run --routing help: exit $?, $(head -c 200 "$work/err")"
[ "$list_sim" = "$list_run" ] || fail "run and sim list the engines differently"
names=$(grep -x -E '# engine or chain tried in order.*' <<< "$dump" | sed 's/.*, of: //' | tr ';' '\n' | sed -E 's/^ *([a-z-]+) .*/\1/')
[ "$(wc -l <<< "$names")" -ge 4 ] || fail "dump-config names too few engines: $names"
for name in $names; do
  row=$(grep -E "^$name " <<< "$list_sim") || { fail "--routing help has no row for $name"; continue; }
  on=$net
  if [ "$name" = dor ]; then  # meshes, tori and HyperX only: the tree is refused, a torus routed
    "$fabricsm" sim -t "$net" -R dor --log-level error > /dev/null 2>&1 && fail "sim -R dor routes a fat tree"
    on=$work/torus5.net
    "$fabricsm" topo torus --dims 5x5 -o "$on" || fail "topo torus"
  fi
  "$fabricsm" sim -t "$on" -R "$name" --log-level error > /dev/null || fail "sim -R $name (listed) does not route"
  case $name in
    updn|ftree) grep -q -E "^$name +yes, one VL +1 " <<< "$row" || fail "$name row does not promise one-VL deadlock freedom: $row" ;;
    minhop) grep -q -E "^minhop +no " <<< "$row" || fail "minhop row claims deadlock freedom: $row" ;;
  esac
done
[ "$(grep -c -v '^engine ' <<< "$list_sim")" -eq "$(wc -l <<< "$names")" ] || fail "--routing help lists other engines than dump-config: $list_sim"

[ "$failed" -eq 0 ] && echo "cli_errors: usage errors exit 2 everywhere; lookups, file options and the default engine: OK"
exit "$failed"
