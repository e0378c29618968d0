#ifndef MEMCTL_DIAG_H
#define MEMCTL_DIAG_H

#include <stddef.h>

/*
 * Diagnostics: a list of errors found while reading input (a profile, a
 * KNOB=VALUE argument). The engine never prints; it collects diagnostics and
 * the program decides how to show them. Every diagnostic carries the place it
 * refers to so the operator can go straight to it.
 *
 * line and col are 1-based; 0 means "not known" (an argument on the command
 * line, a live group). path is the key path inside the profile
 * ("groups.web.max") or a group path; it may be NULL.
 */
struct mc_diag {
	char *file;
	int line;
	int col;
	char *path;
	char *msg;
};

struct mc_diags {
	struct mc_diag *v;
	size_t n;
	size_t cap;
};

/* Appends a diagnostic; strings are copied. Returns 0 or -ENOMEM. */
int mc_diags_add(struct mc_diags *d, const char *file, int line, int col,
		 const char *path, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/*
 * Formats diagnostic i as "file:line:col: path: msg" (parts that are not
 * known are left out) into a newly allocated string in *ret. Returns 0 or
 * -ENOMEM.
 */
int mc_diag_format(const struct mc_diag *d, char **ret);

void mc_diags_free(struct mc_diags *d);

/* Longest part of a value a message quotes; longer ones end in "...". */
#define MC_QUOTE_MAX 60

struct mc_quoted {
	char s[MC_QUOTE_MAX * 4 + 4];
};

/*
 * A value (len bytes) as shown inside a message: control characters
 * escaped (\xNN) so that hostile input cannot drive the terminal, long
 * values shortened with a visible "..." (cut on a UTF-8 character boundary).
 */
struct mc_quoted mc_quote_n(const char *s, size_t len);

/* vasprintf into a new string; NULL when out of memory. For messages and reasons. */
char *mc_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
