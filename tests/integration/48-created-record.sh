# The record of the groups memctl created (STATE_DIR/created) is state
# directory input: a damaged one (a path with '..', an identity that is no
# number, no header, a group twice, a last line without its newline), one
# others may write, or a symbolic link is refused, naming the line, by
# apply --prune, rm and an apply that creates groups, before anything
# changes; once repaired it works again.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg

created_setup
mc -q apply "$T_TMP/two.yaml"
check_rc $? 0 "apply creates the groups"
cp "$REC" "$T_TMP/good"
before=$(state_dump)
bad_record() {	# WHAT GREP: REC holds the damage
	local err rc
	err=$(mc apply --prune "$T_TMP/keep.yaml" 2>&1); rc=$?
	check_rc $rc 3 "$1: apply --prune refused"
	echo "$err" | grep -q -- "$2" && pass "$1: says why" || fail "$1: message: $err"
	check_eq "$(state_dump)" "$before" "$1: nothing changed"
	rm -f "$REC"; cp "$T_TMP/good" "$REC"; chmod 600 "$REC"
}
printf 'group 12 /../../etc\n' >> "$REC"
err=$(mc rm "$P/r2" 2>&1); rc=$?
check_rc $rc 3 "a damaged record: rm refused"
echo "$err" | grep -q "created' line 6: not a clean absolute cgroup path" && pass "rm says why" ||
	fail "rm: $err"
bad_record "a path with '..'" "created' line 6: not a clean absolute cgroup path"
printf 'group x %s/r1\n' "$ABS" >> "$REC"
bad_record "an identity that is no number" "line 6: the identity is not a number"
sed -i 1d "$REC"
bad_record "no header" "line 1: not a memctl record of created groups"
sed -n 2p "$REC" >> "$REC"
bad_record "a group twice" "line 6: the group is recorded twice"
printf 'group 1 /x' >> "$REC"
bad_record "a last line without newline" "the last line does not end"
chmod 666 "$REC"
bad_record "a record others may write" "writable by group or others"
rm "$REC"; ln -s "$T_TMP/good" "$REC"
bad_record "a symbolic link" "symbolic link"
printf 'group 99 r3\n' >> "$REC"
tree_profile "$T_TMP/new.yaml" "$P" r3/
err=$(mc apply "$T_TMP/new.yaml" 2>&1); rc=$?
check_rc $rc 3 "an apply that creates groups refuses a damaged record too"
[ -d "$T_DIR/$P/r3" ] && fail "r3 was created" || pass "and creates nothing"
rm -f "$REC"; cp "$T_TMP/good" "$REC"
out=$(mc apply --prune "$T_TMP/keep.yaml"); rc=$?
out=$(echo "$out" | tr '\n' ' ')
check_eq "$out|$rc" "removed $P/r2 removed $P/r1 |0" "the repaired record works again"
summary
