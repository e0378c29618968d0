/*
 * The time parser (when.h). A recursive-descent reader over [p, end) of
 * the trimmed text; every error names the offset where the offending part
 * starts, so the command can say `-t: '2026-13-01': month must be 01 to 12
 * (at '13-01')`.
 *
 * Dates in UTC or with an offset are plain arithmetic (days from the civil
 * date); local dates go through mktime twice, once as standard time and
 * once as daylight-saving time, and keep the readings that give the fields
 * back unchanged: none is a time the clock skips, two a time it shows
 * twice (the earlier is taken).
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "when.h"

#define NS INT64_C(1000000000)
/* The last whole second int64_t nanoseconds hold: 2262-04-11T23:47:16Z. */
#define MAX_SECONDS (INT64_MAX / NS - 1)
/* Longer text is no time (and a bound for hostile input). */
#define MAX_TEXT 128

struct parser {
	const char *text;     /* the whole text, for offsets */
	const char *p, *end;  /* what is left, trimmed */
	struct mc_when_error *err;
};

/* A civil date and time as read, before any zone is applied. */
struct civil {
	int year, mon, day, hour, min, sec;
	int64_t frac_ns;
};

static int fail(struct parser *ps, const char *at, const char *why, int e)
{
	ps->err->why = why;
	ps->err->at = (size_t)(at - ps->text);
	return e;
}

static bool at_end(const struct parser *ps)
{
	return ps->p >= ps->end;
}

static void skip_blanks(struct parser *ps)
{
	while (ps->p < ps->end && isblank((unsigned char)*ps->p))
		ps->p++;
}

static size_t digits_at(const struct parser *ps)
{
	size_t n = 0;

	while (ps->p + n < ps->end && isdigit((unsigned char)ps->p[n]))
		n++;
	return n;
}

/*
 * Reads a field of min to max digits whose value must lie in lo..hi; why is
 * the message for a wrong one. 0 or -EINVAL.
 */
static int field(struct parser *ps, size_t min, size_t max, int lo, int hi, const char *why,
		 int *ret)
{
	size_t n = digits_at(ps);
	int v = 0;

	if (n < min || n > max)
		return fail(ps, ps->p, why, -EINVAL);
	for (size_t i = 0; i < n; i++)
		v = v * 10 + (ps->p[i] - '0');
	if (v < lo || v > hi)
		return fail(ps, ps->p, why, -EINVAL);
	ps->p += n;
	*ret = v;
	return 0;
}

/* ".123" after seconds: 1 to 9 digits, as nanoseconds. 0 or -EINVAL. */
static int fraction(struct parser *ps, int64_t *ret)
{
	size_t n;
	int64_t v = 0;

	*ret = 0;
	if (at_end(ps) || (*ps->p != '.' && *ps->p != ','))
		return 0;
	ps->p++;
	n = digits_at(ps);
	if (n < 1 || n > 9)
		return fail(ps, ps->p, "a fraction of a second needs 1 to 9 digits", -EINVAL);
	for (size_t i = 0; i < 9; i++)
		v = v * 10 + (i < n ? ps->p[i] - '0' : 0);
	ps->p += n;
	*ret = v;
	return 0;
}

/* Whether the next word (letters) is word, in any case; consumes it when it is. */
static bool word(struct parser *ps, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(ps->end - ps->p) < n || strncasecmp(ps->p, w, n) != 0)
		return false;
	if (ps->p + n < ps->end && isalpha((unsigned char)ps->p[n]))
		return false;
	ps->p += n;
	return true;
}

static const struct {
	const char *name;
	int64_t seconds;
} units[] = {
	{ "s", 1 }, { "sec", 1 }, { "secs", 1 }, { "second", 1 }, { "seconds", 1 },
	{ "m", 60 }, { "min", 60 }, { "mins", 60 }, { "minute", 60 }, { "minutes", 60 },
	{ "h", 3600 }, { "hour", 3600 }, { "hours", 3600 },
	{ "d", 86400 }, { "day", 86400 }, { "days", 86400 },
	{ "w", 604800 }, { "week", 604800 }, { "weeks", 604800 },
};

/* The unit word at ps->p (consumed) in seconds, or -EINVAL. */
static int unit(struct parser *ps, int64_t *ret)
{
	const char *w = ps->p;
	size_t n = 0;

	while (w + n < ps->end && isalpha((unsigned char)w[n]))
		n++;
	if (n == 0 || (n == 3 && strncasecmp(w, "ago", 3) == 0))
		return fail(ps, w, "a number needs a unit (s, m, h, d or w)", -EINVAL);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strlen(units[i].name) == n && strncasecmp(units[i].name, w, n) == 0) {
			ps->p += n;
			*ret = units[i].seconds;
			return 0;
		}
	return fail(ps, w, "unknown unit (s, m, h, d or w)", -EINVAL);
}

/*
 * A duration: one or more NUMBER UNIT pairs ("1h30m", "2 days", "1h 30m"),
 * as nanoseconds. Stops before a word that is no unit ("ago"). 0, -EINVAL,
 * -ERANGE.
 */
static int duration(struct parser *ps, int64_t *ret)
{
	int64_t total = 0;

	skip_blanks(ps);
	if (digits_at(ps) == 0)
		return fail(ps, ps->p, "expected a number and a unit (10m, 2h, 1d)", -EINVAL);
	while (digits_at(ps) > 0) {
		const char *num = ps->p;
		size_t n = digits_at(ps);
		int64_t v = 0, sec, part;
		int r;

		if (n > 12)
			return fail(ps, num, "number too big", -ERANGE);
		for (size_t i = 0; i < n; i++)
			v = v * 10 + (num[i] - '0');
		ps->p += n;
		skip_blanks(ps);
		if ((r = unit(ps, &sec)) < 0)
			return r;
		if (__builtin_mul_overflow(v, sec, &part) || part > MAX_SECONDS ||
		    __builtin_mul_overflow(part, NS, &part) || __builtin_add_overflow(total, part, &total))
			return fail(ps, num, "duration too long (more than the 292 years memctl's times hold)",
				    -ERANGE);
		skip_blanks(ps);
	}
	*ret = total;
	return 0;
}

/* Days from 1970-01-01 to the civil date (proleptic Gregorian; H. Hinnant's algorithm). */
static int64_t days_from_civil(int y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static void civil_from_days(int64_t z, int *y, int *m, int *d)
{
	int64_t era, doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = (int)(yoe + era * 400 + (*m <= 2));
}

static int days_in_month(int y, int m)
{
	static const int n[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	return m == 2 && leap ? 29 : n[m - 1];
}

/* Seconds and fraction into nanoseconds, 1970 to 2262. 0 or -ERANGE. */
static int to_ns(struct parser *ps, const char *at, int64_t sec, int64_t frac, int64_t *ret)
{
	if (sec < 0)
		return fail(ps, at, "before 1970-01-01 00:00 UTC", -ERANGE);
	if (sec > MAX_SECONDS)
		return fail(ps, at, "after 2262-04-11, beyond what memctl's times hold", -ERANGE);
	*ret = sec * NS + frac;
	return 0;
}

/*
 * The local time c as seconds since the epoch: the earlier of its readings
 * as standard and as daylight-saving time that give c back. -EINVAL when the
 * clock skips c, -ERANGE when mktime cannot represent it.
 */
static int local_seconds(struct parser *ps, const char *at, const struct civil *c, int64_t *ret)
{
	bool found = false;
	int64_t best = 0;

	for (int dst = 0; dst <= 1; dst++) {
		struct tm tm = { .tm_year = c->year - 1900, .tm_mon = c->mon - 1, .tm_mday = c->day,
				 .tm_hour = c->hour, .tm_min = c->min, .tm_sec = c->sec,
				 .tm_isdst = dst };
		time_t t;

		errno = 0;
		t = mktime(&tm);

		if (t == (time_t)-1 && errno == EOVERFLOW)
			return fail(ps, at, "out of the range of this system's local time", -ERANGE);
		if (tm.tm_year != c->year - 1900 || tm.tm_mon != c->mon - 1 || tm.tm_mday != c->day ||
		    tm.tm_hour != c->hour || tm.tm_min != c->min || tm.tm_sec != c->sec ||
		    tm.tm_isdst != dst)
			continue;
		if (!found || (int64_t)t < best)
			best = (int64_t)t;
		found = true;
	}
	if (!found)
		return fail(ps, at, "no such local time: the clock skips it (daylight saving)", -EINVAL);
	*ret = best;
	return 0;
}

/* "HH:MM[:SS[.FRAC]]" into c's time fields. 0 or -EINVAL. */
static int clock_time(struct parser *ps, struct civil *c)
{
	int r;

	if ((r = field(ps, 1, 2, 0, 23, "hour must be 00 to 23", &c->hour)) < 0)
		return r;
	if (at_end(ps) || *ps->p != ':')
		return fail(ps, ps->p, "expected ':' and the minutes (03:00)", -EINVAL);
	ps->p++;
	if ((r = field(ps, 2, 2, 0, 59, "minute must be 00 to 59", &c->min)) < 0)
		return r;
	c->sec = 0;
	c->frac_ns = 0;
	if (!at_end(ps) && *ps->p == ':') {
		ps->p++;
		if ((r = field(ps, 2, 2, 0, 59, "second must be 00 to 59", &c->sec)) < 0)
			return r;
		if ((r = fraction(ps, &c->frac_ns)) < 0)
			return r;
	}
	return 0;
}

/*
 * The zone after a date and time: nothing (local), Z, UTC, or an offset
 * +HH, +HHMM, +HH:MM. *ret_local or *ret_offset (seconds east of UTC).
 */
static int zone(struct parser *ps, bool *ret_local, int64_t *ret_offset)
{
	const char *at;
	int sign, hh, mm = 0, r;

	skip_blanks(ps);
	*ret_local = false;
	*ret_offset = 0;
	if (at_end(ps)) {
		*ret_local = true;
		return 0;
	}
	if (word(ps, "Z") || word(ps, "UTC"))
		return 0;
	at = ps->p;
	if (*ps->p != '+' && *ps->p != '-')
		return fail(ps, at, "expected the end, or a zone (Z, UTC, +01:00)", -EINVAL);
	sign = *ps->p++ == '-' ? -1 : 1;
	if (digits_at(ps) == 4) {
		/* +HHMM: two fields of two digits without a colon between them */
		struct parser hours = *ps;

		hours.end = ps->p + 2;
		if ((r = field(&hours, 2, 2, 0, 23, "a zone offset's hours must be 00 to 23", &hh)) < 0)
			return r;
		ps->p += 2;
	} else if ((r = field(ps, 2, 2, 0, 23, "a zone offset's hours must be 00 to 23", &hh)) < 0) {
		return r;
	}
	if (!at_end(ps) && *ps->p == ':')
		ps->p++;
	if (!at_end(ps) && (r = field(ps, 2, 2, 0, 59, "a zone offset's minutes must be 00 to 59",
				      &mm)) < 0)
		return r;
	*ret_offset = sign * (hh * 3600 + mm * 60);
	return 0;
}

/* "YYYY-MM-DD[( |T)HH:MM[:SS[.FRAC]]][ZONE]". */
static int date_time(struct parser *ps, int64_t *ret)
{
	const char *start = ps->p;
	struct civil c = { 0 };
	bool local;
	int64_t offset, sec;
	int r;

	if ((r = field(ps, 4, 4, 1970, 2262, "year must be 1970 to 2262", &c.year)) < 0)
		return r;
	if (at_end(ps) || *ps->p++ != '-')
		return fail(ps, ps->p - 1, "expected '-' and the month (2026-12-01)", -EINVAL);
	if ((r = field(ps, 1, 2, 1, 12, "month must be 01 to 12", &c.mon)) < 0)
		return r;
	if (at_end(ps) || *ps->p++ != '-')
		return fail(ps, ps->p - 1, "expected '-' and the day (2026-12-01)", -EINVAL);
	if ((r = field(ps, 1, 2, 1, days_in_month(c.year, c.mon),
		       "no such day in that month", &c.day)) < 0)
		return r;
	if (!at_end(ps) && (*ps->p == 'T' || *ps->p == 't' || isblank((unsigned char)*ps->p))) {
		ps->p++;
		skip_blanks(ps);
		if ((r = clock_time(ps, &c)) < 0)
			return r;
	}
	if ((r = zone(ps, &local, &offset)) < 0)
		return r;
	skip_blanks(ps);
	if (!at_end(ps))
		return fail(ps, ps->p, "unexpected text after the time", -EINVAL);
	if (local) {
		if ((r = local_seconds(ps, start, &c, &sec)) < 0)
			return r;
	} else {
		sec = days_from_civil(c.year, c.mon, c.day) * 86400 + c.hour * 3600 + c.min * 60 +
		      c.sec - offset;
	}
	return to_ns(ps, start, sec, c.frac_ns, ret);
}

/* "HH:MM[:SS]": the last time the local clock showed it, today or yesterday. */
static int clock_only(struct parser *ps, int64_t now_ns, int64_t *ret)
{
	const char *start = ps->p;
	time_t now = (time_t)(now_ns / NS);
	struct civil c = { 0 };
	struct tm tm;
	int64_t sec, t;
	int r;

	if ((r = clock_time(ps, &c)) < 0)
		return r;
	skip_blanks(ps);
	if (!at_end(ps))
		return fail(ps, ps->p, "unexpected text after the time (a zone needs a date)", -EINVAL);
	if (!localtime_r(&now, &tm))
		return fail(ps, start, "the present is out of the range of local time", -ERANGE);
	c.year = tm.tm_year + 1900;
	c.mon = tm.tm_mon + 1;
	c.day = tm.tm_mday;
	for (int back = 0; back < 2; back++) {
		if (back)
			civil_from_days(days_from_civil(c.year, c.mon, c.day) - 1, &c.year, &c.mon, &c.day);
		r = local_seconds(ps, start, &c, &sec);
		if (r == -ERANGE)
			return r;
		if (r == 0 && (r = to_ns(ps, start, sec, c.frac_ns, &t)) < 0)
			return r;
		if (r == 0 && t <= now_ns) {
			*ret = t;
			return 0;
		}
	}
	return fail(ps, start, "no such local time today or yesterday (daylight saving)", -EINVAL);
}

/* "@SECONDS[.FRAC]". */
static int epoch(struct parser *ps, int64_t *ret)
{
	const char *start = ps->p;
	size_t n;
	int64_t sec = 0, frac;
	int r;

	ps->p++;
	n = digits_at(ps);
	if (n == 0)
		return fail(ps, ps->p, "expected seconds since the epoch after '@'", -EINVAL);
	if (n > 12)
		return fail(ps, ps->p, "after 2262-04-11, beyond what memctl's times hold", -ERANGE);
	for (size_t i = 0; i < n; i++)
		sec = sec * 10 + (ps->p[i] - '0');
	ps->p += n;
	if ((r = fraction(ps, &frac)) < 0)
		return r;
	if (!at_end(ps))
		return fail(ps, ps->p, "unexpected text after the seconds", -EINVAL);
	return to_ns(ps, start, sec, frac, ret);
}

/* from plus sign times d, checked: 0 or -ERANGE. */
static int shift(struct parser *ps, const char *at, int64_t from, int sign, int64_t d,
		 int64_t *ret)
{
	int64_t t;

	if (sign < 0 ? __builtin_sub_overflow(from, d, &t) : __builtin_add_overflow(from, d, &t))
		return fail(ps, at, "after 2262-04-11, beyond what memctl's times hold", -ERANGE);
	if (t < 0)
		return fail(ps, at, "before 1970-01-01 00:00 UTC", -ERANGE);
	if (t / NS > MAX_SECONDS)
		return fail(ps, at, "after 2262-04-11, beyond what memctl's times hold", -ERANGE);
	*ret = t;
	return 0;
}

/* Which form the text has, from its first characters. */
static int dispatch(struct parser *ps, int64_t now_ns, int64_t base_ns, int64_t *ret)
{
	const char *start = ps->p;
	size_t n = digits_at(ps);
	int64_t d;
	int r;

	if (word(ps, "now")) {
		skip_blanks(ps);
		if (!at_end(ps))
			return fail(ps, ps->p, "unexpected text after 'now' (for 10 minutes before: "
					       "'10m ago')", -EINVAL);
		*ret = now_ns;
		return 0;
	}
	if (*ps->p == '@')
		return epoch(ps, ret);
	if (*ps->p == '+' || *ps->p == '-') {
		int sign = *ps->p++ == '-' ? -1 : 1;

		if ((r = duration(ps, &d)) < 0)
			return r;
		if (!at_end(ps))
			return fail(ps, ps->p, "unexpected text after the duration", -EINVAL);
		return shift(ps, start, base_ns, sign, d, ret);
	}
	if (n == 4 && ps->p + 4 < ps->end && ps->p[4] == '-')
		return date_time(ps, ret);
	if (n == 4 && ps->p + 4 < ps->end && ispunct((unsigned char)ps->p[4]))
		return fail(ps, start, "not a time: a date is YYYY-MM-DD (2026-12-01 03:00)", -EINVAL);
	if (n >= 1 && n <= 2 && ps->p + n < ps->end && ps->p[n] == ':')
		return clock_only(ps, now_ns, ret);
	if (n == 0)
		return fail(ps, start, "not a time (2026-12-01 03:00, 10m ago, @1764558000, now)",
			    -EINVAL);
	if ((r = duration(ps, &d)) < 0)
		return r;
	if (!word(ps, "ago"))
		return fail(ps, ps->p, at_end(ps) ? "a duration needs 'ago' (10m ago) or a sign (-10m)"
						  : "expected 'ago' after the duration", -EINVAL);
	skip_blanks(ps);
	if (!at_end(ps))
		return fail(ps, ps->p, "unexpected text after 'ago'", -EINVAL);
	return shift(ps, start, now_ns, -1, d, ret);
}

int mc_when_parse(const char *text, int64_t now_ns, int64_t base_ns, int64_t *ret_ns,
		  struct mc_when_error *ret_err)
{
	struct parser ps = { .text = text, .p = text, .err = ret_err };
	size_t len = strnlen(text, MAX_TEXT + 1);
	int64_t t;
	int r;

	if (len > MAX_TEXT)
		return fail(&ps, text + MAX_TEXT, "too long for a time", -EINVAL);
	ps.end = text + len;
	while (ps.end > ps.p && isspace((unsigned char)ps.end[-1]))
		ps.end--;
	while (ps.p < ps.end && isspace((unsigned char)*ps.p))
		ps.p++;
	if (at_end(&ps))
		return fail(&ps, ps.p, "empty: expected a time (2026-12-01 03:00, 10m ago, now)",
			    -EINVAL);
	r = dispatch(&ps, now_ns, base_ns, &t);
	if (r == 0)
		*ret_ns = t;
	return r;
}

char *mc_when_format(int64_t t_ns, char *buf, size_t len)
{
	/* to the nearest millisecond, as JSON's times are printed */
	int64_t r = t_ns <= INT64_MAX - 500000 ? t_ns + 500000 : t_ns;
	int64_t sec = r / NS, ns = r % NS;
	time_t t;
	struct tm tm;
	size_t n;

	if (ns < 0) {
		ns += NS;
		sec--;
	}
	t = (time_t)sec;
	if (!localtime_r(&t, &tm) || (n = strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm)) == 0) {
		snprintf(buf, len, "@%lld", (long long)sec);
		return buf;
	}
	if (ns / 1000000)
		snprintf(buf + n, len - n, ".%03lld", (long long)(ns / 1000000));
	return buf;
}

int64_t mc_when_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (int64_t)t.tv_sec * NS + t.tv_nsec;
}
