# memctl status and systemd's single-writer rule on a real systemd: a parent
# in a unit systemd manages without delegation (system.slice, this test's
# own service, a transient service) gets the warning, on stdout and stderr;
# a parent in a unit with Delegate=yes (memctl.service as shipped, a
# transient service started with Delegate=yes) and below it does not; the
# delegation markers are the ones systemd itself set.
T=status
. ./lib.sh
work=$(mktemp -d)
# verdict PARENT: status's systemd line for that parent; stderr in $work/err
verdict() { memctl -p "$1" status 2>"$work/err" | sed -n 's/^systemd *//p'; }
# warned PARENT UNIT: the undelegated verdict for a parent in UNIT
warned() {
	local v; v=$(verdict "$1"); say "$1: $v"
	[ "$v" = "running; warning: the parent is in $2, which systemd manages without delegation" ] &&
		grep -q "warning: systemd writes '$1'" "$work/err"
}
# delegated PARENT UNIT: the delegated verdict, no warning on stderr
delegated() {
	local v; v=$(verdict "$1"); say "$1: $v"
	[ "$v" = "running; the parent is in $2, delegated ($CG${3:-$1}: trusted.delegate)" ] &&
		! grep -q warning "$work/err"
}

check "system.slice: warned" warned /system.slice system.slice
check "this test's own service (no Delegate=): warned" \
	warned /system.slice/memctl-guest.service memctl-guest.service
v=$(verdict /); say "/: $v"
check "the root cgroup: warned (systemd's -.slice)" \
	test "$v" = "running; warning: the parent is the root cgroup, systemd's -.slice"

systemctl start memctl.service
check "memctl.service as shipped: delegated" delegated /system.slice/memctl.service memctl.service
check "systemd set the marker itself" \
	test "$(python3 -c 'import os, sys; print(os.getxattr(sys.argv[1], "trusted.delegate").decode())' \
		$CG/system.slice/memctl.service)" = 1
mkdir -p $CG/system.slice/memctl.service/probe
check "a group below it: delegated, the marker found on the unit's cgroup" \
	delegated /system.slice/memctl.service/probe memctl.service /system.slice/memctl.service
rmdir $CG/system.slice/memctl.service/probe
systemctl stop memctl.service

systemd-run -q --unit=plain-job sleep 600
systemd-run -q --unit=delegated-job -p Delegate=yes sleep 600
check "a transient service without Delegate=: warned" warned /system.slice/plain-job.service plain-job.service
check "a transient service with Delegate=yes: delegated" \
	delegated /system.slice/delegated-job.service delegated-job.service
systemctl stop plain-job.service delegated-job.service

v=$(memctl status --profile /etc/memctl/profile.yaml 2>"$work/err" | sed -n 's/^parent *//p')
say "the shipped profile's parent seen from this test: $v"
check "parent: self outside the service resolves to this test's own cgroup" \
	test "$v" = /system.slice/memctl-guest.service
rm -rf "$work"
finish
