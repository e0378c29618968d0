#!/usr/bin/env bash
# The README's layout table names every source file of the layers and every
# integration test's number.
#
#   tests/check-readme-layout.sh SOURCE_DIR
#
# 1. Each folder of the ```layers block of docs/ARCHITECTURE.md has a row
#    "| `DIR/` | ... |" in README.md, and every DIR/*.c is named in it, by
#    its name (`subtree.c`) or by a pattern in backquotes (`cmd-*.c`).
# 2. The tests/integration/ row's number ranges ("01-08", "30", ...) hold
#    the number of every tests/integration/NN-*.sh.
#
# Exit: 0 the table names everything, 1 something is missing (each printed),
# 2 bad usage.
set -euo pipefail
src=${1:?usage: check-readme-layout.sh SOURCE_DIR}
cd "$src"
[ -r README.md ] && [ -r docs/ARCHITECTURE.md ] ||
	{ echo "check-readme-layout: cannot read README.md and docs/ARCHITECTURE.md in '$src'" >&2; exit 2; }
folders=$(awk -F: '/^```layers/ { on = 1; next } /^```/ { on = 0 }
	on && !/^#/ && NF { n = $1; gsub(/ /, "", n); if (n !~ /\./) print n }' docs/ARCHITECTURE.md)
[ -n "$folders" ] || { echo "check-readme-layout: no layers block" >&2; exit 2; }
row() { grep -F "| \`$1/\` |" README.md || true; }

bad=0
for d in $folders; do
	r=$(row "$d")
	if [ -z "$r" ]; then
		echo "readme-layout: no row for $d/ in README.md's layout table"
		bad=$((bad + 1))
		continue
	fi
	# the backquoted words of the row that name C files, patterns included
	pats=$(grep -o '`[^`]*\.c`' <<< "$r" | tr -d '`' || true)
	for f in "$d"/*.c; do
		[ -e "$f" ] || continue
		b=${f##*/} hit=
		for p in $pats; do
			# shellcheck disable=SC2053
			[[ $b == $p ]] && { hit=1; break; }
		done
		[ -n "$hit" ] || { echo "readme-layout: $f is not named in the $d/ row"; bad=$((bad + 1)); }
	done
done

r=$(row tests/integration)
ranges=$(grep -oE '(^|[ ;:])[0-9]{2}(-[0-9]{2})?( |$)' <<< "${r#*|*|}" | tr -d ' ;:' || true)
for t in tests/integration/[0-9][0-9]-*.sh; do
	[ -e "$t" ] || continue
	n=${t##*/}; n=$((10#${n%%-*})) hit=
	for rg in $ranges; do
		lo=$((10#${rg%-*})) hi=$((10#${rg#*-}))
		[ "$n" -ge "$lo" ] && [ "$n" -le "$hi" ] && { hit=1; break; }
	done
	[ -n "$hit" ] || { echo "readme-layout: $t's number is in no range of the tests/integration/ row"; bad=$((bad + 1)); }
done
echo "check-readme-layout: $bad missing"
[ "$bad" = 0 ]
