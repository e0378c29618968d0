# memctl exec on a real systemd: a command started with memctl exec in a
# group below a unit with Delegate=yes runs in that group (its own
# /proc/PID/cgroup), is the process the shell started, and its memory is
# charged to the group and held to the group's limit; top's UNIT column
# and status GROUP name the unit that owns the group and say it delegates.
# What cgroup v2 and memctl's path rules forbid is refused with the
# documented status and runs nothing: the unit's own cgroup once it
# enables memory for its children (no internal processes), a group without
# the memory controller, a missing group, "..", the root.
T=exec
. ./lib.sh
U=/system.slice/memctl-t-exec.service
M=$((1024 * 1024))
disk=$(mktemp -d /var/lib/memctl-exec.XXXXXX)   # ext4: page cache, not tmpfs
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	systemctl stop memctl-t-exec.service 2>/dev/null
	rm -rf "$disk"
}
trap cleanup EXIT
file_of() { awk '$1 == "file" { print $2 }' "$CG$U/$1/memory.stat"; }

systemd-run -q --unit=memctl-t-exec -p Delegate=yes sleep 600
# (cgroupfs files have size 0: test -s cannot see what they hold)
check "the delegating unit runs" wait_until 20 grep -q . "$CG$U/cgroup.procs"
# cgroup v2 keeps processes in leaves: the unit's own process to a leaf of
# its own, then memory for the unit's children, as a delegated manager does
mkdir "$CG$U/main" "$CG$U/work"
for p in $(cat "$CG$U/cgroup.procs"); do echo "$p" > "$CG$U/main/cgroup.procs"; done
echo +memory > "$CG$U/cgroup.subtree_control"
check "memory is delegated below the unit" test -f "$CG$U/work/memory.max"

memctl exec "$U/work" -- sleep 300 &
pid=$!
check "the command's PID is in the group's cgroup.procs" \
	wait_until 20 grep -qx "$pid" "$CG$U/work/cgroup.procs"
check "its own /proc/PID/cgroup names the group" \
	test "$(sed -n 's/^0:://p' "/proc/$pid/cgroup")" = "$U/work"
check "and it is sleep itself (memctl became the command)" test "$(cat "/proc/$pid/comm")" = sleep
row=$(memctl -o json top -b -n 1 -p "$U" --columns tasks,unit |
	jq -r '.groups[] | select(.group == "work") | "\(.unit) \(.tasks)"')
say "top: work: $row"
check "top: work is owned by memctl-t-exec.service and holds one task" \
	test "$row" = "memctl-t-exec.service 1"
u=$(memctl status "$U/work" 2>/dev/null | sed -n 's/^unit  *//p')
say "status $U/work: $u"
check "status GROUP: the unit, delegated" \
	test "$u" = "memctl-t-exec.service ($U): delegated, its processes write the groups below it"
kill "$pid"
wait "$pid" 2>/dev/null
pid=

# The command's memory is the group's: the page cache a writer keeps is
# charged there, and the group's limit (set with memctl set) holds it.
out=$(memctl exec "$U/work" -- mkfile --keep-cache "$disk/a" 24M 2>&1); rc=$?
say "$out"
check "exec mkfile: the command's exit status (0)" test "$rc" = 0
f=$(file_of work)
say "work's file pages after writing 24M: $f"
result exec_file_charged "$f"
check "24M of page cache charged to the group (>= 20M)" test "$f" -ge $((20 * M))
check "memctl set max=16M on the delegated group" memctl set "$U/work" max=16M
check "memory.max is 16M" test "$(cat "$CG$U/work/memory.max")" = $((16 * M))
out=$(memctl exec "$U/work" -- mkfile --keep-cache "$disk/b" 48M 2>&1); rc=$?
check "exec mkfile 48M under the 16M limit: done (page cache is reclaimed)" test "$rc" = 0
peak=$(file_of work)
say "work's file pages after writing 48M under 16M: $peak"
check "the group held to its limit (file <= 16M)" test "$peak" -le $((16 * M))
check "the writes were charged there: the group reclaimed (memory.events max > 0)" \
	test "$(awk '$1 == "max" { print $2 }' "$CG$U/work/memory.events")" -gt 0
check "the command's exit status is its own" eval "memctl exec $U/work -- sh -c 'exit 7'; test \$? = 7"

# Refused, and nothing run: the marker file is never made.
# refused WANT_RC WHY GROUP PATTERN: exec GROUP exits WANT_RC, the message matches
refused() {
	local err rc
	err=$(memctl exec "$3" -- touch "$disk/ran" 2>&1); rc=$?
	say "exec $3: $err"
	check "$2: exit $1" test "$rc" = "$1"
	check "$2: says why" grep -q -- "$4" <<< "$err"
	check "$2: the command did not run" test ! -e "$disk/ran"
}
refused 3 "the unit's own cgroup (enables memory for its children)" "$U" \
	"a group that enables controllers for its children holds no processes"
mkdir "$CG$U/main/sub"
refused 3 "a group whose parent does not enable memory" "$U/main/sub" "has no memory controller"
rmdir "$CG$U/main/sub"
refused 2 "a group that does not exist" "$U/nope" "does not exist"
refused 2 "a path with .." "$U/work/../main" "\.\."
refused 2 "the root cgroup" / "cannot exec in the root cgroup"

systemctl stop memctl-t-exec.service
check "the unit's cgroup is gone with the unit" wait_until 20 test ! -d "$CG$U"
finish
