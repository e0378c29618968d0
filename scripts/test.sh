#!/usr/bin/env bash
# Every test: set up, build the test flavour (sanitizers, -Werror, fault
# injection) and run the unit and integration suites.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test
# The guest tests' two kernels and the systemd guest's root file system are
# most of a fresh machine's run (about 6 minutes of CPU per kernel, and the
# download of a Debian system). Unless only some tests were asked for, build
# them now in the background, niced, while memctl builds and the host tests
# run: the guest tests' own kernel/build.sh and kernel/rootfs.sh calls wait
# for them (the cache lock) and reuse what they built, or report why not.
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
scripts/setup.sh release
# Each run writes a JUnit file; tests/check-skips.sh then fails the run when a
# test skipped that tests/allowed-skips does not list.
(cd build/test && ctest --output-on-failure --output-junit "$PWD/ctest.xml" "$@")
# The integration tests again with the optimized binary users run: it can
# lock memory (sanitizer builds cannot) and has no test-only switches; the
# packaging tests (dist) build the .deb from it.
(cd build/release && ctest --output-on-failure --output-junit "$PWD/ctest.xml" -L 'integration|dist' "$@")
tests/check-skips.sh test=build/test/ctest.xml release=build/release/ctest.xml
# Each libFuzzer target for a short, fixed time (scripts/fuzz.sh runs them longer).
scripts/fuzz.sh 20
