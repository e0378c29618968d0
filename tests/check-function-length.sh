#!/usr/bin/env bash
# Functions longer than 60 lines must be split or say why in the comment
# right above them.
#
#   tests/check-function-length.sh SOURCE_DIR
#
# Checks every .c file of the folders the ```layers block of
# docs/ARCHITECTURE.md names, and every other .c file of the tree (tests,
# benchmarks, workloads; not the build directories).  A function is a body between a "{" and a "}"
# at column 0 (the project's style); its length counts the lines between
# them.  The comment that ends on the line above its signature must give the
# reason in a sentence containing "long because" (or "one piece because"),
# which may wrap from one comment line to the next.
#
# Exit: 0 clean, 1 some function is too long without a reason, 2 bad usage.
set -euo pipefail
src=${1:?usage: check-function-length.sh SOURCE_DIR}
max=${MEMCTL_MAX_FUNCTION_LINES:-60}
doc=$src/docs/ARCHITECTURE.md
[ -r "$doc" ] || { echo "check-function-length: cannot read '$doc'" >&2; exit 2; }
cd "$src"
folders=$(awk -F: '/^```layers/ { on = 1; next } /^```/ { on = 0 }
	on && !/^#/ && NF { n = $1; gsub(/ /, "", n); if (n !~ /\./) print n }' "$doc")
files=$( (for d in $folders; do ls "$d"/*.c 2>/dev/null || true; done
	find . \( -path './build*' -o -path ./.git \) -prune -o -name '*.c' -print | sed 's|^\./||') | sort -u)
[ -n "$files" ] || { echo "check-function-length: no C files found" >&2; exit 2; }
# shellcheck disable=SC2086
awk -v max="$max" '
	FNR == 1 { incmt = 0; cmt = ""; cmt_end = -10; sig = ""; start = 0 }
	!start && /^\/\*/ { incmt = 1; cmt = "" }
	# the comment as one line of words, so that a reason may wrap
	incmt { l = $0; sub(/^[ \t]*\*+[ \t]*/, "", l); cmt = cmt " " l
		if ($0 ~ /\*\//) { incmt = 0; cmt_end = FNR; last = cmt }; next }
	!start && /^[A-Za-z_].*\(/ && !/;[ \t]*$/ {
		sig = $0; sigline = FNR; why = (FNR - cmt_end == 1) ? last : ""
	}
	!start && /^\{/ { start = FNR; next }
	start && /^\}/ {
		len = FNR - start - 1; n = sig; sub(/\(.*/, "", n); sub(/.*[ *]/, "", n)
		if (len > max && why !~ /[Ll]ong because|one piece because/) {
			printf "%s:%d: %s is %d lines long (more than %d) and its comment gives no reason\n", FILENAME, sigline, n, len, max
			bad++
		}
		start = 0
	}
	END { printf "check-function-length: %d functions too long without a reason\n", bad; exit bad > 0 }
' $files
