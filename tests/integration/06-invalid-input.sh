# Invalid profiles and arguments: exit 2 with file:line:col, nothing
# created; a missing parent is a host problem (exit 3); usage errors exit 2.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg

T_TMP=$(mktemp -d)
cat > "$T_TMP/bad.yaml" <<YAML
version: 1
parent: self
groups:
  $T_PREFIX-ok:
    max: 100M
  $T_PREFIX-bad:
    max: 100M
    hihg: 50M
YAML
err=$(mc apply "$T_TMP/bad.yaml" 2>&1); rc=$?
check_rc $rc 2 "unknown key"
echo "$err" | grep -q "bad.yaml:8:5: .*hihg.*did you mean 'high'" && pass "file:line:col and suggestion" ||
	fail "message: $err"
[ -d "$T_DIR/$T_PREFIX-ok" ] && fail "the valid group was created anyway" || pass "nothing created"

cat > "$T_TMP/order.yaml" <<YAML
version: 1
parent: self
groups:
  $T_PREFIX-o:
    max: 100M
    soft_limit: 200M
YAML
err=$(mc apply "$T_TMP/order.yaml" 2>&1); rc=$?
check_rc $rc 2 "soft_limit above max"
echo "$err" | grep -q "order.yaml:6:" && pass "points at the line" || fail "message: $err"

printf 'version: 1\nparent: self\ngroups: [\n' > "$T_TMP/syntax.yaml"
err=$(mc check "$T_TMP/syntax.yaml" 2>&1); rc=$?
check_rc $rc 2 "YAML syntax error"
echo "$err" | grep -q "syntax.yaml:[0-9]*:[0-9]*:" && pass "syntax error has a position" || fail "message: $err"

err=$(mc check "$T_TMP/missing.yaml" 2>&1); rc=$?
check_rc $rc 2 "missing file"
echo "$err" | grep -q "missing.yaml" && pass "names the file" || fail "message: $err"

cat > "$T_TMP/noparent.yaml" <<YAML
version: 1
parent: self/$T_PREFIX-does-not-exist
groups:
  g:
    max: 10M
YAML
err=$(mc apply "$T_TMP/noparent.yaml" 2>&1); rc=$?
check_rc $rc 3 "parent that does not exist"
echo "$err" | grep -q "does-not-exist" && pass "names the parent" || fail "message: $err"

mc frobnicate >/dev/null 2>&1; check_rc $? 2 "unknown command"
err=$(mc s 2>&1); rc=$?
check_rc $rc 2 "ambiguous prefix"
echo "$err" | grep -q "could be: set status" && pass "lists the candidates" || fail "message: $err"
mc pl --help | grep -q "usage: memctl plan" && pass "unique prefix and --help" || fail "prefix help"
for c in check plan apply get set status rollback; do
	mc "$c" --help >/dev/null; check_rc $? 0 "$c --help"
done
mc --version | grep -q "^memctl [0-9]" && pass "--version" || fail "--version"
mc apply >/dev/null 2>&1; check_rc $? 2 "apply without a profile"
mc -o yaml status >/dev/null 2>&1; check_rc $? 2 "unknown output format"

# an option a command does not take; a bad -p is blamed on -p, not on GROUP
err=$(mc check --once "$T_TMP/noparent.yaml" 2>&1); rc=$?
check_rc $rc 2 "check --once"
echo "$err" | grep -q "check does not take option '--once' (an option of 'memctl run')" &&
	pass "names the option and who takes it" || fail "message: $err"
for c in "get g max" "set g max=1G" "top -b -n 1" "export" "status" "completion groups"; do
	err=$(mc -p self/.. $c 2>&1 > /dev/null); rc=$?
	check_rc $rc 2 "-p self/.. $c"
	echo "$err" | grep -q "invalid parent 'self/..' (-p, --parent)" &&
		! echo "$err" | grep -q "invalid group" && pass "$c: blames -p" || fail "$c: $err"
done
err=$(mc get ../g 2>&1); rc=$?
check_rc $rc 2 "GROUP ../g"
echo "$err" | grep -q "invalid group '../g': '.', '..' and empty parts are not group names" &&
	pass "blames the group" || fail "message: $err"
summary
