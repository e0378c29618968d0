# No two object files of a library call each other: a file's callees never
# call back into it, so each layer's files form a one-way order. Fails
# naming each pair and the symbols that tie it. Usage:
#   check-no-cycles.sh libmemctl_host.a [more.a...]
set -u
status=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for lib; do
	# "object symbol" lines: what each object defines, and what it needs.
	nm -A --format=posix --defined-only "$lib" 2>/dev/null |
		awk '$3 ~ /^[TDBRC]$/ {o = $1; sub(/.*\[/, "", o); sub(/\]:$/, "", o); print o, $2}' |
		sort -u > "$tmp/def"
	nm -A --format=posix -u "$lib" 2>/dev/null |
		awk '{o = $1; sub(/.*\[/, "", o); sub(/\]:$/, "", o); print o, $2}' | sort -u > "$tmp/use"
	# "user definer symbol" for every call between two objects of this library.
	join -1 2 -2 2 -o 1.1,2.1,0 <(sort -k2 "$tmp/use") <(sort -k2 "$tmp/def") |
		awk '$1 != $2' | sort -u > "$tmp/edges"
	pairs=$(awk '{e[$1 " " $2] = e[$1 " " $2] " " $3}
		END {for (k in e) {split(k, a, " "); r = a[2] " " a[1];
			if ((r in e) && a[1] < a[2]) print a[1] " <-> " a[2] ":" e[k] " /" e[r]}}' "$tmp/edges")
	n=$(wc -l < "$tmp/edges")
	if [ -n "$pairs" ]; then
		echo "not ok - $(basename "$lib"): files that call each other:"
		echo "$pairs" | sed 's/^/  /'
		status=1
	else
		echo "ok - $(basename "$lib"): no two files call each other ($n calls between files checked)"
	fi
done
exit $status
