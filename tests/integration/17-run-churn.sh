# memctl run under churn: groups created and removed continuously under its
# parent (1000 cycles), a knob whose write starts failing, the parent
# vanishing and coming back, a SIGHUP storm. It keeps running and keeps its
# period, logs each problem once per cause, and recovers.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg

T_TMP=$(mktemp -d)
Q=$T_PREFIX-q                       # the profile's parent, which will vanish
mkdir "$T_DIR/$Q"
cat > "$T_TMP/p.yaml" <<YAML
version: 1
parent: self/$Q
interval: 100ms
groups:
  web: {max: 64M, soft_limit: 32M}
  batch: {max: 32M}
YAML
limit_file=memory.max
[ "$T_VERSION" = 1 ] && limit_file=memory.limit_in_bytes

"$MEMCTL" run "$T_TMP/p.yaml" 2> "$T_TMP/log" &
pid=$!
for i in $(seq 1 500); do [ -d "$T_DIR/$Q/web" ] && break; sleep 0.01; done
[ -d "$T_DIR/$Q/web" ] && pass "run created the groups" || fail "run did not create the groups"
start=$(date +%s%N)

# 1000 cycles of groups appearing and disappearing under the parent.
for i in $(seq 1 1000); do
	mkdir "$T_DIR/$Q/churn-$((i % 7))" 2>/dev/null
	rmdir "$T_DIR/$Q/churn-$(((i + 3) % 7))" 2>/dev/null
done
for i in $(seq 0 6); do rmdir "$T_DIR/$Q/churn-$i" 2>/dev/null; done
kill -0 $pid && pass "still running after 1000 create/remove cycles" || fail "run died under churn"

# A write that starts failing: the group's limit can no longer be lowered
# to the profile's value because someone else lowered its child's parent...
# simplest real failure: a profile max below what a running task holds.
sed -i 's/batch: {max: 32M}/batch: {max: 1M}/' "$T_TMP/p.yaml"
sh -c "echo \$\$ > '$T_DIR/$Q/batch/cgroup.procs'; exec python3 -c 'import time; b = bytearray(24 << 20); time.sleep(60)'" &
hog=$!
for i in $(seq 1 500); do [ "$(kval $Q/batch memory.usage_in_bytes 2>/dev/null || kval $Q/batch memory.current)" -gt $((20 << 20)) ] && break; sleep 0.01; done
kill -HUP $pid
sleep 1.5
n=$(grep -c "cannot set $limit_file on '.*batch'" "$T_TMP/log")
[ "$n" = 1 ] && pass "a failing write is logged once over ~15 intervals" || fail "failing write logged $n times"
kill -0 $pid && pass "still running while a write fails" || fail "run died on a failing write"
kill $hog; wait $hog 2>/dev/null
sed -i 's/batch: {max: 1M}/batch: {max: 32M}/' "$T_TMP/p.yaml"
kill -HUP $pid
for i in $(seq 1 500); do grep -q "recovered" "$T_TMP/log" && break; sleep 0.01; done
grep -q "recovered" "$T_TMP/log" && pass "says when it recovered" || fail "no recovery line"

# The parent vanishes, then comes back.
find "$T_DIR/$Q" -mindepth 1 -depth -type d -exec rmdir {} \; 2>/dev/null
rmdir "$T_DIR/$Q"
sleep 1
n=$(grep -c "cannot read parent" "$T_TMP/log")
[ "$n" = 1 ] && pass "a vanished parent is logged once" || fail "vanished parent logged $n times"
kill -0 $pid && pass "still running without its parent" || fail "run died when the parent vanished"
mkdir "$T_DIR/$Q"
for i in $(seq 1 500); do [ -d "$T_DIR/$Q/web" ] && break; sleep 0.01; done
check_eq "$(kval $Q/web $limit_file)" $((64 << 20)) "groups are back when the parent is"

# A SIGHUP storm.
for i in $(seq 1 200); do kill -HUP $pid; done
sleep 0.5
kill -0 $pid && pass "survives 200 SIGHUPs" || fail "died in a SIGHUP storm"

kill -TERM $pid
wait $pid; check_rc $? 0 "stops cleanly"
end=$(date +%s%N)
n=$(sed -n 's/.*stopping after \([0-9]*\) intervals.*/\1/p' "$T_TMP/log")
expect=$(((end - start) / 100000000))
echo "# $n intervals in $(((end - start) / 1000000)) ms at 100 ms"
[ -n "$n" ] && [ "$n" -ge $((expect / 2)) ] && pass "kept its period ($n intervals, ~$expect expected)" ||
	fail "kept its period: $n intervals, ~$expect expected"
summary
