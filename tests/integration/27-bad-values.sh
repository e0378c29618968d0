# A cgroup file whose contents do not parse, on a fake v2 tree: the value is
# unknown and memctl says which file, but the rest is read and the command
# goes on (get, plan, export). A real kernel does not write such files; a
# fake tree is the only way to make one.
. "$(dirname "$0")/lib.sh"

T_TMP=$(mktemp -d)
trap 'rm -rf "$T_TMP"' EXIT
ROOT=$T_TMP/cg
mkgroup() { fake_v2_group "$ROOT$1" memory.max="$2"; }
mkdir -p "$ROOT"
echo "memory" > "$ROOT/cgroup.controllers"
mkgroup /svc max
mkgroup /svc/web 1073741824
export MEMCTL_CGROUP_ROOT=$ROOT MEMCTL_CGROUP_VERSION=2 MEMCTL_FAKE_SELF=/svc MEMCTL_FAKE_MEM_TOTAL=16G MEMCTL_STATE_DIR=$T_TMP/state

printf 'lots\n' > "$ROOT/svc/web/memory.max"
printf 'anon 1x\n' > "$ROOT/svc/web/memory.stat"
out=$(mc get web max 2> "$T_TMP/err"); rc=$?
check_rc $rc 0 "get of a group with a bad value succeeds"
check_eq "$out" "-" "the bad value is unknown, not 0"
grep -q "warning: '/svc/web': memory.max, memory.stat did not parse" "$T_TMP/err" &&
	pass "get says which files did not parse" || fail "get's warning: $(cat "$T_TMP/err")"
out=$(mc get web 2> /dev/null)
echo "$out" | grep -q '^max .*(did not parse)' && pass "get lists it as not parsed" ||
	fail "get web: $out"
echo "$out" | grep -q '^high .*max' && pass "the group's other files are read" || fail "get web: $out"

cat > "$T_TMP/p.yaml" <<'YAML'
version: 1
parent: self
groups:
  web:
    high: 256M
YAML
mc plan "$T_TMP/p.yaml" > "$T_TMP/out" 2> "$T_TMP/err"
check_rc $? 0 "plan goes on"
grep -q "memory.max, memory.stat did not parse" "$T_TMP/err" && pass "plan says so" ||
	fail "plan's stderr: $(cat "$T_TMP/err")"
grep -q "memory.high" "$T_TMP/out" && pass "plan still plans high" || fail "plan: $(cat "$T_TMP/out")"
mc export --profile "$T_TMP/p.yaml" > "$T_TMP/out" 2> "$T_TMP/err"
check_rc $? 0 "export goes on"
grep -q "did not parse" "$T_TMP/err" && pass "export says so" || fail "export's stderr: $(cat "$T_TMP/err")"
summary
