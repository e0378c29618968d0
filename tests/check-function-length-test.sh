#!/usr/bin/env bash
# tests/check-function-length.sh on scratch trees: a function of 61 lines
# fails without a reason, in a layer folder and in tests/ alike; a reason
# that wraps over two comment lines passes; 60 lines pass; build/ is not
# read.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
fn() {	# LINES [COMMENT]: a function whose body is LINES lines
	[ -z "${2:-}" ] || printf '%s\n' "$2"
	printf 'int f(void)\n{\n'
	for ((i = 0; i < $1; i++)); do printf '\t(void)0;\n'; done
	printf '}\n'
}
tree() {	# DIR
	mkdir -p "$1/docs" "$1/engine" "$1/tests/unit" "$1/build/x"
	printf '%s\n' '```layers' 'engine :' '```' > "$1/docs/ARCHITECTURE.md"
	fn 61 > "$1/build/x/gen.c"	# never read
}
check() {	# WANT_RC WHAT DIR [PATTERN]
	local rc=0
	bash "$here/check-function-length.sh" "$3" > "$work/out" 2>&1 || rc=$?
	if [ "$rc" = "$1" ] && { [ -z "${4:-}" ] || grep -q "$4" "$work/out"; }; then
		echo "ok - $2"
	else
		echo "not ok - $2 (exit $rc, want $1)"; cat "$work/out"; fails=$((fails + 1))
	fi
}
tree "$work/ok"; fn 60 > "$work/ok/engine/a.c"
fn 61 $'/*\n * Why: it is long\n * because it is one table.\n */' > "$work/ok/engine/b.c"
check 0 "60 lines, and 61 with a wrapped reason, pass" "$work/ok"

tree "$work/layer"; fn 61 '/* Does f. */' > "$work/layer/engine/a.c"
check 1 "61 lines in a layer without a reason fail" "$work/layer" "engine/a.c:2: f is 61 lines long"

tree "$work/test"; fn 61 > "$work/test/tests/unit/t.c"
check 1 "61 lines in a test without a reason fail" "$work/test" "tests/unit/t.c:1: f is 61 lines long"
exit $((fails > 0))
