#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "size.h"
#include "tap.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

#define KiB UINT64_C(1024)
#define MiB (KiB * 1024)
#define GiB (MiB * 1024)
#define TiB (GiB * 1024)

static const struct {
	const char *in;
	enum mc_size_kind kind;
	uint64_t bytes;
	uint32_t centipct;
} parse_ok[] = {
	{ "0", MC_SIZE_BYTES, 0, 0 },
	{ "1048576", MC_SIZE_BYTES, MiB, 0 },
	{ "4097", MC_SIZE_BYTES, 4097, 0 },
	{ "007", MC_SIZE_BYTES, 7, 0 },
	{ "512B", MC_SIZE_BYTES, 512, 0 },
	{ "512b", MC_SIZE_BYTES, 512, 0 },
	{ "1K", MC_SIZE_BYTES, KiB, 0 },
	{ "1k", MC_SIZE_BYTES, KiB, 0 },
	{ "1KB", MC_SIZE_BYTES, KiB, 0 },
	{ "1KiB", MC_SIZE_BYTES, KiB, 0 },
	{ "1kib", MC_SIZE_BYTES, KiB, 0 },
	{ "512M", MC_SIZE_BYTES, 512 * MiB, 0 },
	{ "512MiB", MC_SIZE_BYTES, 512 * MiB, 0 },
	{ "512mb", MC_SIZE_BYTES, 512 * MiB, 0 },
	{ "2g", MC_SIZE_BYTES, 2 * GiB, 0 },
	{ "2G", MC_SIZE_BYTES, 2 * GiB, 0 },
	{ "3T", MC_SIZE_BYTES, 3 * TiB, 0 },
	{ "1.5G", MC_SIZE_BYTES, GiB + GiB / 2, 0 },
	{ "0.5K", MC_SIZE_BYTES, 512, 0 },
	/* 0.001K = 1.024 bytes, rounded down */
	{ "0.001K", MC_SIZE_BYTES, 1, 0 },
	/* 1.999999999999K is just under 2048 bytes */
	{ "1.999999999999K", MC_SIZE_BYTES, 2047, 0 },
	/* the kernel's "no limit" forms, and everything above them, are max */
	{ "18446744073709551615", MC_SIZE_UNLIMITED, 0, 0 },
	{ "16777215T", MC_SIZE_UNLIMITED, 0, 0 },
	{ "16777215.99999999999999T", MC_SIZE_UNLIMITED, 0, 0 },
	{ "9223372036854771712", MC_SIZE_UNLIMITED, 0, 0 },
	{ "9223372036854775807", MC_SIZE_UNLIMITED, 0, 0 },
	{ "9223372036854710272", MC_SIZE_UNLIMITED, 0, 0 },
	{ "9007199254740988K", MC_SIZE_UNLIMITED, 0, 0 },
	{ "9223372036854710271", MC_SIZE_BYTES, UINT64_C(9223372036854710271), 0 },
	{ "8388607T", MC_SIZE_BYTES, UINT64_C(8388607) * TiB, 0 },
	{ "max", MC_SIZE_UNLIMITED, 0, 0 },
	{ "25%", MC_SIZE_PERCENT, 0, 2500 },
	{ "12.5%", MC_SIZE_PERCENT, 0, 1250 },
	{ "12.25%", MC_SIZE_PERCENT, 0, 1225 },
	{ "0%", MC_SIZE_PERCENT, 0, 0 },
	{ "0.01%", MC_SIZE_PERCENT, 0, 1 },
	{ "100%", MC_SIZE_PERCENT, 0, 10000 },
	{ "100.00%", MC_SIZE_PERCENT, 0, 10000 },
};

static const struct {
	const char *in;
	int err;
	const char *why;
	const char *bad_suffix;   /* what mc_size_bad_suffix returns */
} parse_bad[] = {
	{ "", -EINVAL, "is empty", NULL },
	{ "12X", -EINVAL, "has an unknown suffix", "X" },
	{ "1P", -EINVAL, "has an unknown suffix", "P" },
	{ "1KX", -EINVAL, "has an unknown suffix", "KX" },
	{ "1KBB", -EINVAL, "has an unknown suffix", "KBB" },
	{ "1iB", -EINVAL, "has an unknown suffix", "iB" },
	{ "1e9", -EINVAL, "has an unknown suffix", "e9" },
	{ "0x10", -EINVAL, "has an unknown suffix", "x10" },
	{ "1.2.3G", -EINVAL, "has an unknown suffix", ".3G" },
	{ "5G%", -EINVAL, "has an unknown suffix", "G%" },
	{ "-1", -EINVAL, "is negative", NULL },
	{ "-1G", -EINVAL, "is negative", NULL },
	{ "-5%", -EINVAL, "is negative", NULL },
	{ "-.5G", -EINVAL, "is negative", NULL },
	{ "+1G", -EINVAL, "is not a number", NULL },
	{ "G", -EINVAL, "is not a number", NULL },
	{ ".5G", -EINVAL, "is not a number", NULL },
	{ "1.G", -EINVAL, "is not a number", NULL },
	{ "MAX", -EINVAL, "is not a number", NULL },
	{ "unlimited", -EINVAL, "is not a number", NULL },
	{ "1 G", -EINVAL, "contains whitespace", NULL },
	{ " 1G", -EINVAL, "contains whitespace", NULL },
	{ "1\tG", -EINVAL, "contains whitespace", NULL },
	{ "1.5", -EINVAL, "has a fraction of a byte", NULL },
	{ "1.5B", -EINVAL, "has a fraction of a byte", NULL },
	{ "101%", -EINVAL, "is above 100%", NULL },
	{ "100.01%", -EINVAL, "is above 100%", NULL },
	{ "99999999999999999999999%", -EINVAL, "is above 100%", NULL },
	{ "12.345%", -EINVAL, "has more than two decimals", NULL },
	{ "18446744073709551616", -ERANGE, "does not fit in 64 bits", NULL },
	{ "99999999999999999999999", -ERANGE, "does not fit in 64 bits", NULL },
	{ "16777216T", -ERANGE, "does not fit in 64 bits", NULL },
	{ "17179869184G", -ERANGE, "does not fit in 64 bits", NULL },
	{ "18014398509481984K", -ERANGE, "does not fit in 64 bits", NULL },
};

static void test_parse(void)
{
	for (size_t i = 0; i < N(parse_ok); i++) {
		struct mc_size s = { .kind = MC_SIZE_UNSET };
		const char *why = NULL;
		int r = mc_size_parse(parse_ok[i].in, &s, &why);

		tap_eq_int(r, 0, "parse '%s' succeeds", parse_ok[i].in);
		tap_eq_int(s.kind, parse_ok[i].kind, "parse '%s' kind", parse_ok[i].in);
		if (parse_ok[i].kind == MC_SIZE_BYTES)
			tap_eq_u64(s.bytes, parse_ok[i].bytes, "parse '%s' bytes", parse_ok[i].in);
		if (parse_ok[i].kind == MC_SIZE_PERCENT)
			tap_eq_int(s.centipct, parse_ok[i].centipct, "parse '%s' centipct",
				   parse_ok[i].in);
		tap_check(mc_size_bad_suffix(parse_ok[i].in) == NULL,
			  "no bad suffix in '%s'", parse_ok[i].in);
	}

	for (size_t i = 0; i < N(parse_bad); i++) {
		/* *ret must not be written on failure. */
		struct mc_size s = { .kind = MC_SIZE_BYTES, .bytes = 42 };
		const char *why = NULL;
		int r = mc_size_parse(parse_bad[i].in, &s, &why);

		tap_eq_int(r, parse_bad[i].err, "parse '%s' fails", parse_bad[i].in);
		tap_eq_str(why, parse_bad[i].why, "parse '%s' explains", parse_bad[i].in);
		tap_check(s.kind == MC_SIZE_BYTES && s.bytes == 42,
			  "parse '%s' leaves *ret alone", parse_bad[i].in);
		tap_eq_str(mc_size_bad_suffix(parse_bad[i].in), parse_bad[i].bad_suffix,
			   "bad suffix of '%s'", parse_bad[i].in);
	}

	/* ret_why may be NULL. */
	{
		struct mc_size s;

		tap_eq_int(mc_size_parse("1Q", &s, NULL), -EINVAL, "parse without ret_why");
	}
}

static const struct {
	struct mc_size in;
	uint64_t base;
	int r;
	uint64_t want;
} resolve[] = {
	{ { MC_SIZE_BYTES, 4096, 0 }, 1 * GiB, 0, 4096 },
	{ { MC_SIZE_BYTES, 4096, 0 }, MC_SIZE_MAX, 0, 4096 },
	{ { MC_SIZE_UNLIMITED, 0, 0 }, 1 * GiB, 0, MC_SIZE_MAX },
	{ { MC_SIZE_PERCENT, 0, 2500 }, 1 * GiB, 0, GiB / 4 },
	{ { MC_SIZE_PERCENT, 0, 1250 }, 1 * GiB, 0, GiB / 8 },
	{ { MC_SIZE_PERCENT, 0, 10000 }, 1 * GiB, 0, GiB },
	{ { MC_SIZE_PERCENT, 0, 0 }, 1 * GiB, 0, 0 },
	/* rounded down: 33.33% of 100 bytes */
	{ { MC_SIZE_PERCENT, 0, 3333 }, 100, 0, 33 },
	{ { MC_SIZE_PERCENT, 0, 1 }, 9999, 0, 0 },
	/* no overflow near the top of the range */
	{ { MC_SIZE_PERCENT, 0, 10000 }, UINT64_MAX - 1, 0, UINT64_MAX - 1 },
	{ { MC_SIZE_PERCENT, 0, 5000 }, UINT64_MAX - 1, 0, UINT64_MAX / 2 },
	{ { MC_SIZE_PERCENT, 0, 2500 }, MC_SIZE_MAX, -EDOM, 0 },
	{ { MC_SIZE_UNSET, 0, 0 }, 1 * GiB, -EINVAL, 0 },
};

static void test_resolve(void)
{
	for (size_t i = 0; i < N(resolve); i++) {
		uint64_t got = 7;
		int r = mc_size_resolve(&resolve[i].in, resolve[i].base, &got);

		tap_eq_int(r, resolve[i].r, "resolve #%zu returns %d", i, resolve[i].r);
		tap_eq_u64(got, r == 0 ? resolve[i].want : 7, "resolve #%zu value", i);
	}
}

static const struct {
	uint64_t in;
	const char *want;
} format[] = {
	{ 0, "0" },
	{ 1, "1" },
	{ 4097, "4097" },
	{ 1024, "1K" },
	{ 1536 * KiB, "1536K" },
	{ 512 * MiB, "512M" },
	{ 1536 * MiB, "1536M" },
	{ 2 * GiB, "2G" },
	{ 5 * TiB, "5T" },
	{ 2048 * TiB, "2048T" },
	{ UINT64_MAX, "max" },
	{ UINT64_MAX - 1, "18446744073709551614" },
};

static const struct {
	struct mc_size in;
	const char *want;
} format_spec[] = {
	{ { MC_SIZE_BYTES, 512 * MiB, 0 }, "512M" },
	{ { MC_SIZE_UNLIMITED, 0, 0 }, "max" },
	{ { MC_SIZE_PERCENT, 0, 2500 }, "25%" },
	{ { MC_SIZE_PERCENT, 0, 1250 }, "12.5%" },
	{ { MC_SIZE_PERCENT, 0, 1225 }, "12.25%" },
	{ { MC_SIZE_PERCENT, 0, 5 }, "0.05%" },
	{ { MC_SIZE_PERCENT, 0, 10000 }, "100%" },
};

static void test_format(void)
{
	char buf[24];

	for (size_t i = 0; i < N(format); i++) {
		int r = mc_size_format(format[i].in, buf, sizeof(buf));

		tap_eq_int(r, (long long)strlen(format[i].want), "format %s length", format[i].want);
		tap_eq_str(buf, format[i].want, "format %s", format[i].want);
	}
	for (size_t i = 0; i < N(format_spec); i++) {
		int r = mc_size_format_spec(&format_spec[i].in, buf, sizeof(buf));

		tap_eq_int(r, (long long)strlen(format_spec[i].want), "format spec %s length",
			   format_spec[i].want);
		tap_eq_str(buf, format_spec[i].want, "format spec %s", format_spec[i].want);
	}

	/* Too small: -ENOSPC, never a truncated number. */
	tap_eq_int(mc_size_format(4097, buf, 4), -ENOSPC, "format into 4 bytes fails");
	tap_eq_int(mc_size_format(4097, buf, 5), 4, "format into 5 bytes fits");
	tap_eq_int(mc_size_format(UINT64_MAX - 1, buf, 20), -ENOSPC, "20 digits need 21 bytes");
	tap_eq_int(mc_size_format(UINT64_MAX - 1, buf, 21), 20, "20 digits fit in 21 bytes");
	tap_eq_int(mc_size_format(1, NULL, 0), -ENOSPC, "format into nothing fails");
	{
		struct mc_size p = { MC_SIZE_PERCENT, 0, 1225 };
		struct mc_size u = { MC_SIZE_UNSET, 0, 0 };

		tap_eq_int(mc_size_format_spec(&p, buf, 6), -ENOSPC, "12.25%% needs 7 bytes");
		tap_eq_int(mc_size_format_spec(&u, buf, sizeof(buf)), -EINVAL, "unset has no form");
	}
}

/*
 * Whatever is formatted parses back to the same value, below the kernel's
 * "no limit" forms, which parse back as max.
 */
static void test_round_trip(void)
{
	static const uint64_t values[] = {
		0, 1, 4095, 4096, 3 * MiB, 3 * MiB + 4096, 7 * GiB, 9 * TiB,
		MC_SIZE_KERNEL_UNLIMITED - 1,
	};
	char buf[24];

	for (size_t i = 0; i < N(values); i++) {
		struct mc_size s = { .kind = MC_SIZE_UNSET };

		mc_size_format(values[i], buf, sizeof(buf));
		tap_eq_int(mc_size_parse(buf, &s, NULL), 0, "'%s' parses back", buf);
		tap_eq_u64(s.bytes, values[i], "'%s' round-trips", buf);
	}
	{
		struct mc_size s = { .kind = MC_SIZE_UNSET };

		mc_size_format(UINT64_MAX - 1, buf, sizeof(buf));
		tap_eq_int(mc_size_parse(buf, &s, NULL), 0, "'%s' parses", buf);
		tap_eq_int(s.kind, MC_SIZE_UNLIMITED, "'%s' is max", buf);
	}
	for (uint32_t c = 0; c <= 10000; c += 1111) {
		struct mc_size in = { MC_SIZE_PERCENT, 0, c }, out = { .kind = MC_SIZE_UNSET };

		mc_size_format_spec(&in, buf, sizeof(buf));
		tap_eq_int(mc_size_parse(buf, &out, NULL), 0, "'%s' parses back", buf);
		tap_eq_int(out.centipct, c, "'%s' round-trips", buf);
	}
}

int main(void)
{
	test_parse();
	test_resolve();
	test_format();
	test_round_trip();
	return tap_done();
}
