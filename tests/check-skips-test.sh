#!/usr/bin/env bash
# tests/check-skips.sh on JUnit files written by a real ctest run of a
# scratch project: an unlisted skip fails, a listed one (per flavour or
# "any") passes, a guest integration skip is named and checked, and a
# pass-only run passes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
check() {	# WANT_RC DESCRIPTION ALLOWED-LIST-CONTENT ARGS...
	local want=$1 what=$2 list=$3 rc=0; shift 3
	printf '%b' "$list" > "$work/allowed"
	MEMCTL_ALLOWED_SKIPS=$work/allowed bash "$here/check-skips.sh" "$@" > "$work/out" 2>&1 || rc=$?
	if [ "$rc" = "$want" ]; then echo "ok - $what"; else
		echo "not ok - $what (exit $rc, want $want)"; cat "$work/out"; fails=$((fails + 1)); fi
}
mkdir "$work/p"
cat > "$work/p/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.18)
project(skips NONE)
enable_testing()
add_test(NAME integration/01-skipper COMMAND sh -c "echo 'SKIP: no memory controller'; exit 77")
add_test(NAME guest/integration COMMAND sh -c "echo 'SKIP integration: 24-completion: SKIP: no bash-completion'")
add_test(NAME unit/passes COMMAND true)
set_tests_properties(integration/01-skipper PROPERTIES SKIP_RETURN_CODE 77)
CM
cmake -S "$work/p" -B "$work/b" > /dev/null
(cd "$work/b" && ctest --output-junit "$work/all.xml" > /dev/null) || true
(cd "$work/b" && ctest -R unit/passes --output-junit "$work/pass.xml" > /dev/null)
check 1 "an unlisted skip fails" "# none\n" test="$work/all.xml"
grep -q 'integration/01-skipper skipped and is not in tests/allowed-skips: SKIP: no memory controller' "$work/out" &&
	echo "ok - the failure names the test and its reason" ||
	{ echo "not ok - the failure names the test and its reason"; cat "$work/out"; fails=$((fails + 1)); }
check 1 "a guest integration skip is checked" "test\tintegration/01-skipper\tr\n" test="$work/all.xml"
check 0 "listed skips pass" "test\tintegration/01-skipper\tr\nany\tguest/integration:24-completion\tr\n" test="$work/all.xml"
check 1 "a skip listed for the other flavour fails" "release\tintegration/01-skipper\tr\nany\tguest/integration:24-completion\tr\n" test="$work/all.xml"
check 0 "a run without skips passes" "" test="$work/pass.xml"
check 2 "a missing file is an error" "" test="$work/nonexistent.xml"
exit $((fails > 0))
