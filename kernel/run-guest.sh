#!/bin/bash
# Boot the memctl test host under QEMU (TCG) and run one guest test.
#
#   kernel/run-guest.sh [--baseline] [--kernel BZIMAGE] [--memctl BIN]
#                       [--timeout SEC] [--disk MIB] [--zram SIZE]
#                       [--append ARGS] TEST [ARG...]
#   kernel/run-guest.sh --systemd [--deb FILE] [--out DIR] [other options]
#                       TEST [ARG...]
#
# TEST is a script in tests/guest/ (e.g. 10-knobs.sh) or "shell" for an
# interactive busybox shell.  The kernel is built (or taken from the cache)
# by kernel/build.sh; --baseline boots the unpatched kernel.  The guest has
# 1 GiB in two NUMA nodes of 512 MiB, two CPUs, zram swap and, unless
# --disk 0, a scratch raw disk that /init formats as ext2.
#
# --systemd boots the Debian root file system of kernel/rootfs.sh instead,
# with systemd as PID 1 on cgroup v2: TEST is a script in
# tests/guest/systemd/ (or "shell"), the memctl package (--deb, default:
# built with cpack from the build directory of --memctl) is installed in
# the guest with dpkg, and what the tests leave in the guest's results
# directory is unpacked into --out DIR (default: not kept).  See
# tests/guest/systemd/README.md.
#
# Output: the serial console on stdout (and in $MEMCTL_GUEST_LOG if set).
# Exit status: the guest test's own status from its "MEMCTL-GUEST-END rc=N"
# line; 77 is a skip; a hung guest (timeout), a kernel oops or panic, or a
# missing end marker is a failure (exit 1).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
baseline= kernel= memctl= timeout=300 disk=1024 zram=256M append=
systemd=0 deb= outdir=
while [ $# -gt 0 ]; do
	case $1 in
	--baseline) baseline=--baseline; shift ;;
	--kernel) kernel=$2; shift 2 ;;
	--memctl) memctl=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--disk) disk=$2; shift 2 ;;
	--zram) zram=$2; shift 2 ;;
	--append) append="$append $2"; shift 2 ;;
	--systemd) systemd=1; shift ;;
	--deb) deb=$2; shift 2 ;;
	--out) outdir=$2; shift 2 ;;
	-*) echo "run-guest.sh: unknown option '$1'" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || { echo "usage: run-guest.sh [options] TEST [ARG...]" >&2; exit 2; }
test=$1; shift
args=$(IFS=,; echo "$*")

log() { echo "run-guest.sh: $*" >&2; }
# The machine both guests boot (qemu_machine, qemu_cmdline_*).
. "$here/qemu-machine.sh"

if ! command -v qemu-system-x86_64 >/dev/null; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		log "installing qemu-system-x86 busybox-static"
		{ DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q qemu-system-x86 busybox-static ||
		  { apt-get -o DPkg::Lock::Timeout=600 update -q && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q qemu-system-x86 busybox-static; }; } >&2 ||
			{ log "cannot install qemu-system-x86"; exit 77; }
	else
		log "qemu-system-x86_64 is not installed"; exit 77
	fi
fi
# busybox must be the static build (ldd fails on a static executable).
if [ ! -x /bin/busybox ] || ldd /bin/busybox >/dev/null 2>&1; then
	[ "$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q busybox-static >&2 ||
		{ log "busybox-static is not installed"; exit 77; }
fi

if [ -z "$kernel" ]; then
	rc=0
	kernel=$("$here/build.sh" $baseline | tail -n1) || rc=$?
	[ "$rc" = 0 ] || exit "$rc"
fi
ksrc=$(cd "$(dirname "$kernel")/../../.." && pwd)
# Hold the cached tree's lock shared while we use it, so that build.sh
# does not prune it under us.
if [ -e "$(dirname "$ksrc").lock" ]; then
	exec 7<"$(dirname "$ksrc").lock"
	flock -s 7
fi

if [ -z "$memctl" ]; then
	for m in "$repo/build/release/memctl" "$repo/build/test/memctl"; do
		[ -x "$m" ] && { memctl=$m; break; }
	done
fi

# Static workload programs and the kernel's own memcg selftest.
bin=${MEMCTL_GUEST_BIN:-${MEMCTL_KERNEL_CACHE:-/var/cache/memctl-kernel}/guest-bin}
# Two guests may start at once (scripts/test.sh runs two baseline-kernel
# tests side by side): one builds into the shared directory at a time.
mkdir -p "$bin"
flock "$bin/.lock" "$repo/tests/guest/build-workloads.sh" "$bin" "$ksrc" >&2
export MEMCTL_GUEST_BIN=$bin

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Snapshot memctl: a parallel rebuild of the build tree must not pull it
# away while the initramfs is written.  Without one, the guest tests that
# need memctl skip.
memctl_given=$memctl
if [ -n "$memctl" ] && cp "$memctl" "$work/memctl" 2>/dev/null; then
	memctl=$work/memctl
else
	[ -n "$memctl" ] && log "warning: cannot read memctl at '$memctl'; the guest has none"
	memctl=
fi
if [ "$systemd" = 1 ]; then
	# The Debian root file system with systemd as PID 1 (systemd-guest.sh).
	. "$here/systemd-guest.sh"
	systemd_guest_prepare
else
	"$here/initramfs.sh" -o "$work/initramfs.cpio" --ksrc "$ksrc" ${memctl:+--memctl "$memctl"}

	drive=()
	if [ "$disk" != 0 ]; then
		truncate -s "${disk}M" "$work/disk.img"
		drive=(-drive "file=$work/disk.img,format=raw,if=virtio,cache=unsafe")
	fi

	cmdline="$(qemu_cmdline_base "$baseline" "$zram")$(qemu_cmdline_test "$test" "$args" "$append")"
	qemu_machine "$kernel"
	qemu+=(-initrd "$work/initramfs.cpio" "${drive[@]}" -append "$cmdline")
fi

if [ "$test" = shell ]; then
	exec "${qemu[@]}"
fi

out=${MEMCTL_GUEST_LOG:-$work/console.log}
t0=$(date +%s.%N)
set +e +o pipefail
timeout --kill-after=5 "$timeout" "${qemu[@]}" < /dev/null 2>&1 | stdbuf -oL tr -d '\r' | tee "$out"
rc=${PIPESTATUS[0]}
set -e -o pipefail
elapsed=$(echo "$(date +%s.%N) - $t0" | bc)
if [ "$systemd" = 1 ]; then systemd_guest_results; fi
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	log "FAIL: guest did not finish within ${timeout}s"
	exit 1
fi
if grep -q -e 'Kernel panic' -e 'BUG:' -e 'Oops:' -e 'WARNING:' "$out"; then
	log "FAIL: kernel oops/panic/warning in the guest log"
	exit 1
fi
end=$(grep -a -o 'MEMCTL-GUEST-END rc=[0-9]*' "$out" | tail -n1 || true)
if [ -z "$end" ]; then
	log "FAIL: no end marker (qemu exit $rc)"
	exit 1
fi
grc=${end#MEMCTL-GUEST-END rc=}
log "guest $test rc=$grc in ${elapsed}s"
exit "$grc"
