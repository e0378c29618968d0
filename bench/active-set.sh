#!/usr/bin/env bash
# Active-set protection benchmark (a benchmark, not a test: it asserts nothing).
#
# A working-set job (ws-reader: re-reads a 128M file, with CPU work per block
# like gzip) shares a parent group (limit 256M) with N streaming jobs
# (streamer: read a 1G file in a loop, like dd). It prints the job's runtime
# and how much of its file it had to read from disk again: alone, beside 1 and
# 4 streamers without memctl, and beside them with `memctl run` and
# `protect: active` on the job, as ratios measured side by side in one run.
#
#   bench/active-set.sh [--passes N] [--work N] [--pause MS] [--streamers "1 4"]
#                       [--repeat R] [--mmap] [--logs DIR] [--quick]
#
# --quick: small files and one pass beside one streamer (a few seconds; proves
# the benchmark still runs, its numbers mean little). When BENCH_RESULTS names
# a directory (bench/run.sh sets it), every scenario's row is also written to
# BENCH_RESULTS/active-set.tsv.
#
# --work N is ws-reader's CPU work per block (40: ~150 MB/s, gzip-like;
# 0: I/O bound);
# --pause MS idles between passes, a job rerun now and then (elapsed counts
# the passes only).
# --logs DIR keeps memctl run's log of every protected scenario there
# (NAME-ROUND.log; one DIR per run, or the next run overwrites them).
# --mmap makes the job read its file through a mapping, so that its misses are
# also counted as major faults (through read() they are not faults at all;
# "re-read" counts them in both modes).
# Columns: elapsed (time in passes), x alone (its ratio to the alone run of
# the same round), cpu (the job's CPU time), runq (time it waited for a CPU
# behind its neighbours), -runq x (the ratio with those waits taken out: on a
# 2-CPU host the streamers compete for CPU as well as for memory, and this
# separates the two), re-read MiB (what it read from disk again; in a warm
# run every byte of it was evicted by someone else), majflt, resident (how
# much of its file it found cached at the start of each pass, average).
# MEMCTL (default build/release/memctl) and WORKLOADS (default the
# tests/workloads directory next to it) name the binaries. Needs root and a
# cgroup v1 memory controller; groups are created only below this shell's own
# memory cgroup and removed at the end; the files live under a mktemp -d in
# /var/tmp (page cache on tmpfs cannot be reclaimed without swap) and only
# their own pages are dropped from the cache (posix_fadvise), never the
# host's. See docs/BENCH-active-set.md.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)

PASSES=5
WORK=40
STREAMERS="1 4"
REPEAT=1
MMAP=""
PAUSE=0
LOGS=""
LIMIT_M=256
WS_M=128
STREAM_M=1024
while [ $# -gt 0 ]; do
	case $1 in
	--passes) PASSES=$2; shift 2 ;;
	--work) WORK=$2; shift 2 ;;
	--streamers) STREAMERS=$2; shift 2 ;;
	--repeat) REPEAT=$2; shift 2 ;;
	--mmap) MMAP=--mmap; shift ;;
	--pause) PAUSE=$2; shift 2 ;;
	--logs) LOGS=$2; shift 2 ;;
	--quick) PASSES=1 STREAMERS=1 LIMIT_M=32 WS_M=16 STREAM_M=128; shift ;;
	*) echo "usage: $0 [--passes N] [--work N] [--pause MS] [--streamers \"1 4\"] [--repeat R] [--mmap] [--logs DIR] [--quick]" >&2
	   exit 2 ;;
	esac
done

MEMCTL=${MEMCTL:-$ROOT/build/release/memctl}
WL=${WORKLOADS:-$(dirname "$MEMCTL")/tests/workloads}
die() { echo "active-set: $*" >&2; exit 1; }
[ -z "$LOGS" ] || mkdir -p "$LOGS" || die "cannot create '$LOGS'"
[ "$(id -u)" -eq 0 ] || die "needs root to create cgroups"
[ -x "$MEMCTL" ] || die "no memctl at '$MEMCTL' (scripts/setup.sh release, or set MEMCTL)"
"$MEMCTL" run --help >/dev/null 2>&1 || die "'$MEMCTL' has no run command"
for w in ws-reader streamer resident mkfile; do
	[ -x "$WL/$w" ] || die "no workload '$WL/$w' (built with memctl, or set WORKLOADS)"
done
self=$(grep -E '^[0-9]+:([^:]*,)?memory(,[^:]*)?:' /proc/self/cgroup | head -n1 | cut -d: -f3)
[ -n "$self" ] || die "no cgroup v1 memory controller (this benchmark drives the v1 mechanism)"
mount=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ {print $2; exit}' /proc/mounts)
DIR=$mount${self%/}
[ -w "$DIR" ] || die "cannot create groups in own cgroup $DIR"

TMP=$(mktemp -d /var/tmp/memctl-bench.XXXXXX)
[ "$(stat -f -c %T "$TMP")" != tmpfs ] || die "/var/tmp is tmpfs"
PREFIX=bench-active-set-$$
export MEMCTL_STATE_DIR=$TMP/state
mkdir -p "$MEMCTL_STATE_DIR"
PIDS=""
RUN_PID=""
stop_jobs() {
	local p
	for p in $PIDS; do kill -TERM "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	PIDS=""
	if [ -n "$RUN_PID" ]; then
		kill -TERM "$RUN_PID" 2>/dev/null
		wait "$RUN_PID" 2>/dev/null
		RUN_PID=""
	fi
}
cleanup() {
	local d
	stop_jobs
	for d in "$DIR/$PREFIX"*; do
		[ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} \; 2>/dev/null
	done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$WL/mkfile" "$TMP/ws.dat" ${WS_M}M >/dev/null || die "cannot write $TMP/ws.dat"
"$WL/mkfile" "$TMP/stream.dat" ${STREAM_M}M >/dev/null || die "cannot write $TMP/stream.dat"

field() { echo "$1" | sed -n "s/.* $2=\([^ ]*\).*/\1/p"; }
wait_until() {  # bounded poll in 0.1 s steps
	local tries=$1 i
	shift
	for i in $(seq 1 "$tries"); do "$@" && return 0; sleep 0.1; done
	return 1
}
# the streamers of scenario $1 have gone through their file $2 times in all
loops_done() { [ "$(cat "$1".s* 2>/dev/null | grep -c '^loop ')" -ge "$2" ]; }

profile() {  # $1 parent, $2 settings of ws
	cat <<YAML
version: 1
parent: self
interval: 1s
groups:
  $1:
    max: ${LIMIT_M}M
    groups:
      ws: $2
      stream: {}
YAML
}

# One scenario: $1 name, $2 streamers, $3 yes = memctl run. Sets R_EL
# (seconds in passes), R_CPU (CPU seconds), R_RUNQ (seconds waiting for a
# CPU), R_DISK (bytes re-read), R_MAJ (major faults), R_RES (average
# residency at pass starts, %). Runs in this shell, not a
# subshell, so the EXIT trap knows every job it started.
scenario() {
	local name=$1 n=$2 with=$3 g=$DIR/$PREFIX-$1 i out
	profile "$PREFIX-$name" "$([ "$with" = yes ] && echo '{ protect: active }' || echo '{}')" \
		>"$TMP/$name.yaml"
	"$MEMCTL" apply "$TMP/$name.yaml" >/dev/null || die "$name: apply failed"
	"$WL/resident" --drop "$TMP/ws.dat" "$TMP/stream.dat" >/dev/null
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$g/ws" "$WL/ws-reader" "$TMP/ws.dat" 2 \
		>/dev/null || die "$name: warming failed"
	if [ "$with" = yes ]; then
		"$MEMCTL" run "$TMP/$name.yaml" 2>"$TMP/$name.run.log" &
		RUN_PID=$!
		cap_ready() { [ "$(cat "$g/stream/memory.limit_in_bytes")" -le $(((LIMIT_M - WS_M * 9 / 10) << 20)) ]; }
		wait_until 150 cap_ready || echo "  ($name: stream cap still $(cat "$g/stream/memory.limit_in_bytes") after 15 s)" >&2
	fi
	for i in $(seq 1 "$n"); do
		sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$g/stream" "$WL/streamer" --verbose \
			"$TMP/stream.dat" >"$TMP/$name.s$i" &
		PIDS="$PIDS $!"
	done
	# 4G through the 256M parent before measuring: the job's pages start
	# active, and the kernel takes a while to demote and reclaim them
	[ "$n" -eq 0 ] || wait_until 600 loops_done "$TMP/$name" 4 || die "$name: streamers made no progress"
	out=$(sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$g/ws" "$WL/ws-reader" $MMAP --work "$WORK" --pause "$PAUSE" \
		"$TMP/ws.dat" "$PASSES") || die "$name: ws-reader failed"
	stop_jobs
	[ -z "$LOGS" ] || [ "$with" != yes ] || cp "$TMP/$name.run.log" "$LOGS/$name-$r.log"
	find "$g" -depth -type d -exec rmdir {} \; || die "$name: cannot remove its groups"
	R_EL=$(field "$out" elapsed) R_DISK=$(field "$out" disk_read) R_MAJ=$(field "$out" majflt)
	R_CPU=$(field "$out" cpu) R_RUNQ=$(field "$out" runq)
	R_RES=$(field "$out" resident_avg)
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "active-set: ws-reader ${MMAP:+$MMAP }over ${WS_M}M x $PASSES passes (--work $WORK --pause $PAUSE) in a ${LIMIT_M}M parent," \
	"streamers over a ${STREAM_M}M file; $(nproc) CPUs, kernel $(uname -r)"
printf '%-26s %8s %7s %6s %6s %8s %11s %6s %8s\n' scenario elapsed "x alone" cpu "runq" "-runq x" \
	"re-read MiB" majflt resident
declare -A EL DISK MAJ NET
TSV=""
if [ -n "${BENCH_RESULTS:-}" ]; then
	TSV=$BENCH_RESULTS/active-set.tsv
	printf 'round\tscenario\tstreamers\tmemctl\telapsed_s\tx_alone\tcpu_s\trunq_s\tx_alone_without_runq\treread_mib\tmajflt\tresident_pct\n' \
		>"$TSV" || die "cannot write $TSV"
fi
names="alone"
for n in $STREAMERS; do names="$names s$n-none s$n-memctl"; done
for r in $(seq 1 "$REPEAT"); do
	for name in $names; do
		case $name in
		alone) n=0 with=no label="alone" ;;
		*-none) n=${name%-none}; n=${n#s}; with=no label="$n streamer(s), no memctl" ;;
		*-memctl) n=${name%-memctl}; n=${n#s}; with=yes label="$n streamer(s), memctl run" ;;
		esac
		scenario "$name" "$n" "$with"
		el=$R_EL disk=$R_DISK maj=$R_MAJ res=$R_RES
		[ -n "$el" ] || die "$name: no result"
		net=$(awk -v e="$el" -v q="$R_RUNQ" 'BEGIN { printf "%.3f", (q >= 0 ? e - q : e) }')
		EL[$name]="${EL[$name]:-} $el" DISK[$name]="${DISK[$name]:-} $disk" MAJ[$name]="${MAJ[$name]:-} $maj"
		NET[$name]="${NET[$name]:-} $net"
		base=$(echo "${EL[alone]}" | tr ' ' '\n' | grep . | tail -n1)
		nbase=$(echo "${NET[alone]}" | tr ' ' '\n' | grep . | tail -n1)
		printf '%-26s %7.2fs %6sx %5.2fs %5.2fs %7sx %11d %6d %7s%%\n' "$label" "$el" \
			"$(ratio "$el" "$base")" "$R_CPU" "$R_RUNQ" "$(ratio "$net" "$nbase")" \
			$((disk >> 20)) "$maj" "$res"
		[ -z "$TSV" ] || printf '%d\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\n' "$r" "$name" "$n" "$with" \
			"$el" "$(ratio "$el" "$base")" "$R_CPU" "$R_RUNQ" "$(ratio "$net" "$nbase")" \
			$((disk >> 20)) "$maj" "$res" >>"$TSV"
	done
done

echo
alone=$(echo "${EL[alone]}" | median)
nalone=$(echo "${NET[alone]}" | median)
[ "$REPEAT" -gt 1 ] && echo "medians of $REPEAT runs:"
echo "alone: $(printf %.2f "$alone") s"
for n in $STREAMERS; do
	a=$(echo "${EL[s$n-none]}" | median) b=$(echo "${EL[s$n-memctl]}" | median)
	da=$(echo "${DISK[s$n-none]}" | median) db=$(echo "${DISK[s$n-memctl]}" | median)
	ma=$(echo "${MAJ[s$n-none]}" | median) mb=$(echo "${MAJ[s$n-memctl]}" | median)
	na=$(echo "${NET[s$n-none]}" | median) nb=$(echo "${NET[s$n-memctl]}" | median)
	echo "with $n streamer(s): no memctl $(ratio "$a" "$alone")x alone, memctl $(ratio "$b" "$alone")x alone" \
		"(without CPU waits: $(ratio "$na" "$nalone")x vs $(ratio "$nb" "$nalone")x);" \
		"re-read from disk $((da >> 20))M vs $((db >> 20))M ($((da / 4096)) vs $((db / 4096)) pages);" \
		"major faults $ma vs $mb"
done
