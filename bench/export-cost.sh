#!/usr/bin/env bash
# What metrics export costs (a benchmark, not a test: it asserts nothing).
#
# With N groups below this shell's memory cgroup it prints, side by side in
# one run, the CPU time of one `memctl export` (Prometheus text and JSON)
# beside one `memctl top -b -n 1 -o json`, which reads the same groups
# through the same model; and the CPU time per interval of `memctl run`
# with and without --export. Rounds interleave the variants so that noise
# from other work on the host falls on all of them alike.
#
#   bench/export-cost.sh [--quick] [--groups N] [--rounds R] [--seconds S]
#
# --quick (bench/run.sh --quick, CI): 20 groups, one round of 1 s, to prove
# it still runs. Under bench/run.sh the numbers also go to
# $BENCH_RESULTS/export-cost.tsv.
# MEMCTL (default build/release/memctl). Needs root and a memory cgroup we
# may create groups in; they are made below our own cgroup and removed at
# the end.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MEMCTL=${MEMCTL:-$ROOT/build/release/memctl}
N=500
ROUNDS=5
SECONDS_RUN=3
while [ $# -gt 0 ]; do
	case $1 in
	--groups) N=$2; shift 2 ;;
	--rounds) ROUNDS=$2; shift 2 ;;
	--seconds) SECONDS_RUN=$2; shift 2 ;;
	--quick) N=20 ROUNDS=1 SECONDS_RUN=1; shift ;;
	*) echo "usage: $0 [--quick] [--groups N] [--rounds R] [--seconds S]" >&2; exit 2 ;;
	esac
done
self=$(sed -n 's/^[0-9]*:\([^:]*,\)\{0,1\}memory\(,[^:]*\)\{0,1\}:\(.*\)/\3/p' /proc/self/cgroup)
mnt=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ {print $2; exit}' /proc/mounts)
[ -n "$self" ] && [ -n "$mnt" ] || { echo "needs a cgroup v1 memory controller" >&2; exit 1; }
DIR=$mnt${self%/}
TOP=bench-export-$$
TMP=$(mktemp -d)
cleanup() {
	[ -d "$DIR/$TOP" ] && find "$DIR/$TOP" -depth -type d -exec rmdir {} \;
	rm -rf "$TMP"
}
trap cleanup EXIT

# N groups: 10 per middle group, like services with a few jobs each.
mkdir "$DIR/$TOP"
for i in $(seq 0 $((N - 1))); do
	mkdir -p "$DIR/$TOP/s$((i / 10))/j$i"
done
count=$(find "$DIR/$TOP" -type d | wc -l)

# CPU seconds (user + system) of a command's children, from bash's times.
cpu_of() {
	local t0 t1 me=$BASHPID
	t0=$(awk '{print $14 + $15 + $16 + $17}' /proc/$me/stat)
	"$@" > /dev/null 2>&1
	t1=$(awk '{print $14 + $15 + $16 + $17}' /proc/$me/stat)
	echo $((t1 - t0))
}
hz=$(getconf CLK_TCK)
TSV=${BENCH_RESULTS:+$BENCH_RESULTS/export-cost.tsv}
[ -n "$TSV" ] && printf 'groups\tway\tcpu_ms\tx_baseline\n' > "$TSV"
# Each variant 20 times per round, so clock ticks add up to something.
declare -A ticks
for r in $(seq 1 "$ROUNDS"); do
	for v in top prom json; do
		case $v in
		top) cmd=("$MEMCTL" -p "self/$TOP" -o json top -b -n 1) ;;
		prom) cmd=("$MEMCTL" -p "self/$TOP" export) ;;
		json) cmd=("$MEMCTL" -p "self/$TOP" -o json export) ;;
		esac
		t=$(cpu_of bash -c 'for i in $(seq 1 20); do "$@" || exit 1; done' - "${cmd[@]}")
		ticks[$v]=$(( ${ticks[$v]:-0} + t ))
	done
done
calls=$((ROUNDS * 20))
echo "memctl export with $count groups ($ROUNDS rounds x 20 calls each, CPU time per call):"
for v in top prom json; do
	ms=$(awk -v t="${ticks[$v]}" -v hz="$hz" -v c="$calls" 'BEGIN {printf "%.2f", 1000 * t / hz / c}')
	ratio=$(awk -v a="${ticks[$v]}" -v b="${ticks[top]}" 'BEGIN {printf "%.2f", b ? a / b : 0}')
	case $v in
	top) name="top -b -n 1 -o json" ;;
	prom) name="export (prom)" ;;
	json) name="export -o json" ;;
	esac
	printf '  %-22s %8s ms  x%s of top\n' "$name" "$ms" "$ratio"
	[ -n "$TSV" ] && printf '%s\t%s\t%s\t%s\n' "$count" "$v" "$ms" "$ratio" >> "$TSV"
done
echo "  output: $("$MEMCTL" -p "self/$TOP" export | wc -c) bytes prom, $("$MEMCTL" -p "self/$TOP" -o json export | wc -c) bytes json"

# memctl run on a profile of those groups' parent, with and without --export.
cat > "$TMP/p.yaml" <<YAML
version: 1
parent: self/$TOP
interval: 100ms
groups:
  s0: {max: 1G}
YAML
chmod 600 "$TMP/p.yaml"
run_cpu() {   # extra args; prints CPU ticks and intervals
	local pid t n
	"$MEMCTL" --no-mlock -s "$TMP" run "$TMP/p.yaml" "$@" 2> "$TMP/log" &
	pid=$!
	sleep "$SECONDS_RUN"
	t=$(awk '{print $14 + $15}' /proc/$pid/stat)
	kill -TERM $pid
	wait $pid
	n=$(sed -n 's/.*stopping after \([0-9]*\) intervals.*/\1/p' "$TMP/log")
	echo "$t $n"
}
declare -A rt ri
for r in $(seq 1 "$ROUNDS"); do
	for v in plain export; do
		if [ $v = export ]; then set -- "$(run_cpu --export "$TMP/m.prom")"; else set -- "$(run_cpu)"; fi
		read -r t n <<< "$1"; echo "# $v: $t ticks, $n intervals" >&2
		rt[$v]=$(( ${rt[$v]:-0} + t ))
		ri[$v]=$(( ${ri[$v]:-0} + n ))
	done
done
echo "memctl run, 100 ms interval, $count groups below the profile's parent ($ROUNDS x ${SECONDS_RUN}s each):"
for v in plain export; do
	ms=$(awk -v t="${rt[$v]}" -v hz="$hz" -v n="${ri[$v]}" 'BEGIN {printf "%.2f", 1000 * t / hz / n}')
	ratio=$(awk -v t="${rt[$v]}" -v n="${ri[$v]}" -v t0="${rt[plain]}" -v n0="${ri[plain]}" \
		'BEGIN {printf "%.2f", (t0 && n) ? (t / n) / (t0 / n0) : 0}')
	printf '  %-22s %8s ms CPU per interval  x%s\n' "$([ $v = plain ] && echo run || echo "run --export")" "$ms" "$ratio"
	[ -n "$TSV" ] && printf '%s\trun-%s\t%s\t%s\n' "$count" "$v" "$ms" "$ratio" >> "$TSV"
done
exit 0
