#!/usr/bin/env bash
# Active-set protection, three arms (a benchmark, not a test: it asserts
# nothing). The first experiment of the active-set patch series (its seed,
# docs/BENCHMARKS.md) on this host's cgroup v1: a job (ws-reader: re-reads a
# 64M file with gzip-like CPU work per block) shares a 192M parent with 4
# streamers (streamer: read a 1.5G file in a loop, like dd). Arms,
# interleaved round by round (the order rotates every round):
#
#   alone     the job with no streamers (the reference of "x alone")
#   none      the streamers beside it, nothing set
#   oracle    the streamers' group capped by hand at parent - working set -
#             margin (192M - 64M - 16M = 112M): what an expert who knew the
#             sizes would set
#   oracle2   the same again, the A/A control: how far two arms that are
#             the same thing land apart on this (shared) host
#   memctl    `memctl run` with `protect: active` on the job, no sizes
#
# Per arm and round: the job's time in its passes, its CPU and run-queue
# wait, its refaults (workingset_refault_file of its group over the passes,
# pages), what it read from disk again, its major faults, OOM kills in the
# parent, and for memctl the CPU memctl run used and how many limits it
# wrote. The summary gives medians with the interquartile range per arm, the
# Mann-Whitney test of memctl against the oracle, the oracle against the
# none arm and the A/A pair, and memctl against the issue's targets (job
# time <= 1.15x the oracle's, refaults within 5% + 64 pages of the oracle's,
# no OOM kill), printed as met or missed.
#
#   bench/active-set.sh [--rounds N] [--passes N] [--work N] [--streamers N]
#                       [--limit MB] [--ws MB] [--stream MB] [--margin MB]
#                       [--warm-loops N] [--arms "alone none oracle oracle2 memctl"]
#                       [--logs DIR] [--quick]
#
# --quick: one round at small sizes (a few seconds; proves the benchmark
# still runs, its numbers mean little). --logs DIR keeps memctl run's log of
# every memctl arm (memctl-ROUND.log). Rows go to $BENCH_RESULTS/active-set.tsv
# (bench/run.sh sets BENCH_RESULTS). On a shared host run it with nice: the
# A/A line says how much noise there was.
#
# Needs root and a cgroup v1 memory controller; groups are created only below
# this shell's own memory cgroup and removed at the end; the files live under
# a mktemp -d in /var/tmp (page cache on tmpfs cannot be reclaimed without
# swap) and only their own pages are dropped from the cache
# (posix_fadvise), never the host's. See docs/BENCH-active-set.md.
set -u
. "$(dirname "$0")/lib.sh"

ROUNDS=10
PASSES=5
WORK=40
NSTREAM=4
LIMIT_M=192
WS_M=64
STREAM_M=1536
MARGIN_M=16
WARM_LOOPS=2
ARMS="alone none oracle oracle2 memctl"
LOGS=""
usage() {
	echo "usage: $0 [--rounds N] [--passes N] [--work N] [--streamers N] [--limit MB] [--ws MB]" \
		"[--stream MB] [--margin MB] [--warm-loops N] [--arms LIST] [--logs DIR] [--quick]" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || [ "$1" = --quick ] || usage
	case $1 in
	--rounds) ROUNDS=$2; shift 2 ;;
	--passes) PASSES=$2; shift 2 ;;
	--work) WORK=$2; shift 2 ;;
	--streamers) NSTREAM=$2; shift 2 ;;
	--limit) LIMIT_M=$2; shift 2 ;;
	--ws) WS_M=$2; shift 2 ;;
	--stream) STREAM_M=$2; shift 2 ;;
	--margin) MARGIN_M=$2; shift 2 ;;
	--warm-loops) WARM_LOOPS=$2; shift 2 ;;
	--arms) ARMS=$2; shift 2 ;;
	--logs) LOGS=$2; shift 2 ;;
	--quick) ROUNDS=1 PASSES=1 NSTREAM=1 LIMIT_M=48 WS_M=16 STREAM_M=128 MARGIN_M=4 WARM_LOOPS=1; shift ;;
	*) usage ;;
	esac
done
for v in "$ROUNDS" "$PASSES" "$WORK" "$NSTREAM" "$LIMIT_M" "$WS_M" "$STREAM_M" "$MARGIN_M" "$WARM_LOOPS"; do
	case $v in ''|*[!0-9]*) usage ;; esac
done
for a in $ARMS; do
	case $a in alone|none|oracle|oracle2|memctl) ;; *) echo "active-set: unknown arm '$a'" >&2; usage ;; esac
done
CAP_M=$((LIMIT_M - WS_M - MARGIN_M))

[ "$CAP_M" -gt 0 ] || die "--limit $LIMIT_M leaves no room for the oracle's cap (ws $WS_M + margin $MARGIN_M)"
[ -z "$LOGS" ] || mkdir -p "$LOGS" || die "cannot create '$LOGS'"
need_workloads ws-reader streamer resident mkfile
bench_setup_v1 "no cgroup v1 memory controller (this benchmark drives the v1 mechanism)"
DIR=$T_DIR PREFIX=$T_PREFIX TMP=$T_TMP
mkfile "$TMP/ws.dat" ${WS_M}M
mkfile "$TMP/stream.dat" ${STREAM_M}M

field() { echo "$1" | sed -n "s/.* $2=\([^ ]*\).*/\1/p"; }
# the streamers of arm $1 have gone through their file $2 times in all
loops_done() { [ "$(cat "$1".s* 2>/dev/null | grep -c '^loop ')" -ge "$2" ]; }
stat_of() { awk -v k="$2" '$1 == k { print $2 }' "$1/memory.stat"; }
oom_kills() { awk '$1 == "oom_kill" { print $2 }' "$1/memory.oom_control"; }
# CPU seconds (user + system) of process $1 so far
cpu_of() { awk -v t="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / t }' "/proc/$1/stat" 2>/dev/null || echo 0; }

profile() {  # $1 parent, $2 settings of ws, $3 settings of stream
	cat <<YAML
version: 1
parent: self
interval: 1s
groups:
  $1:
    max: ${LIMIT_M}M
    groups:
      ws: $2
      stream: $3
YAML
}

# One arm of one round: $1 arm, $2 round. Sets R_EL (seconds in passes),
# R_CPU, R_RUNQ, R_DISK (pages re-read), R_MAJ, R_REF (refaults, pages),
# R_RES (residency at pass starts, %), R_OOM, R_MCPU, R_WRITES and R_CONV
# (memctl run's CPU seconds, limit writes and the most intervals it logged a
# limit took to converge; - for the other arms). Runs in this shell,
# not a subshell, so the EXIT trap knows every job it started.
arm() {
	local a=$1 r=$2 name=$1-$2 g=$DIR/$PREFIX-$1-$2 n=$NSTREAM ws='{}' st='{}' i out ref0 ref1
	case $a in
	alone) n=0 ;;
	oracle|oracle2) st="{ max: ${CAP_M}M }" ;;
	memctl) ws='{ protect: active }' ;;
	esac
	profile "$PREFIX-$name" "$ws" "$st" >"$TMP/$name.yaml"
	"$MEMCTL" apply "$TMP/$name.yaml" >/dev/null || die "$name: apply failed"
	"$WL/resident" --drop "$TMP/ws.dat" "$TMP/stream.dat" >/dev/null
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$g/ws" "$WL/ws-reader" "$TMP/ws.dat" 2 \
		>/dev/null || die "$name: warming failed"
	if [ "$a" = memctl ]; then
		"$MEMCTL" run "$TMP/$name.yaml" 2>"$TMP/$name.run.log" &
		B_RUN_PID=$!
		# memctl runs before the streamers start, as it would on a host:
		# its first interval has capped the stream group
		capped() { [ "$(cat "$g/stream/memory.limit_in_bytes")" -lt $((LIMIT_M << 20)) ]; }
		wait_until 150 capped || die "$name: memctl run set no cap in 15 s"
	fi
	for i in $(seq 1 "$n"); do
		sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$g/stream" "$WL/streamer" --verbose \
			"$TMP/stream.dat" >"$TMP/$name.s$i" &
		B_PIDS="$B_PIDS $!"
	done
	# the streamers push WARM_LOOPS files through the parent before the job
	# is measured, so that every arm starts from the same steady state
	[ "$n" -eq 0 ] || wait_until 1200 loops_done "$TMP/$name" "$WARM_LOOPS" ||
		die "$name: streamers made no progress"
	ref0=$(stat_of "$g/ws" workingset_refault_file)
	out=$(sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$g/ws" "$WL/ws-reader" --work "$WORK" \
		"$TMP/ws.dat" "$PASSES") || die "$name: ws-reader failed"
	ref1=$(stat_of "$g/ws" workingset_refault_file)
	R_MCPU=- R_WRITES=- R_RECL=- R_CONV=-
	if [ -n "$B_RUN_PID" ]; then
		R_MCPU=$(cpu_of "$B_RUN_PID")
	fi
	R_OOM=$(oom_kills "$g")
	stop_jobs
	if [ "$a" = memctl ]; then
		R_WRITES=$(grep -c 'memory.limit_in_bytes .* -> ' "$TMP/$name.run.log")
		R_CONV=$(sed -n 's/.*memory.limit_in_bytes converged after \([0-9]*\) interval.*/\1/p' \
			"$TMP/$name.run.log" | sort -n | tail -n 1)
		R_CONV=${R_CONV:--}
		R_RECL=$(grep -c ': reclaim ' "$TMP/$name.run.log")
		[ -z "$LOGS" ] || cp "$TMP/$name.run.log" "$LOGS/memctl-$r.log"
	fi
	rmgroups "$g"
	R_EL=$(field "$out" elapsed) R_MAJ=$(field "$out" majflt)
	R_DISK=$(($(field "$out" disk_read) / 4096))
	R_CPU=$(field "$out" cpu) R_RUNQ=$(field "$out" runq) R_RES=$(field "$out" resident_avg)
	R_REF=$((ref1 - ref0))
	R_NET=$(awk -v e="$R_EL" -v q="$R_RUNQ" 'BEGIN { printf "%.3f", (q >= 0 ? e - q : e) }')
	[ -n "$R_EL" ] || die "$name: no result from ws-reader"
}

echo "active-set: ws-reader over ${WS_M}M x $PASSES passes (--work $WORK) in a ${LIMIT_M}M parent beside" \
	"$NSTREAM streamer(s) over a ${STREAM_M}M file; oracle cap ${CAP_M}M; $ROUNDS round(s);" \
	"$(nproc) CPUs, kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
tsv_header round arm elapsed_s x_alone cpu_s runq_s refault_pages reread_pages majflt resident_pct \
	oom_kills memctl_cpu_s limit_writes memctl_reclaims elapsed_minus_runq_s converged_intervals
printf '%-5s %-8s %8s %7s %6s %6s %8s %8s %6s %5s %3s %6s %6s %6s %7s %4s\n' round arm elapsed "x alone" cpu runq \
	refaults re-read majflt res% oom "m.cpu" writes recl "-runq" conv
read -r -a ARMV <<<"$ARMS"
for r in $(seq 1 "$ROUNDS"); do
	# rotate the order by one arm every round
	order=""
	for k in $(seq 0 $((${#ARMV[@]} - 1))); do
		order="$order ${ARMV[$(((k + r - 1) % ${#ARMV[@]}))]}"
	done
	alone_el=""
	declare -A ROW=()
	for a in $order; do
		arm "$a" "$r"
		ROW[$a]="$R_EL $R_CPU $R_RUNQ $R_REF $R_DISK $R_MAJ $R_RES $R_OOM $R_MCPU $R_WRITES $R_RECL $R_NET $R_CONV"
		[ "$a" = alone ] && alone_el=$R_EL
	done
	for a in $ARMS; do
		read -r -a v <<<"${ROW[$a]}"
		x=-
		[ -z "$alone_el" ] || x=$(awk -v a="${v[0]}" -v b="$alone_el" 'BEGIN { printf "%.2f", a / b }')
		printf '%-5s %-8s %7.2fs %6sx %5.2fs %5.2fs %8d %8d %6d %5s %3d %6s %6s %6s %6.2fs %4s\n' "$r" "$a" "${v[0]}" "$x" \
			"${v[@]:1}"
		echo "$r $a ${v[0]} $x ${v[*]:1}" >>"$TMP/rows"
		tsv_row "$r" "$a" "${v[0]}" "$x" "${v[@]:1}"
	done
done

# column $2 (1-based, as in COLS) of arm $1's rows, one a line
col() { awk -v a="$1" -v c="$2" '$2 == a && $c != "-" { print $c }' "$TMP/rows"; }
iqr() { col "$1" "$2" | stats_summary | awk '{ printf "%s [%s, %s]", $1, $2, $3 }'; }
med() { col "$1" "$2" | stats_summary | cut -d' ' -f1; }
echo
echo "medians [q1, q3] over $ROUNDS round(s):"
printf '%-8s %-26s %-26s %-20s %-24s %-14s %s\n' arm "elapsed s" "elapsed - runq s" "x alone" \
	"refaults (pages)" "majflt" "oom kills"
for a in $ARMS; do
	printf '%-8s %-26s %-26s %-20s %-24s %-14s %s\n' "$a" "$(iqr "$a" 3)" "$(iqr "$a" 15)" "$(iqr "$a" 4)" \
		"$(iqr "$a" 7)" "$(iqr "$a" 9)" "$(col "$a" 11 | awk '{ s += $1 } END { print s + 0 }')"
done
if echo " $ARMS " | grep -q ' memctl '; then
	echo "memctl run: CPU $(iqr memctl 12) s, limit writes $(iqr memctl 13), reclaims $(iqr memctl 14) per arm;" \
		"a limit converged after at most $(col memctl 16 | sort -n | tail -n 1) interval(s) (target 3)"
fi
# rank tests on the job's elapsed time: "A vs B: U p" with A's median over B's
test_pair() {
	local a=$1 b=$2 label=$3 c=$4 what=$5
	echo " $ARMS " | grep -q " $a " && echo " $ARMS " | grep -q " $b " || return 0
	col "$a" "$c" >"$TMP/x.$a"
	col "$b" "$c" >"$TMP/x.$b"
	set -- $(stats_mwu "$TMP/x.$a" "$TMP/x.$b")
	printf '%-34s %-16s %s / %s = %s, Mann-Whitney U %s, p %s\n' "$label" "$what" "$a" "$b" \
		"$(awk -v x="$(med "$a" "$c")" -v y="$(med "$b" "$c")" 'BEGIN { if (y > 0) printf "%.3f", x / y; else print "-" }')" "$1" "$2"
}
echo
for c in "3 elapsed" "15 elapsed-runq" "7 refaults"; do
	test_pair oracle2 oracle "A/A control (oracle2 vs oracle):" $c
	test_pair oracle none "oracle vs none:" $c
	test_pair memctl oracle "memctl vs oracle:" $c
	test_pair memctl none "memctl vs none:" $c
done
if echo " $ARMS " | grep -q ' memctl ' && echo " $ARMS " | grep -q ' oracle '; then
	mo=$(awk -v x="$(med memctl 3)" -v y="$(med oracle 3)" 'BEGIN { printf "%.3f", x / y }')
	mn=$(awk -v x="$(med memctl 15)" -v y="$(med oracle 15)" 'BEGIN { printf "%.3f", x / y }')
	rm_=$(med memctl 7) ro=$(med oracle 7)
	ooms=$(col memctl 11 | awk '{ s += $1 } END { print s + 0 }')
	verdict() { if [ "$1" = 1 ]; then echo met; else echo MISSED; fi; }
	echo
	echo "targets against the oracle:"
	echo "  job time <= 1.15x:                  $mo x  $(verdict "$(awk -v m="$mo" 'BEGIN { print (m <= 1.15) }')")"
	echo "    (without CPU waits:               $mn x  $(verdict "$(awk -v m="$mn" 'BEGIN { print (m <= 1.15) }')"))"
	echo "  refaults <= oracle's + 5% + 64:     $rm_ vs $ro pages  $(verdict "$(awk -v m="$rm_" -v o="$ro" 'BEGIN { print (m <= o * 1.05 + 64) }')")"
	echo "  no OOM kill:                        $ooms  $(verdict "$([ "$ooms" -eq 0 ] && echo 1)")"
fi
exit 0
