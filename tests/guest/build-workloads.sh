#!/bin/bash
# Build the guest's static programs into OUTDIR:
#   tests/guest/*.c                      one program each (workloads)
#   bench/guest/*.c                      the guest benchmarks' jobs
#   tests/workloads/*.c                  the shared workloads
#   test_memcontrol                      the kernel's own memcg selftest,
#                                        from KSRC/tools/testing/selftests
# They run under busybox in the initramfs, so everything is linked -static.
#   build-workloads.sh OUTDIR KSRC
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1 ksrc=$2
mkdir -p "$out"
cc=${CC:-gcc}
# tests/guest's programs, and the guest benchmarks' (bench/guest.sh)
for src in "$here"/*.c "$here"/../../bench/guest/*.c; do
	[ -e "$src" ] || continue
	bin=$out/$(basename "$src" .c)
	if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ]; then
		$cc -static -O2 -Wall -Wextra -o "$bin" "$src"
	fi
done
# The host's test workloads (tests/workloads) too, for memctl's own
# integration tests on v2 (MEMCTL_WORKLOADS=/tests/bin in the guest).
wl=$here/../workloads
for name in ws-reader streamer resident mkfile hog reqloop; do
	bin=$out/$name
	if [ ! -x "$bin" ] || [ "$wl/$name.c" -nt "$bin" ] || [ "$wl/wl.c" -nt "$bin" ]; then
		$cc -static -O2 -Wall -Wextra -Wno-unused-parameter -I"$wl" -o "$bin" "$wl/$name.c" "$wl/wl.c"
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
