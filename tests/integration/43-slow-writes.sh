# Writes that block in the kernel are bounded. A limit lowered below a large
# page cache makes the kernel reclaim inside the write; with a 1 ms bound
# that write is cut short on the real kernel: apply reports the timeout
# naming group and knob, and the limit stays as it was. With the test-only
# slow write (MEMCTL_SLOW_WRITE), apply and set time out and roll back what
# they did before, and `memctl run` gives up a write when its interval's
# time is out instead of waiting for it (that time starts with its first
# write, not with a slow snapshot).
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg

T_TMP=$(disk_tmpdir) || skip "no disk-backed temporary directory (page cache needs a real disk)"
G=$T_PREFIX-g
limit_file=memory.max
[ "$T_VERSION" = 1 ] && limit_file=memory.limit_in_bytes

profile() {  # profile FILE MAX [SOFT]
	{
		printf 'version: 1\nparent: self\ninterval: 500ms\ngroups:\n  %s:\n    max: %s\n' "$G" "$2"
		[ -n "${3:-}" ] && printf '    soft_limit: %s\n' "$3"
	} > "$1"
}

# The real kernel: 200M of page cache charged to the group, then max 8M.
# The cache is written back first (conv=fsync): reclaim cannot free dirty
# pages, and v1's limit write then gives up with EBUSY within microseconds,
# before the 1 ms bound this test is about has run out.
profile "$T_TMP/big.yaml" 1G
mc -q apply "$T_TMP/big.yaml"; check_rc $? 0 "apply max 1G"
sh -c "echo \$\$ > '$T_DIR/$G/cgroup.procs'; exec dd if=/dev/zero of='$T_TMP/cache' bs=1M count=200 conv=fsync status=none"
used=$(kval $G memory.usage_in_bytes 2>/dev/null || kval $G memory.current)
[ "$used" -gt $((150 << 20)) ] && pass "the group holds $((used >> 20))M of page cache" ||
	fail "the group holds only $((used >> 20))M"
profile "$T_TMP/small.yaml" 8M
out=$(MEMCTL_WRITE_TIMEOUT_MS=1 "$MEMCTL" apply "$T_TMP/small.yaml" 2>&1); rc=$?
if [ "$T_VERSION" = 1 ]; then
	check_rc $rc 3 "lowering the limit below 200M of cache within 1 ms times out"
	echo "$out" | grep -q "cannot set $limit_file on '.*/$G': not done after 1 ms" &&
		pass "names the group, the knob and the bound" || fail "message: $out"
	echo "$out" | grep -q "nothing was changed" && pass "says nothing was changed" || fail "message: $out"
	check_eq "$(kval $G $limit_file)" $((1 << 30)) "the kernel kept the old limit"
else
	# v2 keeps the new limit and stops reclaiming: the write counts as done.
	check_rc $rc 0 "v2: the interrupted write keeps the new limit"
	check_eq "$(kval $G $limit_file)" $((8 << 20)) "v2: memory.max is the new limit"
fi
rm -f "$T_TMP/cache"
# The rest needs the test-only slow write; a build without it has done the real part.
"$MEMCTL" --version | grep -q "fault injection" || { summary; exit; }

# Injected: the second write sleeps 5 s within a 200 ms bound. Apply undoes the first.
profile "$T_TMP/a.yaml" 64M 32M
mc -q apply "$T_TMP/a.yaml"; check_rc $? 0 "apply max 64M, soft 32M"
before=$(state_dump)
profile "$T_TMP/b.yaml" 48M 16M
out=$(MEMCTL_WRITE_TIMEOUT_MS=200 MEMCTL_SLOW_WRITE=2:5000 "$MEMCTL" apply "$T_TMP/b.yaml" 2>&1); rc=$?
check_rc $rc 1 "apply: the second write times out"
echo "$out" | grep -q "cannot set memory\.[a-z_.]* on '.*/$G': not done after 200 ms" &&
	pass "apply names group, knob and bound" || fail "apply message: $out"
echo "$out" | grep -q "rolled back: the host is as before (1 change undone)" &&
	pass "apply rolled the first write back" || fail "apply message: $out"
check_eq "$(state_dump)" "$before" "apply: host as before"
[ -e "$T_STATE/journal" ] && fail "journal left after a clean rollback"

out=$(MEMCTL_WRITE_TIMEOUT_MS=200 MEMCTL_SLOW_WRITE=2:5000 "$MEMCTL" set $G max=48M soft_limit=16M 2>&1); rc=$?
check_rc $rc 1 "set: the second write times out"
echo "$out" | grep -q "not done after 200 ms" && pass "set says so" || fail "set message: $out"
check_eq "$(state_dump)" "$before" "set: host as before"

# run: no per-write bound, a write that would take 60 s, an interval of 500 ms.
out=$(MEMCTL_WRITE_TIMEOUT_MS=0 MEMCTL_SLOW_WRITE=1:60000 timeout 30 "$MEMCTL" run --once "$T_TMP/b.yaml" 2>&1); rc=$?
[ $rc -ne 124 ] && pass "run --once did not wait for the slow write (exit $rc)" ||
	fail "run waited for the slow write until killed"
echo "$out" | grep -q "not done when this interval's time ran out" &&
	pass "run: the write ran out of the interval's time" || fail "run message: $out"
check_eq "$(state_dump)" "$before" "run: host as before"

# A snapshot slower than run's interval (thousands of groups, an emulated
# machine): the interval's write time starts with its first write, so run
# still writes instead of giving up every write without trying it.
profile "$T_TMP/c.yaml" 40M
out=$(MEMCTL_SLOW_SNAPSHOT=800 timeout 60 "$MEMCTL" run --once "$T_TMP/c.yaml" 2>&1); rc=$?
check_rc $rc 0 "run --once with a snapshot slower than its 500 ms interval"
check_eq "$(kval $G $limit_file)" $((40 << 20)) "run wrote its limit after the slow snapshot"
[ $rc = 0 ] || echo "# $out"
summary
