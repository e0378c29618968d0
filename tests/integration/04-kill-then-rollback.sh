# kill -9 during an apply, at every write; apply then refuses to run over the
# journal, and rollback restores the old state exactly.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
prereq_fault_injection

T_TMP=$(mktemp -d)
tree_profile "$T_TMP/old.yaml" "$T_PREFIX-a" max=300M soft_limit=100M
tree_profile "$T_TMP/new.yaml" "$T_PREFIX-a" max=100M soft_limit=60M n/max=50M -- \
	"$T_PREFIX-b" max=64M
apply_old

for k in $(seq 1 "$writes"); do
	MEMCTL_STOP_AFTER_WRITE=$k "$MEMCTL" -q apply "$T_TMP/new.yaml" &
	pid=$!
	if ! wait_stopped $pid; then
		fail "apply did not reach write $k"
		continue
	fi
	kill -9 $pid
	wait $pid 2>/dev/null
	[ -e "$T_STATE/journal" ] && pass "killed after write $k: journal left" || fail "killed after write $k: no journal"
	[ "$(state_dump)" != "$before" ] && pass "killed after write $k: host half-changed" ||
		fail "killed after write $k: nothing was written"
	err=$(mc apply "$T_TMP/new.yaml" 2>&1); rc=$?
	check_rc $rc 3 "apply refuses to run over the journal"
	echo "$err" | grep -q "memctl rollback" && pass "and says to run rollback" || fail "message: $err"
	out=$(mc rollback); rc=$?
	check_rc $rc 0 "rollback"
	echo "$out" | grep -q "rolled back" || fail "rollback output: $out"
	check_eq "$(state_dump)" "$before" "killed after write $k: rollback restored everything"
	[ -e "$T_STATE/journal" ] && fail "journal left after rollback"
done
out=$(mc rollback); rc=$?
check_rc $rc 0 "rollback with no journal"
check_eq "$out" "nothing to roll back" "says there is nothing to roll back"
summary
