# memctl run with `protect: active` keeps a working-set job's file in the
# page cache while a streaming sibling pushes gigabytes through their common
# parent; without memctl the same setup loses it.
#
# Two phases on the real hierarchy (v1 here, v2 in the QEMU guest), each
# with a fresh parent group (limit 256M) below our own cgroup and two
# children:
#   ws      ws-reader re-reads a 160M file (warmed first), pausing between
#           passes like a job that is rerun now and then;
#   stream  streamer reads a 1G file in a loop, plain read().
# Phase A: groups from `memctl apply`, no memctl run. Phase B: the same with
# `protect: active` on ws and `memctl run` in the background. memctl's
# mechanism: on v1 a cap on the sibling's limit_in_bytes, on v2 memory.low
# on ws. MEMCTL_TEST_SCALE=N divides every size by N (the guest has 1G).
# The evidence is what the job finds when it comes back to its file (its
# page cache residency, by mincore, at the start of every pass) and how much
# it has to read from disk again. Phase A must demonstrably lose pages, or
# the comparison proves nothing and the test fails saying so.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
limit_file=memory.limit_in_bytes
[ "$T_VERSION" = 2 ] && limit_file=memory.max

# a setup step failed: later checks would only repeat it
abort() { fail "$*"; summary; exit 1; }

BUILD=${MEMCTL_BUILD_DIR:-$(dirname "$MEMCTL")}
WL=${MEMCTL_WORKLOADS:-$BUILD/tests/workloads}
for w in ws-reader streamer resident mkfile; do
	[ -x "$WL/$w" ] || abort "workload '$WL/$w' not built (tests/workloads, add_subdirectory(workloads))"
done

SCALE=${MEMCTL_TEST_SCALE:-1}
LIMIT_M=$((256 / SCALE))      # the parent's limit
# The working set fits in the parent and is more than half of it. Reclaim
# deactivates pages only while the parent's inactive file list is smaller
# than its active one (below 1G the two are to be equal) or while pages
# refault. ws starts all active, and when the streamer first fills the
# parent its inactive pages are the rest of the limit: with ws at exactly
# half (128M of 256M) the two lists were equal within a few pages, and in
# one CI run reclaim took the stream's pages only and ws kept 95% through
# five passes, so phase A proved nothing. At 160M ws's active list is
# larger from the first reclaim on.
WS_M=${MEMCTL_T10_WS_M:-$((160 / SCALE))}
STREAM_M=$((1024 / SCALE))    # the stream: four times the parent's limit per loop
PASSES=8
PAUSE_MS=500

# The files live on a disk file system: page cache on tmpfs cannot be
# reclaimed without swap, so nothing would ever be pushed out.
T_TMP=$(disk_tmpdir) || skip "no disk-backed temporary directory: tmpfs page cache cannot be reclaimed"
avail_k=$(df -Pk "$T_TMP" | awk 'NR == 2 {print $4}')
[ "$avail_k" -gt $(((STREAM_M + WS_M + 512 / SCALE) * 1024)) ] || skip "not enough space in $T_TMP for the test files"
memavail_k=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
[ "$memavail_k" -gt $((2 * 1024 * 1024 / SCALE)) ] || skip "less than $((2048 / SCALE))M available memory"

"$WL/mkfile" "$T_TMP/ws.dat" ${WS_M}M >/dev/null || abort "cannot write the working-set file"
"$WL/mkfile" "$T_TMP/stream.dat" ${STREAM_M}M >/dev/null || abort "cannot write the stream file"

PIDS=""          # workloads we started, stopped by PID
RUN_PID=""
stop_all() {
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
trap 'stop_all; cleanup' EXIT

# runs "$@" as a process of group $1 (relative to our cgroup), in the foreground
in_group() {
	local g=$1
	shift
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$T_DIR/$g" "$@"
}
# the same in the background, its output to file $2; the process (not a
# subshell around it) is added to PIDS, so stopping it by PID stops the job
start_in_group() {
	local g=$1 out=$2
	shift 2
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$T_DIR/$g" "$@" >"$out" &
	PIDS="$PIDS $!"
}

# value of key $2 in a workload's "key=value ..." line $1
field() { echo "$1" | sed -n "s/.* $2=\([^ ]*\).*/\1/p"; }

# polls (bounded, 0.1 s steps) until "$@" succeeds; 1 on timeout
wait_until() {
	local tries=$1 i
	shift
	for i in $(seq 1 "$tries"); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}
# the streamer writing to file $1 has gone through its whole file $2 times
loops_done() { [ "$(grep -c '^loop ' "$1" 2>/dev/null)" -ge "$2" ]; }
# our child $1 has exited (a zombie, until waited for, has)
not_running() { ! kill -0 "$1" 2>/dev/null || [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" = Z ]; }

profile() {   # $1 parent name, $2 extra settings of ws
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

# One phase: fresh groups below $1, a warm working set, a streamer, then the
# measured passes. Sets PH_WS (ws-reader's total line), PH_RES_END (resident
# after the passes) and PH_STREAM (streamer's total line).
run_phase() {
	local parent=$1 sout
	sout=$T_TMP/$parent.stream.out

	# both files cold, so every page the jobs touch is charged to their groups
	# (pages cached by an earlier phase would still be charged elsewhere)
	[ -d "$T_DIR/$parent/ws" ] && [ -d "$T_DIR/$parent/stream" ] || abort "$parent: groups missing"
	check_eq "$("$WL/resident" --drop --percent "$T_TMP/ws.dat" "$T_TMP/stream.dat" | tr '\n' ' ')" \
		"0.0 0.0 " "$parent: test files start cold"
	in_group "$parent/ws" "$WL/ws-reader" "$T_TMP/ws.dat" 2 >/dev/null || abort "$parent: warming ws failed"
	echo "# $parent: after warming: ws.dat $("$WL/resident" "$T_TMP/ws.dat" | cut -d' ' -f2-)," \
		"ws $(grep -E '^(in)?active_file ' "$T_DIR/$parent/ws/memory.stat" | tr '\n' ' ')"

	[ -n "${2:-}" ] && "$2"   # phase hook: start memctl run and wait for its caps

	start_in_group "$parent/stream" "$sout" "$WL/streamer" --verbose "$T_TMP/stream.dat"
	# four loops, 4G through a 256M parent: time for the kernel to demote
	# and reclaim what it is going to take from ws (it starts all active)
	# before the measured passes
	wait_until 400 loops_done "$sout" 4 ||
		abort "$parent: the streamer did not get through its file 4 times in 40 s"

	PH_WS=$(in_group "$parent/ws" "$WL/ws-reader" --verbose --pause $PAUSE_MS "$T_TMP/ws.dat" $PASSES) ||
		abort "$parent: ws-reader failed"
	PH_RES_END=$("$WL/resident" --percent "$T_TMP/ws.dat")
	echo "$PH_WS" | sed "s/^/# $parent: /"
	echo "# $parent: stream $(grep -E '^(in)?active_file ' "$T_DIR/$parent/stream/memory.stat" | tr '\n' ' ')" \
		"limit $(cat "$T_DIR/$parent/stream/$limit_file")"
	for p in $PIDS; do kill -TERM "$p"; wait "$p"; done
	PIDS=""
	PH_STREAM=$(grep '^total ' "$sout")
	echo "# $parent: streamer $PH_STREAM"
	PH_WS=$(echo "$PH_WS" | grep '^total ')
}

remove_groups() {  # $1 parent; the jobs have ended, their page cache moves up
	rmdir "$T_DIR/$1/ws" "$T_DIR/$1/stream" "$T_DIR/$1"
}

# ---- phase A: no memctl run
A=$T_PREFIX-a
profile "$A" "{}" >"$T_TMP/a.yaml"
mc apply "$T_TMP/a.yaml" >/dev/null || abort "phase A: apply failed"
run_phase "$A"
A_WS=$PH_WS A_END=$PH_RES_END A_STREAM=$PH_STREAM
remove_groups "$A" && pass "phase A: groups removed" || fail "phase A: groups removed"

# ---- phase B: memctl run with protect: active on ws
B=$T_PREFIX-b
profile "$B" "{ protect: active }" >"$T_TMP/b.yaml"
mc apply "$T_TMP/b.yaml" >/dev/null || abort "phase B: apply failed"
RUN_LOG=$T_TMP/run.log

# v1: the stream's cap leaves the warm working set room below the parent's
# limit (limit - E - headroom); v2: ws's memory.low covers the working set.
# Smoothing may take a few intervals to get there.
if [ "$T_VERSION" = 1 ]; then
	MECH_GROUP=stream MECH_FILE=memory.limit_in_bytes
else
	MECH_GROUP=ws MECH_FILE=memory.low
fi
mech_ready() {
	local v
	not_running "$RUN_PID" && return 0   # reported by the caller
	v=$(cat "$T_DIR/$B/$MECH_GROUP/$MECH_FILE") || return 1
	if [ "$T_VERSION" = 1 ]; then
		[ "$v" -le $(((LIMIT_M - WS_M * 9 / 10) << 20)) ]
	else
		[ "$v" -ge $(((WS_M * 9 / 10) << 20)) ]
	fi
}
start_run() {
	"$MEMCTL" run "$T_TMP/b.yaml" 2>"$RUN_LOG" &
	RUN_PID=$!
	RUN_T0=$SECONDS
	wait_until 150 mech_ready ||
		echo "# phase B: after 15 s $MECH_GROUP's $MECH_FILE is still $(cat "$T_DIR/$B/$MECH_GROUP/$MECH_FILE")"
	not_running "$RUN_PID" && { sed 's/^/# run: /' "$RUN_LOG"; abort "phase B: memctl run exited early"; }
	echo "# phase B: $MECH_GROUP's $MECH_FILE is $(cat "$T_DIR/$B/$MECH_GROUP/$MECH_FILE") before the streamer starts"
}
run_phase "$B" start_run
B_WS=$PH_WS B_END=$PH_RES_END B_STREAM=$PH_STREAM

# The deadband check below judges at least 6 intervals of 1 s; on a quiet,
# fast host the phase can be over in 5 (the streamer read 35G in 4.5 s).
run_lasted() { not_running "$RUN_PID" || [ $((SECONDS - RUN_T0)) -ge 7 ]; }
wait_until 100 run_lasted
kill -TERM "$RUN_PID"
if wait_until 100 not_running "$RUN_PID"; then
	wait "$RUN_PID"
	check_rc $? 0 "phase B: SIGTERM stops memctl run cleanly"
else
	fail "phase B: memctl run still running 10 s after SIGTERM"
	kill -KILL "$RUN_PID"
	wait "$RUN_PID"
fi
RUN_PID=""
sed 's/^/# run: /' "$RUN_LOG" | head -n 40
grep "$B/$MECH_GROUP" "$RUN_LOG" | grep -q "$MECH_FILE" &&
	pass "memctl run logged its setting of $MECH_GROUP's $MECH_FILE" ||
	fail "memctl run did not log a setting of $MECH_GROUP's $MECH_FILE"
# The deadband: the mechanism is not rewritten for a change smaller than
# max(1%, 1 MiB) of the value it replaces (this was once a write per
# interval for the few kilobytes the sizes move), except in the direction
# that is urgent near the parent's limit: lowering the sibling's cap (v1),
# raising the protection (v2). Larger changes are the working set moving:
# on a loaded host the parent's own limit reclaim takes a few MiB of ws
# and ws reads them back, so their number is not a constant (once 5 in 7
# intervals, each of 3-8 MiB); a write in every interval is still wrong.
mech_writes=$(grep "$B/$MECH_GROUP: $MECH_FILE" "$RUN_LOG" |
	sed -n "s/.*: $MECH_FILE \([^ ]*\) -> \([^:]*\):.*/\1 \2/p")
writes=$(printf '%s' "$mech_writes" | awk 'END { print NR }')
intervals=$(sed -n 's/.*stopping after \([0-9]*\) intervals.*/\1/p' "$RUN_LOG")
small=$(printf '%s\n' "$mech_writes" | awk -v v="$T_VERSION" '
	function bytes(s, n, u) {
		if (s == "max") return -1
		n = s + 0; u = substr(s, length(s))
		if (u == "K") n *= 1024; else if (u == "M") n *= 1048576
		else if (u == "G") n *= 1073741824; else if (u == "T") n *= 1099511627776
		return n
	}
	{
		a = bytes($1); c = bytes($2)
		if (a < 0 || c < 0) next
		d = c > a ? c - a : a - c
		band = a / 100 < 1048576 ? 1048576 : a / 100
		urgent = v == 1 ? c < a : c > a
		if (d < band && !urgent) printf "%s -> %s; ", $1, $2
	}')
if [ "${intervals:-0}" -ge 6 ] && [ "$writes" -ge 1 ] && [ "$writes" -lt "$intervals" ] && [ -z "$small" ]; then
	pass "the deadband: $MECH_GROUP's $MECH_FILE written $writes times in $intervals intervals, none by less than the deadband"
else
	fail "the deadband: $MECH_GROUP's $MECH_FILE written $writes times in ${intervals:-?} intervals (want fewer than the intervals, at least 6), by less than the deadband: ${small:-none}"
fi
# protect: active also keeps the group out of memctl's own reclaim
if grep -q "$B/ws: reclaim" "$RUN_LOG"; then
	fail "memctl run reclaimed from the protected group: $(grep -m1 "$B/ws: reclaim" "$RUN_LOG")"
else
	pass "memctl run did not reclaim from the protected group"
fi
remove_groups "$B" && pass "phase B: groups removed" || fail "phase B: groups removed"

# ---- the evidence
a_min=$(field "$A_WS" resident_min) a_avg=$(field "$A_WS" resident_avg)
b_min=$(field "$B_WS" resident_min) b_avg=$(field "$B_WS" resident_avg)
a_disk=$(field "$A_WS" disk_read) b_disk=$(field "$B_WS" disk_read)
[ -n "$a_min" ] && [ -n "$a_avg" ] && [ -n "$b_min" ] && [ -n "$b_avg" ] && [ -n "$a_disk" ] && [ -n "$b_disk" ] ||
	abort "ws-reader did not report its totals (A: '$A_WS', B: '$B_WS')"
echo "# residency of ws.dat at pass starts (min/avg %): without memctl $a_min/$a_avg, with memctl run $b_min/$b_avg"
echo "# residency after the passes: without $A_END%, with $B_END%"
echo "# ws-reader re-read from disk: without $((a_disk >> 20))M, with $((b_disk >> 20))M" \
	"(majflt $(field "$A_WS" majflt) vs $(field "$B_WS" majflt); read() misses are not faults)"

# the streamer really pushed the parent in both phases: at least 4 parent limits
for s in "A:$A_STREAM" "B:$B_STREAM"; do
	bytes=$(field "${s#*:}" bytes)
	[ "${bytes:-0}" -ge $((4 * LIMIT_M << 20)) ] &&
		pass "phase ${s%%:*}: the streamer read $((bytes >> 20))M through the group" ||
		fail "phase ${s%%:*}: the streamer read only ${bytes:-0} bytes: no real pressure"
done

# Bytes read from disk come from /proc/PID/io: a kernel without task I/O
# accounting (the QEMU guest's) reports none, and residency is the measure.
if grep -q '^read_bytes' /proc/self/io 2>/dev/null; then
	have_io=yes
else
	have_io=no
	echo "# no task I/O accounting here: disk re-reads not measured, residency only"
fi
lost_disk() { [ $have_io = no ] || [ "$a_disk" -ge $((WS_M << 20)) ]; }
# Not vacuous: without memctl the job must have lost a good part of its
# file, at least a third on average, which is also what the comparison
# below needs to be passable at all (100% >= 1.5 x 66.7%). Under a parent
# of less than 1G the kernel keeps the active file list about as large as
# the inactive one, so the job keeps about limit / 2 of its file: in the
# guest (64M, 52M) that is 59-61% at every pass, stable, and a bound of
# 60 was a coin toss there.
if awk -v a="$a_avg" 'BEGIN { exit !(a <= 66) }' && lost_disk; then
	pass "baseline loses the working set without memctl (avg residency $a_avg% <= 66%, re-read $((a_disk >> 20))M >= ${WS_M}M)"
else
	fail "baseline kept $a_avg% of the working set without memctl (re-read $((a_disk >> 20))M): the setup is not tight enough for this kernel, so phase B would prove nothing"
fi
awk -v b="$b_min" 'BEGIN { exit !(b >= 90) }' &&
	pass "with memctl run the job finds >= 90% of its file at every pass (min $b_min%)" ||
	fail "with memctl run the job found only $b_min% of its file at some pass"
awk -v a="$a_avg" -v b="$b_avg" 'BEGIN { exit !(b >= 1.5 * a && b >= a + 30) }' &&
	pass "residency with memctl ($b_avg%) >= 1.5x and +30 points over without ($a_avg%)" ||
	fail "residency with memctl ($b_avg%) not clearly above without ($a_avg%)"
if [ $have_io = yes ]; then
	[ "$b_disk" -le $((a_disk / 4)) ] &&
		pass "with memctl the job re-reads at most a quarter of what it re-reads without" ||
		fail "with memctl the job re-read $b_disk bytes, without $a_disk"
fi

left=$(find "$T_DIR" -maxdepth 1 -type d -name "$T_PREFIX*" | wc -l)
check_eq "$left" 0 "no test groups left"
summary
