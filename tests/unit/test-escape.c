/*
 * util/: the growable buffer, and escaping of host-supplied text (group
 * names) for text, JSON and Prometheus labels, on the hostile names the
 * integration test makes as real groups and on the UTF-8 edge cases.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "escape.h"
#include "tap.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	const char *in;
	const char *text;
	const char *json;
	bool utf8;
} cases[] = {
	{ "web", "web", "\"web\"", true },
	{ "", "", "\"\"", true },
	{ "a\x1b[31mred", "a\\x1b[31mred", "\"a\\u001b[31mred\"", true },
	{ "\x1b]0;owned\x07", "\\x1b]0;owned\\x07", "\"\\u001b]0;owned\\u0007\"", true },
	{ "\x1b]52;c;ZWNobyBoaQ==\x1b\\", "\\x1b]52;c;ZWNobyBoaQ==\\x1b\\\\",
	  "\"\\u001b]52;c;ZWNobyBoaQ==\\u001b\\\\\"", true },
	{ "new\nline", "new\\x0aline", "\"new\\u000aline\"", true },
	{ "cr\rtab\t", "cr\\x0dtab\\x09", "\"cr\\u000dtab\\u0009\"", true },
	{ "q\"uote", "q\"uote", "\"q\\\"uote\"", true },
	{ "back\\slash", "back\\\\slash", "\"back\\\\slash\"", true },
	{ "del\x7f", "del\\x7f", "\"del\x7f\"", true },
	{ "caf\xc3\xa9", "caf\xc3\xa9", "\"caf\xc3\xa9\"", true },
	{ "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"", true },
	/* C1 CSI, which some terminals take for ESC [ */
	{ "c1\xc2\x9b" "31m", "c1\\u{009b}31m", "\"c1\xc2\x9b" "31m\"", true },
	/* right-to-left override and line separator */
	{ "ab\xe2\x80\xae" "cd", "ab\\u{202e}cd", "\"ab\xe2\x80\xae" "cd\"", true },
	{ "l\xe2\x80\xa8s", "l\\u{2028}s", "\"l\xe2\x80\xa8s\"", true },
	/* not UTF-8: a stray byte, overlong, truncated, a surrogate, past U+10FFFF */
	{ "bad\xff", "bad\\xff", "\"bad\\ufffd\"", false },
	{ "\xc0\xaf", "\\xc0\\xaf", "\"\\ufffd\\ufffd\"", false },
	{ "cut\xe2\x80", "cut\\xe2\\x80", "\"cut\\ufffd\\ufffd\"", false },
	{ "\xed\xa0\x80", "\\xed\\xa0\\x80", "\"\\ufffd\\ufffd\\ufffd\"", false },
	{ "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"", false },
	{ "latin1 \xe9t\xe9", "latin1 \\xe9t\\xe9", "\"latin1 \\ufffdt\\ufffd\"", false },
};

static void test_escapes(void)
{
	for (size_t i = 0; i < N(cases); i++) {
		struct mc_buf b = { 0 };
		char *dup;

		mc_esc_text(&b, cases[i].in);
		tap_eq_str(mc_buf_str(&b), cases[i].text, "text escape of case %zu", i);
		tap_check(mc_esc_text_needed(cases[i].in) == (strcmp(cases[i].in, cases[i].text) != 0),
			  "text escape needed for case %zu exactly when it changes it", i);
		dup = mc_esc_text_dup(cases[i].in);
		tap_eq_str(dup, cases[i].text, "mc_esc_text_dup of case %zu", i);
		free(dup);
		mc_buf_reset(&b);
		mc_esc_json(&b, cases[i].in);
		tap_eq_str(mc_buf_str(&b), cases[i].json, "JSON escape of case %zu", i);
		tap_check(mc_utf8_valid(cases[i].in) == cases[i].utf8, "UTF-8 check of case %zu", i);
		mc_buf_release(&b);
	}
}

static void test_controls_and_prom(void)
{
	struct mc_buf b = { 0 };

	mc_esc_controls(&b, "a\\b\x1b[2J\n");
	tap_eq_str(mc_buf_str(&b), "a\\b\\x1b[2J\\x0a", "controls: backslash stays, controls escaped");
	mc_buf_reset(&b);
	mc_esc_prom_label(&b, "a\"b\\c\nd");
	tap_eq_str(mc_buf_str(&b), "a\\\"b\\\\c\\nd", "Prometheus label: quote, backslash, newline");
	mc_buf_reset(&b);
	mc_esc_json(&b, NULL);
	tap_eq_str(mc_buf_str(&b), "null", "JSON of no string is null");
	mc_buf_release(&b);
}

static void test_buf(void)
{
	struct mc_buf b = { 0 };
	char *s;
	int *v = NULL;
	size_t cap = 0;

	tap_eq_str(mc_buf_str(&b), "", "an empty buffer is the empty string");
	for (int i = 0; i < 2000; i++)
		mc_buf_printf(&b, "%04d,", i);
	tap_eq_int((long long)b.len, 10000, "printf appends grow the buffer");
	tap_check(strncmp(b.p + 9995, "1999,", 5) == 0 && b.p[b.len] == '\0', "and keep it whole");
	mc_buf_add(&b, "x\0y", 3);
	tap_eq_int((long long)b.len, 10003, "binary appends count their NULs");
	mc_buf_reset(&b);
	mc_buf_addc(&b, 'z');
	tap_eq_str(mc_buf_str(&b), "z", "reset empties the buffer for reuse");
	s = mc_buf_steal(&b);
	tap_eq_str(s, "z", "steal hands the string over");
	tap_check(b.p == NULL && b.len == 0, "and leaves the buffer empty");
	free(s);
	tap_eq_int(mc_array_reserve(&v, &cap, 3, sizeof(*v)), 0, "array reserve");
	tap_check(cap >= 3 && v != NULL, "array holds 3 (cap %zu)", cap);
	tap_eq_int(mc_array_reserve(&v, &cap, SIZE_MAX / 2, sizeof(*v)), -ENOMEM,
		   "array reserve past SIZE_MAX is -ENOMEM");
	tap_check(cap >= 3 && cap < 100, "and leaves the array as it was");
	free(v);
}

int main(void)
{
	test_escapes();
	test_controls_and_prom();
	test_buf();
	return tap_done();
}
