#!/usr/bin/env bash
# Fail when a test skipped that is not allowed to skip.
#
#   tests/check-skips.sh FLAVOUR=JUNIT.xml [FLAVOUR=JUNIT.xml ...]
#
# Each argument names a build flavour (test, release) and the JUnit file its
# ctest run wrote (--output-junit).  A skip is a test case ctest did not count
# as run (exit 77, SKIP_RETURN_CODE), or, inside the guest's run of the
# integration suite (guest/integration), a "SKIP integration: NN-name:" line,
# named guest/integration:NN-name.  Every skip must be listed in
# tests/allowed-skips as "FLAVOUR<TAB>NAME<TAB>reason", FLAVOUR being test,
# release or any.  Without such a list a host where, say, no memory cgroup is
# writable would pass CI with the integration suite never run.
#
# Exit: 0 every skip is allowed, 1 some skip is not (each one is printed with
# the reason the test gave), 2 bad arguments or an unreadable file.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
allowed=${MEMCTL_ALLOWED_SKIPS:-$here/allowed-skips}
[ $# -gt 0 ] || { echo "check-skips: usage: $0 FLAVOUR=JUNIT.xml..." >&2; exit 2; }
[ -r "$allowed" ] || { echo "check-skips: cannot read '$allowed'" >&2; exit 2; }

# Skips of one JUnit file as "NAME<TAB>reason" lines.
skips_of() {
	awk '
	function attr(s, a,   r) {
		if (match(s, a "=\"[^\"]*\"")) {
			r = substr(s, RSTART + length(a) + 2, RLENGTH - length(a) - 3)
			return r
		}
		return ""
	}
	/<testcase / { name = attr($0, "name"); notrun = (attr($0, "status") == "notrun"); why = ""; next }
	notrun && /SKIP/ && !/<skipped/ && why == "" { why = $0; sub(/.*<system-out>/, "", why); sub(/^[ \t]*/, "", why) }
	name == "guest/integration" && /SKIP integration: [0-9]+-[^:]*:/ {
		s = $0; sub(/.*SKIP integration: /, "", s)
		n = s; sub(/:.*/, "", n); sub(/^[^:]*: */, "", s)
		print "guest/integration:" n "\t" s
	}
	/<\/testcase>/ { if (notrun) print name "\t" (why == "" ? "(no reason printed)" : why); name = ""; notrun = 0 }
	' "$1"
}

bad=0 total=0
for arg; do
	flavour=${arg%%=*} file=${arg#*=}
	[ "$flavour" != "$arg" ] && [ -r "$file" ] ||
		{ echo "check-skips: expected FLAVOUR=JUNIT.xml, got '$arg'" >&2; exit 2; }
	while IFS=$'\t' read -r name why; do
		total=$((total + 1))
		if awk -F'\t' -v f="$flavour" -v n="$name" '
			/^#/ || NF < 3 { next }
			($1 == f || $1 == "any") && $2 == n { found = 1 }
			END { exit !found }' "$allowed"; then
			echo "check-skips: $flavour: $name skipped (allowed): $why"
		else
			echo "check-skips: $flavour: $name skipped and is not in tests/allowed-skips: $why" >&2
			bad=$((bad + 1))
		fi
	done < <(skips_of "$file")
done
echo "check-skips: $total skips, $bad not allowed"
[ "$bad" = 0 ]
