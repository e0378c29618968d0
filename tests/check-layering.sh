#!/usr/bin/env bash
# The layering rules of docs/ARCHITECTURE.md, checked on the source tree and
# on the built objects.
#
#   tests/check-layering.sh SOURCE_DIR BUILD_DIR
#
# 1. Includes: the ```layers block of docs/ARCHITECTURE.md says, per folder
#    (or per file), which other folders its files may include.  Every
#    #include "x.h" and #include <x.h> of every .c and .h in a listed folder
#    is resolved as the compiler would find it (a quoted name relative to the
#    including file's own folder first, then every listed folder, as the
#    build's -I options do; "../host/x.h" is the file it names) and must land
#    in its own folder or an allowed one.  A name found in no listed folder is
#    a system header, unless it names a path into the source tree outside
#    the listed folders, which no layer may include.
# 2. No two files depend on each other: from `nm` on every object below
#    BUILD_DIR/CMakeFiles, file A using a function or a global (variable or
#    constant) that file B defines while B uses one that A defines is a
#    cycle, whatever the layers say. One kind of use does not count: a
#    command's entry (cmd_NAME_entry) is listed in the command table, which
#    the command looks others up in; that is the table's registration of it,
#    not a dependency of the table on the command.
#
# Exit: 0 clean, 1 a rule is broken (each violation printed), 2 bad usage.
set -euo pipefail
src=${1:?usage: check-layering.sh SOURCE_DIR BUILD_DIR}
build=$(cd "${2:?usage: check-layering.sh SOURCE_DIR BUILD_DIR}" && pwd)
doc=$src/docs/ARCHITECTURE.md
[ -r "$doc" ] || { echo "check-layering: cannot read '$doc'" >&2; exit 2; }

# "NAME : ALLOWED..." lines of the ```layers block; NAME is a folder or a file.
rules=$(awk '/^```layers/ { on = 1; next } /^```/ { on = 0 } on && !/^#/ && NF' "$doc")
[ -n "$rules" ] || { echo "check-layering: no \`\`\`layers block in $doc" >&2; exit 2; }
folders=$(echo "$rules" | awk -F: '{ gsub(/ /, "", $1); if ($1 !~ /\./) print $1 }')
allowed_for() {	# FILE (relative) -> the folders it may include, its own first
	local f=$1 dir=${1%/*}
	echo "$dir"
	echo "$rules" | awk -F: -v d="$dir" -v f="$f" '{ n = $1; gsub(/ /, "", n); if (n == d || n == f) print $2 }' | tr ' ' '\n' | grep . || true
}

bad=0
cd "$src"
for dir in $folders; do
	[ -d "$dir" ] || { echo "check-layering: folder '$dir' of the layers block does not exist" >&2; bad=$((bad + 1)); continue; }
	for f in "$dir"/*.[ch]; do
		[ -e "$f" ] || continue
		ok=$(allowed_for "$f")
		while read -r form inc; do
			[ -n "$inc" ] || continue
			found=
			if [ "$form" = q ] && [ -e "$dir/$inc" ]; then found=$dir/$inc; else
				for d in $folders; do [ -e "$d/$inc" ] && { found=$d/$inc; break; }; done
			fi
			[ -n "$found" ] || continue	# a system or generated header
			# the folder the file really lies in, whatever ../ the name holds
			found=$(realpath -m --relative-to=. "$found")
			where=${found%/*}
			[ "$where" != "$found" ] || where=.
			if ! grep -qxF "$where" <<< "$ok"; then
				echo "layering: $f includes $found, which its layer may not include"
				bad=$((bad + 1))
			fi
		done < <(sed -n -e 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/q \1/p' \
			-e 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*<\([^>]*\)>.*/a \1/p' "$f")
	done
done

# Object-level cycles: defined and used symbols per object file.
objs=$(find "$build/CMakeFiles" -name '*.c.o' -path '*memctl*' | sort)
[ -n "$objs" ] || { echo "check-layering: no objects below $build/CMakeFiles" >&2; exit 2; }
cycles=$(for o in $objs; do
	name=${o#*CMakeFiles/}; name=${name#*.dir/}; name=${name%.o}
	nm "$o" | awk -v f="$name" 'NF == 3 && $2 ~ /^[TDBCRVW]$/ { print "D", $3, f } $1 == "U" { print "U", $2, f }'
done | awk '
	$1 == "D" { def[$2] = $3; next }
	$2 ~ /^cmd_[a-z0-9_]+_entry$/ { next }
	{ use[NR] = $2; user[NR] = $3 }
	END {
		for (i in use) if ((use[i] in def) && def[use[i]] != user[i]) {
			e = user[i] SUBSEP def[use[i]]
			if (!(e in edge)) { edge[e] = use[i] }
		}
		for (e in edge) {
			split(e, p, SUBSEP)
			r = p[2] SUBSEP p[1]
			if ((r in edge) && p[1] < p[2])
				print p[1] " uses " edge[e] " of " p[2] " and " p[2] " uses " edge[r] " of " p[1]
		}
	}')
if [ -n "$cycles" ]; then
	while read -r c; do echo "cycle: $c"; bad=$((bad + 1)); done <<< "$cycles"
fi
echo "check-layering: $bad violations"
[ "$bad" = 0 ]
