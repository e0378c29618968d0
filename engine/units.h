#ifndef MEMCTL_UNITS_H
#define MEMCTL_UNITS_H

#include <stddef.h>
#include <stdint.h>

/*
 * One unit per line. Messages that carry several sizes ("caps 'stream' at
 * 118M so the limit 192M leaves room for 66012K") are built with every
 * size marked (mc_units_mark), then resolved once the whole line is known
 * (mc_units_resolve): every marked size is written in the same unit, the
 * largest of K, M, G and T that divides all of them exactly (plain bytes
 * when none does), so that a reader compares numbers, not suffixes, and
 * nothing is rounded.
 */

/* Marks bytes for mc_units_resolve: writes the marked form into buf
 * (MC_UNITS_MARK_LEN bytes always fit) and returns buf. "max" for
 * MC_SIZE_MAX is written as it is, unmarked. */
#define MC_UNITS_MARK_LEN 24
char *mc_units_mark(uint64_t bytes, char buf[static MC_UNITS_MARK_LEN]);

/*
 * Resolves the marked sizes of s into one unit, chosen so that it also
 * divides extra[0..n_extra) (values the caller prints beside the line in
 * the same unit, such as a knob's old and new value; 0 and MC_SIZE_MAX are
 * ignored). Consumes s; returns the new string, or NULL when s is NULL or
 * memory runs out. *ret_shift (may be NULL) gets the unit: 0 bytes, 10 K,
 * 20 M, 30 G, 40 T.
 */
char *mc_units_resolve(char *s, const uint64_t *extra, size_t n_extra, unsigned *ret_shift);

/*
 * The largest unit (shift 40, 30, 20, 10, else 0 for bytes) that divides
 * every v[0..n) exactly; 0 and MC_SIZE_MAX are ignored (40 when all are).
 */
unsigned mc_units_shift(const uint64_t *v, size_t n);

/* Formats bytes in the unit 1 << shift: "118M", or "117.99M" when the unit
 * does not divide bytes (two decimals, rounded down); "max"; "0". Returns
 * buf (MC_UNITS_MARK_LEN bytes). */
char *mc_units_format(uint64_t bytes, unsigned shift, char buf[static MC_UNITS_MARK_LEN]);

#endif
