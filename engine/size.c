#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "size.h"

/*
 * Sizes as operators write them. The grammar is deliberately small:
 *
 *   size    = "max" | number [unit] | number "%"
 *   number  = digits ["." digits]
 *   unit    = ("K" | "M" | "G" | "T") ["B" | "iB"] | "B"     (any case)
 *
 * Units are always binary (1K = 1024): cgroup limits are page multiples, and
 * a decimal "1GB" that silently meant 10^9 bytes would be a trap. A fraction
 * is only accepted with a unit ("1.5G"), because a fraction of a byte means
 * nothing; it is rounded down. Percentages keep two decimals, stored exactly
 * as hundredths so that "12.5%" round-trips through mc_size_format_spec.
 *
 * The explanations are predicates meant to follow the quoted value:
 * "size '12X' has an unknown suffix", "size '-1G' is negative".
 */

static const struct size_unit {
	char letter;
	unsigned shift;
} size_units[] = {
	{ 'K', 10 },
	{ 'M', 20 },
	{ 'G', 30 },
	{ 'T', 40 },
};

#define N_UNITS (sizeof(size_units) / sizeof(size_units[0]))

/* What went wrong, and where the suffix starts when the suffix is at fault. */
struct size_error {
	int err;
	const char *why;
	const char *bad_suffix;
};

static int size_fail(struct size_error *e, int err, const char *why)
{
	e->err = err;
	e->why = why;
	return err;
}

/* Matches "", "B" or "iB" in any case: what may follow a unit letter. */
static int unit_tail_ok(const char *t)
{
	if (t[0] == '\0')
		return 1;
	if ((t[0] == 'b' || t[0] == 'B') && t[1] == '\0')
		return 1;
	return (t[0] == 'i' || t[0] == 'I') && (t[1] == 'b' || t[1] == 'B') && t[2] == '\0';
}

/* Returns the unit's shift, or -1 when suffix is not a unit. */
static int unit_shift(const char *suffix)
{
	if (suffix[0] == '\0')
		return 0;
	if ((suffix[0] == 'b' || suffix[0] == 'B') && suffix[1] == '\0')
		return 0;
	for (size_t i = 0; i < N_UNITS; i++)
		if (toupper((unsigned char)suffix[0]) == size_units[i].letter &&
		    unit_tail_ok(suffix + 1))
			return (int)size_units[i].shift;
	return -1;
}

/*
 * The fraction 0.d1d2..dn (n = frac_len digits at frac) of 2^shift bytes,
 * floored, by Horner's rule from the last digit: flooring at every step
 * gives the same result as flooring once, and every intermediate stays
 * below 10 * 2^shift.  The result is below 2^shift.
 */
static uint64_t frac_bytes(const char *frac, size_t frac_len, unsigned shift)
{
	uint64_t fbytes = 0;

	for (size_t i = frac_len; i > 0; i--)
		fbytes = (((uint64_t)(frac[i - 1] - '0') << shift) + fbytes) / 10;
	return fbytes;
}

/*
 * The percentage whole.frac (frac_len digits at frac; overflow when whole
 * did not fit) in hundredths: at most two decimals and at most 100%.
 */
static int scan_percent(uint64_t whole, int overflow, const char *frac, size_t frac_len,
			struct mc_size *ret, struct size_error *e)
{
	uint64_t centi;

	if (frac_len > 2)
		return size_fail(e, -EINVAL, "has more than two decimals");
	if (overflow || whole > 100)
		return size_fail(e, -EINVAL, "is above 100%");
	centi = whole * 100;
	if (frac_len >= 1)
		centi += (uint64_t)(frac[0] - '0') * 10;
	if (frac_len == 2)
		centi += (uint64_t)(frac[1] - '0');
	if (centi > 10000)
		return size_fail(e, -EINVAL, "is above 100%");
	*ret = (struct mc_size){ .kind = MC_SIZE_PERCENT, .centipct = (uint32_t)centi };
	return 0;
}

static int size_scan(const char *s, struct mc_size *ret, struct size_error *e)
{
	const char *p = s, *frac = NULL, *suffix;
	size_t frac_len = 0;
	uint64_t whole = 0;
	int overflow = 0;
	int shift;

	if (s[0] == '\0')
		return size_fail(e, -EINVAL, "is empty");
	if (strcmp(s, "max") == 0) {
		*ret = (struct mc_size){ .kind = MC_SIZE_UNLIMITED };
		return 0;
	}
	for (const char *q = s; *q; q++)
		if (isspace((unsigned char)*q))
			return size_fail(e, -EINVAL, "contains whitespace");
	if (s[0] == '-' && (isdigit((unsigned char)s[1]) || s[1] == '.'))
		return size_fail(e, -EINVAL, "is negative");
	if (!isdigit((unsigned char)*p))
		return size_fail(e, -EINVAL, "is not a number");

	for (; isdigit((unsigned char)*p); p++) {
		unsigned d = (unsigned)(*p - '0');

		if (whole > (UINT64_MAX - d) / 10)
			overflow = 1;
		else
			whole = whole * 10 + d;
	}
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return size_fail(e, -EINVAL, "is not a number");
		frac = p;
		while (isdigit((unsigned char)*p))
			p++;
		frac_len = (size_t)(p - frac);
	}
	suffix = p;

	if (strcmp(suffix, "%") == 0)
		return scan_percent(whole, overflow, frac, frac_len, ret, e);

	shift = unit_shift(suffix);
	if (shift < 0) {
		e->bad_suffix = suffix;
		return size_fail(e, -EINVAL, "has an unknown suffix");
	}
	if (frac_len > 0 && shift == 0)
		return size_fail(e, -EINVAL, "has a fraction of a byte");
	if (overflow || whole > (UINT64_MAX >> shift))
		return size_fail(e, -ERANGE, "does not fit in 64 bits");

	/* no overflow: whole << shift has its low bits clear, the fraction is below 2^shift */
	*ret = (struct mc_size){ .kind = MC_SIZE_BYTES, .bytes = (whole << shift) +
							frac_bytes(frac, frac_len, (unsigned)shift) };
	if (ret->bytes >= MC_SIZE_KERNEL_UNLIMITED)
		*ret = (struct mc_size){ .kind = MC_SIZE_UNLIMITED };
	return 0;
}

int mc_size_parse(const char *s, struct mc_size *ret, const char **ret_why)
{
	struct size_error e = { 0 };
	struct mc_size v;
	int r;

	r = size_scan(s, &v, &e);
	if (r < 0) {
		if (ret_why)
			*ret_why = e.why;
		return r;
	}
	*ret = v;
	return 0;
}

const char *mc_size_bad_suffix(const char *s)
{
	struct size_error e = { 0 };
	struct mc_size v;

	if (size_scan(s, &v, &e) < 0)
		return e.bad_suffix;
	return NULL;
}

int mc_size_resolve(const struct mc_size *s, uint64_t base, uint64_t *ret)
{
	switch (s->kind) {
	case MC_SIZE_BYTES:
		*ret = s->bytes;
		return 0;
	case MC_SIZE_UNLIMITED:
		*ret = MC_SIZE_MAX;
		return 0;
	case MC_SIZE_PERCENT:
		if (base == MC_SIZE_MAX)
			return -EDOM;
		if (s->centipct > 10000)
			return -EINVAL;
		/*
		 * base * pct / 10000 without a 128-bit product: split base into
		 * q * 10000 + r. q * pct <= base, and r * pct < 10^8.
		 */
		*ret = (base / 10000) * s->centipct + (base % 10000) * s->centipct / 10000;
		return 0;
	case MC_SIZE_UNSET:
		break;
	}
	return -EINVAL;
}

/* snprintf with the "no truncation" contract: the length or -ENOSPC. */
static int size_put(char *buf, size_t len, int n)
{
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= len)
		return -ENOSPC;
	return n;
}

int mc_size_format(uint64_t bytes, char *buf, size_t len)
{
	if (bytes == MC_SIZE_MAX)
		return size_put(buf, len, snprintf(buf, len, "max"));
	for (size_t i = N_UNITS; bytes != 0 && i > 0; i--) {
		const struct size_unit *u = &size_units[i - 1];
		uint64_t mask = (UINT64_C(1) << u->shift) - 1;

		if ((bytes & mask) == 0)
			return size_put(buf, len, snprintf(buf, len, "%" PRIu64 "%c",
							   bytes >> u->shift, u->letter));
	}
	return size_put(buf, len, snprintf(buf, len, "%" PRIu64, bytes));
}

int mc_size_format_spec(const struct mc_size *s, char *buf, size_t len)
{
	unsigned whole, frac;

	switch (s->kind) {
	case MC_SIZE_BYTES:
		return mc_size_format(s->bytes, buf, len);
	case MC_SIZE_UNLIMITED:
		return size_put(buf, len, snprintf(buf, len, "max"));
	case MC_SIZE_PERCENT:
		whole = s->centipct / 100;
		frac = s->centipct % 100;
		if (frac == 0)
			return size_put(buf, len, snprintf(buf, len, "%u%%", whole));
		if (frac % 10 == 0)
			return size_put(buf, len, snprintf(buf, len, "%u.%u%%", whole, frac / 10));
		return size_put(buf, len, snprintf(buf, len, "%u.%02u%%", whole, frac));
	case MC_SIZE_UNSET:
		break;
	}
	/* An unset size has no written form; callers show their own "unset". */
	return -EINVAL;
}
