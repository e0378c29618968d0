#ifndef MEMCTL_DURATION_H
#define MEMCTL_DURATION_H

/*
 * Durations as options give them: a decimal number and an optional unit,
 * ms, s (the default), m, h, d or w: "5s", "0.5", "250ms", "7d", "12h".
 * Returns 0 and the seconds in *ret, or -EINVAL (malformed, negative, an
 * unknown unit) / -ERANGE (more than 100 years) with a static English
 * explanation in *ret_why; *ret is not written then. Pure.
 */
int mc_duration_parse(const char *s, double *ret, const char **ret_why);

#endif
