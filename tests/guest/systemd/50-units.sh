# Units as targets on a booted systemd: a profile's units: are set through
# systemd's D-Bus API.  apply sets MemoryMax/MemoryHigh/MemoryLow/
# MemorySwapMax of two services that have unit files (as postgresql.service
# has); systemctl show and the units' cgroup files agree; systemd keeps them
# as runtime drop-ins, across daemon-reload; soft_limit, which has no unit
# property, is written in the unit's cgroup on the patched kernel (which
# has memory.soft_limit) and skipped with the reason on the baseline; a write refused in
# the middle (the test build's MEMCTL_FAIL_WRITE) and a kill -9 after the
# first property (MEMCTL_STOP_AFTER_WRITE, then memctl rollback) put the
# previous values back through systemd; the errors a unit can meet (not
# found, masked, refused to an unprivileged caller) name the unit and the
# property with their documented exit status; run's active-set protection
# sets a running unit's MemoryLow from its measured working set, a plan
# right after does not call systemd again for a few KB, and memctl run logs
# when the unit's MemoryLow converged ("UNIT: MemoryLow converged after N
# intervals at VALUE (active-set)"), as it does for a group's file.
T=units
. ./lib.sh
work=$(mktemp -d)
# on the root file system: page cache (not tmpfs), seen by the units too (no private /tmp)
disk=$(mktemp -d /var/lib/memctl-units.XXXXXX)
db=memctl-t-db.service bk=memctl-t-backup.service
cleanup() {
	systemctl stop "$db" "$bk" 2>/dev/null
	systemctl unmask memctl-t-masked.service 2>/dev/null
	rm -rf "/run/systemd/system/$db" "/run/systemd/system/$bk" /run/systemd/system.control/memctl-t-*
	systemctl daemon-reload
	systemctl reset-failed 2>/dev/null
	rm -rf "$work" "$disk"
}
# service NAME COMMAND...: a service of a runtime unit file, started (a
# unit file rather than systemd-run: systemd keeps the runtime properties
# of a transient unit in its transient file, of any other in system.control)
service() {
	local n=$1; shift
	printf '[Service]\nExecStart=%s\nMemoryAccounting=yes\n' "$*" > "/run/systemd/system/$n"
	systemctl daemon-reload && systemctl start "$n"
}
trap cleanup EXIT
# memctl with this test's own state directory (memctl.service's is /run/memctl)
mc() { memctl -s "$work/state" "$@"; }
no_low_step() { ! grep -q MemoryLow <<< "$1"; }
# val UNIT PROPERTY FILE: "PROPERTY-value FILE-value" (systemd's and the kernel's)
val() { echo "$(prop "$1" "$2") $(cat "$CG$(cgroup_of "$1")/$3")"; }
M=$((1024 * 1024))

service "$db" /usr/bin/sleep 3600
service "$bk" /usr/bin/sleep 3600
check "two services run" systemctl is-active -q "$db" "$bk"

cat > "$work/p.yaml" <<YAML
version: 1
parent: self
units:
  $db: {low: 64M, high: 511M, thp: true}
  $bk: {max: 256M, swap_max: 32M, soft_limit: 0}
YAML
mc plan "$work/p.yaml" > "$work/plan" 2>&1; rc=$?
cat "$work/plan"
check "plan succeeds" test "$rc" = 0
check "plan: backup's MemoryMax via systemd" \
	grep -q "^  write *$bk *MemoryMax *max -> 256M via systemd" "$work/plan"
check "plan: db's MemoryLow via systemd" grep -q "$db *MemoryLow *0 -> 64M via systemd" "$work/plan"
if patched; then
	check "plan: soft_limit written in the unit's cgroup, as systemd has no property for it" \
		grep -q "^  write *$bk *memory.soft_limit *max -> 0 .*no unit property; systemd does not write memory.soft_limit" "$work/plan"
else
	check "plan: soft_limit is a skip with the reason" grep -q "^  skip *$bk .*soft_limit" "$work/plan"
fi
mc plan -o json "$work/p.yaml" > "$work/plan.json"
check "plan -o json marks the steps via systemd" \
	test "$(jq '[.steps[] | select(.via == "systemd")] | length' "$work/plan.json")" = 4

mc apply "$work/p.yaml" > "$work/apply" 2>&1; rc=$?
cat "$work/apply"
check "apply succeeds" test "$rc" = 0
check "MemoryMax: systemctl show and memory.max agree" \
	test "$(val "$bk" MemoryMax memory.max)" = "$((256 * M)) $((256 * M))"
check "MemorySwapMax and memory.swap.max" \
	test "$(val "$bk" MemorySwapMax memory.swap.max)" = "$((32 * M)) $((32 * M))"
check "MemoryLow and memory.low" test "$(val "$db" MemoryLow memory.low)" = "$((64 * M)) $((64 * M))"
high=$(prop "$db" MemoryHigh)
say "thp: true, high 511M: MemoryHigh $high"
check "THP-aware high: MemoryHigh on a 2M boundary, just below 511M" \
	test $((high % (2 * M))) = 0 -a "$high" -le $((511 * M)) -a "$high" -ge $((500 * M))
check "MemoryHigh and memory.high agree" test "$(val "$db" MemoryHigh memory.high)" = "$high $high"
patched && check "memory.soft_limit of backup's cgroup is 0" \
	test "$(cat "$CG$(cgroup_of "$bk")/memory.soft_limit")" = 0
check "runtime: systemd's drop-in below /run/systemd/system.control says MemoryMax" \
	grep -qx "MemoryMax=$((256 * M))" "/run/systemd/system.control/$bk.d/50-MemoryMax.conf"
check "nothing persistent below /etc/systemd/system.control" test ! -e "/etc/systemd/system.control/$bk.d"
systemctl daemon-reload
check "daemon-reload keeps them (systemd's value)" test "$(prop "$bk" MemoryMax)" = $((256 * M))
check "daemon-reload keeps them (the kernel's)" \
	test "$(cat "$CG$(cgroup_of "$bk")/memory.max")" = $((256 * M))
out=$(mc plan "$work/p.yaml" 2>&1)
check "planning again changes nothing" test "$(echo "$out" | head -n1)" = \
	"plan for /system.slice/memctl-guest.service: 0 changes"

# A write refused in the middle: what was set is put back through systemd.
sed -i -e 's/max: 256M/max: 128M/' -e 's/low: 64M/low: 32M/' "$work/p.yaml"
out=$(MEMCTL_FAIL_WRITE=2:EPERM mc apply "$work/p.yaml" 2>&1); rc=$?
say "$out"
check "second property refused: exit 1 (rolled back)" test "$rc" = 1
check "the message names the unit and the property" \
	grep -q "cannot set Memory[A-Za-z]* of unit 'memctl-t-[a-z]*.service' through systemd" <<< "$out"
check "rolled back: MemoryLow is 64M again" test "$(prop "$db" MemoryLow)" = $((64 * M))
check "rolled back: MemoryMax is 256M again" test "$(prop "$bk" MemoryMax)" = $((256 * M))
check "and the kernel's files too (memory.max)" test "$(val "$bk" MemoryMax memory.max)" = "$((256 * M)) $((256 * M))"
check "and the kernel's files too (memory.low)" test "$(val "$db" MemoryLow memory.low)" = "$((64 * M)) $((64 * M))"

# Killed after the first property: memctl rollback restores it through systemd.
MEMCTL_STOP_AFTER_WRITE=1 memctl -s "$work/state" apply "$work/p.yaml" > /dev/null 2>&1 &
pid=$!
check "apply stops after the first property" wait_until 20 grep -q '^State:.*T' /proc/$pid/status
check "the journal holds unit records" grep -q "^unit Memory" "$work/state/journal"
kill -9 $pid; wait $pid 2>/dev/null
changed=$(prop "$db" MemoryLow)$(prop "$bk" MemoryMax)
check "one property was changed before the kill" test "$changed" != "$((64 * M))$((256 * M))"
out=$(mc rollback 2>&1); rc=$?
say "$out"
check "rollback succeeds" test "$rc" = 0
check "rollback says one change undone" grep -q "1 change undone" <<< "$out"
check "restored: MemoryLow 64M, MemoryMax 256M" \
	test "$(prop "$db" MemoryLow)$(prop "$bk" MemoryMax)" = "$((64 * M))$((256 * M))"

# Errors.
printf 'version: 1\nparent: self\nunits:\n  memctl-t-absent.service: {max: 1G}\n' > "$work/absent.yaml"
out=$(mc plan "$work/absent.yaml" 2>&1); rc=$?
say "$out"
check "unit not found: exit 2" test "$rc" = 2
check "unit not found: named, at its line" test "$out" = \
	"memctl: $work/absent.yaml:4:3: units.memctl-t-absent.service: unit 'memctl-t-absent.service' not found: no unit file (LoadState=not-found)"
systemctl mask memctl-t-masked.service 2>/dev/null
printf 'version: 1\nparent: self\nunits:\n  memctl-t-masked.service: {max: 1G}\n' > "$work/masked.yaml"
out=$(mc plan "$work/masked.yaml" 2>&1); rc=$?
say "$out"
check "unit not loaded (masked): exit 3" test "$rc" = 3
check "unit not loaded: named with its state" grep -q \
	"units.memctl-t-masked.service: unit 'memctl-t-masked.service' is not loaded: LoadState=masked" <<< "$out"
mkdir -m 0755 "$work/nobody" && chown nobody "$work/nobody"
chmod 0755 "$work" && chmod 0644 "$work/p.yaml"
out=$(setpriv --reuid nobody --regid nogroup --clear-groups -- \
	memctl -s "$work/nobody/state" apply "$work/p.yaml" 2>&1); rc=$?
say "$out"
check "refused to an unprivileged caller: exit 3, nothing changed" test "$rc" = 3
# the units' locks are root's (a user must not be able to hold one), so
# the refusal comes before systemd is asked; systemd's own refusal is
# tested with the stand-in (integration/32-units-bus)
check "refused: says it needs root, and why" \
	grep -q "changing systemd units needs root: their locks in '/run/memctl/units' are root's" <<< "$out"
check "refused: nothing was changed" grep -q "nothing was changed" <<< "$out"
check "and it was not" test "$(prop "$db" MemoryLow)$(prop "$bk" MemoryMax)" = "$((64 * M))$((256 * M))"

# run's active-set protection on a running unit: MemoryLow from its working set.
# Without the runtime settings apply left (systemd keeps them across a
# restart of the unit): run starts from MemoryLow 0.
systemctl stop "$db"
rm -rf "/run/systemd/system.control/$db.d"
mkfile "$disk/ws.dat" $((48 * M)) > /dev/null
service "$db" "$(command -v ws-reader)" "$disk/ws.dat" 0
# interval 5s: an interval's time bounds each write, and under TCG the bus
# calls before the last write of the interval can take most of a second
printf 'version: 1\nparent: self\ninterval: 5s\nunits:\n  %s: {protect: active}\n' "$db" > "$work/ws.yaml"
check "MemoryLow 0 before run" test "$(prop "$db" MemoryLow)" = 0
# active_file of the unit above $1 bytes: the reader's second pass made its pages active
active_above() { test "$(awk '$1 == "active_file" {print $2}' "$CG$(cgroup_of "$db")/memory.stat")" -gt "$1"; }
check "the reader's pages became active" wait_until 120 active_above $((24 * M))
mc run --once "$work/ws.yaml" > "$work/run" 2>&1; rc=$?
cat "$work/run"
check "run --once succeeds" test "$rc" = 0
low=$(prop "$db" MemoryLow)
say "MemoryLow after run: $low; memory.low $(cat "$CG$(cgroup_of "$db")/memory.low")"
result unit_memory_low "$low"
check "MemoryLow set from the 48M working set (40M-56M)" \
	test "$low" -ge $((40 * M)) -a "$low" -le $((56 * M))
check "the kernel's memory.low is systemd's" \
	test "$(cat "$CG$(cgroup_of "$db")/memory.low")" = "$low"
patched && check "protect: active: memory.reclaim_protect_active 1 in the unit's cgroup" \
	test "$(cat "$CG$(cgroup_of "$db")/memory.reclaim_protect_active")" = 1
check "run said it went via systemd" grep -q "$db: MemoryLow .* via systemd" "$work/run"
out=$(mc plan "$work/ws.yaml" 2>&1)
say "$out"
check "right after, within the deadband: no MemoryLow step" no_low_step "$out"

# memctl run from MemoryLow 0 again: once its MemoryLow stops moving, run
# says so for the unit as for a group, naming the unit and the property.
systemctl set-property --runtime "$db" MemoryLow=0
check "MemoryLow 0 again" test "$(prop "$db" MemoryLow)" = 0
mc run "$work/ws.yaml" > "$work/run-conv" 2>&1 &
runpid=$!
converged() { grep -q "$db: MemoryLow converged after [0-9]* intervals\? at .* (active-set)" "$work/run-conv"; }
check "run: the unit's MemoryLow converged (logged)" wait_until 150 converged
kill "$runpid"; wait "$runpid" 2>/dev/null
say "$(grep -e converged -e "via systemd" "$work/run-conv")"
result unit_converged_after "$(sed -n "s/.*$db: MemoryLow converged after \([0-9]*\) interval.*/\1/p" "$work/run-conv" | head -n1)"
finish
