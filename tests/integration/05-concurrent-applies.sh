# Two applies at once serialize on the lock: the second waits, then plans
# from the first one's result; with --no-wait it fails at once, changing
# nothing. A lock left by a killed memctl is taken over.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
prereq_fault_injection

T_TMP=$(mktemp -d)
one_group_profile "$T_TMP/a.yaml" max=200M soft_limit=100M
one_group_profile "$T_TMP/b.yaml" max=300M

# A stops itself after its first write, holding the lock.
MEMCTL_STOP_AFTER_WRITE=1 "$MEMCTL" -q apply "$T_TMP/a.yaml" &
a=$!
wait_stopped $a || fail "first apply did not stop"

err=$(mc --no-wait apply "$T_TMP/b.yaml" 2>&1); rc=$?
check_rc $rc 3 "--no-wait while the lock is held"
echo "$err" | grep -q "pid $a" && pass "names the holder's pid" || fail "message: $err"

mc apply "$T_TMP/b.yaml" > "$T_TMP/b.out" 2> "$T_TMP/b.err" &
b=$!
for i in $(seq 1 3000); do grep -q waiting "$T_TMP/b.err" && break; sleep 0.01; done
grep -q "waiting for the lock" "$T_TMP/b.err" && pass "second apply waits" || fail "second apply did not wait"
kill -0 $b 2>/dev/null && pass "second apply still running while the first holds the lock" ||
	fail "second apply finished while the lock was held"
kill -CONT $a
wait $a; check_rc $? 0 "first apply finishes"
wait $b; check_rc $? 0 "second apply finishes"
check_eq "$(mc get $T_PREFIX-g max)" 300M "the second apply's max won"
check_eq "$(mc get $T_PREFIX-g soft_limit)" 100M "the first apply's soft limit stayed"
grep -q "memory.limit_in_bytes 200M -> 300M\|memory.max 200M -> 300M" "$T_TMP/b.out" &&
	pass "second apply planned from the first one's result" || fail "second apply output: $(cat "$T_TMP/b.out")"

# Stale lock: a holder killed with -9 releases it; rollback then cleans up.
MEMCTL_STOP_AFTER_WRITE=1 "$MEMCTL" -q apply "$T_TMP/a.yaml" &
a=$!
wait_stopped $a
kill -9 $a; wait $a 2>/dev/null
mc --no-wait -q rollback
check_rc $? 0 "lock of a killed memctl is taken over"
summary
