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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cgconfig.h"
#include "knob.h"
#include "profile.h"
#include "size.h"

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

/* ---- sizes ---- */

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
	*ret_unlimited = false;
	*ret_bytes = v;
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
	struct node **kids;
	size_t n_kids;
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
	struct mc_diags *errors;
	struct mc_diags *skipped;
};

static void vadd(struct conv *c, struct mc_diags *d, struct mc_pos pos, const char *path,
		 const char *prefix, const char *fmt, va_list ap) __attribute__((format(printf, 6, 0)));

static void vadd(struct conv *c, struct mc_diags *d, struct mc_pos pos, const char *path,
		 const char *prefix, const char *fmt, va_list ap)
{
	char *msg;

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

/* Reads the next token into c->cur; on a lexical error sets c->failed. */
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

/*
 * Reads "key = value;" entries up to the closing '}' (not consumed). A key
 * repeated in one block is an error, as libcgroup refuses to add it twice.
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
		for (size_t i = 0; i < e->n; i++) {
			if (e->v[i].key.len == en.key.len && memcmp(e->v[i].key.s, en.key.s, en.key.len) == 0) {
				add(c, c->errors, en.key.pos, NULL,
				    "'%s' is set twice in %s (first at line %d): cgconfigparser refuses that",
				    mc_quote_n(en.key.s, en.key.len).s, what, e->v[i].key.pos.line);
				break;
			}
		}
		if (e->n == e->cap) {
			size_t cap = e->cap ? e->cap * 2 : 8;
			struct entry *v = realloc(e->v, cap * sizeof(*v));

			if (!v) {
				c->nomem = c->failed = true;
				return false;
			}
			e->v = v;
			e->cap = cap;
		}
		e->v[e->n++] = en;
	}
	if (need_one && e->n == 0 && !c->failed) {
		syntax_error(c, c->cur.pos, "%s needs at least one entry", what);
		return false;
	}
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

static struct node *child(struct conv *c, struct node *parent, const char *name)
{
	struct node *n, **kids;

	for (size_t i = 0; i < parent->n_kids; i++)
		if (strcmp(parent->kids[i]->name, name) == 0)
			return parent->kids[i];
	n = calloc(1, sizeof(*n));
	kids = realloc(parent->kids, (parent->n_kids + 1) * sizeof(*kids));
	if (!n || !kids) {
		free(n);
		if (kids)
			parent->kids = kids;
		c->nomem = c->failed = true;
		return NULL;
	}
	parent->kids = kids;
	n->name = strdup(name);
	n->path = *parent->name ? mc_asprintf("%s/%s", parent->path, name) : strdup(name);
	if (!n->name || !n->path) {
		free(n->name);
		free(n->path);
		free(n);
		c->nomem = c->failed = true;
		return NULL;
	}
	parent->kids[parent->n_kids++] = n;
	return n;
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
		const char *why;

		if (mc_group_name_check(comp, &why) < 0) {
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

/* group NAME { ... } or template NAME { ... } */
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
			for (size_t i = 0; n && i < e.n; i++)
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
	if (n->memsw.set) {
		struct setting *sw = &n->knob[MC_KNOB_SWAP];

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
		} else {
			*sw = n->memsw;
			sw->bytes = n->memsw.bytes - mx->bytes;
			n->swap_from_memsw = true;
		}
	}
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

struct sbuf {
	char *s;
	size_t len, cap;
	bool nomem;
};

static void put(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->nomem)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->nomem = true;
			return;
		}
		if (b->s && (size_t)n < b->cap - b->len) {
			b->len += (size_t)n;
			return;
		}
		{
			size_t cap = (b->cap ? b->cap * 2 : 4096) + (size_t)n;
			char *s = realloc(b->s, cap);

			if (!s) {
				b->nomem = true;
				return;
			}
			b->s = s;
			b->cap = cap;
		}
	}
}

/* A scalar as YAML: plain when that is unambiguous, else double-quoted. */
static void put_scalar(struct sbuf *b, const char *s)
{
	static const char *const words[] = { "null", "true", "false", "yes", "no", "on", "off",
					     "y", "n" };
	bool plain = is_alnum(*s) || *s == '_' || *s == '/';

	for (const char *p = s; plain && *p; p++)
		plain = is_alnum(*p) || strchr("_-/.", *p);
	for (size_t i = 0; plain && i < sizeof(words) / sizeof(words[0]); i++)
		plain = strcasecmp(s, words[i]) != 0;
	if (plain) {
		put(b, "%s", s);
		return;
	}
	put(b, "\"");
	for (const char *p = s; *p; p++) {
		if (*p == '"' || *p == '\\')
			put(b, "\\%c", *p);
		else if ((unsigned char)*p < 0x20)
			put(b, "\\x%02x", (unsigned char)*p);
		else
			put(b, "%c", *p);
	}
	put(b, "\"");
}

/* A comment line: control bytes shown as '?', so a name cannot end the comment. */
static void put_comment(struct sbuf *b, const char *prefix, const char *s)
{
	put(b, "%s", prefix);
	for (const char *p = s; *p; p++)
		put(b, "%c", (unsigned char)*p < 0x20 ? '?' : *p);
	put(b, "\n");
}

static bool has_memory_kids(const struct node *n)
{
	for (size_t i = 0; i < n->n_kids; i++)
		if (n->kids[i]->memory)
			return true;
	return false;
}

/* The memory groups below n, at indent; returns how many (all levels). */
static size_t emit_groups(struct sbuf *b, const struct node *n, int indent, size_t *ret_settings)
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
		put(b, "%*s", indent, "");
		put_scalar(b, g->name);
		put(b, empty ? ": {}\n" : ":\n");
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
			put(b, "%*s%s: %-*s  ", indent + 2, "", mc_knob_info((enum mc_knob)k)->name,
			    20 - (int)strlen(mc_knob_info((enum mc_knob)k)->name), v);
			if (k == MC_KNOB_SWAP && g->swap_from_memsw && !s->unlimited)
				put(b, "# %s (line %d) - max\n", s->key, s->pos.line);
			else
				put(b, "# %s, line %d\n", s->key, s->pos.line);
			(*ret_settings)++;
		}
		if (has_memory_kids(g)) {
			put(b, "%*sgroups:\n", indent + 2, "");
			groups += emit_groups(b, g, indent + 4, ret_settings);
		}
	}
	return groups;
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

int mc_cgconfig_convert(const char *file, const char *buf, size_t len, const char *parent,
			struct mc_cgconfig_result *ret, struct mc_diags *skipped,
			struct mc_diags *errors)
{
	struct conv c = {
		.file = file, .buf = buf, .len = len, .line = 1, .col = 1, .blank_line = true,
		.errors = errors, .skipped = skipped,
	};
	size_t errors_before = errors->n, skipped_before = skipped->n, settings = 0, groups;
	struct sbuf b = { 0 };
	struct mc_diags check = { 0 };
	struct mc_profile p;
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

	put(&b, "# memctl profile converted by memctl import from ");
	put_comment(&b, "", file);
	put(&b, "# Groups, knobs and values are the file's memory settings; the comments name\n"
		"# the setting each value comes from. See memctl-profile(5).\n");
	if (skipped->n > skipped_before) {
		put(&b, "#\n# Not converted:\n");
		for (size_t i = skipped_before; i < skipped->n; i++) {
			char *s = NULL;

			if (mc_diag_format(&skipped->v[i], &s) < 0) {
				b.nomem = true;
				break;
			}
			put_comment(&b, "#   ", s);
			free(s);
		}
	}
	put(&b, "\nversion: 1\nparent: ");
	put_scalar(&b, parent);
	put(&b, "\n");
	if (has_memory_kids(&c.root)) {
		put(&b, "groups:\n");
		groups = emit_groups(&b, &c.root, 2, &settings);
	} else {
		groups = 0;
	}
	if (b.nomem) {
		r = -ENOMEM;
		goto out;
	}

	/* The promise: what is printed passes memctl check. */
	r = mc_profile_parse("<converted profile>", b.s, b.len, &p, &check);
	if (r == 0) {
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
	if (r < 0)
		goto out;
	ret->yaml = b.s;
	ret->groups = groups;
	ret->settings = settings;
	b.s = NULL;
out:
	mc_diags_free(&check);
	free(b.s);
	node_free(&c.root);
	return r;
}

void mc_cgconfig_result_free(struct mc_cgconfig_result *r)
{
	free(r->yaml);
	r->yaml = NULL;
}
