#!/usr/bin/env bash
# Runs the benchmarks: all of them, or those named. Each is bench/NAME.sh;
# it prints its table and writes NAME.tsv (machine-readable, header first)
# into one results directory for the whole run, with its printed output as
# NAME.txt beside it.
#
#   bench/run.sh [--quick] [--results DIR] [NAME...]
#   bench/run.sh --list
#
# --quick runs every benchmark at small sizes for a few seconds: it proves
# they still run (CI does this through `ctest -L bench`) and its numbers mean
# little. Without --results, results go to build/bench-results/DATE-TIME.
# BUILD (default build/release) is the build tree whose memctl and bench
# programs are measured; `scripts/setup.sh release` builds it.
#
# A new benchmark is a new bench/NAME.sh that accepts --quick, writes
# $BENCH_RESULTS/NAME.tsv, and exits 0 (measured), 77 (cannot run on this
# host: reason printed) or anything else (broken); nothing here needs to
# change. Exit status: 0 when none broke, else 1.
set -u
cd "$(dirname "$0")/.." || exit 1
QUICK=()
RESULTS=""
names=()
# bench/lib.sh and bench/stats.sh are sourced helpers, not benchmarks.
lib() { [ "$1" = run ] || [ "$1" = lib ] || [ "$1" = stats ]; }
all() { for f in bench/*.sh; do f=${f##*/}; f=${f%.sh}; lib "$f" || echo "$f"; done; }
while [ $# -gt 0 ]; do
	case $1 in
	--quick) QUICK=(--quick); shift ;;
	--results) RESULTS=$2; shift 2 ;;
	--list) all; exit 0 ;;
	-*) echo "usage: $0 [--quick] [--results DIR] [NAME...]   (names: $(all | tr '\n' ' '))" >&2; exit 2 ;;
	*) names+=("$1"); shift ;;
	esac
done
# The guest benchmark boots QEMU and may first build two kernels: its quick
# mode is a ctest of its own (bench-guest/quick, which holds the guest lock),
# so a --quick run of all leaves it out; name it to run it.
[ ${#names[@]} -gt 0 ] || mapfile -t names < <(all | { [ ${#QUICK[@]} -gt 0 ] && grep -vx guest || cat; })
for n in "${names[@]}"; do
	[ -f "bench/$n.sh" ] && ! lib "$n" ||
		{ echo "bench/run.sh: no benchmark '$n' (have: $(all | tr '\n' ' '))" >&2; exit 2; }
done
export BENCH_RESULTS=${RESULTS:-$PWD/build/bench-results/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$BENCH_RESULTS" || exit 1

echo "bench/run.sh ${QUICK[*]} ${names[*]}: results in $BENCH_RESULTS"
echo "host: $(nproc) CPUs, kernel $(uname -r), $(awk '$1 == "MemTotal:" { printf "%.1f GiB RAM", $2 / 1048576 }' /proc/meminfo)," \
	"started $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
summary=()
bad=0
for n in "${names[@]}"; do
	echo
	echo "== $n"
	start=$(date +%s)
	bash "bench/$n.sh" "${QUICK[@]}" 2>&1 | tee "$BENCH_RESULTS/$n.txt"
	rc=${PIPESTATUS[0]}
	took=$(($(date +%s) - start))
	case $rc in
	0) if [ -s "$BENCH_RESULTS/$n.tsv" ]; then st=ok; else st="broken (no $n.tsv)"; bad=1; fi ;;
	77) st=skipped ;;
	*) st="broken (exit $rc)"; bad=1 ;;
	esac
	summary+=("$(printf '%-12s %-24s %4ds' "$n" "$st" "$took")")
done
echo
echo "== summary ($BENCH_RESULTS)"
printf '%s\n' "${summary[@]}"
exit $bad
