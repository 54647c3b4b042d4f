#!/usr/bin/env bash
# bench/routing.sh: compute time and peak RSS of every routing engine on generated fabrics of
# about 1k, 10k and 39k CAs (3-level fat trees of radix 16, 34 and 54 from sim/generators.h),
# the same with 5% of the switch links removed, and a 2D torus. Figures, not pass/fail: one
# process per (engine, fabric), so that peak RSS is that engine's.
#   bench/routing.sh [build-dir]      (default build/; THREADS=n to fix the thread count)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
ninja -C "$build" tests/routing/bench_routing >/dev/null
bin="$build/tests/routing/bench_routing"
for fabric in ${FABRICS:-ft3-r16 ft3-r34 ft3-r54 ft3-r16-d5 ft3-r54-d5 torus40x40}; do
  for engine in ${ENGINES:-minhop updn ftree adaptive-hint cdg}; do
    /usr/bin/time -f "    %e s wall, %U s user CPU, %M KB peak RSS" "$bin" "$engine" "$fabric" "${THREADS:-0}"
  done
done
