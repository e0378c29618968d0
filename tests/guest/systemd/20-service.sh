# memctl.service exactly as the package ships it, under the guest's systemd:
# start, reload (SIGHUP) with a good and a broken profile, stop; kill -9 of
# its main process in the middle of an apply, the restart systemd makes,
# the rollback its ExecStartPre runs and a consistent state after it; the
# priorities journald records for memctl's messages.  Only the profile in
# /etc/memctl and, for the kill, one Environment= drop-in with the test
# build's MEMCTL_STOP_AFTER_WRITE change; the unit file is the package's.
T=service
. ./lib.sh
svc=memctl.service
prof=/etc/memctl/profile.yaml
work=$(mktemp -d)
cp "$prof" "$work/shipped.yaml"
unit_cg() { echo "$CG/system.slice/memctl.service"; }
# knob GROUP FILE: a file of a group memctl manages below the unit
knob() { cat "$(unit_cg)/$1/$2" 2>/dev/null; }
# logged PRIORITY PATTERN: the unit's journal since the mark has a line
# matching PATTERN at that priority
logged() { journal_since "$work/cursor" "$svc" | grep -q "^$1 .*$2"; }
# limits_applied WHEN: the running profile's db and backup get memory.max
# 96M and 64M (the reload and the restart after the kill both end there)
limits_applied() {
	check "db memory.max 96M $1" wait_until 20 is $((96 << 20)) knob db memory.max
	check "backup memory.max 64M $1" wait_until 20 is $((64 << 20)) knob backup memory.max
}

check "the unit file is the package's" test "$(prop $svc FragmentPath)" = /lib/systemd/system/memctl.service
drop=$(prop $svc DropInPaths)
check "no drop-in but the sanitizer build's (runner.sh)" \
	test -z "$drop" -o "$drop" = /run/systemd/system/memctl.service.d/sanitizer.conf
check "Delegate=yes" test "$(prop $svc Delegate)" = yes

# Start with the profile as shipped: it manages nothing and keeps running.
journal_mark "$work/cursor"
check "start" systemctl start $svc
check "active" systemctl is-active -q $svc
pid=$(prop $svc MainPID)
[ "$pid" -gt 0 ] || { not_ok "no main process"; finish; }
say "main process $pid: $(tr '\0' ' ' < /proc/$pid/cmdline)"
check "the main process is memctl run on the shipped profile" \
	test "$(tr '\0' ' ' < /proc/$pid/cmdline)" = "/usr/sbin/memctl run $prof "
check "it runs in the unit's cgroup (or a group of its own below it)" \
	grep -q '^0::/system.slice/memctl.service\(/.*\)\?$' /proc/$pid/cgroup
say "memctl run's cgroup: $(cut -d: -f3 /proc/$pid/cgroup)"
check "journal: 'running' at priority 6 (info)" wait_until 20 logged 6 "running '$prof'"
check "journal: ExecStartPre's rollback ran first" wait_until 5 logged 6 "nothing to roll back"

# Reload with two groups: SIGHUP, same process, the groups appear.
cat > "$prof" <<'YAML'
version: 1
parent: self
interval: 1s
groups:
  db:
    max: 96M
    soft_limit: 32M
  backup:
    max: 64M
YAML
journal_mark "$work/cursor"
check "reload" systemctl reload $svc
check "journal: 'SIGHUP: reloading' at priority 6" wait_until 20 logged 6 "SIGHUP: reloading '$prof'"
check "journal: the new profile runs" wait_until 20 logged 6 "now running '$prof' (2 top-level groups)"
limits_applied "after the reload"
check "journal: each write at priority 6" logged 6 "memory.max .*64M"
check "the same main process (reloaded, not restarted)" test "$(prop $svc MainPID)" = "$pid"

# A broken profile is refused; the running one stays.
printf 'version: 1\nparent: self\ngroups:\n  db: {max: lots}\n' > "$prof"
journal_mark "$work/cursor"
systemctl reload $svc
check "journal: the broken profile at priority 3 (err)" \
	wait_until 20 logged 3 "is invalid (see above): keeping the profile that is running"
check "still active" systemctl is-active -q $svc
check "db keeps 96M" test "$(knob db memory.max)" = $((96 << 20))
check "no message kept its '<N>' prefix as text" \
	eval '! journal_since "$work/cursor" $svc | grep -q "^[0-9] <[0-9]>"'

# Stop: SIGTERM, a clean exit, the lock and journal directory kept.
journal_mark "$work/cursor"
check "stop" systemctl stop $svc
check "inactive" test "$(systemctl is-active $svc)" = inactive
check "exit counted a success" test "$(prop $svc Result)" = success
check "journal: 'stopping' at priority 6" wait_until 10 logged 6 "Terminated: stopping after"
check "/run/memctl kept (RuntimeDirectoryPreserve=yes)" test -d /run/memctl
say "after stop, the unit's cgroup: $(ls -d "$(unit_cg)" 2>&1)"

# kill -9 during an apply.  The test build stops itself after its 2nd knob
# write (MEMCTL_STOP_AFTER_WRITE); the drop-in that says so is gone again
# before systemd restarts the unit, which then rolls back and applies.
cat > "$prof" <<'YAML'
version: 1
parent: self
interval: 1s
groups:
  db:
    max: 96M
    soft_limit: 32M
  backup:
    max: 64M
    soft_limit: 16M
YAML
if memctl --version | grep -q 'fault injection'; then
	# memctl run's first writes are its own group's (memory.min, memory.low),
	# outside any apply: stop at the first K whose stop finds a journal.
	mkdir -p /run/systemd/system/memctl.service.d
	for k in 3 4 5 6 7; do
		printf '[Service]\nEnvironment=MEMCTL_STOP_AFTER_WRITE=%s\n' $k \
			> /run/systemd/system/memctl.service.d/stop.conf
		systemctl daemon-reload
		journal_mark "$work/cursor"
		systemctl start $svc
		pid=$(prop $svc MainPID)
		wait_until 30 is T awk '{ print $3 }' /proc/$pid/stat || break
		[ -s /run/memctl/journal ] && break
		say "stopped after write $k: not in the apply yet"
		n0=$(prop $svc NRestarts)
		kill -9 "$pid"
		wait_until 30 is $((n0 + 1)) prop $svc NRestarts
		systemctl stop $svc; systemctl reset-failed $svc 2>/dev/null
	done
	say "stopped after write $k"
	check "memctl run stopped itself inside the apply" test -s /run/memctl/journal
	rm /run/systemd/system/memctl.service.d/stop.conf
	systemctl daemon-reload
	n0=$(prop $svc NRestarts)
	[ "$pid" -gt 0 ] && kill -9 "$pid"
	check "the killed apply left its journal" test -s /run/memctl/journal
	half="db=$(knob db memory.max) backup=$(knob backup memory.max)"
	say "left half-applied: $half"
	check "the unit restarts (Restart=on-failure)" wait_until 30 is $((n0 + 1)) prop $svc NRestarts
	check "active again" wait_until 30 systemctl is-active -q $svc
	check "a new main process" test "$(prop $svc MainPID)" != "$pid"
	check "journal: ExecStartPre rolled the journal back" wait_until 20 logged 6 "rolled back"
	limits_applied "after the restart"
	check "no journal left once the restarted run applied" wait_until 20 test ! -e /run/memctl/journal
	# memctl run holds the lock during its intervals: a rollback may first
	# say that it waits for it
	out=$(memctl rollback 2>&1 | grep -v "^memctl: waiting for the lock in ")
	check "memctl rollback: nothing to roll back" test "$out" = "nothing to roll back"
	[ "$out" = "nothing to roll back" ] || say "memctl rollback said: $out"
	check "journal: the SIGKILL as systemd saw it" \
		eval 'journalctl -u $svc --no-pager | grep -q "status=9/KILL"'
	systemctl stop $svc
else
	not_ok "kill -9 during an apply needs the test build's failure injection (memctl --version)"
fi

cp "$work/shipped.yaml" "$prof"
rm -rf "$work"
finish
