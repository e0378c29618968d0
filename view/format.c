/* Values as memctl shows them: see format.h. */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "format.h"
#include "size.h"

const char *mc_fmt_size(uint64_t v, char buf[static 24])
{
	if (mc_size_format(v, buf, 24) < 0)
		snprintf(buf, 24, "%" PRIu64, v);
	return buf;
}

const char *mc_fmt_u64(uint64_t v, char *buf, size_t len)
{
	char d[20];
	size_t n = 0;

	do {
		d[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; len > 0 && i < n && i < len - 1; i++)
		buf[i] = d[n - 1 - i];
	if (len > 0)
		buf[n < len ? n : len - 1] = '\0';
	return buf;
}

/*
 * x * 10 rounded to an integer as printf's "%.1f" rounds x: to nearest,
 * ties to even, on x's exact binary value. x * 10 itself is rounded, so
 * each step asks fma, whose single rounding keeps the sign of x * 10 - c
 * exact: first the integer below x * 10, then which side of its half x * 10
 * lies on.
 */
static uint64_t tenths_round(double x)
{
	double n = floor(x * 10.0), d;

	if (fma(x, 10.0, -n) < 0)
		n -= 1;   /* x * 10 rounded up to the next integer */
	d = fma(x, 10.0, -(n + 0.5));
	return (uint64_t)n + (d > 0 || (d == 0 && fmod(n, 2.0) != 0));
}

const char *mc_fmt_fixed(double x, int decimals, char *buf, size_t len)
{
	uint64_t t;
	size_t n;

	/* beyond 2^52 / 10 the halves are not exact doubles: printf's own way */
	if (!(x >= 0 && x < 1e14) || signbit(x) || (decimals != 0 && decimals != 1) || len < 24) {
		snprintf(buf, len, "%.*f", decimals, x);
		return buf;
	}
	if (decimals == 0)
		return mc_fmt_u64((uint64_t)nearbyint(x), buf, len);
	t = tenths_round(x);
	n = strlen(mc_fmt_u64(t / 10, buf, len));
	buf[n] = '.';
	buf[n + 1] = (char)('0' + t % 10);
	buf[n + 2] = '\0';
	return buf;
}

/*
 * v / 2^shift rounded to an integer as printf rounds (to nearest, ties to
 * even: the quotient is exact in binary, so printf sees that value itself).
 */
static uint64_t shift_round(uint64_t v, unsigned shift)
{
	uint64_t q = v >> shift, rem = v & ((1ull << shift) - 1), half = 1ull << (shift - 1);

	return q + (rem > half || (rem == half && (q & 1)));
}

/*
 * A screen formats hundreds of sizes a second: below 2^53 (where the
 * double holds v exactly, and each division by 1024 is exact) the digits
 * come from integers, which gives what "%.1f" and "%.0f" print for the
 * same value without going through printf.
 */
const char *mc_fmt_size_short(uint64_t v, char *buf, size_t len)
{
	static const char units[] = "KMGTPE";
	double x = (double)v;
	int u = -1;
	bool exact = v < (1ull << 53) && len >= 24;

	if (v == MC_SIZE_MAX) {
		snprintf(buf, len, "max");
		return buf;
	}
	while (x >= 1024 && u < 5) {
		x /= 1024;
		u++;
	}
	if (u < 0) {
		mc_fmt_u64(v, buf, len);
	} else if (x < 9.95 && x != (double)(uint64_t)x) {
		if (exact) {
			uint64_t t = shift_round(v * 10, 10 * (unsigned)(u + 1));
			size_t n = strlen(mc_fmt_u64(t / 10, buf, len));

			buf[n] = '.';
			buf[n + 1] = (char)('0' + t % 10);
			buf[n + 2] = units[u];
			buf[n + 3] = '\0';
		} else {
			snprintf(buf, len, "%.1f%c", x, units[u]);
		}
	} else if (exact) {
		size_t n = strlen(mc_fmt_u64(shift_round(v, 10 * (unsigned)(u + 1)), buf, len));

		buf[n] = units[u];
		buf[n + 1] = '\0';
	} else {
		snprintf(buf, len, "%.0f%c", x, units[u]);
	}
	return buf;
}

void mc_fmt_json_size(struct mc_buf *b, uint64_t v)
{
	if (v == MC_SIZE_MAX)
		mc_buf_adds(b, "\"max\"");
	else
		mc_buf_printf(b, "%" PRIu64, v);
}

uint64_t mc_abstract_value(const struct mc_caps *caps, enum mc_knob k,
			   const uint64_t raw[MC_KNOB__COUNT])
{
	if (k != MC_KNOB_SWAP || caps->ver != MC_CGV1)
		return raw[k];
	if (raw[MC_KNOB_SWAP] == MC_SIZE_MAX || raw[MC_KNOB_MAX] == MC_SIZE_MAX)
		return MC_SIZE_MAX;
	return raw[MC_KNOB_SWAP] - raw[MC_KNOB_MAX];
}
