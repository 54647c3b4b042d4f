#!/usr/bin/env bash
# promtool_check.sh PAGE_EXE: Prometheus' own linter on the page the sample renders (CI
# installs prometheus, so a missing promtool fails).
set -uo pipefail
command -v promtool >/dev/null || { echo "promtool missing: apt-get install prometheus"; exit 1; }
page=$("$1") || { echo "rendering failed"; exit 1; }
out=$(promtool check metrics <<< "$page" 2>&1); rc=$?
echo "$out"
[ $rc -eq 0 ] && [ -z "$out" ] || { echo "promtool check metrics: exit $rc"; exit 1; }
echo "promtool check metrics: OK ($(grep -c -v '^#' <<< "$page") samples)"
