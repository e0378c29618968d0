# memctl status and systemd's single-writer rule, on real groups: groups
# named like systemd units below our own cgroup, with the delegation markers
# systemd sets for Delegate=yes (trusted.delegate / user.delegate) written
# by this test on its own groups.
#
# On this hybrid host memory is on cgroup v1, and systemd keeps its units'
# markers in its own hierarchy (the cgroup2 mount, or name=systemd): memctl
# looks at the unit's directory in the memory hierarchy first, then there.
# Our groups exist only in the memory hierarchy, so the markers set here are
# found in the first place, and the test checks that the other places were
# looked at too (they answer "No such file or directory").
. "$(dirname "$0")/lib.sh"
prereq_root
command -v python3 > /dev/null || skip "needs python3 to set extended attributes and read JSON"
prereq_memcg

T_TMP=$(mktemp -d)
base=${T_SELF%/}/$T_PREFIX
dir=$T_DIR/$T_PREFIX
mkdir -p "$dir/demo.slice/app.service/work/inner.scope" "$dir/demo.slice/db.service" \
	"$dir/plain/x.servicefoo"

setx() { python3 -c 'import os,sys; os.setxattr(sys.argv[1], sys.argv[2], sys.argv[3].encode())' "$@"; }
# owner of parent $1 (from -o json), stderr in $T_TMP/err
owner() {
	mc -p "$1" -o json status 2> "$T_TMP/err" > "$T_TMP/json" || { echo "exit $?"; return; }
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["systemd"]; print(d["owner"], d["unit"], d["warning"])' "$T_TMP/json"
}
field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["systemd"][sys.argv[2]])' "$T_TMP/json" "$1"; }

setx "$dir" trusted.probe 1 2>/dev/null || skip "cannot set xattrs on this memory hierarchy ($T_DIR)"

check_eq "$(owner "$base")" "foreign None False" "a group outside any unit is foreign"
check_eq "$(cat "$T_TMP/err")" "" "no warning for it"
check_eq "$(owner "$base/plain/x.servicefoo")" "foreign None False" "x.servicefoo is not a unit name"

check_eq "$(owner "$base/demo.slice")" "undelegated demo.slice True" "a slice is systemd's"
grep -q "warning: systemd writes '$base/demo.slice' (demo.slice)" "$T_TMP/err" &&
	pass "warning on stderr names the parent and the unit" || fail "warning on stderr: $(cat "$T_TMP/err")"
check_eq "$(owner "$base/demo.slice/app.service")" "undelegated app.service True" \
	"a service without the marker is systemd's"
check_eq "$(owner "$base/demo.slice/app.service/work")" "undelegated app.service True" \
	"below an undelegated service is still systemd's"
check_eq "$(field unit_cgroup)" "$base/demo.slice/app.service" "unit cgroup is the service's"

# text output carries the same verdict and warns
mc -p "$base/demo.slice/app.service" status > "$T_TMP/text" 2> "$T_TMP/err"
check_rc $? 0 "status still succeeds with a warning"
grep -q "^systemd .*warning: the parent is in app.service, which systemd manages without delegation" \
	"$T_TMP/text" && pass "text output warns" || fail "text output: $(grep ^systemd "$T_TMP/text")"

if [ "$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)" != "" ] && [ "$T_VERSION" = 1 ]; then
	u=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
	owner "$base/demo.slice/app.service" > /dev/null
	case $(field probed) in
	*"$u$base/demo.slice/app.service: No such file or directory"*) pass "systemd's cgroup2 hierarchy probed too" ;;
	*) fail "cgroup2 hierarchy not probed: $(field probed)" ;;
	esac
fi

# Delegate=yes, as systemd marks it
setx "$dir/demo.slice/app.service" trusted.delegate 1
check_eq "$(owner "$base/demo.slice/app.service")" "delegated app.service False" "trusted.delegate=1: delegated"
check_eq "$(field marker)" "$T_DIR/$T_PREFIX/demo.slice/app.service: trusted.delegate" "marker names where it was found"
check_eq "$(cat "$T_TMP/err")" "" "no warning for a delegated unit"
check_eq "$(owner "$base/demo.slice/app.service/work")" "delegated app.service False" \
	"a group below a delegated unit is the delegatee's"
# the deepest unit decides: a scope inside the delegated subtree, unmarked
check_eq "$(owner "$base/demo.slice/app.service/work/inner.scope")" "undelegated inner.scope True" \
	"an unmarked unit below a delegated one is its manager's"
check_eq "$(owner "$base/demo.slice")" "undelegated demo.slice True" "the slice above stays systemd's"

# user.delegate (readable without CAP_SYS_ADMIN) counts too; its value is honoured
setx "$dir/demo.slice/db.service" user.delegate 0
check_eq "$(owner "$base/demo.slice/db.service")" "undelegated db.service True" "user.delegate=0: not delegated"
setx "$dir/demo.slice/db.service" user.delegate yes
check_eq "$(owner "$base/demo.slice/db.service")" "delegated db.service False" "user.delegate=yes: delegated"
check_eq "$(field marker)" "$T_DIR/$T_PREFIX/demo.slice/db.service: user.delegate" "user.delegate named"

# a unit-named parent that does not exist anywhere: cannot tell, and says why
check_eq "$(owner "$base/demo.slice/gone.service")" "unknown gone.service False" "missing unit: unknown"
case $(field probed) in
*"gone.service: No such file or directory"*) pass "unknown says what was probed" ;;
*) fail "probed: $(field probed)" ;;
esac

# --profile takes the profile's parent
cat > "$T_TMP/p.yaml" <<YAML
version: 1
parent: $base/demo.slice
groups:
  web:
    max: 64M
YAML
mc --profile "$T_TMP/p.yaml" -o json status > "$T_TMP/json" 2> "$T_TMP/err"
check_rc $? 0 "status --profile"
check_eq "$(field owner)" undelegated "status --profile checks the profile's parent"

summary
