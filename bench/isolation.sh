#!/usr/bin/env bash
# Isolation (a benchmark, not a test: it asserts nothing), judged the way
# resctl-bench's protection benchmark does. A latency-sensitive service
# (reqloop: a fixed rate of requests, each 16 random 4K reads of its 96M data
# file, timed from when it was due) shares a 256M parent with a memory hog in
# a sibling group (hog: anonymous memory growing at 40 MB/s to 224M; no swap,
# so only the service's page cache can give way). Per arm and round: the
# service runs alone for SECONDS (its baseline), then SECONDS beside the hog.
#
#   isolation       per-second completed requests / the baseline's median
#                   rate, at the 1st and 50th percentile of the seconds
#                   beside the hog (resctl-bench's isolation p1 / p50)
#   latency impact  p95 request latency beside the hog / the baseline's p95
#                   - 1
#
# Arms (interleaved, the order rotating every round): none; oracle (the hog's
# group capped by hand at parent - data - 16M = 144M); oracle2 (the same
# again: the A/A control); memctl (`memctl run`, `protect: active` on the
# service, no sizes). A hog that reaches its cap is killed by the OOM killer
# in its own group: that is what a cap means for memory that cannot be
# reclaimed; the kills are counted.
#
#   bench/isolation.sh [--rounds N] [--seconds S] [--rate RPS] [--arms LIST] [--quick]
#
# Target (the issue's): memctl's isolation p1 >= 90% and within 5 points of
# the oracle's, printed as met or missed. Needs root and cgroup v1 (exit 77
# otherwise); groups only below this shell's own memory cgroup, removed at
# the end; files under a mktemp -d in /var/tmp.
set -u
. "$(dirname "$0")/lib.sh"

ROUNDS=10 SECONDS_=15 RATE=100 LIMIT_M=256 WS_M=96 HOG_M=224 HOG_RATE=40 MARGIN_M=16
ARMS="none oracle oracle2 memctl"
usage() { echo "usage: $0 [--rounds N] [--seconds S] [--rate RPS] [--arms LIST] [--quick]" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) ROUNDS=${2:-}; shift 2 || usage ;;
	--seconds) SECONDS_=${2:-}; shift 2 || usage ;;
	--rate) RATE=${2:-}; shift 2 || usage ;;
	--arms) ARMS=${2:-}; shift 2 || usage ;;
	--quick) ROUNDS=1 SECONDS_=3 RATE=50 LIMIT_M=64 WS_M=24 HOG_M=56 HOG_RATE=40 MARGIN_M=4; shift ;;
	*) usage ;;
	esac
done
for v in "$ROUNDS" "$SECONDS_" "$RATE"; do case $v in ''|*[!0-9]*|0) usage ;; esac; done
for a in $ARMS; do case $a in none|oracle|oracle2|memctl) ;; *) usage ;; esac; done
CAP_M=$((LIMIT_M - WS_M - MARGIN_M))

need_workloads reqloop hog ws-reader resident mkfile
bench_setup_v1 "no cgroup v1 memory controller (the v1 mechanism is measured here)"
DIR=$T_DIR PREFIX=$T_PREFIX TMP=$T_TMP
mkfile "$TMP/data" ${WS_M}M

in_group() { sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$@"; }
# nearest-rank percentile $1 (0-100) of the numbers on stdin
pctl() { sort -g | awk -v p="$1" '{ v[NR] = $1 } END { k = int(p / 100 * NR + 0.999999); if (k < 1) k = 1; if (NR) print v[k] }'; }

# One arm of one round: sets R_P1, R_P50 (isolation, %), R_LAT (latency
# impact, %), R_BASE (baseline rps), R_OOM (OOM kills in the parent).
arm() {
	local a=$1 r=$2 g=$DIR/$PREFIX-$1-$2 web='{}' hog='{}' base b95 h95
	case $a in
	oracle|oracle2) hog="{ max: ${CAP_M}M }" ;;
	memctl) web='{ protect: active }' ;;
	esac
	cat >"$TMP/$a-$r.yaml" <<YAML
version: 1
parent: self
interval: 1s
groups:
  $PREFIX-$a-$r:
    max: ${LIMIT_M}M
    groups:
      web: $web
      hog: $hog
YAML
	"$MEMCTL" apply "$TMP/$a-$r.yaml" >/dev/null || die "$a: apply failed"
	"$WL/resident" --drop "$TMP/data" >/dev/null
	in_group "$g/web" "$WL/ws-reader" --work 0 "$TMP/data" 2 >/dev/null || die "$a: warming failed"
	if [ "$a" = memctl ]; then
		"$MEMCTL" run "$TMP/$a-$r.yaml" 2>"$TMP/$a-$r.run.log" &
		B_RUN_PID=$!
		capped() { [ "$(cat "$g/hog/memory.limit_in_bytes")" -lt $((LIMIT_M << 20)) ]; }
		wait_until 150 capped || die "$a: memctl run set no cap in 15 s"
	fi
	in_group "$g/web" "$WL/reqloop" --seed "$r" "$TMP/data" "$RATE" "$SECONDS_" >"$TMP/base" ||
		die "$a: reqloop failed"
	# (exec ...): $! is the hog itself, so stop_jobs ends it
	(exec sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$g/hog" "$WL/hog" ${HOG_M}M "$HOG_RATE") \
		>/dev/null 2>&1 &
	B_PIDS="$B_PIDS $!"
	disown $!   # its end (an OOM kill, SIGTERM) is no news for this script's output
	in_group "$g/web" "$WL/reqloop" --seed "$((r + 1000))" "$TMP/data" "$RATE" "$SECONDS_" >"$TMP/hog" ||
		die "$a: reqloop beside the hog failed"
	R_OOM=$(cat "$g/memory.oom_control" "$g/hog/memory.oom_control" "$g/web/memory.oom_control" |
		awk '$1 == "oom_kill" { s += $2 } END { print s + 0 }')
	stop_jobs
	rmgroups "$g"
	base=$(sed -n 's/^sec .* rps=\([0-9]*\).*/\1/p' "$TMP/base" | pctl 50)
	b95=$(sed -n 's/^total .* p95_us=\([0-9]*\).*/\1/p' "$TMP/base")
	h95=$(sed -n 's/^total .* p95_us=\([0-9]*\).*/\1/p' "$TMP/hog")
	sed -n 's/^sec .* rps=\([0-9]*\).*/\1/p' "$TMP/hog" | awk -v b="$base" '{ printf "%.2f\n", 100 * $1 / b }' >"$TMP/iso"
	R_P1=$(pctl 1 <"$TMP/iso") R_P50=$(pctl 50 <"$TMP/iso") R_BASE=$base
	R_LAT=$(awk -v h="$h95" -v b="$b95" 'BEGIN { printf "%.1f", (b > 0 ? 100 * (h / b - 1) : 0) }')
}

echo "isolation: reqloop at $RATE/s over ${WS_M}M in a ${LIMIT_M}M parent, a hog growing to ${HOG_M}M at" \
	"$HOG_RATE MB/s beside it, ${SECONDS_}s baseline + ${SECONDS_}s beside the hog; oracle cap ${CAP_M}M;" \
	"$ROUNDS round(s); $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
tsv_header round arm baseline_rps isolation_p1_pct isolation_p50_pct latency_impact_pct oom_kills
printf '%-5s %-8s %8s %8s %8s %10s %4s\n' round arm "base rps" "iso p1" "iso p50" "lat. imp." oom
read -r -a ARMV <<<"$ARMS"
for r in $(seq 1 "$ROUNDS"); do
	for k in $(seq 0 $((${#ARMV[@]} - 1))); do
		a=${ARMV[$(((k + r - 1) % ${#ARMV[@]}))]}
		arm "$a" "$r"
		printf '%-5s %-8s %8s %7s%% %7s%% %9s%% %4s\n' "$r" "$a" "$R_BASE" "$R_P1" "$R_P50" "$R_LAT" "$R_OOM"
		echo "$r $a $R_BASE $R_P1 $R_P50 $R_LAT $R_OOM" >>"$TMP/rows"
		tsv_row "$r" "$a" "$R_BASE" "$R_P1" "$R_P50" "$R_LAT" "$R_OOM"
	done
done

col() { awk -v a="$1" -v c="$2" '$2 == a { print $c }' "$TMP/rows"; }
iqr() { col "$1" "$2" | stats_summary | awk '{ printf "%s [%s, %s]", $1, $2, $3 }'; }
med() { col "$1" "$2" | stats_summary | cut -d' ' -f1; }
echo
echo "medians [q1, q3] over $ROUNDS round(s):"
printf '%-8s %-24s %-24s %-26s %s\n' arm "isolation p1 %" "isolation p50 %" "latency impact %" "oom kills"
for a in $ARMS; do
	printf '%-8s %-24s %-24s %-26s %s\n' "$a" "$(iqr "$a" 4)" "$(iqr "$a" 5)" "$(iqr "$a" 6)" \
		"$(col "$a" 7 | awk '{ s += $1 } END { print s + 0 }')"
done
has() { echo " $ARMS " | grep -q " $1 "; }
pair() {
	has "$1" && has "$2" || return 0
	col "$1" "$3" >"$TMP/a"
	col "$2" "$3" >"$TMP/b"
	printf '%-34s %-14s Mann-Whitney U %s p %s\n' "$5" "$4" $(stats_mwu "$TMP/a" "$TMP/b")
}
echo
for c in "4 isolation-p1" "6 latency"; do
	pair oracle2 oracle $c "A/A control (oracle2 vs oracle):"
	pair oracle none $c "oracle vs none:"
	pair memctl oracle $c "memctl vs oracle:"
done
if has memctl && has oracle; then
	m=$(med memctl 4) o=$(med oracle 4)
	echo
	echo "target: memctl isolation p1 $m% >= 90% and within 5 points of the oracle's $o%:" \
		"$(awk -v m="$m" -v o="$o" 'BEGIN { print (m >= 90 && m >= o - 5) ? "met" : "MISSED" }')"
fi
exit 0
