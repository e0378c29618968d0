#ifndef MEMCTL_WHEN_H
#define MEMCTL_WHEN_H

#include <stddef.h>
#include <stdint.h>

/*
 * Times as an operator types them, for the commands that look back in a
 * recorded history (top --replay -t, --from, --to; dump --from, --to) and
 * top's jump prompt. A time is int64_t nanoseconds since the Unix epoch
 * (UTC), which holds 1970 to 2262.
 *
 * The forms (blanks around the text are ignored; words and units in any case):
 *   2026-12-01 03:00          local time (seconds ":SS" and ".FRACTION" may follow)
 *   2026-12-01T03:00:00Z      ISO 8601: 'T' or a blank; Z, UTC, +01:00, +0100, -05
 *   2026-12-01                midnight, local time
 *   03:00[:SS]                the last time the local clock showed it (today or yesterday)
 *   @1764558000[.5]           seconds since the epoch
 *   now
 *   10m ago, 1h30m ago, 2 days ago      before now (s, m, h, d, w and their words)
 *   -10m, +1h                 before or after a base time (top's jump prompt: the
 *                             sample shown; on a command line: now)
 *
 * Local time is the process's time zone (TZ, else /etc/localtime). A local
 * time the clock skips (a daylight-saving gap) is refused; one it shows
 * twice (the hour after the gap closes) means the earlier.
 *
 * It lives in host/ because local time is the machine's configuration;
 * the rest is arithmetic. It never prints.
 */

struct mc_when_error {
	const char *why;      /* what is wrong, static text ("month must be 01 to 12") */
	size_t at;            /* offset in the text of the part that is wrong */
};

/*
 * Parses text into *ret_ns (nanoseconds since the epoch). now_ns is the
 * present (for "now", "ago" and "03:00"), base_ns what "+1h" / "-10m"
 * count from. Returns 0; -EINVAL (not a time, or a field out of range) or
 * -ERANGE (before 1970, after 2262, or a number too big) with *ret_err;
 * *ret_ns is not written on failure.
 */
int mc_when_parse(const char *text, int64_t now_ns, int64_t base_ns, int64_t *ret_ns,
		  struct mc_when_error *ret_err);

/* The present (CLOCK_REALTIME) in nanoseconds since the epoch. */
int64_t mc_when_now(void);

/*
 * Formats t as local time "2026-12-01 03:00:05", to the nearest
 * millisecond (with ".250" when that is not a whole second), into buf of
 * len bytes (32 is always enough). Returns buf.
 */
char *mc_when_format(int64_t t_ns, char *buf, size_t len);

#endif
