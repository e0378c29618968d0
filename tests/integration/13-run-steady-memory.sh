# memctl run keeps working when the host is short of memory: its memory is
# locked, and after the first intervals an interval takes no new page from
# the kernel (counted by run itself from its minor faults).
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
mc --version | grep -q sanitizers &&
	skip "sanitizer builds cannot lock memory; scripts/test.sh runs this with the release build"

T_TMP=$(mktemp -d)
cat > "$T_TMP/p.yaml" <<YAML
version: 1
parent: self
interval: 50ms
groups:
  $T_PREFIX-s:
    max: 100M
    soft_limit: 50M
    groups:
      ws: {max: 60M, protect: active}
      thp: {max: 20M, high: 10M, thp: true}
      other: {max: 30M}
YAML
"$MEMCTL" run "$T_TMP/p.yaml" 2> "$T_TMP/log" &
pid=$!
for i in $(seq 1 1000); do [ "$(grep -c . "$T_TMP/log" 2>/dev/null)" -ge 6 ] && break; sleep 0.01; done
# Let it run about 40 intervals in the steady state.
sleep 2
kill -TERM $pid
wait $pid; check_rc $? 0 "run stops on SIGTERM"
sed 's/^/# /' "$T_TMP/log" | tail -3
n=$(sed -n 's/.*stopping after \([0-9]*\) intervals.*/\1/p' "$T_TMP/log")
[ -n "$n" ] && [ "$n" -ge 10 ] && pass "ran $n intervals" || fail "ran '$n' intervals"
grep -q "cannot lock" "$T_TMP/log" && fail "memory was not locked" || pass "memory locked"
faults=$(sed -n 's/.*new pages taken after the first [0-9]* intervals: \([0-9]*\).*/\1/p' "$T_TMP/log")
check_eq "$faults" 0 "no new page taken in the steady state"
summary
