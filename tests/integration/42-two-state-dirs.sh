# Two memctl processes with different state directories on the same groups
# are serialized by the host-wide subtree lock: the second waits (bounded)
# or, with --no-wait, refuses naming the first one's PID; a subtree beside
# it is not held up. Rolling back an apply killed half-way leaves a value
# changed since by the other memctl as it is, instead of silently undoing it.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
prereq_fault_injection

T_TMP=$(mktemp -d)
S1=$T_TMP/s1; S2=$T_TMP/s2
profile() {  # profile FILE GROUP KEY VALUE...
	local f=$1 g=$2; shift 2
	{ printf 'version: 1\nparent: self\ngroups:\n  %s:\n' "$g"
	  while [ $# -gt 0 ]; do printf '    %s: %s\n' "$1" "$2"; shift 2; done; } > "$f"
}
profile "$T_TMP/a.yaml" $T_PREFIX-g max 200M soft_limit 100M
profile "$T_TMP/b.yaml" $T_PREFIX-g max 250M
mkdir "$T_DIR/$T_PREFIX-side"
profile "$T_TMP/side.yaml" x max 32M
sed -i "s/^parent: self$/parent: self\/$T_PREFIX-side/" "$T_TMP/side.yaml"

# A (state S1) stops after its first write, holding its subtree.
MEMCTL_STOP_AFTER_WRITE=1 "$MEMCTL" -s "$S1" -q apply "$T_TMP/a.yaml" &
a=$!
wait_stopped $a || fail "first apply did not stop"

out=$("$MEMCTL" -s "$S2" --no-wait apply "$T_TMP/b.yaml" 2>&1); rc=$?
check_rc $rc 3 "--no-wait with another state dir while A holds the groups"
echo "$out" | grep -q "another memctl (pid $a) is changing groups at or around" &&
	pass "names A's pid" || fail "message: $out"
out=$("$MEMCTL" -s "$S2" --no-wait apply "$T_TMP/side.yaml" 2>&1); rc=$?
check_rc $rc 3 "a subtree below A's parent overlaps it: refused too"

"$MEMCTL" -s "$S2" apply "$T_TMP/b.yaml" > "$T_TMP/b.out" 2> "$T_TMP/b.err" &
b=$!
for i in $(seq 1 3000); do grep -q waiting "$T_TMP/b.err" && break; sleep 0.01; done
grep -q "waiting for pid $a" "$T_TMP/b.err" && pass "B waits for A" || fail "B: $(cat "$T_TMP/b.err")"
kill -0 $b 2>/dev/null && pass "B still waiting while A holds the lock" || fail "B did not wait"
kill -CONT $a
wait $a; check_rc $? 0 "A finishes"
wait $b; check_rc $? 0 "B finishes after A"
check_eq "$(mc get $T_PREFIX-g max)" 250M "B's max won, planned from A's result"
check_eq "$(mc get $T_PREFIX-g soft_limit)" 100M "A's soft limit stayed"

# A is killed after its first write (max 250M -> 200M); then B sets max 300M.
profile "$T_TMP/a2.yaml" $T_PREFIX-g max 200M soft_limit 50M
profile "$T_TMP/b2.yaml" $T_PREFIX-g max 300M
MEMCTL_STOP_AFTER_WRITE=1 "$MEMCTL" -s "$S1" -q apply "$T_TMP/a2.yaml" &
a=$!
wait_stopped $a || fail "A did not stop"
kill -9 $a; wait $a 2>/dev/null
[ -e "$S1/journal" ] && pass "A left a journal in its state dir" || fail "no journal"
"$MEMCTL" -s "$S2" -q apply "$T_TMP/b2.yaml"; check_rc $? 0 "B applies max 300M"
out=$("$MEMCTL" -s "$S1" rollback 2>&1); rc=$?
check_rc $rc 0 "rollback of A"
check_eq "$(mc get $T_PREFIX-g max)" 300M "rolling A back kept B's max"
echo "$out" | grep -q "kept 1 value changed since the interrupted apply by someone else" &&
	pass "and says so" || fail "rollback message: $out"
check_eq "$(mc get $T_PREFIX-g soft_limit)" 100M "soft limit as before A"
summary
