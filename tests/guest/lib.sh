# Shared helpers for guest tests (busybox sh).  Sourced by tests/guest/NN-*.sh,
# which run as PID 1's child inside the memctl test host with cgroup2 at
# /sys/fs/cgroup and +memory enabled at the root.
CG=/sys/fs/cgroup
MIB=1048576
failures=0

say() { echo "$T: $*"; }
ok() { echo "ok - $T: $*"; }
not_ok() { echo "not ok - $T: $*"; failures=$((failures + 1)); }
skip() { echo "SKIP $T: $*"; exit 77; }
# check DESCRIPTION COMMAND...: run a test command, report ok/not ok.
check() {
	d=$1; shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}
finish() {
	[ "$failures" = 0 ] && { echo "$T: PASS"; exit 0; }
	echo "$T: FAIL ($failures failed)"; exit 1
}
# result KEY VALUE: a measured number, collected by the host side for A/B.
result() { echo "RESULT $T $1=$2"; }

# Is this the patched kernel?  kernel/run-guest.sh says so on the command
# line (memctl_kernel=patched|baseline), so a test on the patched kernel
# fails when a knob is missing instead of taking the baseline's path.
patched() { grep -q 'memctl_kernel=patched' /proc/cmdline; }

# numa FIELD GROUP NODE: bytes of FIELD on NODE from GROUP's memory.numa_stat.
numa() {
	awk -v k="$1" -v n="N$3" '$1 == k { for (i = 2; i <= NF; i++) {
		split($i, a, "="); if (a[1] == n) print a[2] } }' "$CG/$2/memory.numa_stat"
}
# stat FIELD GROUP: a field of GROUP's memory.stat.
stat() { awk -v k="$1" '$1 == k { print $2 }' "$CG/$2/memory.stat"; }
vmstat() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
# event FIELD GROUP: a field of GROUP's memory.events.
event() { awk -v k="$1" '$1 == k { print $2 }' "$CG/$2/memory.events"; }

# write_ok FILE VALUE / write_einval FILE VALUE: a write that must succeed /
# must fail with EINVAL (22), through cgwrite's single write(2).
write_ok() { cgwrite "$1" "$2" 2>/tmp/werr; }
write_einval() {
	cgwrite "$1" "$2" 2>/tmp/werr
	[ $? = 22 ]
}
# run_in GROUP COMMAND...: run a command inside GROUP (in the background
# when followed by &).
run_in() {
	g=$1; shift
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CG/$g" "$@"
}
# Create a file of MIB mebibytes on the scratch disk and drop it from cache.
mkfile() {
	dd if=/dev/zero of="$1" bs=1M count="$2" 2>/dev/null
	sync
	echo 3 > /proc/sys/vm/drop_caches
}
need_disk() { [ -d /mnt/disk ] || skip "no scratch disk"; }

# pmem_tier: make the machine's emulated NVDIMM (kernel/qemu-machine.sh)
# the lower memory tier and turn demotion on, as ndctl and daxctl would:
# the label-less namespace becomes a device-dax instance (the region's dax
# seed, with a UUID, its memmap on the device, bound to dax_pmem), which
# dax/kmem then onlines as movable system RAM of the NVDIMM's node.  6.1
# puts kmem's nodes in a tier below DRAM's, and reclaim on nodes 0 and 1
# may then demote to it.  Prints that node; on failure prints the step
# that failed and returns 1.
pmem_tier() {
	_ns=$(cd /sys/bus/nd/devices 2>/dev/null && ls -d namespace*.0 2>/dev/null | head -n1)
	[ -n "$_ns" ] || { echo "no NVDIMM namespace in /sys/bus/nd/devices"; return 1; }
	_region=region${_ns#namespace}
	_region=${_region%.*}
	_seed=$(cat /sys/bus/nd/devices/$_region/dax_seed) || { echo "no dax seed in $_region"; return 1; }
	_d=/sys/bus/nd/devices/$_seed
	# A namespace in use (a pmem block device) cannot be claimed.
	[ ! -e /sys/bus/nd/devices/$_ns/driver ] || echo $_ns > /sys/bus/nd/devices/$_ns/driver/unbind
	cat /proc/sys/kernel/random/uuid > $_d/uuid &&
		echo pmem > $_d/mode &&
		echo $_ns > $_d/namespace &&
		echo $_seed > /sys/bus/nd/drivers/dax_pmem/bind ||
		{ echo "cannot make $_ns a device-dax instance ($_seed)"; return 1; }
	_dax=$(ls /sys/bus/dax/devices | head -n1)
	[ -n "$_dax" ] || { echo "no device-dax instance after binding $_seed"; return 1; }
	echo online_movable > /sys/devices/system/memory/auto_online_blocks &&
		echo $_dax > /sys/bus/dax/drivers/device_dax/unbind &&
		echo $_dax > /sys/bus/dax/drivers/kmem/new_id ||
		{ echo "dax/kmem cannot online $_dax"; return 1; }
	_node=$(cat /sys/bus/dax/devices/$_dax/target_node)
	_kib=$(awk '/MemTotal:/ { print $4 }' /sys/devices/system/node/node$_node/meminfo 2>/dev/null)
	[ "${_kib:-0}" -gt 0 ] || { echo "node $_node has no memory after dax/kmem"; return 1; }
	echo 1 > /sys/kernel/mm/numa/demotion_enabled || { echo "cannot enable demotion"; return 1; }
	echo $_node
}
