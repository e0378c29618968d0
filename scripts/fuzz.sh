#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan+UBSan) in build/fuzz and runs
# each on its seed corpus:
#   scripts/fuzz.sh            each for 20 s (what scripts/test.sh runs)
#   scripts/fuzz.sh 300        each for 300 s
#   scripts/fuzz.sh runs 1e7 [TARGET...]
#                              each (or each TARGET: profile, cgconfig, ...) for 10
#                              million executions; prints its stats, corpus and coverage
#                              (FUZZ_MAX_SECONDS=N also stops each after N seconds;
#                              FUZZ_TIMEOUT=N lets one unit take N s of wall clock, not 10,
#                              for a niced run that may wait minutes for a CPU)
set -euo pipefail
cd "$(dirname "$0")/.."
pkgs=(clang libclang-rt-14-dev)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get -o DPkg::Lock::Timeout=600 update -q
	DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -q "${missing[@]}"
fi
CC=clang cmake -S . -B build/fuzz -DMEMCTL_FUZZ=ON -DMEMCTL_SANITIZE=ON \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo -DMEMCTL_FUZZ_SECONDS="${1:-20}" >/dev/null
# every target there is: tests/fuzz/fuzz-NAME.c
all=()
for f in tests/fuzz/fuzz-*.c; do t=${f#tests/fuzz/fuzz-}; all+=("${t%.c}"); done
cmake --build build/fuzz -j "$(nproc)" --target "${all[@]/#/fuzz-}"
if [ "${1:-}" = runs ]; then
	runs=$(python3 -c "print(int(float('${2:-1e7}')))")
	shift $(( $# >= 2 ? 2 : $# ))
	[ $# -gt 0 ] || set -- "${all[@]}"
	for t in "$@"; do
		mkdir -p "build/fuzz/tests/fuzz-corpus/$t"
		echo "== fuzz-$t: $runs executions, $(date -u +%FT%TZ)"
		start=$(date +%s)
		build/fuzz/tests/fuzz-$t -runs="$runs" ${FUZZ_MAX_SECONDS:+-max_total_time=$FUZZ_MAX_SECONDS} -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=1024 -print_final_stats=1 \
			"build/fuzz/tests/fuzz-corpus/$t" "tests/fuzz/corpus/$t" 2>&1 |
			grep -E "^stat::|ERROR|SUMMARY|crash-|Done|DONE|INITED"
		echo "fuzz-$t: $(( $(date +%s) - start )) s; corpus $(ls "build/fuzz/tests/fuzz-corpus/$t" | wc -l) files"
	done
else
	cd build/fuzz && ctest --output-on-failure -L fuzz
fi
