#!/bin/bash
# Build the guest's static programs into OUTDIR:
#   tests/guest/*.c                      one program each (workloads)
#   tests/workloads/*.c, bench/guest/*.c the shared workloads and the guest
#                                        benchmarks' jobs (bench/guest.sh)
#   test_memcontrol                      the kernel's own memcg selftest,
#                                        from KSRC/tools/testing/selftests
# They run under busybox in the initramfs, so everything is linked -static.
#   build-workloads.sh OUTDIR KSRC
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1 ksrc=$2
mkdir -p "$out"
cc=${CC:-gcc}
for src in "$here"/*.c; do
	[ -e "$src" ] || continue
	bin=$out/$(basename "$src" .c)
	if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ]; then
		$cc -static -O2 -Wall -Wextra -o "$bin" "$src"
	fi
done
# The shared workloads (tests/workloads: ws-reader, streamer, mkfile,
# resident, each linked with wl.c) and the guest benchmarks' own programs
# (bench/guest/*.c) go in too.
repo=$(cd "$here/../.." && pwd)
for src in "$repo"/tests/workloads/{ws-reader,streamer,mkfile,resident}.c "$repo"/bench/guest/*.c; do
	[ -e "$src" ] || continue
	bin=$out/$(basename "$src" .c)
	extra=()
	case $src in */tests/workloads/*) extra=("$repo/tests/workloads/wl.c") ;; esac
	if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ] || { [ ${#extra[@]} -gt 0 ] && [ "${extra[0]}" -nt "$bin" ]; }; then
		$cc -static -O2 -Wall -Wextra -Wno-unused-parameter -o "$bin" "$src" "${extra[@]}"
	fi
done
# The selftest is built the way its own Makefile builds it: without
# optimization.  At -O2 the compiler drops alloc_anon()'s writes to memory
# it frees right away (and the malloc with them), so the tests that expect
# an allocation to be OOM-killed or to be charged fail.
st=$ksrc/tools/testing/selftests/cgroup
if [ ! -x "$out/test_memcontrol" ] || [ "$st/test_memcontrol.c" -nt "$out/test_memcontrol" ] ||
   [ "$0" -nt "$out/test_memcontrol" ]; then
	$cc -static -Wall -pthread -w -I"$ksrc/tools/testing/selftests" -I"$ksrc/usr/include" \
		-o "$out/test_memcontrol" "$st/test_memcontrol.c" "$st/cgroup_util.c" 2>/dev/null
fi
