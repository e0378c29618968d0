# Units as targets on a host where systemd is not the service manager (this
# test host: PID 1 is not systemd, no /run/systemd/system): a profile naming
# units is valid, but plan and apply say "no systemd bus", naming the
# profile's line and the unit, exit 3, and change nothing, not even the
# profile's groups; a journal that holds a unit's property is kept by
# rollback with the same words (exit 4). Where systemd does run, the same
# profile's unknown unit must be "not found" (exit 2) instead.
. "$(dirname "$0")/lib.sh"
prereq_root
prereq_memcg

T_TMP=$(mktemp -d)
# run ARGS: memctl's output in $out (without the note that it waits for
# another test's lock on the same parent) and its status in $rc
run() {
	mc "$@" > "$T_TMP/out" 2>&1
	rc=$?
	out=$(grep -v "^memctl: waiting for " "$T_TMP/out")
}
cat > "$T_TMP/p.yaml" <<YAML
version: 1
parent: self
groups:
  $T_PREFIX-g:
    max: 64M
units:
  memctl-test-$$-absent.service: {protect: active}
  backup.service: {soft_limit: 0, max: 2G}
YAML

run check "$T_TMP/p.yaml"
check_rc $rc 0 "a profile naming units is valid"
check_eq "$out" "$T_TMP/p.yaml: ok (1 group, 2 units, parent self)" "check counts the units"

if [ -d /run/systemd/system ]; then
	run plan "$T_TMP/p.yaml"
	check_rc $rc 2 "systemd runs: an absent unit is the profile's problem"
	check_eq "$out" "memctl: $T_TMP/p.yaml:7:3: units.memctl-test-$$-absent.service: unit 'memctl-test-$$-absent.service' not found: no unit file (LoadState=not-found)" \
		"names the file, line, column and unit"
	summary
	exit
fi

want="memctl: $T_TMP/p.yaml:7:3: units.memctl-test-$$-absent.service: no systemd bus: systemd is not running on this host (no /run/systemd/system); units need systemd as the service manager, reached on the system bus"
run plan "$T_TMP/p.yaml"
check_rc $rc 3 "plan: no systemd bus is a host problem"
check_eq "$out" "$want" "plan says so, at the first unit's line"
run -o json plan "$T_TMP/p.yaml"
check_rc $rc 3 "plan -o json too"
check_eq "$out" "$want" "with the same words and no half plan on stdout"
run apply "$T_TMP/p.yaml"
check_rc $rc 3 "apply refuses"
check_eq "$out" "$want" "with the same words"
[ -e "$T_DIR/$T_PREFIX-g" ] && fail "the profile's group was created" ||
	pass "nothing half-applied: the profile's group was not created"
[ -e "$T_STATE/journal" ] && fail "a journal was left" || pass "no journal left"
# run does not wait for the subtree lock another test's memctl may hold on
# the same parent: it says so and skips the interval; try again then
for i in $(seq 1 50); do
	run run --once "$T_TMP/p.yaml"
	echo "$out" | grep -q "another memctl .* is changing groups" || break
	sleep 0.2
done
check_rc $rc 3 "run --once refuses too"
echo "$out" | grep -qF "no systemd bus" && pass "run says no systemd bus" || fail "run: $out"

# A journal holding a unit's property (an apply on a systemd host, then the
# state directory carried here, or systemd gone): kept, with the reason.
printf 'memctl-journal 2\npid 1\nparent %s\nunit MemoryMax max 2147483648 backup.service\nend\n' \
	"$T_SELF" > "$T_STATE/journal"
chmod 0600 "$T_STATE/journal"
run rollback
check_rc $rc 4 "rollback of a unit's property without systemd fails"
echo "$out" | grep -qF "cannot restore MemoryMax of 'backup.service': no systemd bus: systemd is not running on this host" &&
	pass "names the property, the unit and the cause" || fail "rollback said: $out"
[ -e "$T_STATE/journal" ] && pass "the journal is kept for a later rollback" || fail "journal removed"
rm -f "$T_STATE/journal"
summary
