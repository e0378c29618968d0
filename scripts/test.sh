#!/usr/bin/env bash
# Every test: set up, build the test flavour (sanitizers, -Werror, fault
# injection) and run the unit and integration suites.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test
scripts/setup.sh release
(cd build/test && ctest --output-on-failure "$@")
# The integration tests again with the optimized binary users run: it can
# lock memory (sanitizer builds cannot) and has no test-only switches; the
# packaging tests (dist) build the .deb from it.
(cd build/release && ctest --output-on-failure -L 'integration|dist' "$@")
# Each libFuzzer target for a short, fixed time (scripts/fuzz.sh runs them longer).
scripts/fuzz.sh 20
