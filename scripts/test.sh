#!/usr/bin/env bash
# Every test: set up, build the test flavour (sanitizers, -Werror, fault
# injection) and run the unit and integration suites.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh deps
# The guest tests' two kernels and the systemd guest's root file system are
# most of a fresh machine's run (about 11 minutes of both cores per kernel,
# and the download of a Debian system). Unless only some tests were asked for, build
# them now in the background while memctl builds and the host tests run:
# the guest tests' own kernel/build.sh and kernel/rootfs.sh calls wait for
# them (the cache lock) and reuse what they built, or report why not. Each
# runs in a session of its own; where the kernel groups a session's
# processes for the scheduler (autogroup, as on Debian), each session gets
# an equal share of the CPU whatever its nice value, which orders only the
# processes inside it, so the kernels build at about one core of two
# beside the tests, the critical path of a fresh run.
prebuild=()
if [ $# -eq 0 ]; then
	mkdir -p build
	# each in a process group of its own, so that an early exit ends it whole
	setsid bash -c 'nice -n 10 kernel/build.sh && nice -n 10 kernel/build.sh --baseline' \
		> build/prebuild-kernels.log 2>&1 &
	prebuild+=($!)
	setsid nice -n 10 kernel/rootfs.sh > build/prebuild-rootfs.log 2>&1 &
	prebuild+=($!)
	trap 'for p in "${prebuild[@]}"; do kill -- "-$p" 2>/dev/null || true; done' EXIT
fi
# memctl's two flavours build beside the kernels: the kernels, not the
# host's tests, are the critical path of a fresh run.
scripts/setup.sh test
scripts/setup.sh release
# The host's tests first, then the release binary's: on a fresh machine they
# run while the kernels build. Then the guest tests: those that need only
# the patched kernel (built first) while the baseline builds, and last those
# that boot the baseline too (label baseline-kernel). Each run writes a
# JUnit file; tests/check-skips.sh then fails the run when a test skipped
# that tests/allowed-skips does not list.
guests='guest|bench-guest'
(cd build/test && ctest --output-on-failure --output-junit "$PWD/ctest-host.xml" -LE "$guests" "$@")
# The integration tests again with the optimized binary users run: it can
# lock memory (sanitizer builds cannot) and has no test-only switches; the
# packaging tests (dist) build the .deb from it.
(cd build/release && ctest --output-on-failure --output-junit "$PWD/ctest.xml" -L 'integration|dist' "$@")
# Each libFuzzer target for a short, fixed time (scripts/fuzz.sh runs them
# longer), beside the guest tests at the lowest priority: a TCG guest keeps
# about one of the two cores busy, so the fuzzers take what it leaves, and
# neither the kernel builds nor the guests wait for them. Their session's
# autogroup gets nice 19 too (written from inside it, after setsid), or it
# would take an equal share from the kernels and guests.
mkdir -p build
setsid -w bash -c '{ echo 19 > /proc/self/autogroup; } 2>/dev/null; exec nice -n 19 scripts/fuzz.sh 20' \
	> build/fuzz-short.log 2>&1 &
fuzz=$!
prebuild+=("$fuzz")
trap 'for p in "${prebuild[@]}"; do kill -- "-$p" 2>/dev/null || true; done' EXIT
(cd build/test && ctest --output-on-failure --output-junit "$PWD/ctest-patched.xml" -L "$guests" -LE baseline-kernel "$@")
# Two at a time: the guests of this stage leave about a third of the two
# cores idle (one TCG guest rarely keeps both of its vCPUs busy), and
# nothing else is left to run. The two that only report or that boot
# systemd (bench-guest/quick, guest/systemd-baseline) take turns on a lock
# of their own beside the others, which take turns on memctl-guest.
(cd build/test && ctest -j2 --output-on-failure --output-junit "$PWD/ctest-baseline.xml" -L baseline-kernel "$@")
tests/check-skips.sh test=build/test/ctest-host.xml test=build/test/ctest-patched.xml \
	test=build/test/ctest-baseline.xml release=build/release/ctest.xml
rc=0
wait "$fuzz" || rc=$?
cat build/fuzz-short.log
[ "$rc" = 0 ] || { echo "test.sh: the fuzzers' short runs failed (exit $rc)" >&2; exit "$rc"; }
