# Rollback needs no space: with the state directory on a file system that
# is full (a 1 MiB tmpfs of the test's own), a journal left by a killed
# apply is rolled back and the host restored; an apply on the full file
# system cannot write its journal and changes nothing (exit 3).
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
prereq_fault_injection

T_TMP=$(mktemp -d)
M=$T_TMP/fs
mkdir "$M"
mount -t tmpfs -o size=1m,mode=0700 memctl-test "$M" || skip "cannot mount a tmpfs of our own"
cleanup_fs() { umount "$M" 2>/dev/null; cleanup; }
trap cleanup_fs EXIT
S=$M/state

one_group_profile "$T_TMP/old.yaml" max=300M soft_limit=100M
sed 's/300M/200M/; s/100M/50M/' "$T_TMP/old.yaml" > "$T_TMP/new.yaml"
mc -s "$S" -q apply "$T_TMP/old.yaml"; check_rc $? 0 "apply the old state"
before=$(state_dump)

MEMCTL_STOP_AFTER_WRITE=1 "$MEMCTL" -s "$S" -q apply "$T_TMP/new.yaml" &
pid=$!
wait_stopped $pid || fail "apply did not stop"
kill -9 $pid; wait $pid 2>/dev/null
[ -e "$S/journal" ] && pass "a journal is left" || fail "no journal"
: > "$S/lock"   # as a memctl that released the lock cleanly leaves it
dd if=/dev/zero of="$M/fill" bs=4k status=none 2>/dev/null
check_eq "$(df --output=avail "$M" | tail -n1 | tr -d ' ')" 0 "the state file system is full"

out=$(mc -s "$S" apply "$T_TMP/new.yaml" 2>&1); rc=$?
check_rc $rc 3 "apply over the journal on a full file system"
out=$(mc -s "$S" rollback 2>&1); rc=$?
check_rc $rc 0 "rollback on a full file system"
echo "$out" | grep -q "rolled back the interrupted apply" && pass "says so" || fail "message: $out"
check_eq "$(state_dump)" "$before" "the host is restored"
[ -e "$S/journal" ] && fail "the journal is still there"

dd if=/dev/zero of="$M/fill2" bs=4k status=none 2>/dev/null   # what the journal freed
out=$(mc -s "$S" apply "$T_TMP/new.yaml" 2>&1); rc=$?
check_rc $rc 3 "apply cannot write its journal on a full file system"
echo "$out" | grep -q "cannot write the journal in '$S': No space left on device" &&
	pass "and says why" || fail "message: $out"
check_eq "$(state_dump)" "$before" "nothing was changed"
rm -f "$M/fill" "$M/fill2"
mc -s "$S" -q apply "$T_TMP/new.yaml"; check_rc $? 0 "with space again, apply works"
summary
