# kill -9 at random points of an apply, 60 trials (MEMCTL_TEST_SCALE divides): half stopped after a
# random write k and killed there, half killed after a random delay. After
# memctl rollback the host is entirely in the old state, or entirely in the
# new one when the apply had finished; a re-apply then reaches the new state.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
prereq_fault_injection

T_TMP=$(mktemp -d)
tree_profile "$T_TMP/old.yaml" "$T_PREFIX-a" max=300M soft_limit=100M x/max=200M
tree_profile "$T_TMP/new.yaml" "$T_PREFIX-a" max=100M soft_limit=60M x/max=80M x/soft_limit=10M \
	y/max=50M -- "$T_PREFIX-b" max=64M z/max=32M
mc -q apply "$T_TMP/old.yaml" || fail "apply old"
old=$(state_dump)
mc -q apply "$T_TMP/new.yaml" || fail "apply new"
new=$(state_dump)
mc -q apply "$T_TMP/old.yaml"
# (the old profile does not remove b: a group it does not name is left alone)
old=$(state_dump)
writes=$(plan_writes "$T_TMP/new.yaml")
RANDOM=4242
n_old=0 n_new=0 n_journal=0
trials=$((60 / ${MEMCTL_TEST_SCALE:-1}))
for trial in $(seq 1 $trials); do
	if [ $((trial % 2)) = 0 ]; then
		k=$((RANDOM % writes + 1))
		MEMCTL_STOP_AFTER_WRITE=$k "$MEMCTL" -q apply "$T_TMP/new.yaml" &
		pid=$!
		wait_stopped $pid || fail "trial $trial: apply did not reach write $k"
	else
		"$MEMCTL" -q apply "$T_TMP/new.yaml" &
		pid=$!
		sleep "$(printf '0.%03d' $((RANDOM % 60)))"
	fi
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	[ -e "$T_STATE/journal" ] && n_journal=$((n_journal + 1))
	mc -q rollback || fail "trial $trial: rollback failed"
	now=$(state_dump)
	if [ "$now" = "$old" ]; then
		n_old=$((n_old + 1))
	elif [ "$now" = "$new" ] && [ ! -e "$T_STATE/journal" ]; then
		n_new=$((n_new + 1))
	else
		fail "trial $trial: host is neither in the old nor in the new state"
		diff <(echo "$old") <(echo "$now") | head -5
	fi
	mc -q apply "$T_TMP/new.yaml" || fail "trial $trial: re-apply failed"
	[ "$(state_dump)" = "$new" ] || fail "trial $trial: re-apply did not reach the new state"
	mc -q apply "$T_TMP/old.yaml" || fail "trial $trial: back to old failed"
done
pass "$trials trials: $n_old rolled back to the old state, $n_new had finished, $n_journal left a journal"
[ $n_journal -ge $((trials / 2)) ] && pass "at least the $((trials / 2)) stopped trials left a journal" ||
	fail "only $n_journal journals"
summary
