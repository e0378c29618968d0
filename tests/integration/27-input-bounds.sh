# Bounds and meanings of what the operator writes:
#  - the CPU cost of check and import on generated worst cases within the
#    size limits (a long scalar behind 20 000 aliases, 200 000 groups below
#    one parent, a block of a million keys) stays under a bound (2 s for
#    the release build; sanitizer builds run several times slower, so 10 s);
#  - cgsnapshot's dump of real groups (no limit = 9223372036854771712)
#    imports and applies, giving the same limits;
#  - "max: 5" (a size below a page), a group path longer than a cgroup path
#    may be, and an empty GROUP argument are refused (exit 2) naming the
#    place, before anything is changed.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg
command -v cgsnapshot >/dev/null || skip "cgsnapshot (cgroup-tools) is not installed"
command -v python3 >/dev/null || skip "python3 is needed to generate the worst cases"
T_TMP=$(mktemp -d)

bound=2
"$MEMCTL" --version | grep -q sanitizers && bound=10
cpu() { # FILE CMD...: runs CMD, appends "user+sys" seconds to FILE
	local f=$1; shift
	/usr/bin/time -f '%U %S' -o "$f" "$@" >/dev/null 2>&1
}
python3 - "$T_TMP" <<'PY'
import sys
out = sys.argv[1]
head = "version: 1\nparent: self\n"
big = "0" * 400000 + "1G"
def w(name, s, limit):
    assert len(s) <= limit, (name, len(s))
    open(f"{out}/{name}", "w").write(s)
P, C = 1 << 20, 16 << 20
w("alias-value.yaml", head + "x-a: &a " + big + "\ngroups:\n" +
  "".join(f"  g{i}: {{max: *a}}\n" for i in range(20000)), P)
w("alias-protect.yaml", head + "x-a: &a " + big + "\ngroups:\n" +
  "".join(f"  g{i}: {{protect: *a}}\n" for i in range(20000)), P)
w("alias-name.yaml", head + "x-a: &a " + "a" * 400000 + "\ngroups:\n" +
  "".join("  *a : {}\n" for i in range(20000)), P)
w("long-parent.yaml", head + "groups:\n  ? " + "b" * 400000 + "\n  : groups:\n" +
  "".join(f"      c{i}: {{}}\n" for i in range(20000)), P)
w("flat.yaml", head + "groups:\n" + "".join(f"  g{i}: {{max: 1G}}\n" for i in range(24000)), P)
w("flat.conf", "".join(f"group g{i}{{memory{{memory.limit_in_bytes=1M;}}}}\n"
                       for i in range(200000)), C)
w("keys.conf", "group g{memory{" + "".join(f"k{i}=1;" for i in range(1500000)) + "}}\n", C)
w("perm.conf", "group g{perm{task{" + "".join(f"k{i}=1;" for i in range(1500000)) +
  "}}memory{}}\n", C)
w("deep.conf", "".join("group " + "/".join(f"d{j}" for j in range(30)) +
                       f"/g{i}{{memory{{}}}}\n" for i in range(60000)), C)
PY
for f in alias-value alias-protect alias-name long-parent flat; do
	cpu "$T_TMP/t" "$MEMCTL" --insecure-profile check "$T_TMP/$f.yaml"
	s=$(tail -n1 "$T_TMP/t" | awk '{print $1 + $2}')
	awk -v s="$s" -v b=$bound 'BEGIN { exit !(s <= b) }' &&
		pass "check $f.yaml: $s s of CPU (bound $bound s)" ||
		fail "check $f.yaml: $s s of CPU, more than $bound s"
done
for f in flat keys perm deep; do
	cpu "$T_TMP/t" "$MEMCTL" import "$T_TMP/$f.conf"
	s=$(tail -n1 "$T_TMP/t" | awk '{print $1 + $2}')
	awk -v s="$s" -v b=$bound 'BEGIN { exit !(s <= b) }' &&
		pass "import $f.conf: $s s of CPU (bound $bound s)" ||
		fail "import $f.conf: $s s of CPU, more than $bound s"
done
err=$("$MEMCTL" --insecure-profile check "$T_TMP/alias-value.yaml" 2>&1)
echo "$err" | grep -q "alias expansion exceeds 16 MiB of text" && pass "says why" || fail "message: $err"
err=$("$MEMCTL" import "$T_TMP/flat.conf" 2>&1 >/dev/null)
echo "$err" | grep -Eq "more than the 1048576 a profile may have|more than 100000 YAML nodes" &&
	pass "import of 200 000 groups refused for its size" || fail "import flat: $err"

# --- cgsnapshot of real groups imports and applies with the same limits ---
A=$T_PREFIX-a B=$T_PREFIX-b
mkparent "$A" && mkdir "$T_DIR/$A/lim" "$T_DIR/$A/free" || fail "cannot create groups"
echo 64M > "$T_DIR/$A/lim/memory.limit_in_bytes"
echo 32M > "$T_DIR/$A/lim/memory.soft_limit_in_bytes"
touch "$T_TMP/blacklist"
cgsnapshot -b "$T_TMP/blacklist" -s memory > "$T_TMP/snap.conf" 2>/dev/null
grep -q "^group ${T_SELF#/}/$A/lim " "$T_TMP/snap.conf" || grep -q "^group ${T_SELF#/}/$A/lim {" "$T_TMP/snap.conf" ||
	fail "cgsnapshot did not list our group"
grep -q 9223372036854771712 "$T_TMP/snap.conf" && pass "cgsnapshot writes no limit as 9223372036854771712" ||
	pass "cgsnapshot wrote no 9223372036854771712 (page size $(getconf PAGESIZE))"
# our groups' sections, renamed to new groups below our own cgroup
awk -v pre="group ${T_SELF#/}/$A" -v new="group $B" '
	index($0, pre) == 1 { keep = 1; sub(pre, new) }
	/^group / && index($0, new) != 1 { keep = 0 }
	keep' "$T_TMP/snap.conf" > "$T_TMP/ours.conf"
"$MEMCTL" -p self import "$T_TMP/ours.conf" "$T_TMP/ours.yaml" 2>"$T_TMP/import.err"; rc=$?
[ $rc -eq 0 ] || [ $rc -eq 5 ] && pass "cgsnapshot output imports (exit $rc)" ||
	fail "import of cgsnapshot output (exit $rc): $(head -3 "$T_TMP/import.err")"
grep -q "9007199254740988K\|9223372036854771712" "$T_TMP/ours.yaml" &&
	fail "the kernel's no-limit value is in the profile as a size" || pass "no limit became max"
mc -q apply "$T_TMP/ours.yaml" 2>"$T_TMP/apply.err"
check_rc $? 0 "the imported profile applies: $(head -2 "$T_TMP/apply.err")"
check_eq "$(kval "$B/lim" memory.limit_in_bytes)" $((64 << 20)) "limit carried over"
check_eq "$(kval "$B/lim" memory.soft_limit_in_bytes)" $((32 << 20)) "soft limit carried over"
check_eq "$(kval "$B/free" memory.limit_in_bytes)" "$(kval "$A/free" memory.limit_in_bytes)" \
	"no limit stays no limit"
out=$(mc plan "$T_TMP/ours.yaml" 2>&1)
echo "$out" | grep -q ": 0 changes\|nothing to change" && pass "a second plan is empty" ||
	fail "plan after apply: $out"
# the whole host's dump: imports, or is refused for its size alone, never half
"$MEMCTL" import "$T_TMP/snap.conf" "$T_TMP/host.yaml" 2>"$T_TMP/host.err"; rc=$?
if [ $rc -eq 0 ] || [ $rc -eq 5 ]; then
	"$MEMCTL" check "$T_TMP/host.yaml" >/dev/null; check_rc $? 0 "the host's whole dump imports and checks"
else
	grep -q "more than 20000 items cannot be converted\|a profile may have" "$T_TMP/host.err" &&
		pass "the host's whole dump ($(grep -c '^group' "$T_TMP/snap.conf") groups) is refused for its size" ||
		fail "the host's whole dump: $(head -3 "$T_TMP/host.err")"
fi

# --- what is refused at check time ---
printf 'version: 1\nparent: self\ngroups:\n  %s-c:\n    max: 5\n' "$T_PREFIX" > "$T_TMP/page.yaml"
err=$(mc check "$T_TMP/page.yaml" 2>&1); rc=$?
check_rc $rc 2 "max: 5 refused"
echo "$err" | grep -q "page.yaml:5:10: groups.$T_PREFIX-c.max: size '5' is below one page" &&
	pass "names file:line:col" || fail "message: $err"
long=$(printf '%0250d' 0)
{
	printf 'version: 1\nparent: /%s\ngroups:\n' "$long"
	for i in $(seq 0 13); do printf '%*s%s%d:\n%*sgroups:\n' $((2 + 4 * i)) "" "$long" "$i" $((4 + 4 * i)) ""; done
	printf '%*sleaf: {}\n' $((2 + 4 * 14)) ""
} > "$T_TMP/long.yaml"
err=$(mc check "$T_TMP/long.yaml" 2>&1); rc=$?
check_rc $rc 2 "a group path longer than 3584 bytes refused by check"
echo "$err" | grep -q "cgroup path is .* bytes long" && pass "names the group" || fail "message: $err"
# with parent: self the length is known at plan time, still before any change
# names until the path below self is just short enough for check, too long with self
names=("$T_PREFIX-s") rel=$((1 + ${#T_PREFIX} + 2))
while [ $((rel + 251)) -le 3584 ]; do names+=("${long:0:250}"); rel=$((rel + 251)); done
last=$((3584 - rel - 1)); [ $last -ge 1 ] || last=1
names+=("$(printf '%0*d' $last 7)")
{
	printf 'version: 1\nparent: self\ngroups:\n'
	for i in "${!names[@]}"; do
		if [ $i -lt $((${#names[@]} - 1)) ]; then
			printf '%*s%s:\n%*sgroups:\n' $((2 + 4 * i)) "" "${names[$i]}" $((4 + 4 * i)) ""
		else
			printf '%*s%s: {}\n' $((2 + 4 * i)) "" "${names[$i]}"
		fi
	done
} > "$T_TMP/self.yaml"
mc check "$T_TMP/self.yaml" >/dev/null 2>&1
check_rc $? 0 "3584 bytes below self pass check (self's length is not known there)"
err=$(mc apply "$T_TMP/self.yaml" 2>&1); rc=$?
check_rc $rc 2 "a group path too long below self refused by apply"
echo "$err" | grep -q "cgroup path is .* bytes long" && pass "names the group, not the journal" || fail "message: $err"
before=$(cat "$T_DIR/memory.limit_in_bytes")
err=$(mc set "" max=8M 2>&1); rc=$?
check_rc $rc 2 "set with an empty GROUP refused"
echo "$err" | grep -q "invalid group '': it is empty" && pass "says the GROUP is empty" || fail "message: $err"
check_eq "$(cat "$T_DIR/memory.limit_in_bytes")" "$before" "the parent is untouched"
mc get "" >/dev/null 2>&1; check_rc $? 2 "get with an empty GROUP refused"
summary
