# Messages say what is wrong and what to do. Run as a user without root:
# the cause is named (root or write access to the groups is needed), not
# the lock; a refused first write says nothing was changed (exit 3) rather
# than "rolled back (0 changes undone)"; a busy lock names its holder's PID.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
command -v setpriv > /dev/null || skip "no setpriv (util-linux) to run memctl as another user"
# busybox's setpriv (the QEMU guest's) has no --reuid: that is a skip too.
setpriv --reuid nobody --regid nogroup --clear-groups -- true 2> /dev/null ||
	skip "this setpriv cannot switch to nobody (util-linux's can)"

T_TMP=$(mktemp -d)
chmod 0755 "$T_TMP"
one_group_profile "$T_TMP/p.yaml"
chmod 0644 "$T_TMP/p.yaml"
mc -q apply "$T_TMP/p.yaml"; check_rc $? 0 "root applies"
sed -i 's/64M/32M/' "$T_TMP/p.yaml"
as_nobody() { setpriv --reuid nobody --regid nogroup --clear-groups -- "$MEMCTL" "$@"; }

mkdir -m 0755 "$T_TMP/root"
out=$(as_nobody -s "$T_TMP/root/state" apply "$T_TMP/p.yaml" 2>&1); rc=$?
check_rc $rc 3 "non-root, state dir it cannot create"
echo "$out" | grep -q "needs root, or write access to the groups" && pass "names the cause: $out" ||
	fail "message: $out"

mkdir -m 0700 "$T_TMP/mine"; chown nobody "$T_TMP/mine"
out=$(as_nobody -s "$T_TMP/mine" apply "$T_TMP/p.yaml" 2>&1); rc=$?
check_rc $rc 3 "non-root with a state dir of its own: the first write is refused"
echo "$out" | grep -q "cannot set memory\.[a-z_.]* on '.*/$T_PREFIX-g': Permission denied" &&
	pass "names group, knob and cause" || fail "message: $out"
echo "$out" | grep -q "nothing was changed" && pass "says nothing was changed" || fail "message: $out"
echo "$out" | grep -q "rolled back" && fail "still claims a rollback: $out"
check_eq "$(mc get $T_PREFIX-g max)" 64M "nothing was changed indeed"

# An injected failure of the first write, as root: the same (test builds only).
"$MEMCTL" --version | grep -q "fault injection" || { summary; exit; }
out=$(MEMCTL_FAIL_WRITE=1:EBUSY "$MEMCTL" apply "$T_TMP/p.yaml" 2>&1); rc=$?
check_rc $rc 3 "the first write refused (EBUSY)"
echo "$out" | grep -q "nothing was changed" && pass "says nothing was changed" || fail "message: $out"
summary
