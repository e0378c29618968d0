/*
 * Values as memctl shows them (view/format.c): the screen's sizes and
 * counts are made from integers, not printf, and must print exactly what
 * printf prints for the same value: the oracle here is snprintf itself,
 * over edge values (unit boundaries, ties of rounding, 2^53) and a
 * pseudo-random sweep of every magnitude.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "format.h"
#include "size.h"
#include "tap.h"

/*
 * What printf makes of the same value: the unit is the largest power of
 * 1024 not above v (at most E), x is v in it (a division by a power of
 * two: exact), and printf rounds x itself.
 */
static const char *oracle(uint64_t v, char *buf, size_t len)
{
	int u = 0;
	double x;

	if (v == MC_SIZE_MAX)
		return strcpy(buf, "max");
	while (u < 6 && (double)v >= (double)(1ull << (10 * (u + 1))))
		u++;
	x = (double)v / (double)(1ull << (10 * u));
	if (u == 0)
		snprintf(buf, len, "%" PRIu64, v);
	else if (x < 9.95 && x != (double)(uint64_t)x)
		snprintf(buf, len, "%.1f%c", x, " KMGTPE"[u]);
	else
		snprintf(buf, len, "%.0f%c", x, " KMGTPE"[u]);
	return buf;
}

/* Compares one value; counts the values that differ (reported once each). */
static unsigned check(uint64_t v)
{
	char got[32], want[32], n[32];

	mc_fmt_size_short(v, got, sizeof(got));
	oracle(v, want, sizeof(want));
	snprintf(n, sizeof(n), "%" PRIu64, v);
	mc_fmt_u64(v, got + 16, 16);
	if (strcmp(got, want) != 0 || strncmp(got + 16, n, 15) != 0) {
		tap_eq_str(got, want, "size %" PRIu64, v);
		return 1;
	}
	return 0;
}

/* "%.0f" and "%.1f" of x against snprintf's; counts the values that differ. */
static unsigned check_fixed(double x)
{
	unsigned bad = 0;

	for (int d = 0; d <= 1; d++) {
		char got[32], want[32];

		mc_fmt_fixed(x, d, got, sizeof(got));
		snprintf(want, sizeof(want), "%.*f", d, x);
		if (strcmp(got, want) != 0) {
			tap_eq_str(got, want, "%%.%df of %.17g", d, x);
			bad++;
		}
	}
	return bad;
}

/*
 * Percentages and rates (mc_fmt_fixed): exact halves (k / 20 for the
 * tenths, k / 2 for integers: ties to even), their neighbours one ulp away,
 * decimal fractions that are not exact (0.15 is a little below), and
 * random values of every magnitude, against snprintf.
 */
static void test_fixed(void)
{
	static const double edge[] = { 0, 0.04, 0.05, 0.15, 0.25, 0.35, 0.45, 0.95, 9.95, 99.95,
				       100, 1.05, 2.675, 1e13 + 0.25, 99999999999999.9, 1e14,
				       1e15 + 0.5, -0.0, -0.05, -1.25 };
	uint64_t r = 2463534242ull;
	unsigned bad = 0;

	for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
		bad += check_fixed(edge[i]);
	for (int k = 0; k < 200000; k++) {
		double h = k / 20.0, w = k / 2.0;

		bad += check_fixed(h) + check_fixed(nextafter(h, 0)) + check_fixed(nextafter(h, 1e300));
		bad += check_fixed(w) + check_fixed(k / 10.0) + check_fixed(k / 100.0);
	}
	for (int i = 0; i < 200000; i++) {
		r ^= r << 13;
		r ^= r >> 7;
		r ^= r << 17;
		bad += check_fixed((double)(r >> 11) / (double)(1ull << (i % 53)));
	}
	tap_eq_int(bad, 0, "percentages and rates print as printf prints them");
}

int main(void)
{
	static const uint64_t edge[] = {
		0, 1, 9, 10, 1023, 1024, 1025, 1075, 1076, 1126, 1127, 10188, 10189, 10240,
		1536, 2560, 1048575, 1048576, 1101004, 1101005, 10433331, 10433332,
		(1ull << 53) - 1, 1ull << 53, (1ull << 53) + 1, (1ull << 60) + 1, UINT64_MAX - 1,
		UINT64_MAX,
	};
	uint64_t x = 88172645463325252ull;
	unsigned bad = 0;
	char b[32];

	for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
		bad += check(edge[i]);
	/*
	 * ties at every unit 2^s: j << (s - 2) with j odd is 2.5 j units, half
	 * a tenth over; j << (s - 1) is half a unit over
	 */
	for (unsigned s = 10; s <= 60; s += 10)
		for (uint64_t j = 1; j < 4000; j += 2) {
			bad += check(j << (s - 2));
			bad += check(j << (s - 1));
		}
	/* every magnitude, xorshift */
	for (unsigned i = 0; i < 200000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		bad += check(x >> (i % 64));
	}
	tap_eq_int(bad, 0, "sizes and counts print as printf prints them");
	tap_eq_str(mc_fmt_u64(123456, b, 4), "123", "a short buffer cuts as snprintf does");
	test_fixed();
	return tap_done();
}
