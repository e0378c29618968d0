#ifndef MEMCTL_SIZE_H
#define MEMCTL_SIZE_H

#include <stdint.h>
#include <stddef.h>

/* "No limit". Every knob value in memctl is a uint64_t byte count or this. */
#define MC_SIZE_MAX UINT64_MAX

/*
 * The kernel's own "no limit" as it prints it: PAGE_COUNTER_MAX pages, that
 * is LONG_MAX rounded down to a page (9223372036854771712 with 4 KiB pages,
 * what cgsnapshot writes), or LONG_MAX itself. It takes any larger value as
 * no limit too. This is the smallest of those forms on any page size up to
 * 64 KiB: every byte count from here up means "max".
 */
#define MC_SIZE_KERNEL_UNLIMITED UINT64_C(0x7fffffffffff0000)

enum mc_size_kind {
	MC_SIZE_UNSET = 0,
	MC_SIZE_BYTES,
	MC_SIZE_PERCENT,   /* of the parent's effective limit */
	MC_SIZE_UNLIMITED, /* the word "max" */
};

struct mc_size {
	enum mc_size_kind kind;
	uint64_t bytes;       /* MC_SIZE_BYTES */
	uint32_t centipct;    /* MC_SIZE_PERCENT: hundredths of a percent, 0..10000 */
};

/*
 * The kernel keeps limits in pages and rounds a byte count down to one: a
 * size from 1 to 4095 bytes becomes 0 (no memory at all), on every page
 * size. Such a size is refused where a limit is given.
 */
#define MC_SIZE_PAGE_MIN 4096

/*
 * Parses a size as written in a profile or on the command line:
 *   plain bytes "1048576"; binary suffixes K M G T, case-insensitive, with an
 *   optional trailing "B" or "iB" ("512M", "512MiB", "2g", "1KB");
 *   a percentage "25%" or "12.5%" (at most two decimals, at most 100);
 *   "max" (no limit).
 * Fractions of a suffixed unit are allowed ("1.5G") and rounded down to bytes.
 * A byte count of at least MC_SIZE_KERNEL_UNLIMITED is the kernel's way of
 * saying "no limit" and parses as "max" (MC_SIZE_UNLIMITED).
 * On error returns -EINVAL (malformed, negative, unknown suffix, percentage
 * over 100) or -ERANGE (does not fit in 64 bits) and sets *ret_why to a
 * static English explanation; *ret is not written.
 */
int mc_size_parse(const char *s, struct mc_size *ret, const char **ret_why);

/*
 * When mc_size_parse rejects s because of its unit suffix, returns that
 * suffix (a pointer into s: "X" for "12X") so a message can quote it;
 * otherwise NULL.
 */
const char *mc_size_bad_suffix(const char *s);

/*
 * Resolves a parsed size against base (the parent's effective limit, in
 * bytes): bytes stay bytes, percentages become base * pct rounded down,
 * "max" becomes MC_SIZE_MAX. A percentage of an unlimited base is -EDOM.
 */
int mc_size_resolve(const struct mc_size *s, uint64_t base, uint64_t *ret);

/*
 * Formats bytes for people: "max", or the largest binary suffix that divides
 * the value exactly ("512M", "1536K", "4097"). Returns the length written, or
 * -ENOSPC when len is too small (nothing is truncated). 24 bytes always fit.
 */
int mc_size_format(uint64_t bytes, char *buf, size_t len);

/* Formats the size as written (percentages as "25%", "12.5%"). Same contract. */
int mc_size_format_spec(const struct mc_size *s, char *buf, size_t len);

#endif
