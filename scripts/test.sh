#!/usr/bin/env bash
# Every test: set up, build the test flavour (sanitizers, -Werror, fault
# injection) and run the unit and integration suites.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test
cd build/test
ctest --output-on-failure "$@"
