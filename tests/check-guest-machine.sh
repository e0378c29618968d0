# The QEMU machine of the test host is defined once, in
# kernel/qemu-machine.sh, and both guests (kernel/run-guest.sh's initramfs
# guest and the systemd guest of kernel/systemd-guest.sh) boot it: no
# other script of the repository spells out the machine (the emulator
# with its accelerator, the memory backends, the NUMA nodes), so the two
# guests cannot drift apart.  Also checks what qemu_machine builds.
#   check-guest-machine.sh SOURCE_DIR
src=${1:?source directory}
lib=$src/kernel/qemu-machine.sh
rc=0
copies=$(cd "$src" && grep -rlE -e 'qemu-system-x86_64 +-' -e 'memory-backend-ram' \
	--include='*.sh' --exclude-dir=build kernel tests bench scripts .ci 2>/dev/null |
	grep -vx -e kernel/qemu-machine.sh -e tests/check-guest-machine.sh)
[ -z "$copies" ] || { echo "the machine is spelled out outside kernel/qemu-machine.sh:" $copies; rc=1; }
for f in kernel/run-guest.sh kernel/systemd-guest.sh; do
	grep -q 'qemu_machine "$kernel"' "$src/$f" || { echo "$f does not boot qemu_machine"; rc=1; }
done
. "$lib"
qemu_machine /k/bzImage
got="${qemu[*]}"
for want in "-accel tcg" "-numa node,nodeid=0,cpus=0,memdev=m0" "-numa node,nodeid=1,cpus=1,memdev=m1" \
	"-device nvdimm,id=nvdimm2,memdev=nv2,node=2" "-machine pc,nvdimm=on" \
	"-serial stdio" "-no-reboot" "-kernel /k/bzImage"; do
	case " $got " in *" $want "*) ;; *) echo "qemu_machine lacks '$want': $got"; rc=1 ;; esac
done
[ "${qemu[${#qemu[@]}-1]}" = /k/bzImage ] || { echo "the kernel is not the last word"; rc=1; }
base=$(qemu_cmdline_base "" 64M)
[ "$base" = "console=ttyS0 oops=panic panic=-1 loglevel=4 no_timer_check memctl_zram=64M memctl_kernel=patched" ] ||
	{ echo "qemu_cmdline_base (patched): $base"; rc=1; }
case $(qemu_cmdline_base --baseline 0) in *" memctl_kernel=baseline") ;; *) echo "baseline not marked"; rc=1 ;; esac
[ "$(qemu_cmdline_test shell a,b " x=1")" = " memctl_args=a,b x=1" ] || { echo "shell: $(qemu_cmdline_test shell a,b " x=1")"; rc=1; }
[ "$(qemu_cmdline_test 10-knobs.sh "" "")" = " memctl_test=10-knobs.sh" ] || { echo "test: $(qemu_cmdline_test 10-knobs.sh "" "")"; rc=1; }
[ $rc = 0 ] && echo "ok: one machine, kernel/qemu-machine.sh"
exit $rc
