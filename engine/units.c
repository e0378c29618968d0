/*
 * One unit per line (see units.h). A marked size is MARK, its decimal
 * byte count, MARK: a control character no message otherwise contains, so
 * resolving cannot mistake other numbers in the text for sizes.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "size.h"
#include "units.h"

#define MARK '\x1d'

static const char unit_letter[] = { 0, 'K', 'M', 'G', 'T' };

char *mc_units_mark(uint64_t bytes, char buf[static MC_UNITS_MARK_LEN])
{
	if (bytes == MC_SIZE_MAX)
		snprintf(buf, MC_UNITS_MARK_LEN, "max");
	else
		snprintf(buf, MC_UNITS_MARK_LEN, "%c%" PRIu64 "%c", MARK, bytes, MARK);
	return buf;
}

char *mc_units_format(uint64_t bytes, unsigned shift, char buf[static MC_UNITS_MARK_LEN])
{
	uint64_t unit = UINT64_C(1) << shift, frac;

	if (bytes == MC_SIZE_MAX) {
		snprintf(buf, MC_UNITS_MARK_LEN, "max");
	} else if (bytes == 0 || shift == 0 || shift > 40 || shift % 10) {
		snprintf(buf, MC_UNITS_MARK_LEN, "%" PRIu64, bytes);
	} else if (bytes % unit == 0) {
		snprintf(buf, MC_UNITS_MARK_LEN, "%" PRIu64 "%c", bytes >> shift, unit_letter[shift / 10]);
	} else {
		/*
		 * hundredths, rounded down: (bytes % unit) * 100 fits, unit <= 2^40;
		 * the % 100 changes nothing but tells the compiler two digits fit
		 */
		frac = (bytes % unit) * 100 / unit % 100;
		snprintf(buf, MC_UNITS_MARK_LEN, "%" PRIu64 ".%02" PRIu64 "%c", bytes >> shift, frac,
			 unit_letter[shift / 10]);
	}
	return buf;
}

/* Parses the marked size at p (just after a MARK); *ret_end: after its closing MARK. */
static bool parse_mark(const char *p, uint64_t *ret, const char **ret_end)
{
	uint64_t v = 0;
	const char *q = p;

	while (*q >= '0' && *q <= '9') {
		v = v * 10 + (uint64_t)(*q - '0');
		q++;
	}
	if (q == p || *q != MARK)
		return false;
	*ret = v;
	*ret_end = q + 1;
	return true;
}

static bool divides(unsigned shift, uint64_t v)
{
	return v == 0 || v == MC_SIZE_MAX || v % (UINT64_C(1) << shift) == 0;
}

unsigned mc_units_shift(const uint64_t *v, size_t n)
{
	unsigned shift = 40;

	for (size_t i = 0; i < n; i++)
		while (shift > 0 && !divides(shift, v[i]))
			shift -= 10;
	return shift;
}

char *mc_units_resolve(char *s, const uint64_t *extra, size_t n_extra, unsigned *ret_shift)
{
	unsigned shift = 40;
	size_t n = 0, len;
	const char *p, *end;
	char *out, *o;
	uint64_t v;

	if (!s)
		return NULL;
	for (shift = mc_units_shift(extra, n_extra); shift > 0; shift -= 10) {
		bool ok = true;

		for (p = strchr(s, MARK); ok && p; p = strchr(p, MARK)) {
			if (!parse_mark(p + 1, &v, &end)) {
				p++;
				continue;
			}
			ok = divides(shift, v);
			p = end;
		}
		if (ok)
			break;
	}
	for (p = s; (p = strchr(p, MARK)); p++)
		n++;
	len = strlen(s);
	out = malloc(len + n * MC_UNITS_MARK_LEN + 1);
	if (!out) {
		free(s);
		return NULL;
	}
	o = out;
	for (p = s; *p;) {
		char buf[MC_UNITS_MARK_LEN];

		if (*p == MARK && parse_mark(p + 1, &v, &end)) {
			mc_units_format(v, shift, buf);
			memcpy(o, buf, strlen(buf));
			o += strlen(buf);
			p = end;
		} else if (*p == MARK) {
			p++;   /* a stray mark: dropped */
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
	free(s);
	if (ret_shift)
		*ret_shift = shift;
	return out;
}
