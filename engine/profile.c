/* CMake defines it for the whole project; a direct compile may not. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "buf.h"
#include "profile.h"
#include "unitname.h"

/*
 * Reading a profile happens in two passes.
 *
 * First, libyaml's events are turned into a small node tree. Nothing is
 * interpreted yet, because libyaml delivers events for the start of a
 * document before it finds a syntax error further down: a profile must be
 * rejected as a whole, so no part of it may be acted on before the whole
 * text is known to be YAML. The tree keeps every node's position (libyaml's
 * marks are 0-based; ours are 1-based) and is built without recursion, with
 * a bound on nesting and on the number of nodes, so that "[[[[..." or a huge
 * file cannot exhaust the stack or memory. Aliases become references to the
 * anchored node, resolved when the anchored node is complete; an alias to a
 * node that contains it is therefore an error rather than a cycle.
 *
 * Second, the tree is walked against key tables (name and parser per key)
 * and the profile model is filled. Every problem is recorded and the walk
 * goes on, so one run shows them all. Walking an alias visits the anchored
 * subtree again: a chain of aliases can describe an exponential number of
 * nodes ("billion laughs"), so every node visited is counted, through
 * aliases too, and the walk stops at PROFILE_MAX_NODES. Counting nodes is
 * not enough: one long scalar reached through thousands of aliases is few
 * nodes and a lot of work (every visit parses, copies and compares its
 * text). So the bytes of every scalar visited, of every key sorted for the
 * duplicate check and of every key path built are counted too, and the walk
 * stops at PROFILE_MAX_WALK_BYTES: the work of a walk is bounded by bytes
 * expanded, whatever the shape of the file.
 *
 * libyaml does not detect duplicate keys and gives plain scalars no type;
 * both are done here: duplicates by sorting each mapping's keys, types by
 * treating every scalar as text and parsing it for what the key expects
 * (so "512M" and '512M' mean the same).
 */

#define PROFILE_MAX_NODES 100000
#define PROFILE_MAX_WALK_MIB 16
#define PROFILE_MAX_WALK_BYTES ((size_t)PROFILE_MAX_WALK_MIB << 20)
#define PROFILE_MAX_YAML_DEPTH 128
#define PROFILE_MAX_ANCHORS 1024
#define PROFILE_MAX_ERRORS 100
#define PROFILE_MAX_INTERVAL_MS UINT64_C(3600000)
#define PROFILE_DEFAULT_INTERVAL_MS 5000
#define PROFILE_MAX_CONCURRENCY 1024

enum node_type {
	NODE_SCALAR,
	NODE_SEQUENCE,
	NODE_MAPPING,
	NODE_ALIAS,
};

static const char *const node_type_name[] = {
	[NODE_SCALAR] = "scalar",
	[NODE_SEQUENCE] = "sequence",
	[NODE_MAPPING] = "mapping",
	[NODE_ALIAS] = "alias",
};

struct node {
	enum node_type type;
	struct mc_pos pos;
	char *text;            /* scalar value, or alias name; NUL-terminated */
	size_t len;            /* of text; a scalar may hold an escaped NUL */
	bool plain;            /* unquoted scalar: may be a null */
	char *anchor;          /* container's anchor, registered at its end */
	struct node **kids;    /* sequence items; mapping key, value, key, ... */
	size_t n_kids;
	size_t cap_kids;
	struct node *target;   /* alias: the anchored node, NULL if unknown */
	struct node *next;     /* every node, for freeing */
};

struct anchor {
	char *name;
	struct node *node;
};

struct ctx {
	const char *file;
	struct mc_diags *diags;
	size_t diags_before;
	struct node *nodes;
	size_t n_nodes;
	struct anchor *anchors;
	size_t n_anchors, cap_anchors;
	size_t visited;
	size_t walked_bytes;   /* text looked at by the walk, through aliases too */
	bool expanded;         /* an alias was followed */
	int alias_depth;       /* aliases being followed now */
	struct mc_pos alias_at;  /* the outermost of them, for the budget message */
	bool stop;             /* walk no further: budget, error cap, memory */
	bool nomem;
};

/* ---- messages ---- */

static struct mc_quoted quote_n(const char *s, size_t len)
{
	return mc_quote_n(s, len);
}

static struct mc_quoted quote(const char *s)
{
	return quote_n(s, strlen(s));
}

static size_t n_errors(const struct ctx *c)
{
	return c->diags->n - c->diags_before;
}

/* The last word once PROFILE_MAX_ERRORS are recorded: the walk stops. */
static void too_many(struct ctx *c, struct mc_pos pos)
{
	if (mc_diags_add(c->diags, c->file, pos.line, pos.col, NULL,
			 "too many errors, stopping after %d", PROFILE_MAX_ERRORS) < 0)
		c->nomem = true;
	c->stop = true;
}

static void perr(struct ctx *c, struct mc_pos pos, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void perr(struct ctx *c, struct mc_pos pos, const char *path, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	int r;

	if (c->stop)
		return;
	if (n_errors(c) >= PROFILE_MAX_ERRORS) {
		too_many(c, pos);
		return;
	}
	va_start(ap, fmt);
	r = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (r < 0) {
		c->nomem = c->stop = true;
		return;
	}
	if (mc_diags_add(c->diags, c->file, pos.line, pos.col, path, "%s", msg) < 0)
		c->nomem = c->stop = true;
	free(msg);
}

/*
 * Counts n bytes of text the walk looks at (pos: where); false, after saying
 * so once, when the walk must stop.
 */
static bool spend(struct ctx *c, size_t n, struct mc_pos pos)
{
	if (c->stop)
		return false;
	c->walked_bytes += n;
	if (c->walked_bytes <= PROFILE_MAX_WALK_BYTES)
		return true;
	perr(c, c->alias_depth ? c->alias_at : pos, NULL,
	     c->expanded ? "alias expansion exceeds %d MiB of text" :
	     "keys and values exceed %d MiB of text", PROFILE_MAX_WALK_MIB);
	c->stop = true;
	return false;
}

/*
 * "groups.web" + "cache" -> "groups.web.cache" (just "cache" when base is
 * NULL), control characters in name escaped. NULL when out of memory.
 */
static char *key_path(const char *base, const char *name)
{
	size_t n = strlen(name), o = 0;
	char *esc = malloc(n * 4 + 1), *r = NULL;

	if (!esc)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)name[i];

		if (ch < 0x20 || ch == 0x7f)
			o += (size_t)sprintf(esc + o, "\\x%02x", ch);
		else
			esc[o++] = (char)ch;
	}
	esc[o] = '\0';
	if (asprintf(&r, "%s%s%s", base ? base : "", base ? "." : "", esc) < 0)
		r = NULL;
	free(esc);
	return r;
}

/* key_path, counted against the walk's budget at pos. NULL: stop. */
static char *path_join(struct ctx *c, const char *base, const char *name, struct mc_pos pos)
{
	char *r;

	if (!spend(c, (base ? strlen(base) + 1 : 0) + strlen(name), pos))
		return NULL;
	r = key_path(base, name);
	if (!r)
		c->nomem = c->stop = true;
	return r;
}

/* ---- pass 1: events to a tree ---- */

static struct mc_pos pos_of_mark(const yaml_mark_t *m)
{
	struct mc_pos p = {
		.line = m->line >= INT_MAX ? INT_MAX : (int)m->line + 1,
		.col = m->column >= INT_MAX ? INT_MAX : (int)m->column + 1,
	};

	return p;
}

/*
 * The position of byte offset off, counted as libyaml counts: lines broken
 * by LF, CRLF or CR, columns in characters (UTF-8 continuation bytes do not
 * advance the column).
 */
static struct mc_pos pos_of_offset(const char *buf, size_t len, size_t off)
{
	struct mc_pos p = { 1, 1 };

	for (size_t i = 0; i < off && i < len; i++) {
		unsigned char ch = (unsigned char)buf[i];

		if (ch == '\n' || (ch == '\r' && (i + 1 >= len || buf[i + 1] != '\n'))) {
			if (p.line < INT_MAX)
				p.line++;
			p.col = 1;
		} else if (ch != '\r' && (ch & 0xc0) != 0x80 && p.col < INT_MAX) {
			p.col++;
		}
	}
	return p;
}

static struct node *node_new(struct ctx *c, enum node_type type, const yaml_mark_t *m)
{
	struct node *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->type = type;
	n->pos = pos_of_mark(m);
	n->next = c->nodes;
	c->nodes = n;
	c->n_nodes++;
	return n;
}

static void tree_free(struct ctx *c)
{
	struct node *n = c->nodes;

	while (n) {
		struct node *next = n->next;

		free(n->text);
		free(n->anchor);
		free(n->kids);
		free(n);
		n = next;
	}
	c->nodes = NULL;
	for (size_t i = 0; i < c->n_anchors; i++)
		free(c->anchors[i].name);
	free(c->anchors);
	c->anchors = NULL;
	c->n_anchors = c->cap_anchors = 0;
}

struct builder {
	struct node *stack[PROFILE_MAX_YAML_DEPTH];
	size_t depth;
	struct node *root;
	int documents;
	bool done;
};

static int anchor_add(struct ctx *c, const char *name, struct node *n)
{
	struct anchor *v;

	if (c->n_anchors == PROFILE_MAX_ANCHORS) {
		perr(c, n->pos, NULL, "more than %d anchors", PROFILE_MAX_ANCHORS);
		return -EINVAL;
	}
	if (mc_array_reserve(&c->anchors, &c->cap_anchors, c->n_anchors + 1, sizeof(*c->anchors)) < 0)
		return -ENOMEM;
	v = &c->anchors[c->n_anchors];
	v->name = strdup(name);
	if (!v->name)
		return -ENOMEM;
	v->node = n;
	c->n_anchors++;
	return 0;
}

/* The latest definition of an anchor wins, as YAML says. */
static struct node *anchor_find(const struct ctx *c, const char *name)
{
	for (size_t i = c->n_anchors; i > 0; i--)
		if (strcmp(c->anchors[i - 1].name, name) == 0)
			return c->anchors[i - 1].node;
	return NULL;
}

static int attach(struct builder *b, struct node *n)
{
	struct node *parent;

	if (b->depth == 0) {
		b->root = n;
		return 0;
	}
	parent = b->stack[b->depth - 1];
	if (mc_array_reserve(&parent->kids, &parent->cap_kids, parent->n_kids + 1,
			     sizeof(*parent->kids)) < 0)
		return -ENOMEM;
	parent->kids[parent->n_kids++] = n;
	return 0;
}

static int tree_alias(struct ctx *c, struct builder *b, const yaml_event_t *ev)
{
	const char *name = (const char *)ev->data.alias.anchor;
	struct node *n = node_new(c, NODE_ALIAS, &ev->start_mark);

	if (!n)
		return -ENOMEM;
	n->text = strdup(name);
	if (!n->text)
		return -ENOMEM;
	n->target = anchor_find(c, name);
	if (!n->target) {
		bool open = false;

		for (size_t i = 0; i < b->depth; i++)
			if (b->stack[i]->anchor && strcmp(b->stack[i]->anchor, name) == 0)
				open = true;
		if (open)
			perr(c, n->pos, NULL, "alias '*%s' refers to a node that contains it",
			     quote(name).s);
		else
			perr(c, n->pos, NULL, "unknown alias '*%s'", quote(name).s);
	}
	return attach(b, n);
}

static int tree_scalar(struct ctx *c, struct builder *b, const yaml_event_t *ev)
{
	struct node *n = node_new(c, NODE_SCALAR, &ev->start_mark);
	int r;

	if (!n)
		return -ENOMEM;
	n->len = ev->data.scalar.length;
	n->text = malloc(n->len + 1);
	if (!n->text)
		return -ENOMEM;
	memcpy(n->text, ev->data.scalar.value, n->len);
	n->text[n->len] = '\0';
	n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	r = attach(b, n);
	if (r >= 0 && ev->data.scalar.anchor)
		r = anchor_add(c, (const char *)ev->data.scalar.anchor, n);
	return r;
}

static int tree_open(struct ctx *c, struct builder *b, const yaml_event_t *ev,
		     enum node_type type, const yaml_char_t *anchor)
{
	struct node *n;
	int r;

	if (b->depth == PROFILE_MAX_YAML_DEPTH) {
		perr(c, pos_of_mark(&ev->start_mark), NULL,
		     "YAML nesting is deeper than %d levels", PROFILE_MAX_YAML_DEPTH);
		return -EINVAL;
	}
	n = node_new(c, type, &ev->start_mark);
	if (!n)
		return -ENOMEM;
	if (anchor) {
		n->anchor = strdup((const char *)anchor);
		if (!n->anchor)
			return -ENOMEM;
	}
	r = attach(b, n);
	if (r < 0)
		return r;
	b->stack[b->depth++] = n;
	return 0;
}

static int tree_close(struct ctx *c, struct builder *b)
{
	struct node *n = b->stack[--b->depth];

	if (n->anchor)
		return anchor_add(c, n->anchor, n);
	return 0;
}

static int tree_event(struct ctx *c, struct builder *b, const yaml_event_t *ev)
{
	if (c->n_nodes >= PROFILE_MAX_NODES) {
		perr(c, pos_of_mark(&ev->start_mark), NULL,
		     "profile has more than %d YAML nodes", PROFILE_MAX_NODES);
		return -EINVAL;
	}
	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (b->documents++ > 0) {
			perr(c, pos_of_mark(&ev->start_mark), NULL, "more than one YAML document");
			return -EINVAL;
		}
		return 0;
	case YAML_SCALAR_EVENT:
		return tree_scalar(c, b, ev);
	case YAML_ALIAS_EVENT:
		return tree_alias(c, b, ev);
	case YAML_SEQUENCE_START_EVENT:
		return tree_open(c, b, ev, NODE_SEQUENCE, ev->data.sequence_start.anchor);
	case YAML_MAPPING_START_EVENT:
		return tree_open(c, b, ev, NODE_MAPPING, ev->data.mapping_start.anchor);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		return tree_close(c, b);
	case YAML_STREAM_END_EVENT:
		b->done = true;
		return 0;
	default:
		return 0;
	}
}

static int syntax_error(struct ctx *c, const yaml_parser_t *parser, const char *buf, size_t len)
{
	const char *problem = parser->problem ? parser->problem : "unknown error";

	switch (parser->error) {
	case YAML_MEMORY_ERROR:
		return -ENOMEM;
	case YAML_READER_ERROR:
		/* The reader reports a byte offset; its marks are not set. */
		if (parser->problem_value >= 0)
			perr(c, pos_of_offset(buf, len, parser->problem_offset), NULL,
			     "invalid text: %s (0x%02x)", problem, (unsigned)parser->problem_value);
		else
			perr(c, pos_of_offset(buf, len, parser->problem_offset), NULL,
			     "invalid text: %s", problem);
		return -EINVAL;
	default:
		if (parser->context) {
			struct mc_pos cp = pos_of_mark(&parser->context_mark);

			perr(c, pos_of_mark(&parser->problem_mark), NULL,
			     "syntax error: %s (%s at line %d, column %d)",
			     problem, parser->context, cp.line, cp.col);
		} else {
			perr(c, pos_of_mark(&parser->problem_mark), NULL, "syntax error: %s", problem);
		}
		return -EINVAL;
	}
}

/*
 * Builds the tree of the single document in buf. Returns 0 with *ret the
 * root (NULL for a stream without a document), -EINVAL after recording why,
 * or -ENOMEM.
 */
static int tree_build(struct ctx *c, const char *buf, size_t len, struct node **ret)
{
	struct builder b = { .depth = 0 };
	yaml_parser_t parser;
	const char *nul;
	int r = 0;

	/*
	 * libyaml would call a NUL just a control character; say what it is.
	 * It would also decode a UTF-16 file, but positions here are counted
	 * in UTF-8, and a profile is UTF-8 text.
	 */
	if (len >= 2 && (((unsigned char)buf[0] == 0xff && (unsigned char)buf[1] == 0xfe) ||
			 ((unsigned char)buf[0] == 0xfe && (unsigned char)buf[1] == 0xff))) {
		perr(c, (struct mc_pos){ 1, 1 }, NULL, "profile is UTF-16; profiles must be UTF-8");
		return -EINVAL;
	}
	nul = memchr(buf, '\0', len);
	if (nul) {
		perr(c, pos_of_offset(buf, len, (size_t)(nul - buf)), NULL, "profile contains a NUL byte");
		return -EINVAL;
	}

	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	while (!b.done) {
		yaml_event_t ev;

		if (!yaml_parser_parse(&parser, &ev)) {
			r = syntax_error(c, &parser, buf, len);
			break;
		}
		r = tree_event(c, &b, &ev);
		yaml_event_delete(&ev);
		if (r < 0)
			break;
	}
	yaml_parser_delete(&parser);
	if (r < 0)
		return r;
	if (c->nomem)
		return -ENOMEM;
	/* An unknown alias was recorded, but the walk can still find more. */
	*ret = b.root;
	return 0;
}

/* ---- pass 2: the tree against the key tables ---- */

/*
 * An alias stands for its anchored node; NULL when the alias was unknown,
 * or when the scalar it leads to exceeds the walk's budget.
 */
static struct node *deref(struct ctx *c, struct node *n)
{
	struct node *t = n;

	if (n && n->type == NODE_ALIAS) {
		c->expanded = true;
		t = n->target;
	}
	if (t && t->type == NODE_SCALAR && !spend(c, t->len, n->pos))
		return NULL;
	return t;
}

/*
 * Marks the start and end of walking a value reached through raw, so that a
 * budget overrun is reported at the alias that led there.
 */
static void alias_enter(struct ctx *c, const struct node *raw)
{
	if (raw->type == NODE_ALIAS && c->alias_depth++ == 0)
		c->alias_at = raw->pos;
}

static void alias_leave(struct ctx *c, const struct node *raw)
{
	if (raw->type == NODE_ALIAS)
		c->alias_depth--;
}

/* Counts a node visited; false when the walk must stop. */
static bool visit(struct ctx *c, struct mc_pos pos)
{
	if (c->stop)
		return false;
	if (++c->visited > PROFILE_MAX_NODES) {
		perr(c, c->alias_depth ? c->alias_at : pos, NULL,
		     c->expanded ? "alias expansion exceeds %d nodes" : "profile exceeds %d nodes",
		     PROFILE_MAX_NODES);
		c->stop = true;
		return false;
	}
	return true;
}

/* A plain "", "~" or "null": YAML's null, which in a profile means "nothing here". */
static bool is_null(const struct node *n)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL" };

	if (n->type != NODE_SCALAR || !n->plain)
		return false;
	for (size_t i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++)
		if (strcmp(n->text, nulls[i]) == 0)
			return true;
	return false;
}

static bool is_empty(const struct node *n)
{
	return n->type == NODE_SCALAR && (n->len == 0 || is_null(n));
}

/* One key: value pair being read. */
struct field {
	const char *name;
	const char *path;        /* "groups.web.max" */
	struct mc_pos key_pos;
	struct mc_pos val_pos;   /* where the value is written: the alias, for an alias */
	struct node *val;        /* dereferenced */
};

/*
 * Checks that a value is a non-empty scalar holding text (no escaped NUL).
 * what names the expected value for messages. An empty value is reported at
 * its key: there is nothing else to point at.
 */
static const char *expect_scalar(struct ctx *c, const struct field *f, const char *what)
{
	if (f->val->type != NODE_SCALAR) {
		perr(c, f->val_pos, f->path, "expected %s, found a %s", what,
		     node_type_name[f->val->type]);
		return NULL;
	}
	if (is_empty(f->val)) {
		perr(c, f->key_pos, f->path, "empty value, expected %s", what);
		return NULL;
	}
	if (strlen(f->val->text) != f->val->len) {
		perr(c, f->val_pos, f->path, "value contains a NUL character");
		return NULL;
	}
	return f->val->text;
}

/* Checks for a mapping or a null; false (after saying why) for anything else. */
static bool expect_mapping(struct ctx *c, const struct field *f, const char *what)
{
	if (f->val->type == NODE_MAPPING || is_null(f->val))
		return true;
	perr(c, f->val_pos, f->path, "expected %s, found a %s", what, node_type_name[f->val->type]);
	return false;
}

struct key_def {
	const char *name;
	void (*parse)(struct ctx *c, const struct field *f, void *obj);
};

struct key_table {
	const struct key_def *defs;
	size_t n;
	/* When set, the knob names of knob.h are keys too, read by this. */
	void (*knob)(struct ctx *c, const struct field *f, void *obj, enum mc_knob k);
	bool extensions;   /* ignores keys starting "x-": a place for anchors */
	bool unit;         /* a unit's settings: no child groups */
};

struct key_ref {
	const char *text;
	size_t len;
	size_t idx;
};

static int key_ref_cmp(const void *a, const void *b)
{
	const struct key_ref *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int r = memcmp(x->text, y->text, n);

	if (r)
		return r;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * For each pair of a mapping, the index of the pair whose key it repeats,
 * or -1. Sorting keeps this O(n log n) in the number of keys.
 */
static ptrdiff_t *find_duplicates(struct ctx *c, struct node *map)
{
	size_t n = map->n_kids / 2, m = 0, bytes = 0;
	ptrdiff_t *dup;
	struct key_ref *refs;

	/* sorting compares the keys' text: count it before */
	for (size_t i = 0; i < n; i++) {
		struct node *k = map->kids[2 * i];

		if (k->type == NODE_ALIAS)
			k = k->target;
		if (k && k->type == NODE_SCALAR)
			bytes += k->len;
	}
	if (!spend(c, bytes, map->pos))
		return NULL;
	dup = malloc((n ? n : 1) * sizeof(*dup));
	refs = malloc((n ? n : 1) * sizeof(*refs));
	if (!dup || !refs) {
		free(dup);
		free(refs);
		c->nomem = c->stop = true;
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		struct node *k = map->kids[2 * i];

		dup[i] = -1;
		if (k->type == NODE_ALIAS)
			k = k->target;
		if (k && k->type == NODE_SCALAR)
			refs[m++] = (struct key_ref){ k->text, k->len, i };
	}
	qsort(refs, m, sizeof(*refs), key_ref_cmp);
	for (size_t i = 1, first = 0; i < m; i++) {
		if (refs[i].len == refs[first].len &&
		    memcmp(refs[i].text, refs[first].text, refs[i].len) == 0)
			dup[refs[i].idx] = (ptrdiff_t)refs[first].idx;
		else
			first = i;
	}
	free(refs);
	return dup;
}

/*
 * The key of pair i as text, or NULL (after saying why) when it is not a
 * plain piece of text. The key's position is where the key is written.
 */
static const char *key_text(struct ctx *c, struct node *map, size_t i, const char *path)
{
	struct node *raw = map->kids[2 * i], *k = deref(c, raw);

	if (!k)
		return NULL;
	if (k->type != NODE_SCALAR) {
		perr(c, raw->pos, path, "expected a key, found a %s", node_type_name[k->type]);
		return NULL;
	}
	if (strlen(k->text) != k->len) {
		perr(c, raw->pos, path, "key contains a NUL character");
		return NULL;
	}
	return k->text;
}

static void unknown_key(struct ctx *c, const struct key_table *t, const struct field *f)
{
	const char *cands[32];
	const char *best;
	size_t n = 0;

	if (strcmp(f->name, "<<") == 0) {
		perr(c, f->key_pos, f->path, "unknown key '<<': merge keys are not supported");
		return;
	}
	for (size_t i = 0; i < t->n && n < 32; i++)
		cands[n++] = t->defs[i].name;
	for (int k = 0; t->knob && k < MC_KNOB__COUNT && n < 32; k++)
		cands[n++] = mc_knob_info((enum mc_knob)k)->name;
	best = mc_suggest(f->name, cands, n);
	/*
	 * In a group, a key holding a mapping is most likely a child group
	 * written without "groups:"; a knob name would be a poor guess.
	 */
	if (t->unit && strcmp(f->name, "groups") == 0)
		perr(c, f->key_pos, f->path, "a unit has no child groups here: memctl sets the "
		     "unit's own settings (groups inside a unit need its Delegate=yes and 'parent:')");
	else if (t->knob && f->val && (f->val->type == NODE_MAPPING || is_null(f->val)) &&
	    !(best && strcmp(best, "groups") == 0))
		perr(c, f->key_pos, f->path, "unknown key '%s' (child groups go under 'groups:')",
		     quote(f->name).s);
	else if (best)
		perr(c, f->key_pos, f->path, "unknown key '%s', did you mean '%s'?",
		     quote(f->name).s, best);
	else
		perr(c, f->key_pos, f->path, "unknown key '%s'", quote(f->name).s);
}

/*
 * Walks the pairs of a mapping against a key table. seen, when not NULL,
 * gets true for each table entry found (for required keys).
 */
static void walk_map(struct ctx *c, struct node *map, const char *path,
		     const struct key_table *t, void *obj, bool *seen)
{
	size_t n = map->n_kids / 2;
	ptrdiff_t *dup = find_duplicates(c, map);

	for (size_t i = 0; dup && i < n && visit(c, map->kids[2 * i]->pos); i++) {
		struct node *raw = map->kids[2 * i + 1];
		struct field f = {
			.key_pos = map->kids[2 * i]->pos,
			.val_pos = raw->pos,
			.val = deref(c, raw),
		};
		const struct key_def *def = NULL;
		enum mc_knob knob = MC_KNOB__COUNT;
		char *kpath;

		f.name = key_text(c, map, i, path);
		if (!f.name)
			continue;
		kpath = path_join(c, path, f.name, f.key_pos);
		if (!kpath)
			break;
		f.path = kpath;

		if (dup[i] >= 0) {
			perr(c, f.key_pos, f.path, "duplicate key '%s', first defined at line %d",
			     quote(f.name).s, map->kids[2 * dup[i]]->pos.line);
			free(kpath);
			continue;
		}
		for (size_t d = 0; d < t->n && !def; d++)
			if (strcmp(t->defs[d].name, f.name) == 0) {
				def = &t->defs[d];
				if (seen)
					seen[d] = true;
			}
		for (int k = 0; t->knob && !def && k < MC_KNOB__COUNT; k++)
			if (strcmp(mc_knob_info((enum mc_knob)k)->name, f.name) == 0)
				knob = (enum mc_knob)k;

		if (!def && knob == MC_KNOB__COUNT) {
			if (!(t->extensions && strncmp(f.name, "x-", 2) == 0))
				unknown_key(c, t, &f);
		} else if (f.val) {
			alias_enter(c, raw);
			if (def)
				def->parse(c, &f, obj);
			else
				t->knob(c, &f, obj, knob);
			alias_leave(c, raw);
		}
		free(kpath);
	}
	free(dup);
}

/* ---- values ---- */

static void size_error(struct ctx *c, const struct field *f, const char *text, const char *why)
{
	const char *suffix = mc_size_bad_suffix(text);

	if (suffix)
		perr(c, f->val_pos, f->path, "size '%s' has an unknown suffix '%s'",
		     quote(text).s, quote(suffix).s);
	else
		perr(c, f->val_pos, f->path, "size '%s' %s", quote(text).s, why);
}

/*
 * A non-zero size below a page, which the kernel would store as 0: an
 * error, since "max: 5" is a typo or half of "max: 512M", never an intent.
 */
static bool below_page(struct ctx *c, const struct field *f, const char *text,
		       const struct mc_size *sz)
{
	if (sz->kind != MC_SIZE_BYTES || sz->bytes == 0 || sz->bytes >= MC_SIZE_PAGE_MIN)
		return false;
	perr(c, f->val_pos, f->path, "size '%s' is below one page (%d bytes): the kernel would "
	     "make it 0; write 0 or at least 4K", quote(text).s, MC_SIZE_PAGE_MIN);
	return true;
}

struct group_walk {
	struct mc_group_spec *g;
	int depth;               /* 1 for a group directly below the parent */
};

static void parse_knob(struct ctx *c, const struct field *f, void *obj, enum mc_knob k)
{
	struct mc_group_spec *g = ((struct group_walk *)obj)->g;
	const char *text = expect_scalar(c, f, "a size");
	const char *why = NULL;
	struct mc_size sz;

	if (!text)
		return;
	if (mc_size_parse(text, &sz, &why) < 0) {
		size_error(c, f, text, why);
		return;
	}
	if (mc_knob_info(k)->flag && (sz.kind != MC_SIZE_BYTES || sz.bytes > 1)) {
		perr(c, f->val_pos, f->path, "'%s' is a switch: 0 or 1, not '%s'",
		     mc_knob_info(k)->name, quote(text).s);
		return;
	}
	if (!mc_knob_info(k)->flag && below_page(c, f, text, &sz))
		return;
	g->knob[k] = sz;
	g->knob_pos[k] = f->val_pos;
}

static void parse_protect(struct ctx *c, const struct field *f, void *obj)
{
	static const struct {
		const char *word;
		enum mc_protect mode;
	} words[] = {
		{ "active", MC_PROTECT_ACTIVE },
		{ "none", MC_PROTECT_NONE },
	};
	struct mc_group_spec *g = ((struct group_walk *)obj)->g;
	const char *text = expect_scalar(c, f, "'active', 'none' or a size");
	const char *why = NULL;
	struct mc_size sz;

	if (!text)
		return;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcmp(text, words[i].word) == 0) {
			g->protect = words[i].mode;
			g->protect_pos = f->val_pos;
			return;
		}
	if (mc_size_parse(text, &sz, &why) < 0) {
		if (isdigit((unsigned char)text[0]) || text[0] == '-' || text[0] == '.') {
			size_error(c, f, text, why);
		} else {
			const char *cands[] = { "active", "none" };
			const char *best = mc_suggest(text, cands, 2);

			if (best)
				perr(c, f->val_pos, f->path,
				     "protect '%s' is not 'active', 'none' or a size, did you mean '%s'?",
				     quote(text).s, best);
			else
				perr(c, f->val_pos, f->path,
				     "protect '%s' is not 'active', 'none' or a size", quote(text).s);
		}
		return;
	}
	if (below_page(c, f, text, &sz))
		return;
	g->protect = MC_PROTECT_SIZE;
	g->protect_size = sz;
	g->protect_pos = f->val_pos;
}

static void parse_thp(struct ctx *c, const struct field *f, void *obj)
{
	/* YAML 1.1's booleans, which is what people write in YAML files. */
	static const struct {
		const char *word;
		int value;
	} words[] = {
		{ "true", 1 }, { "yes", 1 }, { "on", 1 },
		{ "false", 0 }, { "no", 0 }, { "off", 0 },
	};
	struct mc_group_spec *g = ((struct group_walk *)obj)->g;
	const char *text = expect_scalar(c, f, "true or false");

	if (!text)
		return;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcasecmp(text, words[i].word) == 0) {
			g->thp = words[i].value;
			g->thp_pos = f->val_pos;
			return;
		}
	perr(c, f->val_pos, f->path, "thp '%s' is not a boolean, expected true or false",
	     quote(text).s);
}

static void walk_groups(struct ctx *c, const struct field *f, int depth,
			struct mc_group_spec **ret_groups, size_t *ret_n);

static void parse_children(struct ctx *c, const struct field *f, void *obj)
{
	struct group_walk *w = obj;

	walk_groups(c, f, w->depth + 1, &w->g->children, &w->g->n_children);
}

static const struct key_def group_keys[] = {
	{ "protect", parse_protect },
	{ "thp", parse_thp },
	{ "groups", parse_children },
};

static const struct key_table group_table = {
	.defs = group_keys,
	.n = sizeof(group_keys) / sizeof(group_keys[0]),
	.knob = parse_knob,
};

/*
 * The ordering checks are shared with the planner and append to the list
 * directly, so the error cap is applied to them afterwards: a group with
 * thousands of children above its limit must not flood the list.
 */
static void group_order(struct ctx *c, const char *path, const struct mc_group_spec *g)
{
	struct mc_diags *d = c->diags;
	size_t keep = c->diags_before + PROFILE_MAX_ERRORS;
	struct mc_pos pos;

	if (c->stop)
		return;
	if (mc_group_check_order(c->file, path, g, NULL, d) < 0) {
		c->nomem = c->stop = true;
		return;
	}
	if (d->n <= keep)
		return;
	pos = (struct mc_pos){ d->v[keep].line, d->v[keep].col };
	for (size_t i = keep; i < d->n; i++) {
		free(d->v[i].file);
		free(d->v[i].path);
		free(d->v[i].msg);
	}
	d->n = keep;
	too_many(c, pos);
}

/*
 * Reads a "groups:" mapping at depth (1 = below the parent) into a newly
 * allocated array. Groups are appended to *ret_groups as they are read, so
 * that whatever was read is freed with the profile when reading fails.
 * It is long because each entry is vetted in turn (key, duplicate, name,
 * depth) before its settings are walked, and every step shares the entry's
 * path, position and the alias it may come through.
 */
static void walk_groups(struct ctx *c, const struct field *f, int depth,
			struct mc_group_spec **ret_groups, size_t *ret_n)
{
	struct node *map = f->val;
	size_t n;
	ptrdiff_t *dup;

	if (!expect_mapping(c, f, "a mapping of groups") || map->type != NODE_MAPPING)
		return;
	n = map->n_kids / 2;
	if (n == 0)
		return;
	*ret_groups = calloc(n, sizeof(**ret_groups));
	if (!*ret_groups) {
		c->nomem = c->stop = true;
		return;
	}
	dup = find_duplicates(c, map);
	for (size_t i = 0; dup && i < n && visit(c, map->kids[2 * i]->pos); i++) {
		struct node *raw = map->kids[2 * i + 1];
		struct field body = {
			.key_pos = map->kids[2 * i]->pos,
			.val_pos = raw->pos,
			.val = deref(c, raw),
		};
		struct mc_group_spec *g;
		const char *why;
		char *gpath;

		body.name = key_text(c, map, i, f->path);
		if (!body.name)
			continue;
		gpath = path_join(c, f->path, body.name, body.key_pos);
		if (!gpath)
			break;
		body.path = gpath;
		if (dup[i] >= 0) {
			perr(c, body.key_pos, gpath, "duplicate group '%s', first defined at line %d",
			     quote(body.name).s, map->kids[2 * dup[i]]->pos.line);
			free(gpath);
			continue;
		}
		if (mc_group_name_check(body.name, &why) < 0)
			perr(c, body.key_pos, gpath, "group name '%s' %s", quote(body.name).s, why);
		if (depth > MC_PROFILE_MAX_DEPTH) {
			perr(c, body.key_pos, gpath, "groups are nested deeper than %d levels",
			     MC_PROFILE_MAX_DEPTH);
			free(gpath);
			continue;
		}

		g = &(*ret_groups)[(*ret_n)++];
		g->name = strdup(body.name);
		g->pos = body.key_pos;
		g->thp = -1;
		if (!g->name) {
			c->nomem = c->stop = true;
			free(gpath);
			break;
		}
		if (body.val && expect_mapping(c, &body, "a mapping of group settings") &&
		    body.val->type == NODE_MAPPING) {
			struct group_walk w = { g, depth };

			alias_enter(c, raw);
			walk_map(c, body.val, gpath, &group_table, &w, NULL);
			alias_leave(c, raw);
		}
		group_order(c, gpath, g);
		free(gpath);
	}
	free(dup);
}

/* ---- units: systemd units as targets ---- */

/*
 * A unit's knob: as a group's, but a size in bytes (or max). A percentage
 * would need a base: memctl's are of the parent group's limit, systemd's
 * of the host's RAM; a unit has no parent in the profile, so neither is
 * guessed.
 */
static void parse_unit_knob(struct ctx *c, const struct field *f, void *obj, enum mc_knob k)
{
	struct mc_group_spec *g = ((struct group_walk *)obj)->g;

	parse_knob(c, f, obj, k);
	if (g->knob[k].kind != MC_SIZE_PERCENT)
		return;
	perr(c, f->val_pos, f->path, "a unit's %s must be a size or 'max', not a percentage",
	     mc_knob_info(k)->name);
	g->knob[k].kind = MC_SIZE_UNSET;
}

static const struct key_def unit_keys[] = {
	{ "protect", parse_protect },
	{ "thp", parse_thp },
};

static const struct key_table unit_table = {
	.defs = unit_keys,
	.n = sizeof(unit_keys) / sizeof(unit_keys[0]),
	.knob = parse_unit_knob,
	.unit = true,
};

/* Reads one unit's entry (its key checked) into g. */
static void unit_entry(struct ctx *c, struct field *body, struct node *raw,
		       struct mc_group_spec *g)
{
	const char *why;

	if (mc_sd_target_check(body->name, &why) < 0)
		perr(c, body->key_pos, body->path, "unit '%s' %s", quote(body->name).s, why);
	g->pos = body->key_pos;
	g->thp = -1;
	if (body->val && expect_mapping(c, body, "a mapping of unit settings") &&
	    body->val->type == NODE_MAPPING) {
		struct group_walk w = { g, 1 };

		alias_enter(c, raw);
		walk_map(c, body->val, body->path, &unit_table, &w, NULL);
		alias_leave(c, raw);
	}
	group_order(c, body->path, g);
}

/* Reads the "units:" mapping: unit name -> settings, like a group without children. */
static void parse_units(struct ctx *c, const struct field *f, void *obj)
{
	struct mc_profile *p = obj;
	struct node *map = f->val;
	ptrdiff_t *dup;
	size_t n;

	if (!expect_mapping(c, f, "a mapping of systemd units") || map->type != NODE_MAPPING)
		return;
	n = map->n_kids / 2;
	if (n == 0 || !(p->units = calloc(n, sizeof(*p->units)))) {
		c->nomem = c->stop = n != 0;
		return;
	}
	dup = find_duplicates(c, map);
	for (size_t i = 0; dup && i < n && visit(c, map->kids[2 * i]->pos); i++) {
		struct node *raw = map->kids[2 * i + 1];
		struct field body = { .key_pos = map->kids[2 * i]->pos, .val_pos = raw->pos,
				      .val = deref(c, raw) };
		char *upath;

		if (!(body.name = key_text(c, map, i, f->path)))
			continue;
		if (!(upath = path_join(c, f->path, body.name, body.key_pos)))
			break;
		body.path = upath;
		if (dup[i] >= 0) {
			perr(c, body.key_pos, upath, "duplicate unit '%s', first defined at line %d",
			     quote(body.name).s, map->kids[2 * dup[i]]->pos.line);
		} else if (!(p->units[p->n_units].name = strdup(body.name))) {
			c->nomem = c->stop = true;
		} else {
			unit_entry(c, &body, raw, &p->units[p->n_units++]);
		}
		free(upath);
	}
	free(dup);
}

/* ---- top level ---- */

static void parse_version(struct ctx *c, const struct field *f, void *obj)
{
	struct mc_profile *p = obj;
	const char *text = expect_scalar(c, f, "a version number");

	if (!text)
		return;
	if (strcmp(text, "1") != 0) {
		perr(c, f->val_pos, f->path, "unsupported version '%s', this memctl reads version 1",
		     quote(text).s);
		return;
	}
	p->version = 1;
}

static int name_check_n(const char *name, size_t n, const char **ret_why);

/*
 * Checks a parent path: "/", "/abs/path", "self" or "self/sub/path". Every
 * component must be a valid group name: no "." or "..", no "//". Returns
 * NULL, or why not; when one component is at fault, *ret_bad and
 * *ret_bad_len point at it in s.
 */
static const char *parent_check(const char *s, const char **ret_bad, size_t *ret_bad_len)
{
	const char *p, *why;

	if (strcmp(s, "/") == 0 || strcmp(s, "self") == 0)
		return NULL;
	if (strncmp(s, "self/", 5) == 0)
		p = s + 5;
	else if (s[0] == '/')
		p = s + 1;
	else
		return "is not an absolute cgroup path, '/' or 'self'";

	for (;;) {
		size_t n = strcspn(p, "/");

		if (n == 0)
			return p[0] == '\0' ? "ends with '/'" : "contains '//'";
		if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return "contains a '.' or '..' component";
		if (name_check_n(p, n, &why) < 0) {
			*ret_bad = p;
			*ret_bad_len = n;
			return why;
		}
		if (p[n] == '\0')
			return NULL;
		p += n + 1;
	}
}

static void parse_parent(struct ctx *c, const struct field *f, void *obj)
{
	struct mc_profile *p = obj;
	const char *text = expect_scalar(c, f, "a cgroup path");
	const char *bad = NULL, *why;
	size_t bad_len = 0;

	if (!text)
		return;
	why = parent_check(text, &bad, &bad_len);
	if (why && bad) {
		perr(c, f->val_pos, f->path, "parent '%s': component '%s' %s",
		     quote(text).s, quote_n(bad, bad_len).s, why);
		return;
	}
	if (why) {
		perr(c, f->val_pos, f->path, "parent '%s' %s", quote(text).s, why);
		return;
	}
	free(p->parent);
	p->parent = strdup(text);
	if (!p->parent)
		c->nomem = c->stop = true;
	p->parent_pos = f->val_pos;
}

/*
 * A duration: digits, an optional fraction, and a unit (ms, s, m, h; none
 * means seconds). Returns NULL and the milliseconds, or why not.
 */
static const char *duration_parse(const char *s, uint64_t *ret_ms)
{
	static const struct {
		const char *unit;
		uint64_t ms;
	} units[] = {
		{ "", 1000 }, { "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 },
	};
	uint64_t whole = 0, frac = 0, scale = 1, ms;
	const char *p = s;
	size_t i;

	if (p[0] == '-' && isdigit((unsigned char)p[1]))
		return "is negative";
	if (!isdigit((unsigned char)*p))
		return "is not a duration (like 500ms, 5s, 1m)";
	for (; isdigit((unsigned char)*p); p++) {
		if (whole > PROFILE_MAX_INTERVAL_MS)
			return "is longer than 1h";
		whole = whole * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return "is not a duration (like 500ms, 5s, 1m)";
		for (; isdigit((unsigned char)*p); p++) {
			if (scale >= UINT64_C(1000000000))
				return "has too many decimals";
			frac = frac * 10 + (uint64_t)(*p - '0');
			scale *= 10;
		}
	}
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(p, units[i].unit) == 0)
			break;
	if (i == sizeof(units) / sizeof(units[0]))
		return "has an unknown unit (use ms, s, m or h)";
	if (whole > PROFILE_MAX_INTERVAL_MS)
		return "is longer than 1h";
	/* whole <= 3.6e6 and frac < 1e9, units <= 3.6e6: no product overflows. */
	if ((frac * units[i].ms) % scale != 0)
		return "is not a whole number of milliseconds";
	ms = whole * units[i].ms + frac * units[i].ms / scale;
	if (ms == 0)
		return "is not above zero";
	if (ms > PROFILE_MAX_INTERVAL_MS)
		return "is longer than 1h";
	*ret_ms = ms;
	return NULL;
}

static void parse_interval(struct ctx *c, const struct field *f, void *obj)
{
	struct mc_profile *p = obj;
	const char *text = expect_scalar(c, f, "a duration");
	const char *why;
	uint64_t ms;

	if (!text)
		return;
	why = duration_parse(text, &ms);
	if (why) {
		perr(c, f->val_pos, f->path, "interval '%s' %s", quote(text).s, why);
		return;
	}
	p->interval_ms = ms;
}

/*
 * A small whole number in [lo, hi]; range says so in the message, and alt
 * (or NULL) names the word the field also takes.
 */
static bool parse_count(struct ctx *c, const struct field *f, long lo, long hi,
			const char *range, const char *alt, long *ret)
{
	const char *text = expect_scalar(c, f, "an integer");
	size_t n;
	long v = -1;

	if (!text)
		return false;
	n = strspn(text, "0123456789");
	if (n > 0 && n <= 5 && text[n] == '\0')
		v = strtol(text, NULL, 10);
	if (v < lo || v > hi) {
		perr(c, f->val_pos, f->path, "%s '%s' is not %s%san integer from %s to %ld", f->name,
		     quote(text).s, alt ? alt : "", alt ? " or " : "", range, hi);
		return false;
	}
	*ret = v;
	return true;
}

static void parse_concurrency(struct ctx *c, const struct field *f, void *obj)
{
	struct mc_profile *p = obj;
	long v;

	if (parse_count(c, f, 1, PROFILE_MAX_CONCURRENCY, "1", NULL, &v))
		p->concurrency = (unsigned)v;
}

/* An integer, or auto: as many as the fewest CPUs of a node (see plan.c). */
static void parse_kernel_per_node(struct ctx *c, const struct field *f, void *obj)
{
	struct mc_profile *p = obj;
	long v;

	if (f->val->type == NODE_SCALAR && strcmp(f->val->text, "auto") == 0) {
		p->kernel_per_node_auto = p->has_kernel_per_node = true;
		return;
	}
	if (parse_count(c, f, 0, PROFILE_MAX_CONCURRENCY, "0 (no cap)", "auto", &v)) {
		p->kernel_per_node = (unsigned)v;
		p->has_kernel_per_node = true;
	}
}

static void parse_numa(struct ctx *c, const struct field *f, void *obj)
{
	static const struct {
		const char *word;
		enum mc_numa_mode mode;
	} modes[] = {
		{ "weighted", MC_NUMA_WEIGHTED },
		{ "round-robin", MC_NUMA_ROUND_ROBIN },
		{ "off", MC_NUMA_OFF },
	};
	const char *cands[sizeof(modes) / sizeof(modes[0])];
	struct mc_profile *p = obj;
	const char *text = expect_scalar(c, f, "weighted, round-robin or off");
	const char *best;

	if (!text)
		return;
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (strcmp(text, modes[i].word) == 0) {
			p->numa = modes[i].mode;
			return;
		}
		cands[i] = modes[i].word;
	}
	best = mc_suggest(text, cands, sizeof(modes) / sizeof(modes[0]));
	if (best)
		perr(c, f->val_pos, f->path, "unknown numa mode '%s', did you mean '%s'?",
		     quote(text).s, best);
	else
		perr(c, f->val_pos, f->path,
		     "unknown numa mode '%s', expected weighted, round-robin or off", quote(text).s);
}

static const struct key_def reclaim_keys[] = {
	{ "concurrency", parse_concurrency },
	{ "kernel_per_node", parse_kernel_per_node },
	{ "numa", parse_numa },
};

static const struct key_table reclaim_table = {
	.defs = reclaim_keys,
	.n = sizeof(reclaim_keys) / sizeof(reclaim_keys[0]),
};

static void parse_reclaim(struct ctx *c, const struct field *f, void *obj)
{
	if (expect_mapping(c, f, "a mapping of reclaim settings") && f->val->type == NODE_MAPPING)
		walk_map(c, f->val, f->path, &reclaim_table, obj, NULL);
}

static void parse_groups(struct ctx *c, const struct field *f, void *obj)
{
	struct mc_profile *p = obj;

	walk_groups(c, f, 1, &p->groups, &p->n_groups);
}

enum {
	TOP_VERSION,
	TOP_PARENT,
	TOP_INTERVAL,
	TOP_RECLAIM,
	TOP_GROUPS,
	TOP_UNITS,
	TOP__COUNT,
};

static const struct key_def top_keys[TOP__COUNT] = {
	[TOP_VERSION] = { "version", parse_version },
	[TOP_PARENT] = { "parent", parse_parent },
	[TOP_INTERVAL] = { "interval", parse_interval },
	[TOP_RECLAIM] = { "reclaim", parse_reclaim },
	[TOP_GROUPS] = { "groups", parse_groups },
	[TOP_UNITS] = { "units", parse_units },
};

static const struct key_table top_table = {
	.defs = top_keys,
	.n = TOP__COUNT,
	.extensions = true,
};

static int diag_pos_cmp(const void *a, const void *b)
{
	const struct mc_diag *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	return 0;
}

/*
 * Puts the diagnostics from index from on in file order, as a compiler
 * would: the walk finds ordering problems after a group's whole body and
 * follows aliases back up the file. Insertion sort keeps equal positions
 * (one anchored node reached through several aliases) in walk order.
 */
static void diags_sort(struct mc_diags *d, size_t from)
{
	for (size_t i = from + 1; i < d->n; i++) {
		struct mc_diag x = d->v[i];
		size_t j = i;

		while (j > from && diag_pos_cmp(&d->v[j - 1], &x) > 0) {
			d->v[j] = d->v[j - 1];
			j--;
		}
		d->v[j] = x;
	}
}

static void group_free(struct mc_group_spec *g)
{
	for (size_t i = 0; i < g->n_children; i++)
		group_free(&g->children[i]);
	free(g->children);
	free(g->name);
}

void mc_profile_free(struct mc_profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_groups; i++)
		group_free(&p->groups[i]);
	free(p->groups);
	for (size_t i = 0; i < p->n_units; i++)
		group_free(&p->units[i]);
	free(p->units);
	free(p->parent);
	free(p->file);
	memset(p, 0, sizeof(*p));
}

static int check_paths(const char *file, const struct mc_group_spec *g, size_t n, size_t len,
		       const char *path, struct mc_diags *d);

static size_t parent_len(const char *parent)
{
	return parent[0] == '/' && parent[1] ? strlen(parent) : 0;
}

int mc_profile_parse(const char *file, const char *buf, size_t len,
		     struct mc_profile *ret, struct mc_diags *diags)
{
	struct ctx c = {
		.file = file,
		.diags = diags,
		.diags_before = diags->n,
	};
	struct mc_profile p = {
		.interval_ms = PROFILE_DEFAULT_INTERVAL_MS,
		.concurrency = 1,
		.numa = MC_NUMA_WEIGHTED,
	};
	bool seen[TOP__COUNT] = { false };
	struct node *root = NULL;
	int r;

	r = tree_build(&c, buf, len, &root);
	if (r < 0)
		goto out;

	if (!root || is_empty(root)) {
		perr(&c, root ? root->pos : (struct mc_pos){ 1, 1 }, NULL, "empty profile");
	} else if (root->type == NODE_ALIAS) {
		/* Only an unknown alias can be a root, and it was reported. */
	} else if (root->type != NODE_MAPPING) {
		perr(&c, root->pos, NULL, "expected a mapping of profile settings, found a %s",
		     node_type_name[root->type]);
	} else {
		walk_map(&c, root, NULL, &top_table, &p, seen);
		if (!seen[TOP_VERSION])
			perr(&c, root->pos, NULL, "missing required key 'version' (this memctl reads version 1)");
		if (!seen[TOP_PARENT])
			perr(&c, root->pos, NULL,
			     "missing required key 'parent' (an absolute cgroup path, '/' or 'self')");
	}
	r = 0;
	/* the parent's length is known here unless it is self (then at plan time) */
	if (!c.stop && n_errors(&c) == 0 && p.parent &&
	    check_paths(file, p.groups, p.n_groups, parent_len(p.parent), "groups", diags) < 0)
		c.nomem = true;

out:
	tree_free(&c);
	diags_sort(diags, c.diags_before);
	if (r == 0 && c.nomem)
		r = -ENOMEM;
	if (r == 0 && n_errors(&c) > 0)
		r = -EINVAL;
	if (r == 0 && file) {
		p.file = strdup(file);
		if (!p.file)
			r = -ENOMEM;
	}
	if (r < 0) {
		mc_profile_free(&p);
		return r;
	}
	*ret = p;
	return 0;
}

/* ---- checks shared with the planner ---- */

static int check_paths(const char *file, const struct mc_group_spec *g, size_t n, size_t len,
		       const char *path, struct mc_diags *d)
{
	int bad = 0;

	for (size_t i = 0; i < n; i++) {
		size_t l = len + 1 + strlen(g[i].name);
		char *gpath = key_path(path, g[i].name);
		int r;

		if (!gpath)
			return -ENOMEM;
		if (l > MC_GROUP_PATH_MAX) {
			r = mc_diags_add(d, file, g[i].pos.line, g[i].pos.col, gpath,
					 "the group's cgroup path is %zu bytes long, more than the %d "
					 "a group's path may have", l, MC_GROUP_PATH_MAX) < 0 ? -ENOMEM : 1;
		} else {
			char *sub = key_path(gpath, "groups");

			r = sub ? check_paths(file, g[i].children, g[i].n_children, l, sub, d) : -ENOMEM;
			free(sub);
		}
		free(gpath);
		if (r < 0)
			return r;
		bad += r;
	}
	return bad;
}

int mc_profile_check_paths(const struct mc_profile *p, size_t parent_len, struct mc_diags *diags)
{
	return check_paths(p->file, p->groups, p->n_groups, parent_len, "groups", diags);
}

/* mc_group_name_check on the n bytes at name, which need not end there. */
static int name_check_n(const char *name, size_t n, const char **ret_why)
{
	if (n == 0) {
		*ret_why = "is empty";
		return -EINVAL;
	}
	if ((n == 1 && name[0] == '.') || (n == 2 && name[0] == '.' && name[1] == '.')) {
		*ret_why = "is '.' or '..'";
		return -EINVAL;
	}
	if (n > MC_GROUP_NAME_MAX) {
		*ret_why = "is longer than 255 bytes";
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)name[i];

		if (ch == '/') {
			*ret_why = "contains '/'";
			return -EINVAL;
		}
		if (ch < 0x20 || ch == 0x7f) {
			*ret_why = "contains a control character";
			return -EINVAL;
		}
	}
	return 0;
}

int mc_group_name_check(const char *name, const char **ret_why)
{
	return name_check_n(name, strlen(name), ret_why);
}

/*
 * Whether a (the knob that must be lower) is above b: 1 or 0, or -1 when
 * the two cannot be compared without the host (bytes against a
 * percentage). An unlimited lower knob is never above: "high: max" or a
 * child's "max: max" means "no limit of its own", which the kernel accepts
 * under any upper limit (the same rule as the planner's).
 */
static int spec_above(const struct mc_size *a, const struct mc_size *b)
{
	if (a->kind == MC_SIZE_UNLIMITED || b->kind == MC_SIZE_UNLIMITED)
		return 0;
	if (a->kind == MC_SIZE_BYTES && b->kind == MC_SIZE_BYTES)
		return a->bytes > b->bytes;
	if (a->kind == MC_SIZE_PERCENT && b->kind == MC_SIZE_PERCENT)
		return a->centipct > b->centipct;
	return -1;
}

/* A knob's value for a message: as written, with what it resolved to for a percentage. */
static void describe(const struct mc_size *s, const uint64_t *resolved, char *buf, size_t len)
{
	char spec[32], val[32];

	if (mc_size_format_spec(s, spec, sizeof(spec)) < 0)
		snprintf(spec, sizeof(spec), "?");
	if (resolved && s->kind == MC_SIZE_PERCENT && mc_size_format(*resolved, val, sizeof(val)) >= 0)
		snprintf(buf, len, "'%s' (%s)", spec, val);
	else
		snprintf(buf, len, "'%s'", spec);
}

static int order_diag(const char *file, const char *path, const char *name,
		      struct mc_pos pos, struct mc_diags *diags, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

static int order_diag(const char *file, const char *path, const char *name,
		      struct mc_pos pos, struct mc_diags *diags, const char *fmt, ...)
{
	char *kpath, *msg;
	va_list ap;
	int r;

	/* A cgroup path names the group; the message names the knob. */
	kpath = path && path[0] == '/' ? strdup(path) : key_path(path, name);
	if (!kpath)
		return -ENOMEM;
	va_start(ap, fmt);
	r = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (r < 0) {
		free(kpath);
		return -ENOMEM;
	}
	r = mc_diags_add(diags, file, pos.line, pos.col, kpath, "%s", msg);
	free(kpath);
	free(msg);
	return r;
}

/* min <= low <= high <= max, in that order. */
static const enum mc_knob order_chain[] = { MC_KNOB_MIN, MC_KNOB_LOW, MC_KNOB_HIGH, MC_KNOB_MAX };

/* Pairs that must hold besides the chain: lower knob, upper knob. */
static const struct {
	enum mc_knob lo, hi;
} order_extra[] = {
	{ MC_KNOB_SOFT, MC_KNOB_MAX },
};

#define N_CHAIN (sizeof(order_chain) / sizeof(order_chain[0]))
#define N_EXTRA (sizeof(order_extra) / sizeof(order_extra[0]))

/* Compares knobs lo and hi of g; 1 above, 0 not, -1 cannot tell. */
static int knob_above(const struct mc_group_spec *g, const uint64_t *resolved,
		      enum mc_knob lo, enum mc_knob hi)
{
	if (g->knob[lo].kind == MC_SIZE_UNSET || g->knob[hi].kind == MC_SIZE_UNSET)
		return -1;
	if (resolved)
		return resolved[lo] != MC_SIZE_MAX && resolved[lo] > resolved[hi];
	return spec_above(&g->knob[lo], &g->knob[hi]);
}

static int order_report(const char *file, const char *path, const struct mc_group_spec *g,
			const uint64_t *resolved, enum mc_knob lo, enum mc_knob hi,
			struct mc_diags *diags)
{
	char a[96], b[96];

	describe(&g->knob[lo], resolved ? &resolved[lo] : NULL, a, sizeof(a));
	describe(&g->knob[hi], resolved ? &resolved[hi] : NULL, b, sizeof(b));
	return order_diag(file, path, mc_knob_info(lo)->name, g->knob_pos[lo], diags,
			  "%s %s is above %s %s", mc_knob_info(lo)->name, a,
			  mc_knob_info(hi)->name, b);
}

/*
 * A child's max against g's, for mc_group_check_order (path as there): a
 * child's percentage is of g's effective limit, so it can never be above
 * it; its bytes can be compared with bytes, and its "max" is above any
 * limit.  Returns the number of children above, or -ENOMEM.
 */
static int check_children_max(const char *file, const char *path,
			      const struct mc_group_spec *g, const uint64_t resolved[MC_KNOB__COUNT],
			      struct mc_diags *diags)
{
	int n = 0, r;

	if (g->knob[MC_KNOB_MAX].kind == MC_SIZE_UNSET)
		return 0;
	for (size_t i = 0; i < g->n_children; i++) {
		const struct mc_group_spec *ch = &g->children[i];
		const struct mc_size *cm = &ch->knob[MC_KNOB_MAX];
		int above = 0;
		char a[96], b[96], *cpath;

		if (cm->kind == MC_SIZE_UNSET || cm->kind == MC_SIZE_PERCENT)
			continue;
		if (resolved)
			above = cm->kind == MC_SIZE_BYTES && cm->bytes > resolved[MC_KNOB_MAX];
		else
			above = spec_above(cm, &g->knob[MC_KNOB_MAX]) == 1;
		if (!above)
			continue;
		describe(cm, NULL, a, sizeof(a));
		describe(&g->knob[MC_KNOB_MAX], resolved ? &resolved[MC_KNOB_MAX] : NULL, b, sizeof(b));
		if (path && path[0] == '/') {
			if (asprintf(&cpath, "%s%s%s", path, strcmp(path, "/") ? "/" : "", ch->name) < 0)
				cpath = NULL;
		} else {
			cpath = key_path(path, "groups");
			if (cpath) {
				char *t = key_path(cpath, ch->name);

				free(cpath);
				cpath = t;
			}
		}
		if (!cpath)
			return -ENOMEM;
		r = order_diag(file, cpath, "max", ch->knob_pos[MC_KNOB_MAX], diags,
			       "max %s is above the parent's max %s", a, b);
		free(cpath);
		if (r < 0)
			return r;
		n++;
	}
	return n;
}

/*
 * path is the key path of the group in the profile ("groups.web"): each
 * problem is reported at the knob that is too large ("groups.web.low"), at
 * its position in the file. path may also be a cgroup path ("/a/web", from
 * the command line): then it is the diagnostic's path as it is, and a
 * child's is "/a/web/child". Returns the number of problems, or -ENOMEM.
 */
int mc_group_check_order(const char *file, const char *path,
			 const struct mc_group_spec *g, const uint64_t resolved[MC_KNOB__COUNT],
			 struct mc_diags *diags)
{
	int n = 0, r;

	/*
	 * Each knob against the nearest larger one in the chain that it can
	 * be compared with: one message per real conflict, not one per pair.
	 */
	for (size_t i = 0; i < N_CHAIN; i++) {
		for (size_t j = i + 1; j < N_CHAIN; j++) {
			int above = knob_above(g, resolved, order_chain[i], order_chain[j]);

			if (above < 0)
				continue;
			if (above) {
				r = order_report(file, path, g, resolved, order_chain[i],
						 order_chain[j], diags);
				if (r < 0)
					return r;
				n++;
			}
			break;
		}
	}
	for (size_t i = 0; i < N_EXTRA; i++) {
		if (knob_above(g, resolved, order_extra[i].lo, order_extra[i].hi) == 1) {
			r = order_report(file, path, g, resolved, order_extra[i].lo,
					 order_extra[i].hi, diags);
			if (r < 0)
				return r;
			n++;
		}
	}

	r = check_children_max(file, path, g, resolved, diags);
	return r < 0 ? r : n + r;
}
