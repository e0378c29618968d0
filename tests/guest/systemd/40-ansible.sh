# The fleet playbook as the package ships it (docs/FLEET.md), run for real
# by ansible-playbook against this guest (-c local), in apply mode: it
# installs the package from the .deb, pushes a profile whose parent systemd
# does not write, checks it (memctl check, plan, status's single-writer
# check) and applies it.  One run takes 2-4 minutes under TCG, so it runs
# on the patched kernel only: nothing the playbook does depends on the
# kernel's patches.  Service mode is not run here yet.
T=ansible
. ./lib.sh
patched || { say "not run on the baseline kernel (see above)"; exit 0; }
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
cp "$work/shipped.yaml" /etc/memctl/profile.yaml
rmdir $CG/fleet/web $CG/fleet/batch $CG/fleet 2>/dev/null
cp "$work"/*.log "$MEMCTL_GUEST_OUT/" 2>/dev/null
rm -rf "$work"
finish
