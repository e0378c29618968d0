#ifndef MEMCTL_TAP_H
#define MEMCTL_TAP_H

#include <stdbool.h>
#include <stdint.h>

/*
 * A tiny TAP producer for the unit tests: every check prints "ok N - name"
 * or "not ok N - name" with the values compared, and tap_done() returns the
 * exit status (non-zero when any check failed).
 */
void tap_check(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tap_eq_int(long long got, long long want, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void tap_eq_u64(uint64_t got, uint64_t want, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void tap_eq_str(const char *got, const char *want, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int tap_done(void);

#endif
