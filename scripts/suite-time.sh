#!/usr/bin/env bash
# Compares the debug test suite's time of this checkout with another one's, measured in the same
# minutes: the two suites run alternately (ROUNDS times each, `swift test --skip-build`, both
# already built with `swift build --build-tests`), so machine load falls on both alike.
# Prints each run's wall and CPU seconds and the medians (docs/performance.md, "The test
# suite's time").
#
#   scripts/suite-time.sh OTHER_CHECKOUT [ROUNDS]
set -euo pipefail
other=${1:?usage: scripts/suite-time.sh OTHER_CHECKOUT [ROUNDS]}
rounds=${2:-5}
here=$(cd "$(dirname "$0")/.." && pwd)
other=$(cd "$other" && pwd)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for _ in $(seq "$rounds"); do
    for side in other here; do
        dir=$([ "$side" = here ] && echo "$here" || echo "$other")
        start=$(date +%s.%N)
        /usr/bin/time -f "%U %S" -o "$log.cpu" swift test --package-path "$dir" --skip-build >"$log.out" 2>&1 \
            || { echo "suite failed in $dir"; tail -20 "$log.out"; exit 1; }
        end=$(date +%s.%N)
        read -r user system <"$log.cpu"
        awk -v s="$side" -v a="$start" -v b="$end" -v u="$user" -v y="$system" \
            'BEGIN { printf "%-5s wall %6.2f s  cpu %6.2f s\n", s, b - a, u + y }' | tee -a "$log"
    done
done
rm -f "$log.cpu" "$log.out"
for side in other here; do
    for column in 3 6; do
        grep "^$side " "$log" | awk -v c=$column '{print $c}' | sort -n | awk '{v[NR]=$1} END {m=(NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2; printf "%s ", m}'
    done | awk -v s="$side" '{printf "%-5s median wall %.2f s, cpu %.2f s\n", s, $1, $2}'
done
