# apply creates the groups with the values the kernel reads back; planning
# again is empty and a second apply changes nothing.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg

T_TMP=$(mktemp -d)
P=$T_TMP/p.yaml
cat > "$P" <<YAML
version: 1
parent: self
groups:
  $T_PREFIX-web:
    max: 256M
    soft_limit: 128M
    swap_max: 64M
    high: 200M
    groups:
      cache:
        max: 50%
  $T_PREFIX-batch:
    max: 64M
YAML

mc check "$P" >/dev/null
check_rc $? 0 "check accepts the profile"

out=$(mc apply "$P"); rc=$?
check_rc $rc 0 "apply"
echo "$out" | sed 's/^/# /'
[ -d "$T_DIR/$T_PREFIX-web/cache" ] && pass "nested group created" || fail "nested group created"

if [ "$T_VERSION" = 1 ]; then
	check_eq "$(kval $T_PREFIX-web memory.limit_in_bytes)" $((256 << 20)) "web max read back from the kernel"
	check_eq "$(kval $T_PREFIX-web memory.soft_limit_in_bytes)" $((128 << 20)) "web soft limit read back"
	if [ -f "$T_DIR/$T_PREFIX-web/memory.memsw.limit_in_bytes" ]; then
		check_eq "$(kval $T_PREFIX-web memory.memsw.limit_in_bytes)" $(((256 + 64) << 20)) \
			"web memory+swap = max + swap_max"
	fi
	check_eq "$(kval $T_PREFIX-web/cache memory.limit_in_bytes)" $((128 << 20)) "cache max = 50% of web's 256M"
	check_eq "$(kval $T_PREFIX-batch memory.limit_in_bytes)" $((64 << 20)) "batch max"
	echo "$out" | grep -q "high 200M: no file for it on this host.*emulates" && pass "apply reports that high has no file on v1" ||
		fail "apply reports that high has no file on v1"
else
	check_eq "$(kval $T_PREFIX-web memory.max)" $((256 << 20)) "web max read back"
	check_eq "$(kval $T_PREFIX-web memory.high)" $((200 << 20)) "web high read back"
fi

out=$(mc -o json plan "$P"); rc=$?
check_rc $rc 0 "plan after apply"
echo "$out" | grep -q '"changes":0' && pass "plan after apply has no changes" || fail "plan after apply not empty: $out"

out=$(mc apply "$P"); rc=$?
check_rc $rc 0 "second apply"
echo "$out" | grep -q "nothing to change" && pass "second apply changes nothing" || fail "second apply: $out"

# get shows what the kernel has
check_eq "$(mc get "$T_PREFIX-web" max)" "256M" "get max"
check_eq "$(mc get "$T_PREFIX-web/cache" max)" "128M" "get nested max"
summary
