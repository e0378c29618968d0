# An injected write failure at every position of a multi-group apply leaves
# every value as before and removes the groups the apply created; exit 1.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
prereq_fault_injection

T_TMP=$(mktemp -d)
# An existing group whose values the failed apply must restore.
tree_profile "$T_TMP/old.yaml" "$T_PREFIX-a" max=300M soft_limit=100M x/max=200M
tree_profile "$T_TMP/new.yaml" "$T_PREFIX-a" max=100M soft_limit=50M swap_max=32M x/max=80M \
	y/max=60M -- "$T_PREFIX-b" max=64M soft_limit=32M z/max=32M
apply_old
[ "$writes" -ge 6 ] && pass "plan has $writes writes" || fail "plan has only $writes writes"

for err in EINVAL EBUSY ENOENT; do
	for k in $(seq 1 "$writes"); do
		out=$(MEMCTL_FAIL_WRITE="$k:$err" "$MEMCTL" apply "$T_TMP/new.yaml" 2>&1); rc=$?
		check_rc $rc 1 "write $k fails with $err: apply exits 1"
		echo "$out" | grep -q "rolled back" || fail "write $k/$err: no rollback message: $out"
		after=$(state_dump)
		check_eq "$after" "$before" "write $k fails with $err: host as before"
		[ -e "$T_STATE/journal" ] && fail "journal left after a clean rollback"
	done
done
mc -q apply "$T_TMP/new.yaml"
check_rc $? 0 "the same apply without injection succeeds"
summary
