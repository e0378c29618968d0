# The fleet playbook as the package ships it (docs/FLEET.md), run for real
# by ansible-playbook against this guest (-c local): apply mode installs the
# package from the .deb, pushes a profile whose parent systemd does not
# write, applies it, and a second run changes nothing; a parent in
# system.slice is refused before anything is applied; service mode enables
# and starts memctl.service, checks its delegation, and reloads it when the
# profile changes.
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

# Apply mode, on a top-level group that no unit owns.
mkdir -p $CG/fleet
echo +memory > $CG/fleet/cgroup.subtree_control
cat > "$work/fleet.yaml" <<'YAML'
version: 1
parent: /fleet
groups:
  web:
    max: 128M
  batch:
    max: 64M
    soft_limit: 16M
YAML
t0=$(cut -d' ' -f1 /proc/uptime)
play "$work/apply1.log" -e memctl_profile="$work/fleet.yaml" -e memctl_package_file="$MEMCTL_GUEST_IN/memctl.deb"
rc=$?
result apply_run_s "$(awk -v a="$t0" '{ printf "%.1f", $1 - a }' /proc/uptime)"
say "apply: $(recap "$work/apply1.log")"
check "apply mode: the playbook succeeds" test $rc = 0
[ $rc = 0 ] || cat "$work/apply1.log"
check "the profile is installed" cmp -s "$work/fleet.yaml" /etc/memctl/profile.yaml
check "web got memory.max 128M" test "$(cat $CG/fleet/web/memory.max)" = $((128 << 20))
check "batch got memory.max 64M" test "$(cat $CG/fleet/batch/memory.max)" = $((64 << 20))
check "the run reports changes" grep -q 'changed=[1-9]' <<< "$(recap "$work/apply1.log")"
play "$work/apply2.log" -e memctl_profile="$work/fleet.yaml"
rc=$?
say "again: $(recap "$work/apply2.log")"
check "a second run succeeds" test $rc = 0
check "and changes nothing" grep -q 'changed=0' <<< "$(recap "$work/apply2.log")"

# A parent systemd writes without delegation: refused, nothing applied.
sed 's|^parent: /fleet|parent: /system.slice|' "$work/fleet.yaml" > "$work/bad.yaml"
play "$work/bad.log" -e memctl_profile="$work/bad.yaml"
rc=$?
say "system.slice: $(recap "$work/bad.log")"
check "a parent in system.slice fails the play" test $rc != 0
check "at the single-writer check" grep -q 'TASK \[Refuse a parent systemd writes' "$work/bad.log"
check "the failing task is that one" \
	grep -A3 'TASK \[Refuse a parent systemd writes' "$work/bad.log" | grep -q '^fatal'
check "no group was created in system.slice" test ! -e $CG/system.slice/web

# Service mode: memctl.service keeps the profile applied, reloaded on change.
cat > "$work/svc.yaml" <<'YAML'
version: 1
parent: self
interval: 1s
groups:
  db:
    max: 96M
YAML
play "$work/svc1.log" -e memctl_mode=service -e memctl_profile="$work/svc.yaml"
rc=$?
say "service: $(recap "$work/svc1.log")"
check "service mode: the playbook succeeds" test $rc = 0
[ $rc = 0 ] || cat "$work/svc1.log"
check "memctl.service is enabled" test "$(systemctl is-enabled memctl.service)" = enabled
check "and active" systemctl is-active -q memctl.service
pid=$(prop memctl.service MainPID)
check "db gets 96M from the service" \
	wait_until 30 test "$(cat $CG/system.slice/memctl.service/db/memory.max 2>/dev/null)" = $((96 << 20))
sed -i 's/96M/80M/' "$work/svc.yaml"
play "$work/svc2.log" -e memctl_mode=service -e memctl_profile="$work/svc.yaml"
rc=$?
check "a changed profile: the playbook succeeds" test $rc = 0
[ $rc = 0 ] || cat "$work/svc2.log"
check "the handler reloaded memctl" grep -q 'RUNNING HANDLER \[Reload memctl\]' "$work/svc2.log"
check "db gets 80M without a restart" \
	wait_until 30 test "$(cat $CG/system.slice/memctl.service/db/memory.max 2>/dev/null)" = $((80 << 20))
check "same main process" test "$(prop memctl.service MainPID)" = "$pid"

systemctl disable -q --now memctl.service
cp "$work/shipped.yaml" /etc/memctl/profile.yaml
rmdir $CG/fleet/web $CG/fleet/batch $CG/fleet 2>/dev/null
cp "$work"/*.log "$MEMCTL_GUEST_OUT/" 2>/dev/null
rm -rf "$work"
finish
