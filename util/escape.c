/*
 * Escaping for text, JSON and Prometheus labels: see escape.h for the
 * rules. Everything walks the string with one UTF-8 decoder, so "what is a
 * character" cannot differ between the formats.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "escape.h"

/*
 * Decodes the UTF-8 sequence at s: returns its length and stores the code
 * point, or returns 0 when s does not start a well-formed sequence.
 */
static int utf8_decode(const unsigned char *s, uint32_t *ret)
{
	uint32_t cp;
	int n;

	if (s[0] < 0x80) {
		*ret = s[0];
		return 1;
	} else if ((s[0] & 0xe0) == 0xc0) {
		cp = s[0] & 0x1f;
		n = 1;
	} else if ((s[0] & 0xf0) == 0xe0) {
		cp = s[0] & 0x0f;
		n = 2;
	} else if ((s[0] & 0xf8) == 0xf0) {
		cp = s[0] & 0x07;
		n = 3;
	} else {
		return 0;
	}
	for (int i = 1; i <= n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;   /* also stops at the NUL */
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	*ret = cp;
	return n + 1;
}

bool mc_utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;

	while (*p) {
		int n = utf8_decode(p, &cp);

		if (!n)
			return false;
		p += n;
	}
	return true;
}

/*
 * Characters a terminal acts on or that change how the line around them
 * reads: controls, and the bidirectional overrides, isolates and line
 * separators (the "Trojan Source" characters).
 */
static bool text_unsafe(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || cp == 0x061c || cp == 0x200e ||
	       cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

static void esc_text(struct mc_buf *b, const char *s, bool backslash)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		uint32_t cp;
		int n = utf8_decode(p, &cp);

		if (!n) {
			mc_buf_printf(b, "\\x%02x", *p);
			p++;
			continue;
		}
		if (cp < 0x80 && text_unsafe(cp))
			mc_buf_printf(b, "\\x%02x", (unsigned)cp);
		else if (text_unsafe(cp))
			mc_buf_printf(b, "\\u{%04x}", (unsigned)cp);
		else if (cp == '\\' && backslash)
			mc_buf_adds(b, "\\\\");
		else
			mc_buf_add(b, p, (size_t)n);
		p += n;
	}
	if (!b->p)
		mc_buf_add(b, "", 0);   /* an empty string is still a string */
}

void mc_esc_text(struct mc_buf *b, const char *s)
{
	esc_text(b, s, true);
}

void mc_esc_controls(struct mc_buf *b, const char *s)
{
	esc_text(b, s, false);
}

void mc_esc_controls_fmt(struct mc_buf *b, const char *fmt, va_list ap)
{
	struct mc_buf raw = { 0 };
	va_list copy;
	int n;

	va_copy(copy, ap);
	n = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (n < 0 || mc_array_reserve(&raw.p, &raw.cap, (size_t)n + 1, 1) < 0) {
		b->oom = true;
		return;
	}
	vsnprintf(raw.p, raw.cap, fmt, ap);
	mc_esc_controls(b, raw.p);
	mc_buf_release(&raw);
}

bool mc_esc_text_needed(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		uint32_t cp;
		int n = utf8_decode(p, &cp);

		if (!n || text_unsafe(cp) || cp == '\\')
			return true;
		p += n;
	}
	return false;
}

char *mc_esc_text_dup(const char *s)
{
	struct mc_buf b = { 0 };

	mc_esc_text(&b, s);
	return mc_buf_steal(&b);
}

void mc_esc_json(struct mc_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!s) {
		mc_buf_adds(b, "null");
		return;
	}
	mc_buf_addc(b, '"');
	while (*p) {
		uint32_t cp;
		int n = utf8_decode(p, &cp);

		if (!n) {
			mc_buf_adds(b, "\\ufffd");
			p++;
			continue;
		}
		if (cp == '"' || cp == '\\') {
			mc_buf_addc(b, '\\');
			mc_buf_addc(b, (char)cp);
		} else if (cp < 0x20) {
			mc_buf_printf(b, "\\u%04x", (unsigned)cp);
		} else {
			mc_buf_add(b, p, (size_t)n);
		}
		p += n;
	}
	mc_buf_addc(b, '"');
}

void mc_esc_prom_label(struct mc_buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"') {
			mc_buf_addc(b, '\\');
			mc_buf_addc(b, *s);
		} else if (*s == '\n') {
			mc_buf_adds(b, "\\n");
		} else {
			mc_buf_addc(b, *s);
		}
	}
}
