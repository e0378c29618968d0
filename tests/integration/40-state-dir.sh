# The state directory is not trusted on sight: a symlinked, group-writable
# or foreign-owned state dir, a FIFO named journal or reclaim.N, a hard link
# as the lock, a journal of another user's: each is refused with exit 3,
# naming the file and the cause, without blocking and with nothing written
# (no group created, the hard link's target untouched). A journal naming
# groups outside its parent ('..', another tree) is refused by rollback,
# which then writes nothing at all.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
prereq_fault_injection

T_TMP=$(mktemp -d)
one_group_profile "$T_TMP/p.yaml"

# refused DIR WANT-IN-MESSAGE WHAT [memctl args]: apply and rollback with -s DIR
refused() {
	local dir=$1 want=$2 what=$3 out rc
	out=$(timeout 20 "$MEMCTL" -s "$dir" apply "$T_TMP/p.yaml" 2>&1); rc=$?
	check_rc $rc 3 "apply refuses $what"
	echo "$out" | grep -q "$want" && pass "  and says '$want'" || fail "  message: $out"
	[ -d "$T_DIR/$T_PREFIX-g" ] && { fail "  a group was created anyway"; rmdir "$T_DIR/$T_PREFIX-g"; }
	out=$(timeout 20 "$MEMCTL" -s "$dir" rollback 2>&1); rc=$?
	check_rc $rc 3 "rollback refuses $what (and does not block)"
	out=$(timeout 20 "$MEMCTL" -s "$dir" status 2>&1); rc=$?
	check_rc $rc 0 "status still works with $what"
}

S=$T_TMP/good
mkdir -m 0700 "$S"
ln -s "$S" "$T_TMP/link"
refused "$T_TMP/link" "symbolic link" "a symlinked state dir"

mkdir -m 0770 "$T_TMP/gw"; chmod 0770 "$T_TMP/gw"
refused "$T_TMP/gw" "writable by group or others" "a group-writable state dir"

mkdir -m 0700 "$T_TMP/foreign"; chown 65534 "$T_TMP/foreign"
refused "$T_TMP/foreign" "owned by another user" "a state dir of another user"

mkdir -m 0700 "$T_TMP/fifo"; mkfifo -m 0600 "$T_TMP/fifo/journal"
refused "$T_TMP/fifo" "FIFO" "a FIFO named journal"

mkdir -m 0700 "$T_TMP/fifo2"; mkfifo -m 0600 "$T_TMP/fifo2/reclaim.0"
refused "$T_TMP/fifo2" "FIFO" "a FIFO named reclaim.0"

echo precious > "$T_TMP/victim"
mkdir -m 0700 "$T_TMP/hard"; ln "$T_TMP/victim" "$T_TMP/hard/lock"
refused "$T_TMP/hard" "more than one hard link" "a hard link as the lock"
check_eq "$(cat "$T_TMP/victim")" precious "the hard link's target is untouched"

mkdir -m 0700 "$T_TMP/hardtmp"; ln "$T_TMP/victim" "$T_TMP/hardtmp/journal.tmp"
refused "$T_TMP/hardtmp" "more than one hard link" "a hard link as journal.tmp"
check_eq "$(cat "$T_TMP/victim")" precious "journal.tmp's target is untouched"

mkdir -m 0700 "$T_TMP/theirs"; : > "$T_TMP/theirs/journal"; chown 65534 "$T_TMP/theirs/journal"
refused "$T_TMP/theirs" "owned by another user" "a journal of another user"

# A journal (ours, well-formed) whose records leave its parent: rollback
# writes nothing, not even the records that are inside.
lim=memory.limit_in_bytes
[ "$T_VERSION" = 2 ] && lim=memory.max
mkdir "$T_DIR/$T_PREFIX-in" "$T_DIR/$T_PREFIX-out"
echo $((64 << 20)) > "$T_DIR/$T_PREFIX-in/$lim"
echo $((64 << 20)) > "$T_DIR/$T_PREFIX-out/$lim"
P=${T_SELF%/}
for hostile in "$P/$T_PREFIX-in/../$T_PREFIX-out" "${P%/*}/other-tree"; do
	rm -rf "$T_TMP/hj"; mkdir -m 0700 "$T_TMP/hj"
	printf 'memctl-journal 2\npid 1\nparent %s/%s-in\nwrite max 1048576 67108864 %s/%s-in\nwrite max 1048576 67108864 %s\nend\n' \
		"$P" "$T_PREFIX" "$P" "$T_PREFIX" "$hostile" > "$T_TMP/hj/journal"
	chmod 0600 "$T_TMP/hj/journal"
	out=$("$MEMCTL" -s "$T_TMP/hj" rollback 2>&1); rc=$?
	check_rc $rc 3 "rollback refuses a journal naming '$hostile'"
	echo "$out" | grep -q "line 5" && pass "  names the line" || fail "  message: $out"
	check_eq "$(kval $T_PREFIX-in $lim)" $((64 << 20)) "  nothing written inside the parent"
	check_eq "$(kval $T_PREFIX-out $lim)" $((64 << 20)) "  nothing written outside it"
	[ -e "$T_TMP/hj/journal" ] && pass "  the journal is kept" || fail "  the journal was removed"
done

# status tells an apply in progress, an interrupted one and a failed one apart.
mc -q apply "$T_TMP/p.yaml"
sed 's/64M/32M/' "$T_TMP/p.yaml" > "$T_TMP/q.yaml"
MEMCTL_STOP_AFTER_WRITE=1 "$MEMCTL" -q apply "$T_TMP/q.yaml" &
pid=$!
wait_stopped $pid || fail "apply did not stop"
out=$(mc status | grep '^journal')
echo "$out" | grep -q "pid $pid is in progress" && pass "status: in progress ($out)" ||
	fail "status while running: $out"
kill -9 $pid; wait $pid 2>/dev/null
out=$(mc status | grep '^journal')
echo "$out" | grep -q "was interrupted" && pass "status: interrupted ($out)" || fail "status after kill: $out"
mc -q rollback
# The second write fails, and so does the undo of the first (the third write).
printf '    soft_limit: 16M\n' >> "$T_TMP/q.yaml"
out=$(MEMCTL_FAIL_WRITE=2:EBUSY,3:EACCES "$MEMCTL" apply "$T_TMP/q.yaml" 2>&1); rc=$?
check_rc $rc 4 "an apply whose rollback fails"
out=$(mc status | grep '^journal')
echo "$out" | grep -q "failed and could not undo max of '.*': Permission denied" &&
	pass "status: failed, and what could not be undone ($out)" || fail "status after a failed rollback: $out"
mc -q rollback; check_rc $? 0 "rollback finishes the job"
check_eq "$(mc get $T_PREFIX-g max)" 64M "and the host is as before"
summary
