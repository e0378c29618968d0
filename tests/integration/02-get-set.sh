# get/set round-trip through the kernel; bad knobs, values and groups are
# refused with exit 2 and change nothing.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg

T_TMP=$(mktemp -d)
G=$T_PREFIX-g
cat > "$T_TMP/p.yaml" <<YAML
version: 1
parent: self
groups:
  $G:
    max: 512M
    groups:
      child:
        max: 128M
YAML
mc -q apply "$T_TMP/p.yaml"
check_rc $? 0 "apply"

mc -q set "$G" max=300M soft_limit=100M
check_rc $? 0 "set max and soft_limit"
check_eq "$(mc get "$G" max)" 300M "get returns what set wrote"
[ "$T_VERSION" = 1 ] && check_eq "$(kval $G memory.limit_in_bytes)" $((300 << 20)) "kernel has it"
check_eq "$(mc get "$G" soft_limit)" 100M "soft_limit round-trip"

mc -q set "$G" max=1G
check_rc $? 0 "raise max"
check_eq "$(mc get "$G" max)" 1G "raised"

mc -q set "$G" max=max
check_rc $? 0 "set max=max"
check_eq "$(mc get "$G" max)" max "unlimited"

# absolute group path, as cgset takes it
abs="${T_SELF%/}/$G"
mc -q set "$abs/child" max=64M
check_rc $? 0 "set with an absolute path"
check_eq "$(mc get "$abs/child" max)" 64M "get with an absolute path"

# percentages are of the parent's effective limit
mc -q set "$G" max=400M
mc -q set "$G/child" max=25%
check_eq "$(mc get "$G/child" max)" 100M "25% of the parent's 400M"

before=$(state_dump)
err=$(mc set "$G" maxx=1G 2>&1); rc=$?
check_rc $rc 2 "unknown knob"
echo "$err" | grep -q "did you mean 'max'" && pass "suggests the closest knob" || fail "suggestion: $err"
err=$(mc set "$G" max=12X 2>&1); rc=$?
check_rc $rc 2 "bad size"
echo "$err" | grep -q "12X" && pass "names the bad value" || fail "message: $err"
err=$(mc set "$T_PREFIX-nope" max=1G 2>&1); rc=$?
check_rc $rc 2 "missing group"
echo "$err" | grep -q "does not exist" && pass "says the group does not exist" || fail "message: $err"
[ -d "$T_DIR/$T_PREFIX-nope" ] && fail "set created a group" || pass "set did not create the group"
err=$(mc set "$G/child" max=1G 2>&1); rc=$?
check_rc $rc 2 "child max above the parent's"
err=$(mc set "$G/../x" max=1G 2>&1); rc=$?
check_rc $rc 2 "'..' in a group path"
check_eq "$(state_dump)" "$before" "refused sets changed nothing"

out=$(mc -o json get "$G"); rc=$?
check_rc $rc 0 "get -o json"
echo "$out" | jq -e '.knobs.max == 400 * 1048576' >/dev/null &&
	pass "json get parses and has max" || fail "json get: $out"
summary
