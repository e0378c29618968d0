#!/usr/bin/env bash
# tests/check-layering.sh on scratch trees: a clean one passes; an include
# of a higher layer (by name, by a ../ path or through <>), an include of a
# layer the file's own rule does not
# list, two objects that call each other and two tied by a global each fail
# with a message; a command entry listed in the command table does not.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
tree() {	# DIR: a two-layer tree whose host/ may include engine/
	mkdir -p "$1/docs" "$1/engine" "$1/host" "$1/b/CMakeFiles/memctl_x.dir/engine" \
		"$1/b/CMakeFiles/memctl_x.dir/host"
	printf '%s\n' '```layers' 'engine :' 'host : engine' '```' > "$1/docs/ARCHITECTURE.md"
	printf 'int e(void);\n' > "$1/engine/e.h"
	printf '#include "e.h"\nint e(void) { return 1; }\n' > "$1/engine/e.c"
	printf 'int h(void);\n' > "$1/host/h.h"
	printf '#include "h.h"\n#include "e.h"\nint h(void) { return e(); }\n' > "$1/host/h.c"
}
objects() {	# DIR
	gcc -c -I "$1/engine" -I "$1/host" -o "$1/b/CMakeFiles/memctl_x.dir/engine/e.c.o" "$1/engine/e.c"
	gcc -c -I "$1/engine" -I "$1/host" -o "$1/b/CMakeFiles/memctl_x.dir/host/h.c.o" "$1/host/h.c"
}
check() {	# WANT_RC WHAT DIR [PATTERN]
	local rc=0
	bash "$here/check-layering.sh" "$3" "$3/b" > "$work/out" 2>&1 || rc=$?
	if [ "$rc" = "$1" ] && { [ -z "${4:-}" ] || grep -q "$4" "$work/out"; }; then
		echo "ok - $2"
	else
		echo "not ok - $2 (exit $rc, want $1)"; cat "$work/out"; fails=$((fails + 1))
	fi
}
tree "$work/clean"; objects "$work/clean"
check 0 "a tree that keeps its layers passes" "$work/clean"

tree "$work/up"; printf '#include "h.h"\nint e(void) { return 1; }\n' > "$work/up/engine/e.c"; objects "$work/up"
check 1 "engine including host fails" "$work/up" "engine/e.c includes host/h.h"

# the compiler finds a header by a path or through -I as well
tree "$work/rel"; printf '#include "../host/h.h"\nint e(void) { return 1; }\n' > "$work/rel/engine/e.c"; objects "$work/rel"
check 1 "engine including ../host/h.h fails" "$work/rel" "engine/e.c includes host/h.h"
tree "$work/angle"; printf '#include <h.h>\nint e(void) { return 1; }\n' > "$work/angle/engine/e.c"; objects "$work/angle"
check 1 "engine including <h.h> of host fails" "$work/angle" "engine/e.c includes host/h.h"
tree "$work/sys"; printf '#include <stdio.h>\n#include "e.h"\nint e(void) { return 1; }\n' > "$work/sys/engine/e.c"; objects "$work/sys"
check 0 "system headers pass" "$work/sys"

tree "$work/cycle"
printf '#include "h.h"\nint e(void) { return h(); }\nint e2(void) { return 2; }\n' > "$work/cycle/engine/e.c"
printf '#include "e.h"\nint e2(void);\nint h(void) { return e2(); }\n' > "$work/cycle/host/h.c"
printf '%s\n' '```layers' 'engine : host' 'host : engine' '```' > "$work/cycle/docs/ARCHITECTURE.md"
objects "$work/cycle"
check 1 "two files calling each other fail" "$work/cycle" "cycle: engine/e.c uses h of host/h.c and host/h.c uses e2 of engine/e.c"

# a global variable ties two files as a call does
tree "$work/data"
printf '#include "h.h"\nint e_count;\nint e(void) { return h(); }\n' > "$work/data/engine/e.c"
printf '#include "e.h"\nextern int e_count;\nint h(void) { return e_count++; }\n' > "$work/data/host/h.c"
printf '%s\n' '```layers' 'engine : host' 'host : engine' '```' > "$work/data/docs/ARCHITECTURE.md"
objects "$work/data"
check 1 "two files tied by a global and a call fail" "$work/data" "cycle: engine/e.c uses h of host/h.c and host/h.c uses e_count of engine/e.c"

# a command's entry listed in the command table is registration, not a cycle
tree "$work/table"
printf 'struct c { int (*f)(void); };\nextern const struct c cmd_x_entry;\nextern const struct c *const table[];\nint e(void);\n' > "$work/table/engine/e.h"
printf '#include "e.h"\nconst struct c *const table[] = { &cmd_x_entry, 0 };\nint e(void) { return 1; }\n' > "$work/table/engine/e.c"
printf '#include "e.h"\nstatic int x(void) { return table[0] != 0; }\nconst struct c cmd_x_entry = { x };\nint h(void) { return e(); }\n' > "$work/table/host/h.c"
objects "$work/table"
check 0 "a command entry in the command table is no cycle" "$work/table"

tree "$work/nodoc"; objects "$work/nodoc"; rm "$work/nodoc/docs/ARCHITECTURE.md"
check 2 "no layers block is an error" "$work/nodoc"
exit $((fails > 0))
