# Units as targets through memctl's whole D-Bus path, on this host without
# systemd: a private dbus-daemon and tests/integration/fake-systemd.c in
# systemd's place (the test build's MEMCTL_TEST_SYSTEMD_BUS). apply sets each
# property with SetUnitProperties(runtime=true), typed "t", one call each,
# read back; a write refused in the middle and a kill after the first are
# put back through the same call (by the apply, by memctl rollback); not
# found, not loaded, a systemd without MemoryMin and a refused call are
# each named, with their exit status, and change nothing; with units whose
# cgroups the stand-in places below this test's own cgroup, the policies run
# on them: protect: active keeps a reading job's working set by capping its
# unprotected sibling's MemoryMax through the bus (v1), a second plan within
# the deadband calls nothing, and soft_limit, which has no unit property, is
# written in the unit's own cgroup; memctl run logs when the unit's cap
# converged, naming the unit and MemoryMax, as for a group. What the real
# systemd does with the values (cgroup files, daemon-reload) is tested in
# the systemd guest (tests/guest/systemd/50-units.sh).
. "$(dirname "$0")/lib.sh"
prereq_fake_systemd

T_TMP=$(mktemp -d)
bus_pid= fake_pid= ws_pid= run_pid=
stop_all() {
	[ -n "$run_pid" ] && kill "$run_pid" 2>/dev/null && wait "$run_pid" 2>/dev/null
	[ -n "$ws_pid" ] && kill "$ws_pid" 2>/dev/null && wait "$ws_pid" 2>/dev/null
	[ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null && wait "$fake_pid" 2>/dev/null
	private_bus_stop
	cleanup
}
trap stop_all EXIT
# start_bus, start_fake: the private bus and the stand-in on it (both again
# for the restart below; the address carries no guid, so that memctl can
# connect to a new daemon at the same path)
start_bus() { private_bus_start; }
start_fake() {
	FAKE_SYSTEMD_CGROOT=$T_MOUNT "$FAKE" "$MEMCTL_TEST_SYSTEMD_BUS" "$T_TMP/log" db.service \
		backup.service masked.service=masked old.service=old locked.service=refuse \
		"pg.service=loaded:${T_SELF%/}/$slice/pg.service" \
		"batch.service=loaded:${T_SELF%/}/$slice/batch.service" > "$T_TMP/ready" &
	fake_pid=$!
	line=
	read -r -t 60 line < "$T_TMP/ready"
}
mkfifo "$T_TMP/ready"
slice=$T_PREFIX.slice
mkparent "$slice" && mkdir "$T_DIR/$slice/pg.service" "$T_DIR/$slice/batch.service" ||
	{ echo "cannot make the units' groups"; exit 1; }
start_bus
start_fake
check_eq "$line" ready "the stand-in owns org.freedesktop.systemd1"
# prop UNIT PROPERTY: as the bus answers it
prop() {
	busctl --address="$MEMCTL_TEST_SYSTEMD_BUS" get-property org.freedesktop.systemd1 \
		"$(busctl --address="$MEMCTL_TEST_SYSTEMD_BUS" call org.freedesktop.systemd1 \
			/org/freedesktop/systemd1 org.freedesktop.systemd1.Manager GetUnit s "$1" |
			sed 's/^o "\(.*\)"$/\1/')" org.freedesktop.systemd1.Service "$2" | sed 's/^t //'
}
sets() { grep -c '^set ' "$T_TMP/log"; }
run() {
	mc "$@" > "$T_TMP/out" 2>&1
	rc=$?
	out=$(grep -v "^memctl: waiting for " "$T_TMP/out")
}
M=$((1024 * 1024))

cat > "$T_TMP/p.yaml" <<YAML
version: 1
parent: self
units:
  db.service: {low: 64M, high: 512M}
  backup.service: {max: 256M, swap_max: 32M}
YAML
run plan "$T_TMP/p.yaml"
check_rc $rc 0 "plan"
echo "$out" | grep -q "^  write *backup.service *MemoryMax *max -> 256M via systemd *# profile: max 256M$" &&
	pass "plan: MemoryMax via systemd" || fail "plan: $out"
check_eq "$(sets)" 0 "plan sets nothing"
run apply "$T_TMP/p.yaml"
check_rc $rc 0 "apply"
check_eq "$(grep '^set ' "$T_TMP/log" | sort | tr '\n' ' ')" \
	"set backup.service MemoryMax $((256 * M)) set backup.service MemorySwapMax $((32 * M)) set db.service MemoryHigh $((512 * M)) set db.service MemoryLow $((64 * M)) " \
	"one SetUnitProperties per property, runtime, typed t (the stand-in refuses others)"
check_eq "$(prop backup.service MemoryMax)" $((256 * M)) "the bus has MemoryMax"
echo "$out" | grep -q "^backup.service: MemoryMax max -> 256M via systemd$" &&
	pass "apply says what it set" || fail "apply: $out"
run plan "$T_TMP/p.yaml"
echo "$out" | head -n1 | grep -q ": 0 changes$" && pass "planning again: nothing to change" ||
	fail "plan again: $out"

# A refused second write: the first is put back through the bus.
sed -i -e 's/max: 256M/max: 128M/' -e 's/low: 64M/low: 32M/' "$T_TMP/p.yaml"
n=$(sets)
MEMCTL_FAIL_WRITE=2:EPERM run apply "$T_TMP/p.yaml"
check_rc $rc 1 "second property refused: rolled back"
echo "$out" | grep -q "cannot set MemoryMax of unit 'backup.service' through systemd" &&
	pass "names the unit and the property" || fail "message: $out"
check_eq "$(prop db.service MemoryLow)" $((64 * M)) "MemoryLow put back through the bus"
check_eq "$(($(sets) - n))" 2 "two calls: the change and its undo"

# Stopped after the first property, killed: memctl rollback restores it.
MEMCTL_STOP_AFTER_WRITE=1 "$MEMCTL" apply "$T_TMP/p.yaml" > /dev/null 2>&1 &
pid=$!
wait_stopped $pid || fail "apply did not stop"
grep -q "^unit MemoryLow $((64 * M)) $((32 * M)) db.service$" "$T_STATE/journal" &&
	pass "the journal records the unit's old and new value" || fail "journal: $(cat "$T_STATE/journal")"
kill -9 $pid; wait $pid 2>/dev/null
check_eq "$(prop db.service MemoryLow)" $((32 * M)) "the first property was set"
run rollback
check_rc $rc 0 "rollback"
check_eq "$(prop db.service MemoryLow)" $((64 * M)) "rollback restored MemoryLow through the bus"
[ -e "$T_STATE/journal" ] && fail "journal left" || pass "journal removed"

# Errors: each names the unit (and the property), at the unit's line.
unit_profile() { printf 'version: 1\nparent: self\nunits:\n  %s: {%s}\n' "$1" "$2" > "$T_TMP/u.yaml"; }
unit_profile absent.service "max: 1G"
run apply "$T_TMP/u.yaml"
check_rc $rc 2 "unit not found"
check_eq "$out" "memctl: $T_TMP/u.yaml:4:3: units.absent.service: unit 'absent.service' not found: no unit file (LoadState=not-found)" "not found: the message"
unit_profile masked.service "max: 1G"
run apply "$T_TMP/u.yaml"
check_rc $rc 3 "unit not loaded"
check_eq "$out" "memctl: $T_TMP/u.yaml:4:3: units.masked.service: unit 'masked.service' is not loaded: LoadState=masked" "not loaded: the message"
unit_profile old.service "min: 16M, max: 1G"
n=$(sets)
run apply "$T_TMP/u.yaml"
check_rc $rc 3 "systemd too old for MemoryMin"
check_eq "$out" "memctl: $T_TMP/u.yaml:4:3: units.old.service: systemd is too old for MemoryMin of unit 'old.service': this systemd has no such unit property" "too old: the message"
check_eq "$(sets)" "$n" "too old: nothing set, not even max"
unit_profile locked.service "max: 1G"
run apply "$T_TMP/u.yaml"
check_rc $rc 3 "refused: nothing was changed"
echo "$out" | grep -qF "cannot set MemoryMax of unit 'locked.service' through systemd: systemd refused MemoryMax of unit 'locked.service': Access denied" &&
	pass "refused: systemd's words, the unit and the property" || fail "refused: $out"
echo "$out" | grep -q "nothing was changed" && pass "refused: says nothing was changed" || fail "$out"

# The policies on running units, in the groups the stand-in names as theirs.
WL=${MEMCTL_WORKLOADS:-$MEMCTL_BUILD_DIR/tests/workloads}
disk=$(disk_tmpdir) || { echo "no disk directory"; exit 1; }
if [ "$T_VERSION" = 1 ]; then
	echo $((256 * M)) > "$T_DIR/$slice/memory.limit_in_bytes"
else
	echo $((256 * M)) > "$T_DIR/$slice/memory.max"
fi
"$WL/mkfile" "$disk/ws.dat" $((32 * M)) > /dev/null
sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" "$3" 0' _ "$T_DIR/$slice/pg.service" \
	"$WL/ws-reader" "$disk/ws.dat" &
ws_pid=$!
active() { awk '$1 == "total_active_file" || ($1 == "active_file" && v == "") {v = $2} END {print v + 0}' \
	"$T_DIR/$slice/pg.service/memory.stat"; }
for i in $(seq 1 600); do [ "$(active)" -ge $((24 * M)) ] && break; sleep 0.05; done
[ "$(active)" -ge $((24 * M)) ] && pass "the reader's pages are active" || fail "active: $(active)"
cat > "$T_TMP/ws.yaml" <<YAML
version: 1
parent: self
units:
  pg.service: {protect: active}
  batch.service: {soft_limit: 0}
YAML
mc -o json plan "$T_TMP/ws.yaml" > "$T_TMP/ws.json" 2> /dev/null
check_eq "$(jq -r '.steps[] | select(.knob == "soft_limit") | "\(.action) \(.group) \(.cgroup)"' "$T_TMP/ws.json")" \
	"write batch.service ${T_SELF%/}/$slice/batch.service" "plan -o json: the soft limit's step names the unit's cgroup"
n=$(sets)
run apply "$T_TMP/ws.yaml"
check_rc $rc 0 "apply with the policies on units"
echo "# $out"
if [ "$T_VERSION" = 1 ]; then
	cap=$(sed -n 's/^set batch.service MemoryMax //p' "$T_TMP/log" | tail -n1)
	[ -n "$cap" ] && [ "$cap" -lt $((224 * M)) ] && [ "$cap" -gt $((128 * M)) ] &&
		pass "active-set: batch.service capped at $cap through the bus, room for pg's working set" ||
		fail "active-set cap: '$cap' ($(cat "$T_TMP/log" | tr '\n' ' '))"
	echo "$out" | grep -q "^batch.service: MemoryMax max -> .* via systemd$" &&
		pass "apply says the cap went via systemd" || fail "apply: $out"
	check_eq "$(cat "$T_DIR/$slice/batch.service/memory.soft_limit_in_bytes")" 0 \
		"soft_limit written in the unit's own cgroup"
else
	low=$(sed -n 's/^set pg.service MemoryLow //p' "$T_TMP/log" | tail -n1)
	[ -n "$low" ] && [ "$low" -gt $((16 * M)) ] &&
		pass "active-set: pg.service's MemoryLow $low through the bus" || fail "MemoryLow: '$low'"
fi
n=$(sets)
run plan "$T_TMP/ws.yaml"
echo "$out" | head -n1 | grep -q ": 0 changes$" &&
	pass "a plan right after: within the deadband, nothing for systemd" || fail "plan: $out"
# memctl run from an uncapped batch.service: once the cap stops moving, run
# says so for the unit, naming it and the property, as for a group's file.
if [ "$T_VERSION" = 1 ]; then
	busctl --address="$MEMCTL_TEST_SYSTEMD_BUS" call org.freedesktop.systemd1 \
		/org/freedesktop/systemd1 org.freedesktop.systemd1.Manager SetUnitProperties \
		'sba(sv)' batch.service true 1 MemoryMax t 18446744073709551615
	sed 's/^parent: self$/parent: self\ninterval: 1s/' "$T_TMP/ws.yaml" > "$T_TMP/ws-run.yaml"
	"$MEMCTL" run "$T_TMP/ws-run.yaml" > "$T_TMP/conv.log" 2>&1 &
	run_pid=$!
	for i in $(seq 1 300); do grep -q ' converged after ' "$T_TMP/conv.log" && break; sleep 0.1; done
	kill "$run_pid"; wait "$run_pid" 2>/dev/null; run_pid=
	grep -q "batch.service: MemoryMax converged after [0-9]* intervals\? at .* (active-set)" \
		"$T_TMP/conv.log" && pass "run: the unit's MemoryMax converged, logged as a group's" &&
		echo "# $(grep ' converged after ' "$T_TMP/conv.log")" ||
		fail "run: $(cat "$T_TMP/conv.log")"
fi
kill "$ws_pid"; wait "$ws_pid" 2>/dev/null; ws_pid=

# memctl run across a restart of the bus, as after systemd's daemon-reexec:
# the connection it kept is closed, and it connects again.
printf 'version: 1\nparent: self\ninterval: 1s\nunits:\n  backup.service: {max: 96M}\n' > "$T_TMP/r.yaml"
# sets_of N: waits (30 s at most) until the stand-ins have set backup's MemoryMax 96M N times
sets_of() {
	local i
	for i in $(seq 1 300); do
		[ "$(grep -c "^set backup.service MemoryMax $((96 * M))$" "$T_TMP/log")" -ge "$1" ] && return 0
		sleep 0.1
	done
	return 1
}
n=$(grep -c "^set backup.service MemoryMax $((96 * M))$" "$T_TMP/log")
"$MEMCTL" run "$T_TMP/r.yaml" > "$T_TMP/run.log" 2>&1 &
run_pid=$!
sets_of $((n + 1)) && pass "run sets MemoryMax through the bus" || fail "run: $(cat "$T_TMP/run.log")"
kill "$fake_pid"; wait "$fake_pid" 2>/dev/null
private_bus_stop
start_bus
start_fake
check_eq "$line" ready "a new bus, a new stand-in (its MemoryMax back to infinity)"
sets_of $((n + 2)) && pass "run connected again and set it again" ||
	fail "run after the restart: $(cat "$T_TMP/run.log")"
kill "$run_pid"; wait "$run_pid" 2>/dev/null; run_pid=

# No systemd answering on the bus: "no systemd bus".
kill "$fake_pid"; wait "$fake_pid" 2>/dev/null; fake_pid=
unit_profile db.service "max: 1G"
run plan "$T_TMP/u.yaml"
check_rc $rc 3 "nothing owns org.freedesktop.systemd1"
echo "$out" | grep -q "units.db.service: no systemd bus: " && pass "no systemd bus: $out" || fail "$out"
summary
