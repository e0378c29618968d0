/* Durations of options (duration.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"

int mc_duration_parse(const char *s, double *ret, const char **ret_why)
{
	static const struct {
		const char *unit;
		double seconds;
	} units[] = {
		{ "ms", 0.001 }, { "s", 1 }, { "", 1 }, { "m", 60 }, { "h", 3600 },
		{ "d", 86400 }, { "w", 7 * 86400 },
	};
	char *end;
	double v;

	if (!s || !*s || strchr("+- \t", *s))
		return *ret_why = "not a duration: a number and a unit (ms, s, m, h, d, w)", -EINVAL;
	v = strtod(s, &end);
	if (end == s || v != v)
		return *ret_why = "not a duration: a number and a unit (ms, s, m, h, d, w)", -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit) != 0)
			continue;
		v *= units[i].seconds;
		if (v > 100 * 365.25 * 86400)
			return *ret_why = "longer than 100 years", -ERANGE;
		*ret = v;
		return 0;
	}
	return *ret_why = "an unknown unit (ms, s, m, h, d, w)", -EINVAL;
}
