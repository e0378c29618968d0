#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"

static int tap_n;
static int tap_failed;

static void tap_line(bool ok, const char *fmt, va_list ap)
{
	tap_n++;
	if (!ok)
		tap_failed++;
	printf("%s %d - ", ok ? "ok" : "not ok", tap_n);
	vprintf(fmt, ap);
	putchar('\n');
}

void tap_check(bool cond, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_line(cond, fmt, ap);
	va_end(ap);
}

void tap_eq_int(long long got, long long want, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_line(got == want, fmt, ap);
	va_end(ap);
	if (got != want)
		printf("#   got %lld, want %lld\n", got, want);
}

void tap_eq_u64(uint64_t got, uint64_t want, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_line(got == want, fmt, ap);
	va_end(ap);
	if (got != want)
		printf("#   got %" PRIu64 ", want %" PRIu64 "\n", got, want);
}

void tap_eq_str(const char *got, const char *want, const char *fmt, ...)
{
	va_list ap;
	bool ok = got && want ? strcmp(got, want) == 0 : got == want;

	va_start(ap, fmt);
	tap_line(ok, fmt, ap);
	va_end(ap);
	if (!ok)
		printf("#   got  '%s'\n#   want '%s'\n", got ? got : "(null)", want ? want : "(null)");
}

int tap_done(void)
{
	printf("1..%d\n", tap_n);
	if (tap_failed)
		printf("# %d of %d checks failed\n", tap_failed, tap_n);
	return tap_failed ? 1 : 0;
}
