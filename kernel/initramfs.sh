#!/bin/bash
# Build the memctl test-host initramfs (an uncompressed newc cpio).
#
#   kernel/initramfs.sh -o OUT.cpio --ksrc KERNEL_TREE [--memctl BIN]
#                       [--add HOST_PATH:GUEST_PATH]...
#
# Contents: busybox-static with its applets, kernel/guest-init as /init,
# tests/guest/ (scripts) as /tests, bench/guest/*.sh as /tests/bench,
# the static workload programs from
# MEMCTL_GUEST_BIN (see tests/guest/build-workloads.sh) as /tests/bin,
# memctl and bash with every shared library ldd names (the dynamic loader
# included) at the same paths as on the host, and the repository's
# tests/integration, tests/golden and profiles below /src.  An ASan build works too: ldd lists
# libasan/libubsan like any other library.
#
# /dev/console has to exist before /init runs; the kernel's own
# usr/gen_init_cpio writes device nodes from a file list, so no root and no
# mknod are needed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
out= ksrc= memctl= adds=()

while [ $# -gt 0 ]; do
	case $1 in
	-o) out=$2; shift 2 ;;
	--ksrc) ksrc=$2; shift 2 ;;
	--memctl) memctl=$2; shift 2 ;;
	--add) adds+=("$2"); shift 2 ;;
	*) echo "initramfs.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
[ -n "$out" ] && [ -n "$ksrc" ] || { echo "initramfs.sh: need -o OUT and --ksrc DIR" >&2; exit 2; }

# The initramfs has no shared libraries for busybox: it must be static.
busybox=/bin/busybox
if [ ! -x "$busybox" ] || ldd "$busybox" >/dev/null 2>&1; then
	echo "initramfs.sh: busybox-static is not installed" >&2
	exit 77
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

gcc -O2 -o "$work/gen_init_cpio" "$ksrc/usr/gen_init_cpio.c"

list=$work/list
declare -A seen_dir=()
add_dir() {
	local d=$1
	[ "$d" = / ] && return
	[ -n "${seen_dir[$d]:-}" ] && return
	add_dir "$(dirname "$d")"
	seen_dir[$d]=1
	echo "dir $d 0755 0 0" >> "$list"
}
add_file() {	# HOST GUEST [MODE]
	add_dir "$(dirname "$2")"
	echo "file $2 $(readlink -f "$1") ${3:-0755} 0 0" >> "$list"
}

: > "$list"
for d in /bin /sbin /usr/bin /usr/sbin /dev /proc /sys /tmp /mnt /root /etc; do
	add_dir "$d"
done
echo "nod /dev/console 0600 0 0 c 5 1" >> "$list"
echo "nod /dev/null 0666 0 0 c 1 3" >> "$list"
add_file "$busybox" /bin/busybox
echo "slink /bin/sh busybox 0777 0 0" >> "$list"
add_file "$here/guest-init" /init

# Tests and workloads.
add_dir /tests
for f in "$repo"/tests/guest/*.sh; do
	[ -e "$f" ] && add_file "$f" "/tests/$(basename "$f")"
done
# The guest benchmarks (bench/guest.sh) run as TEST=bench/NAME.sh.
for f in "$repo"/bench/guest/*.sh; do
	[ -e "$f" ] && add_file "$f" "/tests/bench/$(basename "$f")"
done
bindir=${MEMCTL_GUEST_BIN:-}
if [ -n "$bindir" ] && [ -d "$bindir" ]; then
	add_dir /tests/bin
	for f in "$bindir"/*; do
		[ -f "$f" ] && [ -x "$f" ] && add_file "$f" "/tests/bin/$(basename "$f")"
	done
fi

# A dynamically linked program and the shared objects it needs (the
# dynamic loader included), the libraries at their host paths.
declare -A seen_lib=()
add_program() {	# HOST GUEST
	local lib
	add_file "$1" "$2"
	while read -r lib; do
		[ -n "${seen_lib[$lib]:-}" ] && continue
		seen_lib[$lib]=1
		add_file "$lib" "$lib" 0755
	done < <(ldd "$1" 2>/dev/null | while read -r a b c _; do
		case $a in /*) echo "$a" ;; esac
		[ "$b" = "=>" ] && case $c in /*) echo "$c" ;; esac
	done | sort -u)
}

if [ -n "$memctl" ]; then
	[ -x "$memctl" ] || { echo "initramfs.sh: no memctl binary at '$memctl'" >&2; exit 2; }
	add_program "$memctl" /usr/bin/memctl
fi

# memctl's own integration tests are bash scripts that read the source
# tree's golden files and profiles: bash and those directories go in too.
# GNU tools go to /usr/local/gnu (the integration tests use GNU options
# busybox lacks, such as head -c 50M and dd iflag=nocache); guest tests
# that want them put that directory first in PATH.
if [ -x /bin/bash ]; then
	add_program /bin/bash /usr/bin/bash
	for p in head dd mktemp timeout stat diff find sort seq jq time df date pkill; do
		pp=$(type -P $p || true)
		[ -n "$pp" ] && add_program "$pp" /usr/local/gnu/$p
	done
fi
for d in tests/integration tests/golden profiles; do
	[ -d "$repo/$d" ] || continue
	add_dir "/src/$d"
	for f in "$repo/$d"/*; do
		[ -f "$f" ] && add_file "$f" "/src/$d/$(basename "$f")" 0644
	done
done

for a in "${adds[@]}"; do
	add_file "${a%%:*}" "${a#*:}"
done

"$work/gen_init_cpio" "$list" > "$out"
