#!/usr/bin/env bash
# Every test: set up, build the test flavour (sanitizers, -Werror, fault
# injection) and run the unit and integration suites.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test
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
