#ifndef MEMCTL_FORMAT_H
#define MEMCTL_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "caps.h"
#include "knob.h"

/*
 * Values as memctl shows them, for every front end: sizes for people and
 * for JSON, and knob values in memctl's abstract terms.
 */

/* Formats a value for people: "max", "256M", "4097". Returns buf. */
const char *mc_fmt_size(uint64_t v, char buf[static 24]);

/*
 * A size in at most 5 characters, for a column: 3 significant digits of
 * the largest unit that keeps a digit before the point ("1.5G", "150M",
 * "12K", "512"; "max"). Returns buf.
 */
const char *mc_fmt_size_short(uint64_t v, char *buf, size_t len);

/* v in decimal, as "%" PRIu64 prints it, into buf (len bytes, cut as snprintf cuts). Returns buf. */
const char *mc_fmt_u64(uint64_t v, char *buf, size_t len);

/*
 * x as printf's "%.0f" or "%.1f" prints it (decimals 0 or 1), byte for
 * byte, without printf for the values a column shows (0 <= x < 1e14; the
 * rest through snprintf). len >= 24. Returns buf.
 */
const char *mc_fmt_fixed(double x, int decimals, char *buf, size_t len);
/* Appends a raw value as JSON: a number, or "max". */
void mc_fmt_json_size(struct mc_buf *b, uint64_t v);

/* Abstract value of knob k from raw file values (v1 swap is memsw - max). */
uint64_t mc_abstract_value(const struct mc_caps *caps, enum mc_knob k,
			   const uint64_t raw[MC_KNOB__COUNT]);

#endif
