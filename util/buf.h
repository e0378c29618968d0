#ifndef MEMCTL_BUF_H
#define MEMCTL_BUF_H

#include <stdbool.h>
#include <stddef.h>

/*
 * One growable byte buffer for everything memctl composes before it writes
 * it once (kilo style): renderers, file contents, messages. It is always
 * NUL-terminated once anything was added. A failed allocation sets oom and
 * makes every later append a no-op, so a renderer appends without checking
 * and asks mc_buf_error() once at the end; nothing is ever truncated
 * silently. Start from `struct mc_buf b = { 0 };`.
 */
struct mc_buf {
	char *p;              /* NULL until the first append */
	size_t len;           /* bytes, without the terminating NUL */
	size_t cap;
	bool oom;             /* an allocation failed: the contents are incomplete */
};

/* Empties b for reuse, keeping its memory (and clearing oom). */
void mc_buf_reset(struct mc_buf *b);

/* Frees b's memory; b is empty afterwards. */
void mc_buf_release(struct mc_buf *b);

/* Appends n bytes of s (which may hold NULs). */
void mc_buf_add(struct mc_buf *b, const void *s, size_t n);

/* Appends the string s. */
void mc_buf_adds(struct mc_buf *b, const char *s);

/* Appends one byte. */
void mc_buf_addc(struct mc_buf *b, char c);

/* Appends printf-formatted text. */
void mc_buf_printf(struct mc_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* 0, or -ENOMEM when an append was lost. */
int mc_buf_error(const struct mc_buf *b);

/* The contents as a string ("" when nothing was added). Valid until the next append. */
const char *mc_buf_str(const struct mc_buf *b);

/*
 * Hands the contents over as a malloc'd string (the caller frees it) and
 * empties b. NULL when an append was lost or nothing can be allocated.
 */
char *mc_buf_steal(struct mc_buf *b);

/*
 * Arrays: makes *v (of *cap elements of size elem) hold at least n,
 * doubling (from 8), so appending one at a time stays linear. *v and *cap
 * are unchanged on failure. 0, or -ENOMEM (also when n * elem overflows).
 */
int mc_array_reserve(void *v, size_t *cap, size_t n, size_t elem);

#endif
