/* The growable buffer and array growth: see buf.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

int mc_array_reserve(void *v, size_t *cap, size_t n, size_t elem)
{
	void **pv = v;
	size_t c = *cap ? *cap : 8;
	void *p;

	if (n <= *cap)
		return 0;
	while (c < n) {
		if (c > SIZE_MAX / 2)
			return -ENOMEM;
		c *= 2;
	}
	if (elem && c > SIZE_MAX / elem)
		return -ENOMEM;
	p = realloc(*pv, c * elem);
	if (!p)
		return -ENOMEM;
	*pv = p;
	*cap = c;
	return 0;
}

/* Room for need more bytes and the NUL; false (and oom) when there is none. */
static bool buf_room(struct mc_buf *b, size_t need)
{
	if (b->oom)
		return false;
	if (need > SIZE_MAX - b->len - 1 || mc_array_reserve(&b->p, &b->cap, b->len + need + 1, 1) < 0) {
		b->oom = true;
		return false;
	}
	return true;
}

void mc_buf_reset(struct mc_buf *b)
{
	b->len = 0;
	b->oom = false;
	if (b->p)
		b->p[0] = '\0';
}

void mc_buf_release(struct mc_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

void mc_buf_add(struct mc_buf *b, const void *s, size_t n)
{
	if (!buf_room(b, n))
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void mc_buf_adds(struct mc_buf *b, const char *s)
{
	mc_buf_add(b, s, strlen(s));
}

void mc_buf_addc(struct mc_buf *b, char c)
{
	mc_buf_add(b, &c, 1);
}

void mc_buf_printf(struct mc_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->oom)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = true;
		return;
	}
	if (!b->p || (size_t)n >= b->cap - b->len) {
		if (!buf_room(b, (size_t)n))
			return;
		va_start(ap, fmt);
		vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

int mc_buf_error(const struct mc_buf *b)
{
	return b->oom ? -ENOMEM : 0;
}

const char *mc_buf_str(const struct mc_buf *b)
{
	return b->p && !b->oom ? b->p : "";
}

char *mc_buf_steal(struct mc_buf *b)
{
	char *s;

	if (b->oom) {
		mc_buf_release(b);
		return NULL;
	}
	s = b->p ? b->p : strdup("");
	memset(b, 0, sizeof(*b));
	return s;
}
