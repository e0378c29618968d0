# After a workload change memctl run's decision converges within 3
# intervals, and run says after how many ("converged after N intervals").
#
# On the real hierarchy (v1 here, v2 in the QEMU guest), below our own
# cgroup: a parent (limit 256M) with ws (protect: active) and stream. ws
# reads a 32M file twice (its pages active, as a job's that is rerun);
# memctl run (interval 1 s) sets the mechanism that protects it (v1:
# stream's limit_in_bytes cap; v2: ws's memory.low) and reports that it
# converged. Then the step: ws reads a second file of 48M twice, at disk
# speed, within an interval or two. (Page cache, not anonymous memory:
# since Linux 5.9 new anonymous pages start on the inactive list and stay
# there until reclaim scans them, so without pressure they show no working
# set to protect, and v2's memory.low would not move.) The mechanism must
# follow (the cap down by the 48M, the low up), run must log "converged
# after N intervals" for it with N <= 3, and N must be the number of writes
# of the mechanism the log shows since the step (one a interval), so the
# count is checked against what was done rather than taken on trust.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg

BUILD=${MEMCTL_BUILD_DIR:-$(dirname "$MEMCTL")}
WL=${MEMCTL_WORKLOADS:-$BUILD/tests/workloads}
for w in ws-reader mkfile resident; do
	[ -x "$WL/$w" ] || { fail "workload '$WL/$w' not built"; summary; exit 1; }
done
SCALE=${MEMCTL_TEST_SCALE:-1}
LIMIT_M=$((256 / SCALE)) FIRST_M=$((32 / SCALE)) STEP_M=$((48 / SCALE))
memavail_k=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
[ "$memavail_k" -gt $(((LIMIT_M + 256) * 1024)) ] || skip "less than $((LIMIT_M + 256))M available memory"

if [ "$T_VERSION" = 1 ]; then
	MECH_GROUP=stream MECH_FILE=memory.limit_in_bytes
else
	MECH_GROUP=ws MECH_FILE=memory.low
fi
P=$T_PREFIX-p
# on a disk file system: the page cache of a tmpfs file is shmem, not file
T_TMP=$(disk_tmpdir) || skip "no disk-backed temporary directory"
avail_k=$(df -Pk "$T_TMP" | awk 'NR == 2 {print $4}')
[ "$avail_k" -gt $(((FIRST_M + STEP_M + 64) * 1024)) ] || skip "not enough space in $T_TMP for the test files"
LOG=$T_TMP/run.log
RUN_PID=""
stop_run() {
	[ -n "$RUN_PID" ] || return 0
	kill -TERM "$RUN_PID" 2>/dev/null
	wait "$RUN_PID" 2>/dev/null
	RUN_PID=""
}
trap 'stop_run; cleanup' EXIT

# polls "$@" every 0.1 s for at most $1 seconds by the clock; 1 on timeout
wait_secs() {
	local end=$(($(date +%s) + $1))
	shift
	until "$@"; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.1
	done
}
# the log's lines after line $1 that are about the mechanism
mech_lines() { tail -n +"$(($1 + 1))" "$LOG" | grep -F "$P/$MECH_GROUP: $MECH_FILE"; }
# a convergence of the mechanism logged after line $1
converged_after() { mech_lines "$1" | grep -q ' converged after '; }
# ws reads file $1 twice (the second pass makes its pages active), from
# disk: the file starts cold, so its pages are charged to ws
read_in_ws() {
	"$WL/resident" --drop "$1" >/dev/null &&
		sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$T_DIR/$P/ws" "$WL/ws-reader" "$1" 2 \
			>/dev/null
}
# checks the convergence logged after line $1: N <= 3 and N writes before it
check_converged() {
	local from=$1 what=$2 lines n writes
	lines=$(mech_lines "$from")
	echo "$lines" | sed "s/^/# $what: /"
	n=$(echo "$lines" | sed -n 's/.* converged after \([0-9]*\) interval.*/\1/p' | head -n1)
	writes=$(echo "$lines" | sed '/ converged after /q' | grep -c ' -> ')
	[ -n "$n" ] && [ "$n" -le 3 ] &&
		pass "$what: $MECH_GROUP's $MECH_FILE converged after $n interval(s) (at most 3)" ||
		fail "$what: $MECH_GROUP's $MECH_FILE converged after '${n:-?}' intervals, want at most 3"
	check_eq "$writes" "${n:-?}" "$what: the count is the writes of $MECH_FILE logged before it"
}

mkparent "$P" || { fail "cannot create $P"; summary; exit 1; }
cat >"$T_TMP/p.yaml" <<YAML
version: 1
parent: self
interval: 1s
groups:
  $P:
    max: ${LIMIT_M}M
    groups:
      ws: { protect: active }
      stream: {}
YAML
mc apply "$T_TMP/p.yaml" >/dev/null || { fail "apply failed"; summary; exit 1; }

"$WL/mkfile" "$T_TMP/first.dat" ${FIRST_M}M >/dev/null &&
	"$WL/mkfile" "$T_TMP/step.dat" ${STEP_M}M >/dev/null || { fail "cannot write the test files"; summary; exit 1; }
read_in_ws "$T_TMP/first.dat" || fail "ws could not read its first file"
"$MEMCTL" run "$T_TMP/p.yaml" 2>"$LOG" &
RUN_PID=$!
if wait_secs 30 converged_after 0; then
	check_converged 0 "start"
else
	fail "no convergence of $MECH_GROUP's $MECH_FILE logged in 30 s after the start"
fi
before=$(cat "$T_DIR/$P/$MECH_GROUP/$MECH_FILE")

# the step: 48M more in ws at once
mark=$(wc -l <"$LOG")
read_in_ws "$T_TMP/step.dat" || fail "ws could not read the step's file"
if wait_secs 30 converged_after "$mark"; then
	check_converged "$mark" "after the step"
else
	fail "no convergence of $MECH_GROUP's $MECH_FILE logged in 30 s after the step"
fi
after=$(cat "$T_DIR/$P/$MECH_GROUP/$MECH_FILE")
echo "# $MECH_GROUP's $MECH_FILE: $before before the step, $after after"
# the decision followed the step (not just any write): by most of the 48M
if [ "$T_VERSION" = 1 ]; then
	[ "$after" -le $((before - (STEP_M * 9 / 10 << 20))) ] &&
		pass "the cap came down by at least 90% of the step" ||
		fail "the cap went from $before to $after only, for a step of ${STEP_M}M"
else
	[ "$after" -ge $((before + (STEP_M * 9 / 10 << 20))) ] &&
		pass "memory.low went up by at least 90% of the step" ||
		fail "memory.low went from $before to $after only, for a step of ${STEP_M}M"
fi
kill -0 "$RUN_PID" 2>/dev/null && pass "memctl run still running" || fail "memctl run exited"
stop_run
sed 's/^/# run: /' "$LOG" | head -n 30
rmdir "$T_DIR/$P/ws" "$T_DIR/$P/stream" "$T_DIR/$P" && pass "groups removed" || fail "groups removed"
summary
