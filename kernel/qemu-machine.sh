# The test host's machine, shared by both guests of kernel/run-guest.sh (the
# initramfs guest and the systemd guest of systemd-guest.sh), so that the
# two cannot drift apart: what one guest measures holds for the other.
# Sourced; defines functions only.
#
# The machine: QEMU's software emulation (TCG; /dev/kvm on these hosts is a
# software backend that cannot run a stock 6.1 guest), 1 GiB in two NUMA
# nodes of 512 MiB, CPU N on node N, the serial console on stdio, no
# devices but the ones the caller adds, no reboot (a panic ends QEMU).
# Beside that RAM, a 512 MiB emulated NVDIMM without labels on node 2, a
# node with neither CPUs nor RAM: the kernel sees it as a raw pmem
# namespace and leaves it alone, so node 2 stays offline, unless a test
# onlines it as system RAM through dax/kmem, which makes it the lower
# memory tier that reclaim demotes to (tests/guest/lib.sh, pmem_tier).

# qemu_machine KERNEL: sets the array qemu to the machine booting KERNEL;
# the caller appends its disks, -initrd and -append.
qemu_machine() {
	qemu=(qemu-system-x86_64 -machine pc,nvdimm=on -accel tcg -cpu max
		-m 1G,slots=1,maxmem=2G
		-smp 2,sockets=2,cores=1,threads=1
		-object memory-backend-ram,id=m0,size=512M
		-object memory-backend-ram,id=m1,size=512M
		-object memory-backend-ram,id=nv2,size=512M
		-numa node,nodeid=0,cpus=0,memdev=m0
		-numa node,nodeid=1,cpus=1,memdev=m1
		-numa node,nodeid=2
		-device nvdimm,id=nvdimm2,memdev=nv2,node=2
		-nographic -no-reboot -nodefaults -serial stdio -display none
		-kernel "$1")
}

# qemu_cmdline_base BASELINE ZRAM: the kernel command line both guests
# start from: the console, an oops or panic that ends the boot, the zram
# swap size (memctl_zram=) and which kernel this is (memctl_kernel=, for
# tests that differ between them; BASELINE non-empty: baseline).
# no_timer_check: on a loaded host TCG can be too slow for the IO-APIC
# timer check, which then panics the boot ("IO-APIC + timer doesn't work").
qemu_cmdline_base() {
	echo "console=ttyS0 oops=panic panic=-1 loglevel=4 no_timer_check memctl_zram=$2" \
		"memctl_kernel=$([ -n "$1" ] && echo baseline || echo patched)"
}

# qemu_cmdline_test TEST ARGS APPEND: what follows the base: the test to run
# (none for "shell"), its arguments (comma-separated) and extra words.
qemu_cmdline_test() {
	local c=
	[ "$1" = shell ] || c=" memctl_test=$1"
	[ -n "$2" ] && c="$c memctl_args=$2"
	echo "$c$3"
}
