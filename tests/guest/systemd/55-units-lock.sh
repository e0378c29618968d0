# Two memctl processes with different state directories and disjoint
# parents that name the same unit, on a booted systemd: the second waits
# for the unit's lock (/run/memctl/units), saying so, or with --no-wait
# refuses naming the first one's PID (exit 3), and systemd sees the first
# one's properties, then the second's, never a mix. A profile that names
# the unit by an alias (a symbolic link to its unit file) meets the same
# lock, because memctl locks the unit under systemd's Id for it.
T=units-lock
. ./lib.sh
work=$(mktemp -d)
u=memctl-t-ldb.service alias=memctl-t-ldb-alias.service
self=$(sed -n 's/^0:://p' /proc/self/cgroup)
a= b=
cleanup() {
	for p in $a $b; do kill -CONT "$p" 2>/dev/null; kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	systemctl stop "$u" 2>/dev/null
	rm -rf "/run/systemd/system/$u" "/run/systemd/system/$alias" "/run/systemd/system.control/$u.d"
	systemctl daemon-reload
	rmdir "$CG$self/ta" "$CG$self/tb" 2>/dev/null
	rm -f "/run/memctl/units/$u"
	rm -rf "$work"
}
trap cleanup EXIT
M=$((1024 * 1024))
printf '[Service]\nExecStart=/usr/bin/sleep 3600\nMemoryAccounting=yes\n' > "/run/systemd/system/$u"
ln -s "$u" "/run/systemd/system/$alias"
systemctl daemon-reload && systemctl start "$u"
check "the unit runs" systemctl is-active -q "$u"
check "systemd knows the alias as the unit" test "$(prop "$alias" Id)" = "$u"
# disjoint parents below this test's cgroup: the subtree locks do not meet
mkdir "$CG$self/ta" "$CG$self/tb"
# profile FILE PARENT UNIT SETTINGS
profile() { printf 'version: 1\nparent: self/%s\nunits:\n  %s: {%s}\n' "$2" "$3" "$4" > "$1"; }
profile "$work/a.yaml" ta "$u" "max: 200M, swap_max: 32M"
profile "$work/b.yaml" tb "$u" "max: 250M"
profile "$work/alias.yaml" tb "$alias" "max: 240M"

MEMCTL_STOP_AFTER_WRITE=1 memctl -s "$work/s1" -q apply "$work/a.yaml" &
a=$!
check "A stops after its first property, holding the unit" \
	wait_until 30 grep -q '^State:.*T' /proc/$a/status
first=$(prop "$u" MemoryMax)
out=$(memctl -s "$work/s2" --no-wait apply "$work/b.yaml" 2>&1); rc=$?
say "$out"
check "B with another state dir, --no-wait: exit 3" test "$rc" = 3
check "B names A's pid and the unit" test "$out" = \
	"memctl: another memctl (pid $a) is changing unit '$u'; try again when it is done"
out=$(memctl -s "$work/s2" --no-wait apply "$work/alias.yaml" 2>&1); rc=$?
say "$out"
check "the alias meets the same lock: exit 3" test "$rc" = 3
check "systemd still has A's first value" test "$(prop "$u" MemoryMax)" = "$first"

memctl -s "$work/s2" apply "$work/b.yaml" > "$work/b.out" 2> "$work/b.err" &
b=$!
check "B says it waits" wait_until 30 grep -q waiting "$work/b.err"
say "$(cat "$work/b.err")"
check "for A, on the unit" test "$(cat "$work/b.err")" = \
	"memctl: waiting for pid $a, which is changing unit '$u'"
check "B is still waiting" kill -0 "$b"
check "and has not changed the unit" test "$(prop "$u" MemoryMax)" = "$first"
kill -CONT "$a"
wait "$a"; rc=$?; a=
check "A finishes" test "$rc" = 0
wait "$b"; rc=$?; b=
check "B finishes after A" test "$rc" = 0
check "MemoryMax is B's, planned from A's result" test "$(prop "$u" MemoryMax)" = $((250 * M))
check "the kernel's memory.max too" test "$(cat "$CG$(cgroup_of "$u")/memory.max")" = $((250 * M))
check "MemorySwapMax is A's" test "$(prop "$u" MemorySwapMax)" = $((32 * M))
check "B changed only MemoryMax" grep -qx "$u: MemoryMax 200M -> 250M via systemd" "$work/b.out"
finish
