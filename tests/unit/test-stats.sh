#!/bin/sh
# Tests bench/stats.sh against values worked out by hand (shown beside each
# case) and against scipy's documented example, once under this shell and
# the system awk, once under busybox sh and busybox awk (the QEMU test
# host's shell and awk; scripts/setup.sh installs busybox-static).
#
#   test-stats.sh [--inner]   (--inner: run the cases in this shell only)
set -u
src=${MEMCTL_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}

if [ "${1:-}" != --inner ]; then
	rc=0
	echo "# $(readlink -f "$(command -v awk)") under sh"
	sh "$0" --inner || rc=1
	bb=$(command -v busybox || true)
	if [ -z "$bb" ]; then
		echo "not ok - busybox is missing (scripts/setup.sh installs busybox-static)"
		exit 1
	fi
	# a private bin directory whose awk and sh are busybox's
	dir=$(mktemp -d) || exit 1
	trap 'rm -rf "$dir"' EXIT
	for a in awk sh seq mktemp rm cat; do ln -s "$bb" "$dir/$a"; done
	echo "# busybox awk under busybox sh"
	PATH=$dir "$bb" sh "$0" --inner || rc=1
	exit $rc
fi

. "$src/bench/stats.sh"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0
fail=0
# is NAME EXPECTED ACTUAL: numbers compared to 4 significant digits when both
# parse as numbers, otherwise the strings exactly
is() {
	n=$((n + 1))
	if awk -v e="$2" -v a="$3" 'BEGIN {
		ne = split(e, x, " "); na = split(a, y, " ")
		if (ne != na) exit 1
		for (i = 1; i <= ne; i++) {
			if (x[i] == y[i]) continue
			if (x[i] !~ /^[-+.0-9eE]+$/ || y[i] !~ /^[-+.0-9eE]+$/) exit 1
			d = x[i] - y[i]; if (d < 0) d = -d
			m = x[i] < 0 ? -x[i] : x[i]
			if (d > 5e-5 * m + 1e-12) exit 1
		}
	}'; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1: expected \"$2\", got \"$3\""
		fail=1
	fi
}
lines() { for v in "$@"; do echo "$v"; done; }

# Type 7 quartiles of 1..10: h = 1 + 9p, so q1 at h = 3.25 -> 3.25, the
# median at h = 5.5 -> 5.5, q3 at h = 7.75 -> 7.75 (R: quantile(1:10)).
is "summary of 1..10" "5.5 3.25 7.75 10" "$(lines 10 9 8 7 6 5 4 3 2 1 | stats_summary)"
# 3 1 2 sorted 1 2 3: q1 at h = 1.5 -> 1.5, median 2, q3 at h = 2.5 -> 2.5
is "summary of 3 1 2" "2 1.5 2.5 3" "$(lines 3 1 2 | stats_summary)"
is "summary of one value" "7 7 7 1" "$(echo 7 | stats_summary)"
# 0.5 2.25 1e3 -1 sorted -1 0.5 2.25 1000: q1 at h = 1.75 -> -1 + 0.75 * 1.5
# = 0.125, median at 2.5 -> 1.375, q3 at 3.25 -> 2.25 + 0.25 * 997.75 = 251.6875
is "summary with a negative and an exponent" "1.375 0.125 251.6875 4" "$(lines 0.5 '' 2.25 1e3 -1 | stats_summary)"
# large counts keep every digit (no %g rounding to 6 digits)
is "summary of large counts" "123456789 123456789 123456789 1" "$(echo 123456789 | stats_summary)"
is "summary of nothing" "- - - 0" "$(: | stats_summary)"
lines 1 x 3 | stats_summary > "$tmp/out" 2> "$tmp/err"
is "summary rejects a word (exit 2)" "2" "$?"
is "summary names the line" "stats_summary: line 2: not a number: \"x\"" "$(cat "$tmp/err")"

lines 1 2 3 > "$tmp/a"
lines 4 5 6 > "$tmp/b"
# Every A below every B: U = 0. Exact: of the C(6,3) = 20 arrangements one
# has U = 0 and one U = 9, so p = 2 * 1/20 = 0.1.
is "mwu separated, exact" "0 0.1" "$(stats_mwu "$tmp/a" "$tmp/b")"
is "mwu the other way" "9 0.1" "$(stats_mwu "$tmp/b" "$tmp/a")"
# scipy.stats.mannwhitneyu's documented example (males against females):
# statistic 17, exact p 0.1111 (14 of the 126 arrangements are as extreme).
lines 19 22 16 29 24 > "$tmp/m"
lines 20 11 17 12 > "$tmp/f"
is "mwu scipy's example, exact" "17 0.1111111" "$(stats_mwu "$tmp/m" "$tmp/f")"
# Values closer than awk's 6-digit conversion of numbers to strings stay
# distinct: A = 1.0000001 1.0000003 5 and B = 1.0000002 1.0000004 6 give
# U = 0 + 1 + 2 = 3. For 3 against 3 the 20 arrangements have U = 0..9
# 1, 1, 2, 3, 3, 3, 3, 2, 1, 1 times, so P(U <= 3) = 7/20 and p = 0.7.
lines 1.0000001 1.0000003 5 > "$tmp/c"
lines 1.0000002 1.0000004 6 > "$tmp/d"
is "mwu close values stay distinct" "3 0.7" "$(stats_mwu "$tmp/c" "$tmp/d")"
# Ties, normal approximation. A = 1 2 2 3, B = 2 3 3 4: mean ranks 1 | 3 3
# 3 | 6 6 6 | 8, so R_A = 1 + 3 + 3 + 6 = 13 and U = 13 - 10 = 3. Tie term
# 2 * (27 - 3) = 48; var = 16/12 * (9 - 48/56) = 10.857143, sd 3.295018;
# z = (|3 - 8| - 0.5) / sd = 1.365699; p = erfc(z / sqrt 2) = 0.172034.
lines 1 2 2 3 > "$tmp/ta"
lines 2 3 3 4 > "$tmp/tb"
is "mwu with ties, normal" "3 0.1720337" "$(stats_mwu "$tmp/ta" "$tmp/tb")"
# More than 40 values, no ties: A = odd 1..49, B = even 2..50. An odd 2k-1
# beats the k-1 evens below it: U = 0 + 1 + ... + 24 = 300; mu = 312.5,
# var = 625 * 51 / 12 = 2656.25, z = 12 / 51.539306 = 0.232832,
# p = erfc(z / sqrt 2) = 0.815890.
seq 1 2 49 > "$tmp/odd"
seq 2 2 50 > "$tmp/even"
is "mwu 50 values, normal" "300 0.8158902" "$(stats_mwu "$tmp/odd" "$tmp/even")"
# A/A: identical samples, every value tied with its twin: U = mu, p = 1
is "mwu identical samples" "4.5 1" "$(stats_mwu "$tmp/a" "$tmp/a")"
# one value repeated everywhere: variance 0, nothing to tell apart
lines 5 5 > "$tmp/e1"
lines 5 5 5 > "$tmp/e2"
is "mwu all equal" "3 1" "$(stats_mwu "$tmp/e1" "$tmp/e2")"
: > "$tmp/empty"
is "mwu with an empty sample" "- -" "$(stats_mwu "$tmp/empty" "$tmp/a")"
stats_mwu "$tmp/a" "$tmp/nonexistent" > "$tmp/out" 2> "$tmp/err"
is "mwu on a missing file (exit 2)" "2" "$?"
lines 1 2.5.1 > "$tmp/bad"
stats_mwu "$tmp/a" "$tmp/bad" > "$tmp/out" 2> "$tmp/err"
is "mwu rejects a bad number (exit 2)" "2" "$?"
is "mwu names the file and line" "stats_mwu: $tmp/bad:2: not a number: \"2.5.1\"" "$(cat "$tmp/err")"

echo "1..$n"
exit $fail
