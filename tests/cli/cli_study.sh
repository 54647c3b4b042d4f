#!/usr/bin/env bash
# `fabricsm study` as a researcher runs it (seconds): a 3-level radix-8 tree with 0 and 5% of
# its switch links failed, two seeds, ftree and updn, EBB with and without adaptive switches.
# The rows come in a fixed order with the same figures whatever the number of jobs; failures
# lower static EBB and adaptive switches recover part of it; the plot is a valid SVG with one
# curve per engine; bad options are usage errors (exit 2) before anything runs.
set -uo pipefail
fabricsm=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
args=(--fabric 3,8 --fail 0,0.05 --seeds 2 --engines ftree,updn --bisections 4 --adaptive)

"$fabricsm" study "${args[@]}" --jobs 2 --csv "$work/a.csv" --plot "$work/p.svg" 2> "$work/err" || fail "study: exit $?: $(cat "$work/err")"
"$fabricsm" study "${args[@]}" --jobs 1 > "$work/b.csv" 2> /dev/null || fail "study -j1: exit $?"
[ "$(wc -l < "$work/a.csv")" = 17 ] || fail "expected a header and 16 rows: $(wc -l < "$work/a.csv")"
# The last two columns are times; the rest must not depend on the threads.
same() { python3 -c 'import csv, sys; [print(r[:-2]) for r in csv.reader(open(sys.argv[1]))]' "$1"; }
[ "$(same "$work/a.csv")" = "$(same "$work/b.csv")" ] || fail "rows differ between --jobs 2 and 1: $(diff <(same "$work/a.csv") <(same "$work/b.csv") | head -4)"
python3 - "$work/a.csv" <<'PY' || exit 1
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def ebb(engine, fail, ar):
    v = [float(r["ebb"]) for r in rows if r["engine"] == engine and float(r["failed_fraction"]) == fail and r["adaptive"] == ar]
    assert len(v) == 2, (engine, fail, ar, v)
    return sum(v) / 2
for r in rows:
    assert r["subnet_up"] == "1" and r["unrouted_pairs"] == "0", r
    assert (int(r["links_failed"]) > 0) == (float(r["failed_fraction"]) > 0), r
for e in ("ftree", "updn"):
    full, cut, cut_ar = ebb(e, 0.0, "0"), ebb(e, 0.05, "0"), ebb(e, 0.05, "1")
    assert cut < full, f"{e}: failures did not lower EBB ({cut} >= {full})"
    assert cut_ar > cut, f"{e}: adaptive switches recovered nothing ({cut_ar} <= {cut})"
print("study rows: " + ", ".join(f"{e} EBB {ebb(e, 0.0, '0'):.3f} -> {ebb(e, 0.05, '0'):.3f} (AR {ebb(e, 0.05, '1'):.3f})" for e in ("ftree", "updn")))
PY
[ "$(grep -c '<polyline' "$work/p.svg")" = 4 ] || fail "plot: expected 4 curves (ftree, ftree+AR, updn, updn+AR)"
if command -v rsvg-convert > /dev/null; then
  rsvg-convert "$work/p.svg" -o "$work/p.png" || fail "the plot is not a valid SVG"
fi
for bad in "--fail 1.5" "--engines nosuch" "--patterns shift:x" "--seeds 0"; do
  # shellcheck disable=SC2086
  out=$("$fabricsm" study --fabric 3,8 $bad 2>&1); rc=$?
  [ $rc = 2 ] || fail "study $bad: exit $rc, expected 2: $out"
done
out=$("$fabricsm" study 2>&1); rc=$?
[ $rc = 2 ] && grep -q -- "--fabric" <<< "$out" || fail "study without --fabric: exit $rc: $out"
echo "PASS"
