# The systemd guest itself: systemd is PID 1, the cgroup tree is pure v2 as
# systemd mounts it (memory_recursiveprot, the memory controller on for its
# slices), the boot finished without a failed unit, and the memctl package
# installed with dpkg (its unit files are where systemd finds them).
T=boot
. ./lib.sh

check "PID 1 is systemd" test "$(cat /proc/1/comm)" = systemd
check "/sys/fs/cgroup is cgroup2 (no v1 hierarchy)" test "$(stat -fc %T $CG)" = cgroup2fs
check "no cgroup v1 hierarchy is mounted" test -z "$(awk '$3 == "cgroup"' /proc/mounts)"
opts=$(awk '$2 == "/sys/fs/cgroup" { print $4 }' /proc/mounts)
say "cgroup2 mount options: $opts"
check "systemd mounted it with memory_recursiveprot" grep -qw memory_recursiveprot <<< "${opts//,/ }"
check "memory is enabled below the root" grep -qw memory $CG/cgroup.subtree_control
check "and in system.slice" grep -qw memory $CG/system.slice/cgroup.subtree_control
check "this test runs in memctl-guest.service" \
	grep -qx '0::/system.slice/memctl-guest.service' /proc/self/cgroup
state=$(systemctl is-system-running)
say "system state: $state; failed units: $(systemctl --failed --no-legend --plain | awk '{ print $1 }' | xargs)"
check "no unit failed during the boot" test "$state" = running
check "the memctl package is installed" dpkg-query -W memctl
check "memctl runs" memctl --version
check "systemd knows memctl.service from the package" \
	test "$(prop memctl.service FragmentPath)" = /lib/systemd/system/memctl.service
check "and memctl@.service" eval "systemctl cat memctl@x.service > /dev/null"
k=$(grep -o 'memctl_kernel=[a-z]*' /proc/cmdline)
say "kernel $(uname -r) (${k#memctl_kernel=}), systemd $(systemctl --version | head -n1)"
result boot_s "$(systemd-analyze 2>/dev/null | sed -n 's/.*= \([0-9.]*\)s *$/\1/p' | head -n1)"
say "$(systemd-analyze 2>&1 | head -n1)"
finish
