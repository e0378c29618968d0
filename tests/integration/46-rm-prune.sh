# The end of a group's life. memctl records the groups it creates (in the
# state directory, with their directory's identity); apply --prune removes
# those the profile no longer names when they are empty, children first,
# and says why it keeps one that holds tasks or a group that stays; groups
# memctl did not create are never pruned. rm removes one empty group and
# refuses one with tasks (saying how many) or groups below it. Both are
# journaled: a prune that fails half way, or is killed, is undone (the
# groups come back with their limits), and the record follows. (A damaged
# record: test 48.)
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
prereq_fault_injection

created_setup
tree_profile "$T_TMP/all.yaml" "$P" max=256M keep/max=64M old/max=32M old/soft_limit=16M \
	busy/max=32M tree/leaf/max=8M
mc -q apply "$T_TMP/all.yaml"
check_rc $? 0 "apply creates the groups"
recorded() { awk '$1 == "group" {print $3}' "$REC" 2>/dev/null | sed "s|^$ABS|P|" | sort | tr '\n' ' '; }
check_eq "$(recorded)" "P P/busy P/keep P/old P/tree P/tree/leaf " "the record names every group apply created"
mkdir "$T_DIR/$P/manual" "$T_DIR/$P/manual2" || fail "mkdir by hand"

# --- rm ---
out=$(mc rm "$P/manual2"); rc=$?
check_rc $rc 0 "rm of an empty group"
check_eq "$out" "removed $ABS/manual2" "rm says what it removed"
[ -d "$T_DIR/$P/manual2" ] && fail "the group is still there" || pass "the group is gone"
err=$(mc rm "$P/tree" 2>&1); rc=$?
check_rc $rc 3 "rm of a group with a group below it"
echo "$err" | grep -q "it has 1 group below it (such as 'leaf')" && pass "says which group" ||
	fail "message: $err"
"$MEMCTL" exec "$P/busy" -- sleep 60 &
busy=$!
for i in $(seq 1 500); do grep -qx "$busy" "$T_DIR/$P/busy/cgroup.procs" && break; sleep 0.01; done
err=$(mc rm "$P/busy" 2>&1); rc=$?
check_rc $rc 3 "rm of a group that holds a task"
echo "$err" | grep -q "it holds 1 task" && pass "says how many tasks" || fail "message: $err"
[ -d "$T_DIR/$P/busy" ] && pass "the busy group is kept" || fail "the busy group is gone"
mc rm "$P/nope" >/dev/null 2>&1; check_rc $? 2 "rm of a missing group"
mc rm "$P/../x" >/dev/null 2>&1; check_rc $? 2 "rm with '..'"
mc rm / >/dev/null 2>&1; check_rc $? 2 "rm of the root"
check_eq "$(ls "$T_STATE" | grep -c journal)" 0 "no journal is left behind"

# --- plan --prune and apply --prune ---
out=$(mc plan --prune "$T_TMP/keep.yaml"); rc=$?
check_rc $rc 0 "plan --prune"
echo "$out" | grep -q "remove  *$P/old" && pass "plan shows the removal" || fail "plan: $out"
before=$(state_dump)
mc -q apply "$T_TMP/keep.yaml"
check_eq "$(state_dump)" "$before" "apply without --prune removes nothing"
out=$(mc apply --prune "$T_TMP/keep.yaml" 2>&1); rc=$?
check_rc $rc 0 "apply --prune"
order=$(echo "$out" | sed -n "s|^removed $P/||p" | tr '\n' ' ')
check_eq "$order" "tree/leaf tree old " "removed children first, only memctl's empty groups"
echo "$out" | grep -q "^$P/busy: kept: .* it holds 1 task$" && pass "says why busy is kept" ||
	fail "output: $out"
for g in keep busy manual; do
	[ -d "$T_DIR/$P/$g" ] && pass "$g stays" || fail "$g was removed"
done
check_eq "$(recorded)" "P P/busy P/keep " "the record no longer names the removed groups"
kill $busy; wait $busy 2>/dev/null
out=$(mc apply --prune "$T_TMP/keep.yaml"); rc=$?
check_eq "$out|$rc" "removed $P/busy|0" "busy is removed once it is empty"
[ -d "$T_DIR/$P/manual" ] && pass "a group memctl did not create is never pruned" ||
	fail "manual was pruned"

# --- a prune that fails half way is undone, with the groups' settings ---
mc -q apply "$T_TMP/two.yaml"
check_rc $? 0 "apply r1 and r2"
before=$(state_dump)
err=$(MEMCTL_FAIL_WRITE=2:EBUSY mc apply --prune "$T_TMP/keep.yaml" 2>&1); rc=$?
check_rc $rc 1 "a prune whose second removal fails"
echo "$err" | grep -q "cannot remove group '$ABS/r1'" && pass "names the group it could not remove" ||
	fail "message: $err"
check_eq "$(state_dump)" "$before" "the removed group is back with its limits"
check_eq "$(recorded)" "P P/keep P/r1 P/r2 " "the recreated group is still memctl's"

# --- killed during a prune: rollback recreates the group ---
MEMCTL_STOP_AFTER_WRITE=1 "$MEMCTL" apply --prune "$T_TMP/keep.yaml" >/dev/null 2>&1 &
pid=$!
wait_stopped $pid || fail "apply did not stop"
kill -9 $pid; wait $pid 2>/dev/null
[ -d "$T_DIR/$P/r2" ] && fail "r2 should be removed at this point" || pass "killed after the first removal"
mc -q rollback
check_rc $? 0 "rollback"
check_eq "$(state_dump)" "$before" "rollback recreated the group with its limits"
check_eq "$(recorded)" "P P/keep P/r1 P/r2 " "and recorded it again"
out=$(mc apply --prune "$T_TMP/keep.yaml"); rc=$?
out=$(echo "$out" | tr '\n' ' ')
check_eq "$out|$rc" "removed $P/r2 removed $P/r1 |0" "the recreated groups are pruned later"

# --- a group removed and made again by someone else is not memctl's ---
mc -q apply "$T_TMP/two.yaml"
rmdir "$T_DIR/$P/r1" && mkdir "$T_DIR/$P/r1"
out=$(mc apply --prune "$T_TMP/keep.yaml"); rc=$?
check_eq "$out|$rc" "removed $P/r2|0" "a group made again under the name is left alone"
[ -d "$T_DIR/$P/r1" ] && pass "r1 stays" || fail "r1 was pruned"
check_eq "$(recorded)" "P P/keep " "its stale entry is dropped"
rmdir "$T_DIR/$P/r1"

summary
