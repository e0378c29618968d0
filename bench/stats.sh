# Statistics for the benchmarks, as shell functions (sourced; POSIX sh and
# POSIX awk only, so that they run the same under bash with mawk on the host
# and under busybox sh and awk inside the QEMU test host, which has neither
# python nor gawk).
#
#   stats_summary < NUMBERS
#       prints "median q1 q3 n" of the numbers on stdin, one a line (blank
#       lines are ignored). Quartiles interpolate linearly between order
#       statistics (Hyndman and Fan's type 7, the default of R's quantile()
#       and numpy's percentile()): for sorted x1..xn the p-quantile is
#       x[h] + (h - floor h)(x[h+1] - x[h]) with h = 1 + (n - 1)p. With no
#       numbers it prints "- - - 0".
#
#   stats_mwu FILE_A FILE_B
#       prints "U p": the two-sided Mann-Whitney rank test of the numbers in
#       FILE_A against those in FILE_B. U is A's statistic, the number of
#       pairs (a, b) with a > b plus half the pairs with a = b (so U near
#       nA*nB means A's values are the larger ones, near 0 the smaller).
#       p is exact (the distribution of U counted over every arrangement of
#       the ranks) when no value is tied and nA + nB <= 40; otherwise it is
#       the normal approximation, with the tie correction of the variance
#       and a continuity correction of 1/2 (as scipy's mannwhitneyu with
#       method="asymptotic"). With a file empty it prints "- -".
#
# Both exit 0 on success and 2, with a message naming the line, when a line
# is not a number (or a file cannot be read).

# awk functions shared by both: the number check and an in-place heap sort
# of indices by key (busybox and mawk have no asort), sqrt and exp.
_STATS_AWK='
function stats_isnum(s) {
	return s ~ /^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$/
}
# sqrt and exp by hand: the busybox awk of the Debian busybox-static has no
# math functions (not even the ^ operator)
function stats_sqrt(x,    r, i) {
	if (x <= 0) return 0
	r = x > 1 ? x : 1
	for (i = 0; i < 200; i++) r = (r + x / r) / 2
	return r
}
function stats_exp(x,    k, r, t, s, i) {
	if (x < -745) return 0
	k = int(x / 0.6931471805599453)
	r = x - k * 0.6931471805599453
	s = t = 1
	for (i = 1; i <= 30; i++) { t *= r / i; s += t }
	for (; k > 0; k--) s *= 2
	for (; k < 0; k++) s /= 2
	return s
}
# ix[1..n] (indices) ordered by their keys k[ix[i]], ascending
function stats_sift(ix, k, lo, hi,    r, c, t) {
	r = lo
	while (2 * r <= hi) {
		c = 2 * r
		if (c < hi && k[ix[c]] < k[ix[c + 1]]) c++
		if (k[ix[r]] >= k[ix[c]]) return
		t = ix[r]; ix[r] = ix[c]; ix[c] = t
		r = c
	}
}
function stats_sort(ix, k, n,    i, t) {
	for (i = 1; i <= n; i++) ix[i] = i
	for (i = int(n / 2); i >= 1; i--) stats_sift(ix, k, i, n)
	for (i = n; i > 1; i--) { t = ix[1]; ix[1] = ix[i]; ix[i] = t; stats_sift(ix, k, 1, i - 1) }
}
'

stats_summary() {
	awk "$_STATS_AWK"'
	function q(p,    h, f) {
		h = 1 + (n - 1) * p
		f = int(h)
		return f >= n ? v[ix[n]] : v[ix[f]] + (h - f) * (v[ix[f + 1]] - v[ix[f]])
	}
	/^[ \t]*$/ { next }
	{
		if (NF != 1 || !stats_isnum($1)) {
			printf "stats_summary: line %d: not a number: \"%s\"\n", NR, $0 > "/dev/stderr"
			bad = 1
			exit 2
		}
		v[++n] = $1 + 0
	}
	END {
		if (bad) exit 2
		if (n == 0) { print "- - - 0"; exit 0 }
		stats_sort(ix, v, n)
		printf "%.10g %.10g %.10g %d\n", q(0.5), q(0.25), q(0.75), n
	}'
}

stats_mwu() {
	if [ $# -ne 2 ]; then
		echo "usage: stats_mwu FILE_A FILE_B" >&2
		return 2
	fi
	for _sf in "$1" "$2"; do
		[ -r "$_sf" ] || { echo "stats_mwu: cannot read \"$_sf\"" >&2; return 2; }
	done
	# Tag each line with its sample and file line, so that one awk reads both
	# (an empty first file would defeat the usual FNR == NR test).
	{ awk '{ print "a", NR, $0 }' "$1"; awk '{ print "b", NR, $0 }' "$2"; } |
	awk -v fa="$1" -v fb="$2" "$_STATS_AWK"'
	# P(U <= u) and P(U >= u) by counting: f[i, j, u] arrangements of i
	# values of A and j of B with statistic u, by whether the largest value
	# is an A (it beats all j B values) or a B.
	function exact_p(m, k, u,    i, j, w, le, ge, tot) {
		for (i = 0; i <= m; i++)
			for (j = 0; j <= k; j++)
				for (w = 0; w <= i * j; w++) {
					if (i == 0 || j == 0) { f[i, j, w] = 1; continue }
					f[i, j, w] = (w >= j ? f[i - 1, j, w - j] : 0) + (w <= i * (j - 1) ? f[i, j - 1, w] : 0)
				}
		le = ge = tot = 0
		for (w = 0; w <= m * k; w++) {
			tot += f[m, k, w]
			if (w <= u) le += f[m, k, w]
			if (w >= u) ge += f[m, k, w]
		}
		le /= tot
		ge /= tot
		return clamp1(2 * (le < ge ? le : ge))
	}
	function clamp1(p) { return p > 1 ? 1 : p }
	# erfc with a fractional error below 1.2e-7 (Chebyshev fit, Numerical
	# Recipes 6.2), for z >= 0, by Horner steps (a newline may not follow
	# an operator in POSIX awk)
	function erfc(z,    t, c, i, s) {
		split("1.00002368 0.37409196 0.09678418 -0.18628806 0.27886807 -1.13520398 1.48851587 -0.82215223 0.17087277", c, " ")
		t = 1 / (1 + 0.5 * z)
		s = 0
		for (i = 9; i >= 1; i--) s = t * (c[i] + s)
		return t * stats_exp(-z * z - 1.26551223 + s)
	}
	/^[ab] [0-9]+[ \t]*$/ { next }
	{
		line = $0
		sub(/^[ab] [0-9]+ /, "", line)
		if (NF != 3 || !stats_isnum($3)) {
			printf "stats_mwu: %s:%d: not a number: \"%s\"\n", ($1 == "a" ? fa : fb), $2, line > "/dev/stderr"
			bad = 1
			exit 2
		}
		n++
		val[n] = $3 + 0
		if ($1 == "a") na++; else nb++
		isa[n] = ($1 == "a")
	}
	END {
		if (bad) exit 2
		if (na == 0 || nb == 0) { print "- -"; exit 0 }
		# mean ranks over runs of equal values, and the tie term sum(t^3 - t)
		stats_sort(ix, val, n)
		ties = 0
		ra = 0
		for (i = 1; i <= n; i = j) {
			for (j = i; j <= n && val[ix[j]] == val[ix[i]]; j++);
			t = j - i
			ties += t * t * t - t
			for (r = i; r < j; r++) if (isa[ix[r]]) ra += (i + j - 1) / 2
		}
		u = ra - na * (na + 1) / 2
		if (ties == 0 && n <= 40) {
			p = exact_p(na, nb, u)
		} else {
			mu = na * nb / 2
			var = na * nb / 12 * ((n + 1) - ties / (n * (n - 1)))
			if (var <= 0) {
				p = 1
			} else {
				d = u - mu
				if (d < 0) d = -d
				d -= 0.5
				if (d < 0) d = 0
				p = clamp1(erfc(d / stats_sqrt(2 * var)))
			}
		}
		printf "%.10g %.6g\n", u, p
	}'
}
