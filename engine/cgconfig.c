/*
 * cgconfig.conf -> memctl profile.
 *
 * Reading. cgconfigparser's grammar (libcgroup 2.0, lex.l and parse.y) is
 * small: sections "group NAME { ... }", "template NAME { ... }",
 * "mount { ... }", "namespace { ... }" and "default { perm { ... } }"; a
 * group holds "perm { task { ... } admin { ... } }" and controller blocks
 * "NAME { key = value; ... }". A word is [A-Za-z0-9_-/.,%@\\]+ or a "quoted
 * string"; mount, task, admin, perm, group, namespace, default and template
 * are keywords, never words (a group may still be called "default"). A line
 * whose first non-blank character is '#', or that starts with '*', is a
 * comment; a '#' after something else on the line is a syntax error there,
 * as are carriage returns. A group needs at least one block, a mount or
 * namespace section at least one entry, and a key may appear only once in a
 * block. The same group may be defined by several sections: cgconfigparser
 * applies them one after the other, so here a later value of a knob wins.
 * The first syntax error stops the reading; value errors are all collected.
 *
 * Converting. Only memory blocks carry over; a group's path (a/b/c, from the
 * hierarchy root, '.' being the root itself) becomes nested groups, the
 * missing parents created empty as cgconfigparser creates them. v1 and v2
 * file names map through the knob table (knob.c); v1's memsw limit bounds
 * memory + swap, so swap_max = memsw - limit. memctl's profile refuses some
 * settings the kernel takes (a soft limit above the limit, a child's limit
 * above its parent's, low above high...): those are left out and reported,
 * never adjusted, so that what memctl applies is what the file said. The
 * result is parsed back with mc_profile_parse before it is returned.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "cgconfig.h"
#include "knob.h"
#include "profile.h"
#include "size.h"

/* Past these, reading stops (room_for). */
#define CGCONFIG_MAX_ERRORS 100
#define CGCONFIG_MAX_SKIPPED 20000
#define CGCONFIG_MAX_ENTRIES 10000    /* in one block: a memory block has a dozen keys */

static struct mc_quoted quote(const char *s)
{
	return mc_quote_n(s, strlen(s));
}

/* A group name for the path part of a message: escaped like quote(), never shortened. */
static char *path_escape(const char *s)
{
	size_t n = strlen(s), o = 0;
	char *r = malloc(4 * n + 1);

	if (!r)
		return NULL;
	for (; *s; s++) {
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			o += (size_t)sprintf(r + o, "\\x%02x", (unsigned char)*s);
		else
			r[o++] = *s;
	}
	r[o] = '\0';
	return r;
}

/*
 * The text of the profile must read back as written. libyaml ends a line,
 * and so a comment, at U+0085, U+2028 and U+2029 as well as at \n and \r,
 * refuses control characters anywhere, and skips a U+FEFF. So in comments
 * and in quoted names only the characters below pass as they are; every
 * other character is escaped, and a byte that is not UTF-8 too.
 */

/*
 * The code point of the UTF-8 sequence at s and its length in *ret_len, or
 * -1 when s does not start a valid, shortest-form sequence.
 */
static long utf8_char(const char *s, size_t *ret_len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n;
	long cp;

	if (u[0] < 0x80) {
		*ret_len = 1;
		return u[0];
	}
	if (u[0] >= 0xc2 && u[0] <= 0xdf)
		n = 2, cp = u[0] & 0x1f;
	else if (u[0] >= 0xe0 && u[0] <= 0xef)
		n = 3, cp = u[0] & 0x0f;
	else if (u[0] >= 0xf0 && u[0] <= 0xf4)
		n = 4, cp = u[0] & 0x07;
	else
		return -1;
	for (size_t i = 1; i < n; i++) {
		if ((u[i] & 0xc0) != 0x80)   /* the terminating NUL stops here too */
			return -1;
		cp = (cp << 6) | (u[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return -1;
	*ret_len = n;
	return cp;
}

/* Whether libyaml reads cp as itself: printable, and not a line break. */
static bool yaml_literal_char(long cp)
{
	return (cp >= 0x20 && cp <= 0x7e) ||
	       (cp >= 0xa0 && cp <= 0xd7ff && cp != 0x2028 && cp != 0x2029) ||
	       (cp >= 0xe000 && cp <= 0xfffd && cp != 0xfeff) || (cp >= 0x10000 && cp <= 0x10ffff);
}

/* Whether s is UTF-8 text, which a profile is. */
static bool is_utf8(const char *s)
{
	size_t n;

	for (; *s; s += n)
		if (utf8_char(s, &n) < 0)
			return false;
	return true;
}

/* ---- sizes ---- */

/*
 * It is long because it follows the kernel's memparse() step by step (trim,
 * the no-limit word, base prefix, digits, one unit letter), and each step
 * has its own error to give.
 */
int mc_cgconfig_parse_size(const char *s, bool v1, uint64_t *ret_bytes, bool *ret_unlimited,
			   const char **ret_why)
{
	const char *p = s, *end;
	uint64_t v = 0, base = 10;
	unsigned shift = 0;
	size_t n;

	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	end = p + strlen(p);
	while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n'))
		end--;
	n = (size_t)(end - p);
	if (n == 0) {
		*ret_why = "it is empty";
		return -EINVAL;
	}
	/* The kernel's "no limit" word differs: v1 takes -1, v2 takes max. */
	if ((v1 && n == 2 && memcmp(p, "-1", 2) == 0) || (!v1 && n == 3 && memcmp(p, "max", 3) == 0)) {
		*ret_unlimited = true;
		*ret_bytes = MC_SIZE_MAX;
		return 0;
	}
	if (n == 3 && memcmp(p, "max", 3) == 0) {
		*ret_why = "cgroup v1 takes -1 for no limit, not max";
		return -EINVAL;
	}
	if (n == 2 && memcmp(p, "-1", 2) == 0) {
		*ret_why = "cgroup v2 takes max for no limit, not -1";
		return -EINVAL;
	}
	/* memparse(): simple_strtoull with base 0, then one suffix letter. */
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && end - p > 2) {
		base = 16;
		p += 2;
	} else if (p[0] == '0' && end - p > 1 && p[1] >= '0' && p[1] <= '9') {
		base = 8;
		p++;
	}
	if (p == end || !((*p >= '0' && *p <= '9') || (base == 16 && strchr("abcdefABCDEF", *p)))) {
		*ret_why = "it is not a number of bytes";
		return -EINVAL;
	}
	for (; p < end; p++) {
		unsigned d;

		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a' + 10);
		else if (base == 16 && *p >= 'A' && *p <= 'F')
			d = (unsigned)(*p - 'A' + 10);
		else
			break;
		if (d >= base) {
			*ret_why = "it has a digit that is not octal after a leading 0";
			return -EINVAL;
		}
		if (v > (UINT64_MAX - d) / base) {
			*ret_why = "it does not fit in 64 bits";
			return -ERANGE;
		}
		v = v * base + d;
	}
	if (p < end) {
		const char *units = "kKmMgGtTpPeE";
		const char *u = strchr(units, *p);

		if (!u || p + 1 != end) {
			*ret_why = "it has an unknown unit (the kernel takes K, M, G, T, P or E)";
			return -EINVAL;
		}
		shift = 10 * (unsigned)((u - units) / 2 + 1);
		if (v > (UINT64_MAX >> shift)) {
			*ret_why = "it does not fit in 64 bits";
			return -ERANGE;
		}
		v <<= shift;
	}
	/* what cgsnapshot writes for no limit (and the kernel reads as that) */
	*ret_unlimited = v >= MC_SIZE_KERNEL_UNLIMITED;
	*ret_bytes = *ret_unlimited ? MC_SIZE_MAX : v;
	return 0;
}

/* ---- the lexer ---- */

enum tok_kind { T_EOF, T_WORD, T_LBRACE, T_RBRACE, T_EQ, T_SEMI };

enum kw { KW_NONE, KW_MOUNT, KW_TASK, KW_ADMIN, KW_PERM, KW_GROUP, KW_NAMESPACE, KW_DEFAULT,
	  KW_TEMPLATE };

static const char *const keywords[] = {
	[KW_MOUNT] = "mount", [KW_TASK] = "task", [KW_ADMIN] = "admin", [KW_PERM] = "perm",
	[KW_GROUP] = "group", [KW_NAMESPACE] = "namespace", [KW_DEFAULT] = "default",
	[KW_TEMPLATE] = "template",
};

struct tok {
	enum tok_kind kind;
	enum kw kw;             /* T_WORD: a keyword (never for quoted words) */
	bool quoted;
	const char *s;          /* T_WORD: the text, inside the quotes */
	size_t len;
	struct mc_pos pos;
};

/* One value inside a node, where it came from. */
struct setting {
	bool set;
	bool unlimited;
	uint64_t bytes;
	const char *key;        /* the file name, static (from the knob table) */
	struct mc_pos pos;      /* of the key */
};

struct node {
	char *name;             /* one path component ("" for the root) */
	char *path;             /* a/b/c as in messages; "." for the root */
	bool memory;            /* has a memory block (or is a parent of one) */
	struct setting knob[MC_KNOB__COUNT];
	struct setting memsw;   /* v1 memory.memsw.limit_in_bytes, before conversion */
	bool swap_from_memsw;
	struct node *parent;
	struct node **kids;
	size_t n_kids, cap_kids;
};

struct conv {
	const char *file;
	const char *buf;
	size_t len, i;
	int line, col;
	bool blank_line;        /* nothing but blanks so far on this line */
	struct tok cur;
	bool failed;            /* a syntax error: reading stopped */
	bool nomem;
	struct node root;
	struct node **index;    /* every node but the root, by (parent, name): open addressing */
	size_t index_cap, index_n;
	struct mc_diags *errors;
	struct mc_diags *skipped;
	size_t errors_before, skipped_before;
	size_t parent_len;      /* of the profile's parent, 0 for self or / */
};

static void vadd(struct conv *c, struct mc_diags *d, struct mc_pos pos, const char *path,
		 const char *prefix, const char *fmt, va_list ap) __attribute__((format(printf, 6, 0)));

/*
 * Whether d may take one more entry. Past the caps the reading stops with
 * an error: a hundred errors say enough, and so many items left out that
 * their comment lines alone would exceed the largest profile memctl reads
 * mean the result could never be checked.
 */
static bool room_for(struct conv *c, struct mc_diags *d, struct mc_pos pos)
{
	if (d == c->errors && d->n - c->errors_before >= CGCONFIG_MAX_ERRORS) {
		if (!c->failed && mc_diags_add(d, c->file, pos.line, pos.col, NULL,
					      "too many errors, stopping after %d",
					      CGCONFIG_MAX_ERRORS) < 0)
			c->nomem = true;
		c->failed = true;
		return false;
	}
	if (d == c->skipped && d->n - c->skipped_before >= CGCONFIG_MAX_SKIPPED) {
		if (!c->failed && mc_diags_add(c->errors, c->file, pos.line, pos.col, NULL,
					      "more than %d items cannot be converted: listing them "
					      "would exceed the %d bytes a profile may have",
					      CGCONFIG_MAX_SKIPPED, MC_PROFILE_MAX_BYTES) < 0)
			c->nomem = true;
		c->failed = true;
		return false;
	}
	return true;
}

static void vadd(struct conv *c, struct mc_diags *d, struct mc_pos pos, const char *path,
		 const char *prefix, const char *fmt, va_list ap)
{
	char *msg;

	if (!room_for(c, d, pos))
		return;
	if (vasprintf(&msg, fmt, ap) < 0) {
		c->nomem = true;
		return;
	}
	if (mc_diags_add(d, c->file, pos.line, pos.col, path, "%s%s", prefix, msg) < 0)
		c->nomem = true;
	free(msg);
}

static void add(struct conv *c, struct mc_diags *d, struct mc_pos pos, const char *path,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void add(struct conv *c, struct mc_diags *d, struct mc_pos pos, const char *path,
		const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vadd(c, d, pos, path, "", fmt, ap);
	va_end(ap);
}

static void advance(struct conv *c)
{
	unsigned char ch = (unsigned char)c->buf[c->i++];

	if (ch == '\n') {
		c->line++;
		c->col = 1;
		c->blank_line = true;
	} else if ((ch & 0xc0) != 0x80) {
		/* columns count characters: UTF-8 continuation bytes add none */
		c->col++;
	}
}

static bool is_alnum(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
}

/* Characters of an unquoted word, as libcgroup 2.0.2's lexer takes them (tried). */
static bool is_word_char(char ch)
{
	return is_alnum(ch) || (ch && strchr("_-/.,%@\\", ch));
}

static void syntax_error(struct conv *c, struct mc_pos pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void syntax_error(struct conv *c, struct mc_pos pos, const char *fmt, ...)
{
	va_list ap;

	if (c->failed)
		return;
	c->failed = true;
	va_start(ap, fmt);
	vadd(c, c->errors, pos, NULL, "syntax error: ", fmt, ap);
	va_end(ap);
}

/*
 * Reads the next token into c->cur; on a lexical error sets c->failed.
 * It is long because it is the whole tokenizer: blanks and comments, the
 * one-character tokens, quoted strings and words, each with its own error.
 */
static void next(struct conv *c)
{
	struct tok *t = &c->cur;

	for (;;) {
		char ch;

		if (c->failed) {
			t->kind = T_EOF;
			return;
		}
		if (c->i >= c->len) {
			*t = (struct tok){ .kind = T_EOF, .pos = { c->line, c->col } };
			return;
		}
		ch = c->buf[c->i];
		if (ch == ' ' || ch == '\t' || ch == '\n') {
			advance(c);
			continue;
		}
		if ((ch == '#' && c->blank_line) || (ch == '*' && c->col == 1)) {
			while (c->i < c->len && c->buf[c->i] != '\n')
				advance(c);
			continue;
		}
		break;
	}
	c->blank_line = false;
	*t = (struct tok){ .kind = T_WORD, .pos = { c->line, c->col }, .s = c->buf + c->i };
	switch (c->buf[c->i]) {
	case '{':
		t->kind = T_LBRACE;
		advance(c);
		return;
	case '}':
		t->kind = T_RBRACE;
		advance(c);
		return;
	case '=':
		t->kind = T_EQ;
		advance(c);
		return;
	case ';':
		t->kind = T_SEMI;
		advance(c);
		return;
	case '"':
		advance(c);
		t->s = c->buf + c->i;
		t->quoted = true;
		while (c->i < c->len && c->buf[c->i] != '"' && c->buf[c->i] != '\0')
			advance(c);
		if (c->i >= c->len || c->buf[c->i] == '\0') {
			syntax_error(c, t->pos, c->i >= c->len ? "quoted string is not closed" :
				     "NUL byte inside a quoted string");
			t->kind = T_EOF;
			return;
		}
		t->len = (size_t)(c->buf + c->i - t->s);
		advance(c);
		return;
	default:
		break;
	}
	if (!is_word_char(c->buf[c->i])) {
		unsigned char ch = (unsigned char)c->buf[c->i];

		if (ch == '#')
			syntax_error(c, t->pos, "'#' after other text (a comment must be on a line of its own)");
		else if (ch == '\r')
			syntax_error(c, t->pos, "carriage return (DOS line ending)");
		else if (ch < 0x20 || ch >= 0x7f)
			syntax_error(c, t->pos, "unexpected byte 0x%02x", ch);
		else
			syntax_error(c, t->pos, "unexpected character '%c'", ch);
		t->kind = T_EOF;
		return;
	}
	while (c->i < c->len && is_word_char(c->buf[c->i]))
		advance(c);
	t->len = (size_t)(c->buf + c->i - t->s);
	for (size_t k = 1; k < sizeof(keywords) / sizeof(keywords[0]); k++)
		if (strlen(keywords[k]) == t->len && memcmp(keywords[k], t->s, t->len) == 0)
			t->kw = (enum kw)k;
}

struct tokname {
	char s[sizeof(struct mc_quoted) + 16];
};

/* How a token is named in "expected X, found Y". */
static struct tokname tok_name(const struct tok *t)
{
	struct tokname q;

	static const char *const punct[] = {
		[T_EOF] = "end of file", [T_LBRACE] = "'{'", [T_RBRACE] = "'}'", [T_EQ] = "'='",
		[T_SEMI] = "';'",
	};

	if (t->kind != T_WORD) {
		snprintf(q.s, sizeof(q.s), "%s", punct[t->kind]);
		return q;
	}
	{
		struct mc_quoted w = mc_quote_n(t->s, t->len);

		snprintf(q.s, sizeof(q.s), "%s'%s'", t->kw ? "keyword " : "", w.s);
	}
	return q;
}

static bool is_word(const struct tok *t)
{
	return t->kind == T_WORD && t->kw == KW_NONE;
}

static bool expect(struct conv *c, enum tok_kind kind, const char *what)
{
	if (c->cur.kind == kind) {
		next(c);
		return true;
	}
	syntax_error(c, c->cur.pos, "expected %s, found %s", what, tok_name(&c->cur).s);
	return false;
}

static char *tok_dup(struct conv *c, const struct tok *t)
{
	char *s = strndup(t->s, t->len);

	if (!s)
		c->nomem = true;
	return s;
}

/* ---- key = value; lists ---- */

struct entry {
	struct tok key, val;
};

struct entries {
	struct entry *v;
	size_t n, cap;
};

static int entry_cmp(const void *pa, const void *pb)
{
	const struct entry *a = *(const struct entry *const *)pa, *b = *(const struct entry *const *)pb;
	size_t n = a->key.len < b->key.len ? a->key.len : b->key.len;
	int r = memcmp(a->key.s, b->key.s, n);

	if (r)
		return r;
	if (a->key.len != b->key.len)
		return a->key.len < b->key.len ? -1 : 1;
	/* the same key: in file order, so the first is the one others repeat */
	return a->key.s < b->key.s ? -1 : a->key.s > b->key.s;
}

/*
 * A key repeated in one block is an error, as libcgroup refuses to add it
 * twice. Sorting keeps this O(n log n) for a block of a million entries.
 */
static void report_repeats(struct conv *c, const struct entries *e, const char *what)
{
	const struct entry **v = malloc((e->n ? e->n : 1) * sizeof(*v));

	if (!v) {
		c->nomem = c->failed = true;
		return;
	}
	for (size_t i = 0; i < e->n; i++)
		v[i] = &e->v[i];
	qsort(v, e->n, sizeof(*v), entry_cmp);
	for (size_t i = 1, first = 0; i < e->n; i++) {
		if (v[i]->key.len != v[first]->key.len ||
		    memcmp(v[i]->key.s, v[first]->key.s, v[i]->key.len) != 0) {
			first = i;
			continue;
		}
		add(c, c->errors, v[i]->key.pos, NULL,
		    "'%s' is set twice in %s (first at line %d): cgconfigparser refuses that",
		    mc_quote_n(v[i]->key.s, v[i]->key.len).s, what, v[first]->key.pos.line);
	}
	free(v);
}

/*
 * Reads "key = value;" entries up to the closing '}' (not consumed); then
 * reports repeated keys.
 */
static bool read_entries(struct conv *c, struct entries *e, bool need_one, const char *what)
{
	while (c->cur.kind != T_RBRACE && !c->failed) {
		struct entry en;

		if (!is_word(&c->cur)) {
			syntax_error(c, c->cur.pos, "expected a name or '}' in %s, found %s", what,
				     tok_name(&c->cur).s);
			return false;
		}
		en.key = c->cur;
		next(c);
		if (!expect(c, T_EQ, "'='"))
			return false;
		if (!is_word(&c->cur)) {
			syntax_error(c, c->cur.pos, "expected a value after '=', found %s",
				     tok_name(&c->cur).s);
			return false;
		}
		en.val = c->cur;
		next(c);
		if (!expect(c, T_SEMI, "';' after the value"))
			return false;
		if (e->n == CGCONFIG_MAX_ENTRIES) {
			syntax_error(c, en.key.pos, "more than %d entries in %s", CGCONFIG_MAX_ENTRIES,
				     what);
			return false;
		}
		if (mc_array_reserve(&e->v, &e->cap, e->n + 1, sizeof(*e->v)) < 0) {
			c->nomem = c->failed = true;
			return false;
		}
		e->v[e->n++] = en;
	}
	if (need_one && e->n == 0 && !c->failed) {
		syntax_error(c, c->cur.pos, "%s needs at least one entry", what);
		return false;
	}
	if (!c->failed)
		report_repeats(c, e, what);
	return !c->failed;
}

/* A "{ key = value; ... }" block, braces included. */
static bool read_block(struct conv *c, struct entries *e, bool need_one, const char *what)
{
	return expect(c, T_LBRACE, "'{'") && read_entries(c, e, need_one, what) &&
	       expect(c, T_RBRACE, "'}'");
}

/* perm { task { ... } admin { ... } }: read and left out. */
static bool read_perm(struct conv *c)
{
	size_t n = 0;

	next(c);
	if (!expect(c, T_LBRACE, "'{' after perm"))
		return false;
	while (c->cur.kind == T_WORD && (c->cur.kw == KW_TASK || c->cur.kw == KW_ADMIN)) {
		struct entries e = { 0 };
		bool ok;

		next(c);
		ok = read_block(c, &e, false, "a perm block");
		free(e.v);
		if (!ok)
			return false;
		n++;
	}
	if (n == 0) {
		syntax_error(c, c->cur.pos, "expected task or admin in perm, found %s",
			     tok_name(&c->cur).s);
		return false;
	}
	return expect(c, T_RBRACE, "'}' to close perm");
}

/* ---- the group tree ---- */

/*
 * Children are found through one hash table of (parent, name) for the whole
 * tree, so that 200 000 groups below one parent take linear time, not a scan
 * of the siblings each. The parent's address is part of the hash.
 */
static size_t name_hash(const struct node *parent, const char *name)
{
	uint64_t h = UINT64_C(1469598103934665603) ^ (uint64_t)(uintptr_t)parent;

	for (; *name; name++) {
		h ^= (unsigned char)*name;
		h *= UINT64_C(1099511628211);
	}
	return (size_t)(h ^ (h >> 29));
}

static struct node **index_slot(struct conv *c, const struct node *parent, const char *name)
{
	size_t mask = c->index_cap - 1, i = name_hash(parent, name) & mask;

	while (c->index[i] && !(c->index[i]->parent == parent && strcmp(c->index[i]->name, name) == 0))
		i = (i + 1) & mask;
	return &c->index[i];
}

static bool index_grow(struct conv *c)
{
	size_t old_cap = c->index_cap, cap = old_cap ? old_cap * 2 : 1024;
	struct node **old = c->index, **v = calloc(cap, sizeof(*v));

	if (!v)
		return false;
	c->index = v;
	c->index_cap = cap;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i])
			*index_slot(c, old[i]->parent, old[i]->name) = old[i];
	free(old);
	return true;
}

static struct node *child(struct conv *c, struct node *parent, const char *name)
{
	struct node *n, **slot;

	if ((c->index_n + 1) * 2 > c->index_cap && !index_grow(c))
		goto nomem;
	slot = index_slot(c, parent, name);
	if (*slot)
		return *slot;
	if (mc_array_reserve(&parent->kids, &parent->cap_kids, parent->n_kids + 1,
			     sizeof(*parent->kids)) < 0)
		goto nomem;
	n = calloc(1, sizeof(*n));
	if (!n)
		goto nomem;
	n->parent = parent;
	n->name = strdup(name);
	n->path = *parent->name ? mc_asprintf("%s/%s", parent->path, name) : strdup(name);
	if (!n->name || !n->path) {
		free(n->name);
		free(n->path);
		free(n);
		goto nomem;
	}
	parent->kids[parent->n_kids++] = n;
	*slot = n;
	c->index_n++;
	return n;
nomem:
	c->nomem = c->failed = true;
	return NULL;
}

static void node_free(struct node *n)
{
	for (size_t i = 0; i < n->n_kids; i++) {
		node_free(n->kids[i]);
		free(n->kids[i]);
	}
	free(n->kids);
	free(n->name);
	free(n->path);
}

/*
 * The node of a group path ("a/b/c"; "." is the root). Empty components
 * are ignored, as in a file system path. Invalid names and paths deeper
 * than a profile may nest are errors at pos. NULL on error.
 */
static struct node *group_node(struct conv *c, const char *path, struct mc_pos pos)
{
	struct node *n = &c->root;
	char *copy, *save = NULL;
	int depth = 0;

	if (strcmp(path, ".") == 0)
		return n;
	copy = strdup(path);
	if (!copy) {
		c->nomem = c->failed = true;
		return NULL;
	}
	for (char *comp = strtok_r(copy, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
		const char *why = NULL;

		if (mc_group_name_check(comp, &why) == 0 && !is_utf8(comp))
			why = "it is not UTF-8 text, which a profile is";
		if (why) {
			add(c, c->errors, pos, NULL, "invalid group name '%s' in '%s': %s",
			    quote(comp).s, quote(path).s, why);
			n = NULL;
			break;
		}
		if (++depth > MC_PROFILE_MAX_DEPTH) {
			add(c, c->errors, pos, NULL,
			    "group '%s' nests deeper than %d levels, the most a profile holds",
			    quote(path).s, MC_PROFILE_MAX_DEPTH);
			n = NULL;
			break;
		}
		n = child(c, n, comp);
		if (!n)
			break;
		if (c->parent_len + strlen(n->path) + 1 > MC_GROUP_PATH_MAX) {
			add(c, c->errors, pos, NULL,
			    "group '%s' has a cgroup path longer than the %d bytes a profile's group "
			    "may have", quote(path).s, MC_GROUP_PATH_MAX);
			n = NULL;
			break;
		}
	}
	free(copy);
	return n;
}

/* ---- memory keys ---- */

/* The knob a memory.* file sets, and whether it is a v1 file. -ENOENT: none. */
static int memory_key(const char *key, enum mc_knob *ret, bool *ret_v1, const char **ret_name)
{
	for (int k = 0; k < MC_KNOB__COUNT; k++) {
		const struct mc_knob_info *i = mc_knob_info((enum mc_knob)k);

		if (i->v1_file && strcmp(key, i->v1_file) == 0) {
			*ret = (enum mc_knob)k;
			*ret_v1 = true;
			*ret_name = i->v1_file;
			return 0;
		}
		if (i->v2_file && strcmp(key, i->v2_file) == 0) {
			*ret = (enum mc_knob)k;
			*ret_v1 = false;
			*ret_name = i->v2_file;
			return 0;
		}
		if (i->patched_file && strcmp(key, i->patched_file) == 0) {
			*ret = (enum mc_knob)k;
			*ret_v1 = false;
			*ret_name = i->patched_file;
			return 0;
		}
	}
	return -ENOENT;
}

static void memory_entry(struct conv *c, struct node *n, const struct entry *e)
{
	char *key = tok_dup(c, &e->key), *val = tok_dup(c, &e->val);
	const char *name, *why;
	struct setting *s, other;
	enum mc_knob k;
	bool v1, unlimited;
	uint64_t bytes;
	int r;

	if (!key || !val)
		goto out;
	if (memory_key(key, &k, &v1, &name) < 0) {
		add(c, c->skipped, e->key.pos, n->path, "'%s' not converted: memctl has no knob for it",
		    quote(key).s);
		goto out;
	}
	r = mc_cgconfig_parse_size(val, v1, &bytes, &unlimited, &why);
	if (r < 0) {
		add(c, c->errors, e->val.pos, n->path, "invalid value '%s' for %s: %s",
		    quote(val).s, name, why);
		goto out;
	}
	if (mc_knob_info(k)->flag && (unlimited || bytes > 1)) {
		/* a size suffix or "max" makes it more than a switch: the profile would refuse it */
		add(c, c->errors, e->val.pos, n->path, "invalid value '%s' for %s: a switch is 0 or 1",
		    quote(val).s, name);
		goto out;
	}
	if (!unlimited && bytes > 0 && bytes < MC_SIZE_PAGE_MIN && !mc_knob_info(k)->flag) {
		add(c, c->skipped, e->val.pos, n->path,
		    "'%s' not converted: %s bytes is less than a page, which the kernel makes 0 "
		    "(memctl refuses such a size)", name, quote(val).s);
		goto out;
	}
	if (n == &c->root) {
		add(c, c->skipped, e->key.pos, ".",
		    "'%s' of the root group not converted: memctl sets no limits on the hierarchy root",
		    name);
		goto out;
	}
	s = (v1 && k == MC_KNOB_SWAP) ? &n->memsw : &n->knob[k];
	/* memsw and swap.max both say how much swap: one file of each kind */
	other = (k == MC_KNOB_SWAP) ? (v1 ? n->knob[k] : n->memsw) : (struct setting){ 0 };
	if (!other.set && s->set && strcmp(s->key, name) != 0)
		other = *s;
	if (other.set) {
		add(c, c->errors, e->key.pos, n->path,
		    "%s and %s (line %d) both set %s; a host has only one of the two files",
		    name, other.key, other.pos.line, mc_knob_info(k)->name);
		goto out;
	}
	/* a later section for the same group overrides, as cgconfigparser writes it later */
	*s = (struct setting){ .set = true, .unlimited = unlimited, .bytes = bytes, .key = name,
			       .pos = e->key.pos };
out:
	free(key);
	free(val);
}

/* ---- sections ---- */

/*
 * group NAME { ... } or template NAME { ... }
 * It is long because it is one grammar rule whose steps (name, perm blocks,
 * controller blocks, the closing brace) share the group's name and position.
 */
static void read_group(struct conv *c, bool template)
{
	struct mc_pos kw_pos = c->cur.pos, name_pos;
	char *raw = NULL, *name = NULL;
	size_t blocks = 0;

	next(c);
	if (!(is_word(&c->cur) || (!template && c->cur.kind == T_WORD && c->cur.kw == KW_DEFAULT))) {
		syntax_error(c, c->cur.pos, "expected a group name, found %s", tok_name(&c->cur).s);
		return;
	}
	name_pos = c->cur.pos;
	raw = tok_dup(c, &c->cur);
	name = raw ? path_escape(raw) : NULL;
	if (!name) {
		c->nomem = c->failed = true;
		goto out;
	}
	next(c);
	if (!expect(c, T_LBRACE, "'{' after the group name"))
		goto out;
	if (template)
		add(c, c->skipped, kw_pos, NULL,
		    "template '%s' not converted: memctl has no templates for cgrules.conf",
		    quote(raw).s);
	while (c->cur.kind != T_RBRACE && !c->failed) {
		struct entries e = { 0 };
		struct tok ctl = c->cur;

		if (c->cur.kind == T_WORD && c->cur.kw == KW_PERM) {
			if (!read_perm(c))
				break;
			if (!template)
				add(c, c->skipped, ctl.pos, name,
				    "perm block not converted: memctl does not set owners or permissions");
			blocks++;
			continue;
		}
		if (c->cur.kind == T_EOF) {
			syntax_error(c, c->cur.pos, "expected '}' to close group '%s' (line %d), "
				     "found end of file", quote(raw).s, kw_pos.line);
			break;
		}
		if (!is_word(&c->cur)) {
			syntax_error(c, c->cur.pos, "expected a controller name, perm or '}', found %s",
				     tok_name(&c->cur).s);
			break;
		}
		next(c);
		if (!read_block(c, &e, false, "a controller block")) {
			free(e.v);
			break;
		}
		blocks++;
		if (template) {
			free(e.v);
			continue;
		}
		if (ctl.len == 6 && memcmp(ctl.s, "memory", 6) == 0) {
			struct node *n = group_node(c, raw, name_pos);

			if (n)
				n->memory = true;
			for (size_t i = 0; n && i < e.n && !c->failed; i++)
				memory_entry(c, n, &e.v[i]);
		} else {
			add(c, c->skipped, ctl.pos, name,
			    "controller '%s' not converted: memctl manages the memory controller only",
			    mc_quote_n(ctl.s, ctl.len).s);
		}
		free(e.v);
	}
	if (!c->failed && blocks == 0) {
		syntax_error(c, c->cur.pos, "group '%s' needs at least one controller or perm block",
			     quote(raw).s);
		goto out;
	}
	expect(c, T_RBRACE, "'}'");
out:
	free(raw);
	free(name);
}

static void read_file(struct conv *c)
{
	next(c);
	while (c->cur.kind != T_EOF && !c->failed) {
		struct tok t = c->cur;
		struct entries e = { 0 };

		switch (t.kind == T_WORD ? t.kw : KW_NONE) {
		case KW_GROUP:
			read_group(c, false);
			break;
		case KW_TEMPLATE:
			read_group(c, true);
			break;
		case KW_MOUNT:
		case KW_NAMESPACE:
			next(c);
			if (read_block(c, &e, true, t.kw == KW_MOUNT ? "mount" : "namespace"))
				add(c, c->skipped, t.pos, NULL, t.kw == KW_MOUNT ?
				    "mount section not converted: memctl uses the memory controller where it is mounted" :
				    "namespace section not converted: memctl has no namespaces");
			free(e.v);
			break;
		case KW_DEFAULT:
			next(c);
			if (!expect(c, T_LBRACE, "'{' after default"))
				break;
			if (!(c->cur.kind == T_WORD && c->cur.kw == KW_PERM)) {
				syntax_error(c, c->cur.pos, "expected perm in default, found %s",
					     tok_name(&c->cur).s);
				break;
			}
			if (read_perm(c) && expect(c, T_RBRACE, "'}' to close default"))
				add(c, c->skipped, t.pos, NULL,
				    "default section not converted: memctl does not set owners or permissions");
			break;
		default:
			syntax_error(c, t.pos,
				     "expected group, template, mount, default or namespace, found %s",
				     tok_name(&t).s);
			break;
		}
	}
}

/* ---- conversion ---- */

static int cmp_setting(const struct setting *a, const struct setting *b)
{
	if (a->unlimited || b->unlimited)
		return (int)a->unlimited - (int)b->unlimited;
	return a->bytes < b->bytes ? -1 : a->bytes > b->bytes;
}

static const char *show(const struct setting *s, char buf[static 24])
{
	if (s->unlimited)
		return "no limit";
	mc_size_format(s->bytes, buf, 24);
	return buf;
}

/*
 * Turns a node's memsw limit (memory and swap together) into swap_max =
 * memsw - max, or says in skipped or errors why it cannot; needs the
 * node's max settled first.
 */
static void settle_memsw(struct conv *c, struct node *n)
{
	const struct setting *mx = &n->knob[MC_KNOB_MAX];
	struct setting *sw = &n->knob[MC_KNOB_SWAP];
	char a[24], b[24];

	if (n->memsw.unlimited) {
		*sw = n->memsw;
		n->swap_from_memsw = true;
	} else if (!mx->set || mx->unlimited) {
		add(c, c->skipped, n->memsw.pos, n->path,
		    "'%s' not converted: it limits memory and swap together, and memctl can "
		    "express that only with a memory limit (swap_max = memsw - max)",
		    n->memsw.key);
	} else if (n->memsw.bytes < mx->bytes) {
		add(c, c->errors, n->memsw.pos, n->path,
		    "%s (%s) is below %s (%s): the kernel refuses that", n->memsw.key,
		    show(&n->memsw, a), mx->key, show(mx, b));
	} else if (n->memsw.bytes - mx->bytes > 0 &&
		   n->memsw.bytes - mx->bytes < MC_SIZE_PAGE_MIN) {
		add(c, c->skipped, n->memsw.pos, n->path,
		    "'%s' not converted: it leaves %s bytes of swap (memsw - max), less than "
		    "a page, which the kernel makes 0", n->memsw.key,
		    show(&(struct setting){ .bytes = n->memsw.bytes - mx->bytes }, a));
	} else {
		*sw = n->memsw;
		sw->bytes = n->memsw.bytes - mx->bytes;
		n->swap_from_memsw = true;
	}
}

/*
 * Applies memctl's rules to a node whose parent is done: a max above the
 * parent's, memsw without a limit, and knobs out of order are left out.
 */
static void settle(struct conv *c, struct node *n, const struct node *parent)
{
	static const enum mc_knob chain[] = { MC_KNOB_HIGH, MC_KNOB_LOW, MC_KNOB_MIN };
	struct setting *mx = &n->knob[MC_KNOB_MAX];
	char a[24], b[24];

	if (mx->set && parent && parent->knob[MC_KNOB_MAX].set &&
	    cmp_setting(mx, &parent->knob[MC_KNOB_MAX]) > 0) {
		add(c, c->skipped, mx->pos, n->path,
		    "'%s' not converted: %s is above the parent's limit (%s), which memctl does not accept "
		    "(the kernel holds the group to its parent's limit anyway)",
		    mx->key, show(mx, a), show(&parent->knob[MC_KNOB_MAX], b));
		mx->set = false;
	}
	if (n->memsw.set)
		settle_memsw(c, n);
	/* min <= low <= high <= max: each against the nearest larger one still set */
	for (size_t i = 0; i < sizeof(chain) / sizeof(chain[0]); i++) {
		struct setting *s = &n->knob[chain[i]], *up = NULL;

		for (int k = (int)chain[i] - 1; k >= MC_KNOB_MAX && !up; k--)
			if (n->knob[k].set)
				up = &n->knob[k];
		if (s->set && up && cmp_setting(s, up) > 0) {
			add(c, c->skipped, s->pos, n->path,
			    "'%s' not converted: %s is above %s (%s), and memctl requires "
			    "min <= low <= high <= max", s->key, show(s, a), up->key, show(up, b));
			s->set = false;
		}
	}
	if (n->knob[MC_KNOB_SOFT].set && mx->set && cmp_setting(&n->knob[MC_KNOB_SOFT], mx) > 0) {
		struct setting *s = &n->knob[MC_KNOB_SOFT];

		add(c, c->skipped, s->pos, n->path,
		    "'%s' not converted: %s is above %s (%s), and memctl requires soft_limit <= max",
		    s->key, show(s, a), mx->key, show(mx, b));
		s->set = false;
	}
	for (size_t i = 0; i < n->n_kids; i++)
		settle(c, n->kids[i], n);
}

/* ---- the profile text ---- */

/* A scalar as YAML: plain when that is unambiguous, else double-quoted. */
static void put_scalar(struct mc_buf *b, const char *s)
{
	static const char *const words[] = { "null", "true", "false", "yes", "no", "on", "off",
					     "y", "n" };
	bool plain = is_alnum(*s) || *s == '_' || *s == '/';
	size_t n;

	for (const char *p = s; plain && *p; p++)
		plain = is_alnum(*p) || strchr("_-/.", *p);
	for (size_t i = 0; plain && i < sizeof(words) / sizeof(words[0]); i++)
		plain = strcasecmp(s, words[i]) != 0;
	if (plain) {
		mc_buf_printf(b, "%s", s);
		return;
	}
	mc_buf_printf(b, "\"");
	for (const char *p = s; *p; p += n) {
		long cp = utf8_char(p, &n);

		if (cp < 0) {
			/* cannot be written; the read-back check refuses the result */
			n = 1;
			mc_buf_printf(b, "\\x%02x", (unsigned char)*p);
		} else if (cp == '"' || cp == '\\') {
			mc_buf_printf(b, "\\%c", *p);
		} else if (yaml_literal_char(cp)) {
			mc_buf_printf(b, "%.*s", (int)n, p);
		} else if (cp < 0x100) {
			mc_buf_printf(b, "\\x%02lx", cp);
		} else {
			mc_buf_printf(b, "\\u%04lx", cp);
		}
	}
	mc_buf_printf(b, "\"");
}

/* A comment line: what could end it or break the YAML is shown escaped. */
static void put_comment(struct mc_buf *b, const char *prefix, const char *s)
{
	size_t n;

	mc_buf_printf(b, "%s", prefix);
	for (const char *p = s; *p; p += n) {
		long cp = utf8_char(p, &n);

		if (cp < 0)
			n = 1;
		if (cp >= 0 && yaml_literal_char(cp))
			mc_buf_printf(b, "%.*s", (int)n, p);
		else if (cp < 0)
			mc_buf_printf(b, "\\x%02x", (unsigned char)*p);
		else
			mc_buf_printf(b, "\\u%04lx", cp);
	}
	mc_buf_printf(b, "\n");
}

static bool has_memory_kids(const struct node *n)
{
	for (size_t i = 0; i < n->n_kids; i++)
		if (n->kids[i]->memory)
			return true;
	return false;
}

/* The memory groups below n, at indent; returns how many (all levels). */
static size_t emit_groups(struct mc_buf *b, const struct node *n, int indent, size_t *ret_settings)
{
	size_t groups = 0;

	for (size_t i = 0; i < n->n_kids; i++) {
		const struct node *g = n->kids[i];
		bool empty = !has_memory_kids(g);

		if (!g->memory)
			continue;
		groups++;
		for (int k = 0; k < MC_KNOB__COUNT; k++)
			empty &= !g->knob[k].set;
		mc_buf_printf(b, "%*s", indent, "");
		put_scalar(b, g->name);
		mc_buf_printf(b, empty ? ": {}\n" : ":\n");
		for (int k = 0; k < MC_KNOB__COUNT; k++) {
			const struct setting *s = &g->knob[k];
			char v[24];

			if (!s->set)
				continue;
			if (s->unlimited)
				snprintf(v, sizeof(v), "max");
			else
				mc_size_format(s->bytes, v, sizeof(v));
			/* the source comments line up: "soft_limit: " and a long value take 22 */
			mc_buf_printf(b, "%*s%s: %-*s  ", indent + 2, "", mc_knob_info((enum mc_knob)k)->name,
			    20 - (int)strlen(mc_knob_info((enum mc_knob)k)->name), v);
			if (k == MC_KNOB_SWAP && g->swap_from_memsw && !s->unlimited)
				mc_buf_printf(b, "# %s (line %d) - max\n", s->key, s->pos.line);
			else
				mc_buf_printf(b, "# %s, line %d\n", s->key, s->pos.line);
			(*ret_settings)++;
		}
		if (has_memory_kids(g)) {
			mc_buf_printf(b, "%*sgroups:\n", indent + 2, "");
			groups += emit_groups(b, g, indent + 4, ret_settings);
		}
	}
	return groups;
}

/* Whether a parsed setting is the one converted. */
static bool same_setting(const struct setting *s, const struct mc_size *z)
{
	if (!s->set)
		return z->kind == MC_SIZE_UNSET;
	if (s->unlimited)
		return z->kind == MC_SIZE_UNLIMITED;
	return z->kind == MC_SIZE_BYTES && z->bytes == s->bytes;
}

/*
 * Whether the groups parsed back from the text are the memory groups below
 * n: the same names in the same order, the same settings and nothing else.
 * Counts them (all levels) into *ret_groups and *ret_settings.
 */
static bool same_groups(const struct node *n, const struct mc_group_spec *g, size_t n_g,
			size_t *ret_groups, size_t *ret_settings)
{
	size_t j = 0;

	for (size_t i = 0; i < n->n_kids; i++) {
		const struct node *k = n->kids[i];

		if (!k->memory)
			continue;
		if (j == n_g || strcmp(g[j].name, k->name) != 0 || g[j].protect != MC_PROTECT_UNSET ||
		    g[j].thp != -1)
			return false;
		for (int q = 0; q < MC_KNOB__COUNT; q++) {
			if (!same_setting(&k->knob[q], &g[j].knob[q]))
				return false;
			*ret_settings += k->knob[q].set;
		}
		(*ret_groups)++;
		if (!same_groups(k, g[j].children, g[j].n_children, ret_groups, ret_settings))
			return false;
		j++;
	}
	return j == n_g;
}

/* A node with a memory block makes its parents memory groups too. */
static bool mark_parents(struct node *n)
{
	bool any = false;

	for (size_t i = 0; i < n->n_kids; i++)
		any |= mark_parents(n->kids[i]);
	n->memory |= any;
	return n->memory;
}

static int cmp_diag(const void *pa, const void *pb)
{
	const struct mc_diag *a = pa, *b = pb;

	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return a->col < b->col ? -1 : a->col > b->col;
}

/*
 * Writes the converted profile into b: a header naming file, the settings
 * not converted (skipped->v[from] on), parent and root's groups.
 * Returns how many groups it wrote and adds their settings to
 * *ret_settings; running out of memory sets b->oom.
 */
static size_t emit_profile(struct mc_buf *b, const struct node *root, const char *file,
			   const char *parent, const struct mc_diags *skipped, size_t from,
			   size_t *ret_settings)
{
	mc_buf_printf(b, "# memctl profile converted by memctl import from ");
	put_comment(b, "", file);
	mc_buf_printf(b, "# Groups, knobs and values are the file's memory settings; the comments name\n"
		"# the setting each value comes from. See memctl-profile(5).\n");
	if (skipped->n > from) {
		mc_buf_printf(b, "#\n# Not converted:\n");
		for (size_t i = from; i < skipped->n; i++) {
			char *s = NULL;

			if (mc_diag_format(&skipped->v[i], &s) < 0) {
				b->oom = true;
				break;
			}
			put_comment(b, "#   ", s);
			free(s);
		}
	}
	mc_buf_printf(b, "\nversion: 1\nparent: ");
	put_scalar(b, parent);
	mc_buf_printf(b, "\n");
	if (!has_memory_kids(root))
		return 0;
	mc_buf_printf(b, "groups:\n");
	return emit_groups(b, root, 2, ret_settings);
}

/*
 * Parses the converted profile in b back and checks that it holds exactly
 * root's groups (groups of them, settings settings in all) below parent.
 * Returns 0 if so; -EINVAL with the reason in errors if not (too big, does
 * not pass memctl check, or reads back differently); -ENOMEM.
 */
static int check_readback(const struct node *root, const char *file, const struct mc_buf *b,
			  const char *parent, size_t groups, size_t settings, struct mc_diags *errors)
{
	struct mc_diags check = { 0 };
	struct mc_profile p;
	int r;

	if (b->len > MC_PROFILE_MAX_BYTES)
		return mc_diags_add(errors, file, 0, 0, NULL,
				    "the converted profile would be %zu bytes, more than the %d a "
				    "profile may have", b->len, MC_PROFILE_MAX_BYTES) < 0 ? -ENOMEM : -EINVAL;
	r = mc_profile_parse("<converted profile>", b->p, b->len, &p, &check);
	if (r == 0) {
		size_t g = 0, k = 0;

		if (!same_groups(root, p.groups, p.n_groups, &g, &k) || g != groups ||
		    k != settings || strcmp(p.parent, parent) != 0)
			r = mc_diags_add(errors, file, 0, 0, NULL,
					 "the converted profile does not read back as converted "
					 "(a name or value YAML cannot hold); nothing is written") < 0 ?
			    -ENOMEM : -EINVAL;
		mc_profile_free(&p);
	} else if (r == -EINVAL) {
		if (mc_diags_add(errors, file, 0, 0, NULL,
				 "the converted profile does not pass memctl check:") < 0)
			r = -ENOMEM;
		for (size_t i = 0; i < check.n && r == -EINVAL; i++) {
			char *s = NULL;

			if (mc_diag_format(&check.v[i], &s) < 0 ||
			    mc_diags_add(errors, NULL, 0, 0, NULL, "  %s", s) < 0)
				r = -ENOMEM;
			free(s);
		}
	}
	mc_diags_free(&check);
	return r;
}

int mc_cgconfig_convert(const char *file, const char *buf, size_t len, const char *parent,
			struct mc_cgconfig_result *ret, struct mc_diags *skipped,
			struct mc_diags *errors)
{
	struct conv c = {
		.file = file, .buf = buf, .len = len, .line = 1, .col = 1, .blank_line = true,
		.errors = errors, .skipped = skipped, .errors_before = errors->n,
		.skipped_before = skipped->n,
		.parent_len = parent[0] == '/' && parent[1] ? strlen(parent) : 0,
	};
	size_t errors_before = errors->n, skipped_before = skipped->n, settings = 0, groups;
	struct mc_buf b = { 0 };
	int r;

	c.root.name = strdup("");
	c.root.path = strdup(".");
	if (!c.root.name || !c.root.path) {
		r = -ENOMEM;
		goto out;
	}
	read_file(&c);
	if (!c.failed) {
		mark_parents(&c.root);
		settle(&c, &c.root, NULL);
	}
	r = c.nomem ? -ENOMEM : errors->n > errors_before ? -EINVAL : 0;
	if (skipped->n > skipped_before)
		qsort(skipped->v + skipped_before, skipped->n - skipped_before, sizeof(*skipped->v),
		      cmp_diag);
	if (errors->n > errors_before)
		qsort(errors->v + errors_before, errors->n - errors_before, sizeof(*errors->v), cmp_diag);
	if (r < 0)
		goto out;

	groups = emit_profile(&b, &c.root, file, parent, skipped, skipped_before, &settings);
	if (b.oom) {
		r = -ENOMEM;
		goto out;
	}

	/*
	 * The promise: what is printed passes memctl check, and check sees
	 * exactly the groups and settings reported, nothing more or less.
	 */
	r = check_readback(&c.root, file, &b, parent, groups, settings, errors);
	if (r < 0)
		goto out;
	ret->yaml = b.p;
	ret->groups = groups;
	ret->settings = settings;
	b.p = NULL;
out:
	free(b.p);
	node_free(&c.root);
	free(c.index);
	return r;
}

void mc_cgconfig_result_free(struct mc_cgconfig_result *r)
{
	free(r->yaml);
	r->yaml = NULL;
}
