/*
 * The record of the groups memctl created: its text and the set it holds
 * (created.h). Pure: state.c reads and writes the file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "created.h"
#include "host-internal.h"
#include "journal.h"

#define CREATED_MAGIC "memctl-created 1"

/* "ID PATH": a decimal identity, one space, a clean path below the root. */
static int parse_group(const char *line, uint64_t *ret_id, const char **ret_path,
		       const char **ret_why)
{
	const char *p = line;
	uint64_t v = 0;

	if (!(*p >= '0' && *p <= '9')) {
		*ret_why = "the identity is not a number";
		return -EBADMSG;
	}
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10) {
			*ret_why = "the identity is out of range";
			return -EBADMSG;
		}
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (*p != ' ' || v == 0) {
		*ret_why = "expected 'group ID PATH'";
		return -EBADMSG;
	}
	p++;
	if (!cgfs_clean_path(p) || strcmp(p, "/") == 0) {
		*ret_why = "not a clean absolute cgroup path below the root";
		return -EBADMSG;
	}
	*ret_id = v;
	*ret_path = p;
	return 0;
}

struct parse_state {
	struct mc_created c;
	const char *why;
};

static int parse_line(void *arg, const char *line, unsigned lineno)
{
	struct parse_state *ps = arg;
	const char *path;
	uint64_t id;
	int r;

	if (lineno == 1) {
		ps->why = "not a memctl record of created groups";
		return strcmp(line, CREATED_MAGIC) == 0 ? 0 : -EBADMSG;
	}
	if (strncmp(line, "group ", 6) != 0) {
		ps->why = "expected 'group ID PATH'";
		return -EBADMSG;
	}
	if ((r = parse_group(line + 6, &id, &path, &ps->why)) < 0)
		return r;
	if (mc_created_find(&ps->c, path)) {
		ps->why = "the group is recorded twice";
		return -EBADMSG;
	}
	return mc_created_set(&ps->c, path, id);
}

int mc_created_parse(const char *buf, size_t len, struct mc_created *ret, unsigned *ret_line,
		     const char **ret_why)
{
	struct parse_state ps = { .why = NULL };
	bool bad_end;
	int r;

	r = host_each_line(buf, len, MC_JOURNAL_MAX, parse_line, &ps, ret_line, &bad_end);
	if (r < 0) {
		*ret_why = bad_end ? "the last line does not end" :
			   ps.why ? ps.why : len ? "the record is damaged" : "the record is empty";
		mc_created_free(&ps.c);
		return r;
	}
	*ret = ps.c;
	return 0;
}

int mc_created_format(const struct mc_created *c, char **ret, size_t *ret_len)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return -ENOMEM;
	fputs(CREATED_MAGIC "\n", f);
	for (size_t i = 0; i < c->n; i++)
		fprintf(f, "group %" PRIu64 " %s\n", c->v[i].id, c->v[i].path);
	return host_text_close(f, &buf, &len, ret, ret_len);
}

/*
 * Where path is in c->v, kept sorted by path (a record of thousands of
 * groups is searched once per group an apply makes): its index, or where
 * it would go, and *ret_found.
 */
static size_t locate(const struct mc_created *c, const char *path, bool *ret_found)
{
	size_t lo = 0, hi = c->n;

	*ret_found = false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int d = strcmp(c->v[mid].path, path);

		if (d == 0) {
			*ret_found = true;
			return mid;
		}
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct mc_created_group *mc_created_find(const struct mc_created *c, const char *path)
{
	bool found;
	size_t i = locate(c, path, &found);

	return found ? &c->v[i] : NULL;
}

int mc_created_set(struct mc_created *c, const char *path, uint64_t id)
{
	bool found;
	size_t at = locate(c, path, &found);
	char *copy;

	if (found) {
		c->v[at].id = id;
		return 0;
	}
	if (mc_array_reserve(&c->v, &c->cap, c->n + 1, sizeof(*c->v)) < 0)
		return -ENOMEM;
	if (!(copy = strdup(path)))
		return -ENOMEM;
	memmove(&c->v[at + 1], &c->v[at], (c->n - at) * sizeof(*c->v));
	c->v[at] = (struct mc_created_group){ .path = copy, .id = id };
	c->n++;
	return 0;
}

void mc_created_drop(struct mc_created *c, size_t i)
{
	free(c->v[i].path);
	memmove(&c->v[i], &c->v[i + 1], (c->n - i - 1) * sizeof(*c->v));
	c->n--;
}

void mc_created_free(struct mc_created *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].path);
	free(c->v);
	*c = (struct mc_created){ 0 };
}
