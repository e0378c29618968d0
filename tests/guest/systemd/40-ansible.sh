# The fleet playbook as the package ships it (docs/FLEET.md), run for real
# by ansible-playbook against this guest (-c local), with the package
# installed from the .deb.  One run takes 2-4 minutes under TCG, and nothing
# the playbook does depends on the kernel's patches, so each kernel runs one
# mode:
# - patched, apply mode: it pushes a profile whose parent systemd does not
#   write, checks it (memctl check, plan, status's single-writer check) and
#   applies it;
# - baseline, service mode: it pushes a "parent: self" profile, enables and
#   starts memctl.service, which applies it; a second run with the same
#   profile changes nothing (changed=0) and does not reload the service; a
#   third with an edited profile reloads it (SIGHUP, same process) and the
#   edit lands.  Then the service is stopped and disabled again and the
#   shipped profile restored, for the tests after this one.
T=ansible
. ./lib.sh
book=/usr/share/doc/memctl/examples/fleet/ansible/memctl.yml
work=$(mktemp -d)
cp /etc/memctl/profile.yaml "$work/shipped.yaml"
check "the package ships the playbook" test -r "$book"
printf 'localhost ansible_connection=local ansible_python_interpreter=/usr/bin/python3\n' > "$work/inventory"
# play LOG ARGS...: ansible-playbook on the guest itself; its recap in LOG
play() {
	local log=$1; shift
	ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_LOCALHOST_WARNING=0 \
		ansible-playbook -i "$work/inventory" "$book" "$@" > "$log" 2>&1
}
recap() { sed -n 's/^localhost *: //p' "$1"; }
# timed_play KEY LOG ARGS...: play, its time in seconds as RESULT KEY
timed_play() {
	local key=$1 t0 rc; shift
	t0=$(cut -d' ' -f1 /proc/uptime)
	play "$@"
	rc=$?
	result "$key" "$(awk -v a="$t0" '{ printf "%.1f", $1 - a }' /proc/uptime)"
	return $rc
}
deb=$MEMCTL_GUEST_IN/memctl.deb

# Apply mode, on a top-level group that no unit owns.
apply_mode() {
	mkdir -p $CG/fleet
	echo +memory > $CG/fleet/cgroup.subtree_control
	cat > "$work/fleet.yaml" <<-'YAML'
	version: 1
	parent: /fleet
	groups:
	  web:
	    max: 128M
	  batch:
	    max: 64M
	    soft_limit: 16M
	YAML
	timed_play apply_run_s "$work/apply1.log" -e memctl_profile="$work/fleet.yaml" \
		-e memctl_package_file="$deb"
	rc=$?
	say "apply: $(recap "$work/apply1.log")"
	check "apply mode: the playbook succeeds" test $rc = 0
	[ $rc = 0 ] || cat "$work/apply1.log"
	check "the profile is installed" cmp -s "$work/fleet.yaml" /etc/memctl/profile.yaml
	check "web got memory.max 128M" test "$(cat $CG/fleet/web/memory.max)" = $((128 << 20))
	check "batch got memory.max 64M" test "$(cat $CG/fleet/batch/memory.max)" = $((64 << 20))
	check "the run reports changes" grep -q 'changed=[1-9]' <<< "$(recap "$work/apply1.log")"
	cp "$work/shipped.yaml" /etc/memctl/profile.yaml
	rmdir $CG/fleet/web $CG/fleet/batch $CG/fleet 2>/dev/null
}

# Service mode: memctl.service (memctl run, Delegate=yes) keeps a "parent:
# self" profile applied below its own cgroup.
svc=memctl.service
# knob GROUP FILE: a file of a group memctl.service manages
knob() { cat "$CG/system.slice/$svc/$1/$2" 2>/dev/null; }
# service_play N PROFILE: the Nth service-mode run, log svcN.log; says its recap
service_play() {
	timed_play service_run${1}_s "$work/svc$1.log" -e memctl_mode=service \
		-e memctl_profile="$2" -e memctl_package_file="$deb"
	local rc=$?
	say "service run $1: $(recap "$work/svc$1.log")"
	[ $rc = 0 ] || cat "$work/svc$1.log"
	return $rc
}
# ran_handler LOG: the run reloaded memctl.service (its handler did not skip)
ran_handler() { grep -A1 '^RUNNING HANDLER \[Reload memctl\]' "$1" | grep -q '^changed:'; }
reloads() { journal_since "$work/cursor" $svc | grep -c "SIGHUP: reloading"; }
service_mode() {
	cat > "$work/svc.yaml" <<-'YAML'
	version: 1
	parent: self
	interval: 1s
	groups:
	  web:
	    max: 128M
	    low: 32M
	  batch:
	    max: 64M
	YAML
	check "memctl.service is not running before" eval '! systemctl is-active -q $svc'
	journal_mark "$work/cursor"
	service_play 1 "$work/svc.yaml"
	check "service mode: the playbook succeeds" test $? = 0
	check "the run reports changes" grep -q 'changed=[1-9]' <<< "$(recap "$work/svc1.log")"
	check "the profile is installed" cmp -s "$work/svc.yaml" /etc/memctl/profile.yaml
	check "memctl.service is active" systemctl is-active -q $svc
	check "memctl.service is enabled" test "$(systemctl is-enabled $svc)" = enabled
	pid=$(prop $svc MainPID)
	check "its main process is memctl run on the installed profile" \
		test "$(tr '\0' ' ' < /proc/$pid/cmdline 2>/dev/null)" = "/usr/sbin/memctl run /etc/memctl/profile.yaml "
	check "web got memory.max 128M" wait_until 30 is $((128 << 20)) knob web memory.max
	check "web got memory.low 32M" wait_until 30 is $((32 << 20)) knob web memory.low
	check "batch got memory.max 64M" wait_until 30 is $((64 << 20)) knob batch memory.max
	check "the service it started was not reloaded too" eval '! ran_handler "$work/svc1.log"'

	# The same profile again: nothing changes, nothing is reloaded.
	journal_mark "$work/cursor"
	service_play 2 "$work/svc.yaml"
	check "second run: the playbook succeeds" test $? = 0
	check "second run: changed=0 (idempotent)" grep -q 'changed=0 ' <<< "$(recap "$work/svc2.log") "
	check "second run: no reload" test "$(reloads)" = 0
	check "second run: the same main process" test "$(prop $svc MainPID)" = "$pid"

	# An edited profile: the handler reloads the running service.
	sed -i 's/max: 128M/max: 96M/' "$work/svc.yaml"
	journal_mark "$work/cursor"
	service_play 3 "$work/svc.yaml"
	check "edited profile: the playbook succeeds" test $? = 0
	check "edited profile: the handler reloaded memctl.service" ran_handler "$work/svc3.log"
	check "edited profile: memctl run reloaded it (SIGHUP)" \
		wait_until 20 is 1 reloads
	check "edited profile: web got memory.max 96M" wait_until 30 is $((96 << 20)) knob web memory.max
	check "edited profile: the same main process (reloaded, not restarted)" \
		test "$(prop $svc MainPID)" = "$pid"

	# Leave the guest as the tests after this one expect it.
	systemctl disable --now $svc 2> /dev/null
	check "stopped again" test "$(systemctl is-active $svc)" = inactive
	check "disabled again" test "$(systemctl is-enabled $svc)" = disabled
	check "its groups went with its cgroup" test ! -e "$CG/system.slice/$svc"
	check "memctl rollback: nothing to roll back" test "$(memctl rollback 2>&1)" = "nothing to roll back"
	cp "$work/shipped.yaml" /etc/memctl/profile.yaml
	rm -f /var/cache/memctl.deb
}

if patched; then apply_mode; else service_mode; fi
cp "$work"/*.log "$MEMCTL_GUEST_OUT/" 2>/dev/null
rm -rf "$work"
finish
