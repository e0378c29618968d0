# Soft-limit ordering with real reclaims: a parent over its limit minus the
# headroom gets memory back from the children above their soft limits, at
# most reclaim.concurrency reclaims at once; on v1 every child's limit is
# restored after its reclaim and no reclaim journal is left behind.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg

T_TMP=$(disk_tmpdir) || skip "no disk-backed temporary directory (page cache needs a real disk)"
P=$T_PREFIX-p
limit_file=memory.max; usage_file=memory.current
[ "$T_VERSION" = 1 ] && { limit_file=memory.limit_in_bytes; usage_file=memory.usage_in_bytes; }

cat > "$T_TMP/p.yaml" <<YAML
version: 1
parent: self
reclaim:
  concurrency: 2
groups:
  $P:
    groups:
      a: {soft_limit: 0}
      b: {soft_limit: 0}
      c: {soft_limit: 0}
      d: {soft_limit: 0}
YAML
mc -q apply "$T_TMP/p.yaml"
check_rc $? 0 "apply the groups"
before_limits=$(for g in a b c d; do kval $P/$g $limit_file; done)

# Each child reads its own 50M file: the page cache is charged to it.
for g in a b c d; do
	head -c 50M /dev/urandom | dd of="$T_TMP/$g" conv=fsync status=none
	dd if="$T_TMP/$g" iflag=nocache count=0 status=none   # our file only: start cold
	sh -c "echo \$\$ > '$T_DIR/$P/$g/cgroup.procs'; exec cat '$T_TMP/$g' > /dev/null"
done
used=$(kval $P $usage_file)
[ "$used" -gt $((190 << 20)) ] && pass "children hold $((used >> 20))M of page cache" ||
	fail "children hold only $((used >> 20))M of page cache"

# Now limit the parent to 180M: apply makes the kernel push usage under it,
# and the next interval finds it above limit - headroom (8M).
sed -i "s/^  $P:\$/  $P:\n    max: 180M/" "$T_TMP/p.yaml"
mc -q apply "$T_TMP/p.yaml"
check_rc $? 0 "apply the parent limit"
out=$(mc plan "$T_TMP/p.yaml")
n=$(echo "$out" | grep -c "^  reclaim ")
[ "$n" -ge 2 ] && pass "plan shows $n reclaims" || fail "plan: $out"
echo "$out" | grep -q "above its soft limit 0: gives .* needs back" && pass "each reclaim says why" ||
	fail "reasons: $out"

used1=$(kval $P $usage_file)
mc --once run "$T_TMP/p.yaml" 2> "$T_TMP/run.log"; rc=$?
check_rc $rc 0 "run --once"
sed 's/^/# /' "$T_TMP/run.log"
used2=$(kval $P $usage_file)
[ "$used2" -lt "$used1" ] && pass "parent usage dropped $((used1 >> 10))K -> $((used2 >> 10))K" ||
	fail "parent usage did not drop ($used1 -> $used2)"
[ "$used2" -le $(((180 - 8) << 20)) ] && pass "parent is now within limit minus headroom" ||
	fail "parent still at $((used2 >> 10))K"
got=$(grep -c ": reclaim .*: got [1-9]" "$T_TMP/run.log")
[ "$got" -ge 2 ] && pass "$got reclaims got memory back" || fail "reclaims: $(cat "$T_TMP/run.log")"
peak=$(sed -n 's/.*at most \([0-9]*\) in flight.*/\1/p' "$T_TMP/run.log")
[ -n "$peak" ] && [ "$peak" -le 2 ] && pass "at most $peak reclaims in flight (cap 2)" ||
	fail "peak in flight '$peak' above the cap"
check_eq "$(for g in a b c d; do kval $P/$g $limit_file; done)" "$before_limits" \
	"every child's limit is restored after its reclaim"
ls "$T_STATE" | grep -q "^reclaim\." && fail "a reclaim journal was left" || pass "no reclaim journal left"
summary
