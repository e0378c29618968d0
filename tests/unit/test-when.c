/*
 * The time parser (host/when.h): every form, local time in a zone with
 * daylight saving (a POSIX TZ rule, so no zone file is needed), and
 * hostile input: out-of-range fields, overflowing numbers, junk, overlong
 * text. Expected epochs were computed with `date -u -d ... +%s`.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tap.h"
#include "when.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define S INT64_C(1000000000)

/* Central European time: +1, +2 from the last Sunday of March 02:00 to the last of October 03:00. */
#define TZ_CET "CET-1CEST,M3.5.0,M10.5.0/3"

/* 2026-12-01 10:00 CET (09:00Z), the "now" of every case */
static const int64_t now = INT64_C(1796115600) * S;
/* the sample a jump counts from: 2026-12-01 03:00 CET */
static const int64_t base = INT64_C(1796090400) * S;

static const struct {
	const char *in;
	int64_t want;
} ok[] = {
	{ "2026-12-01 03:00", INT64_C(1796090400) * S },
	{ "2026-12-01 03:00:00", INT64_C(1796090400) * S },
	{ "  2026-12-01 03:00 \t", INT64_C(1796090400) * S },
	{ "2026-12-01  3:00", INT64_C(1796090400) * S },
	{ "2026-12-01T03:00", INT64_C(1796090400) * S },
	{ "2026-12-01 03:00:00Z", INT64_C(1796094000) * S },
	{ "2026-12-01T03:00:00z", INT64_C(1796094000) * S },
	{ "2026-12-01 03:00 UTC", INT64_C(1796094000) * S },
	{ "2026-12-01T03:00:00+01:00", INT64_C(1796090400) * S },
	{ "2026-12-01T03:00+0100", INT64_C(1796090400) * S },
	{ "2026-12-01T03:00-05", INT64_C(1796112000) * S },
	{ "2026-12-01T03:00:00.25Z", INT64_C(1796094000) * S + 250000000 },
	{ "2026-12-01T03:00:00.000000001Z", INT64_C(1796094000) * S + 1 },
	{ "2026-12-01", INT64_C(1796079600) * S },
	{ "2024-02-29 12:00Z", INT64_C(1709208000) * S },
	/* summer time: 12:00 CEST is 10:00Z */
	{ "2026-07-01 12:00", (INT64_C(1782907200) - 7200) * S },
	/* shown twice when summer time ends: the earlier (CEST, 00:30Z) */
	{ "2026-10-25 02:30", INT64_C(1792888200) * S },
	/* the hour after it is CET again */
	{ "2026-10-25 03:30", INT64_C(1792895400) * S },
	{ "@1764558000", INT64_C(1764558000) * S },
	{ "@1764558000.5", INT64_C(1764558000) * S + 500000000 },
	{ "@0", 0 },
	{ "@9223372035", INT64_C(9223372035) * S },
	{ "now", INT64_C(1796115600) * S },
	{ "NOW ", INT64_C(1796115600) * S },
	{ "10m ago", INT64_C(1796115000) * S },
	{ "2h ago", INT64_C(1796108400) * S },
	{ "1d ago", INT64_C(1796029200) * S },
	{ "1h30m ago", INT64_C(1796110200) * S },
	{ "1h 30m ago", INT64_C(1796110200) * S },
	{ "2 days ago", INT64_C(1795942800) * S },
	{ "1 week ago", INT64_C(1795510800) * S },
	{ "90 seconds ago", INT64_C(1796115510) * S },
	{ "5 MIN AGO", INT64_C(1796115300) * S },
	{ "-10m", INT64_C(1796089800) * S },
	{ "+1h", INT64_C(1796094000) * S },
	{ "+ 1h", INT64_C(1796094000) * S },
	{ "-1d12h", INT64_C(1795960800) * S },
	/* the last 03:00 before now (10:00) is today's; the last 11:00 yesterday's */
	{ "03:00", INT64_C(1796090400) * S },
	{ "11:00", INT64_C(1796032800) * S },
	{ "09:59:59", INT64_C(1796115599) * S },
};

static const struct {
	const char *in;
	int err;
	size_t at;
	const char *why;      /* a part of the message */
} bad[] = {
	{ "", -EINVAL, 0, "empty" },
	{ "   ", -EINVAL, 0, "empty" },
	{ "2026-13-01 03:00", -EINVAL, 5, "month" },
	{ "2026-00-01", -EINVAL, 5, "month" },
	{ "2026-12-32", -EINVAL, 8, "no such day" },
	{ "2025-02-29", -EINVAL, 8, "no such day" },
	{ "2026-12-01 24:00", -EINVAL, 11, "hour" },
	{ "2026-12-01 03:60", -EINVAL, 14, "minute" },
	{ "2026-12-01 03:00:60", -EINVAL, 17, "second" },
	{ "2026-12-01 03", -EINVAL, 13, "':'" },
	{ "2026-12-01 3:0", -EINVAL, 13, "minute" },
	{ "2026-12-01 03:00 junk", -EINVAL, 17, "zone" },
	{ "2026-12-01 03:00Z junk", -EINVAL, 18, "unexpected" },
	{ "2026-12-01T03:00+24:00", -EINVAL, 17, "offset" },
	{ "2026-12-01T03:00+01:60", -EINVAL, 20, "offset" },
	{ "2026-12-01 03:00:00.1234567890Z", -EINVAL, 20, "9 digits" },
	{ "2026-12-01 03:00:00.", -EINVAL, 20, "9 digits" },
	{ "2026/12/01", -EINVAL, 0, "not a time" },
	{ "1969-12-31 23:00Z", -EINVAL, 0, "year" },
	{ "1970-01-01 00:30", -ERANGE, 0, "before 1970" },
	{ "2262-04-12 00:00Z", -ERANGE, 0, "after 2262" },
	{ "9999-12-31", -EINVAL, 0, "year" },
	{ "20261-12-01", -EINVAL, 0, "" },
	/* the hour the clock skips when summer time starts */
	{ "2026-03-29 02:30", -EINVAL, 0, "skips" },
	{ "@", -EINVAL, 1, "seconds" },
	{ "@-5", -EINVAL, 1, "seconds" },
	{ "@12x", -EINVAL, 3, "unexpected" },
	{ "@9223372036", -ERANGE, 0, "after 2262" },
	{ "@99999999999999999999", -ERANGE, 1, "after 2262" },
	{ "now-1h", -EINVAL, 3, "after 'now'" },
	{ "now now", -EINVAL, 4, "after 'now'" },
	{ "10m", -EINVAL, 3, "'ago'" },
	{ "10 ago", -EINVAL, 3, "unit" },
	{ "10x ago", -EINVAL, 2, "unknown unit" },
	{ "10m ago ago", -EINVAL, 8, "after 'ago'" },
	{ "10m later", -EINVAL, 4, "'ago'" },
	{ "1.5h ago", -EINVAL, 1, "unit" },
	{ "-", -EINVAL, 1, "number" },
	{ "+", -EINVAL, 1, "number" },
	{ "-10m ago", -EINVAL, 5, "after the duration" },
	{ "99999999999999999999d ago", -ERANGE, 0, "too big" },
	{ "9223372036854775807s ago", -ERANGE, 0, "too big" },
	{ "999999999999w ago", -ERANGE, 0, "too long" },
	{ "106752d ago", -ERANGE, 0, "too long" },
	{ "100000d ago", -ERANGE, 0, "before 1970" },
	{ "+100000d", -ERANGE, 0, "after 2262" },
	{ "25:00", -EINVAL, 0, "hour" },
	{ "03:00Z", -EINVAL, 5, "a zone needs a date" },
	{ "yesterday", -EINVAL, 0, "not a time" },
	{ "\x1b[31m", -EINVAL, 0, "not a time" },
	{ "\xc3\xa9", -EINVAL, 0, "not a time" },
};

static void check_ok(void)
{
	for (size_t i = 0; i < N(ok); i++) {
		struct mc_when_error e = { 0 };
		int64_t t = -7;
		int r = mc_when_parse(ok[i].in, now, base, &t, &e);

		tap_eq_int(r, 0, "'%s' parses%s%s", ok[i].in, r ? ": " : "", r ? e.why : "");
		tap_eq_int(t, ok[i].want, "'%s' is %lld.%09lld", ok[i].in,
			   (long long)(ok[i].want / S), (long long)(ok[i].want % S));
	}
}

static void check_bad(void)
{
	for (size_t i = 0; i < N(bad); i++) {
		struct mc_when_error e = { 0 };
		int64_t t = -7;
		int r = mc_when_parse(bad[i].in, now, base, &t, &e);

		tap_eq_int(r, bad[i].err, "'%s' is refused", bad[i].in);
		tap_check(e.why && strstr(e.why, bad[i].why), "'%s': '%s' says '%s'", bad[i].in,
			  e.why ? e.why : "(none)", bad[i].why);
		if (*bad[i].why)
			tap_eq_int((long long)e.at, (long long)bad[i].at, "'%s': at offset %zu", bad[i].in,
				   bad[i].at);
		tap_eq_int(t, -7, "'%s': nothing written on failure", bad[i].in);
	}
}

/* Text longer than any time, and a long run of digits, are refused without reading past a bound. */
static void check_long(void)
{
	char big[4096];
	struct mc_when_error e = { 0 };
	int64_t t = -7;

	memset(big, '9', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	tap_eq_int(mc_when_parse(big, now, base, &t, &e), -EINVAL, "4095 digits refused");
	tap_check(strstr(e.why, "too long") != NULL, "as too long: %s", e.why);
	memset(big, ' ', sizeof(big) - 1);
	memcpy(big + 2000, "now", 3);
	tap_eq_int(mc_when_parse(big, now, base, &t, &e), -EINVAL, "'now' in 4 KiB of blanks refused");
	tap_eq_int(t, -7, "nothing written");
}

static void check_format(void)
{
	char buf[32];

	tap_eq_str(mc_when_format(INT64_C(1796090400) * S, buf, sizeof(buf)), "2026-12-01 03:00:00",
		   "format: local time");
	tap_eq_str(mc_when_format(INT64_C(1796090400) * S + 250000000, buf, sizeof(buf)),
		   "2026-12-01 03:00:00.250", "format: milliseconds");
	tap_eq_str(mc_when_format(INT64_C(1782900000) * S, buf, sizeof(buf)), "2026-07-01 12:00:00",
		   "format: summer time");
	tap_eq_str(mc_when_format(INT64_C(1796090400) * S + 999600000, buf, sizeof(buf)),
		   "2026-12-01 03:00:01", "format: to the nearest millisecond, carried into the second");
	tap_eq_str(mc_when_format(INT64_C(1796090400) * S + 1499999, buf, sizeof(buf)),
		   "2026-12-01 03:00:00.001", "format: 1.499999 ms is 1 ms");
	/* what format writes, parse reads back */
	for (int64_t t = INT64_C(1792880000) * S; t < INT64_C(1792900000) * S; t += 1234 * S) {
		struct mc_when_error e;
		int64_t back = -1;

		mc_when_format(t, buf, sizeof(buf));
		mc_when_parse(buf, now, base, &back, &e);
		if (back != t && strncmp(buf, "2026-10-25 02:", 14) != 0) {
			tap_eq_int(back, t, "round trip of %s", buf);
			return;
		}
	}
	tap_check(true, "format and parse round-trip outside the repeated hour");
}

int main(void)
{
	setenv("TZ", TZ_CET, 1);
	tzset();
	check_ok();
	check_bad();
	check_long();
	check_format();
	return tap_done();
}
