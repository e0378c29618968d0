#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "size.h"
#include "snapshot.h"

/*
 * The snapshot model and the parsers of the kernel's memory cgroup files.
 *
 * Everything here is pure: the host layer reads the bytes, these functions
 * only turn bytes into numbers. Buffers are taken as (pointer, length) and
 * need not be NUL-terminated, because the host layer preads straight into a
 * reusable buffer.
 *
 * The parsers are strict about what they understand (a malformed number is
 * -EINVAL, never a silent zero) and lenient about what they do not (PSI
 * lines of an unknown kind are skipped), so that a newer kernel adding lines
 * does not break memctl while a corrupted file is still noticed.
 */

/* Node numbers above this are not a real machine: refuse to allocate for them. */
#define NUMA_NODE_LIMIT 4096


const struct mc_group_snap *mc_snapshot_find(const struct mc_snapshot *s, const char *path)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->groups[i].path, path) == 0)
			return &s->groups[i];
	return NULL;
}

int mc_kvs_reserve(struct mc_kvs *kv, size_t n)
{
	return mc_array_reserve(&kv->v, &kv->cap, n, sizeof(*kv->v));
}

static int kvs_room(struct mc_kvs *kv)
{
	return mc_kvs_reserve(kv, kv->n + 1);
}

int mc_kvs_add(struct mc_kvs *kv, const char *key, size_t keylen, uint64_t val)
{
	char *k;

	if (kvs_room(kv) < 0)
		return -ENOMEM;
	k = strndup(key, keylen);
	if (!k)
		return -ENOMEM;
	kv->v[kv->n++] = (struct mc_kv){ .key = k, .val = val };
	return 0;
}

int mc_kvs_add_borrowed(struct mc_kvs *kv, const char *key, uint64_t val)
{
	if (kvs_room(kv) < 0)
		return -ENOMEM;
	kv->v[kv->n++] = (struct mc_kv){ .key = (char *)key, .val = val, .borrowed = true };
	return 0;
}

/* Appends key[0..kl) as map names it (or copied, without a map); skipped: 0. */
static int kvs_add_mapped(struct mc_kvs *kv, const struct mc_key_map *map, const char *key,
			  size_t kl, uint64_t val)
{
	bool copy = !map;
	const char *to = map ? map->name(map->arg, key, kl, &copy) : NULL;

	if (copy)
		return mc_kvs_add(kv, key, kl, val);
	return to ? mc_kvs_add_borrowed(kv, to, val) : 0;
}

int mc_kvs_get(const struct mc_kvs *kv, const char *key, uint64_t *ret)
{
	/* the first byte first: most keys differ there, and a call to strcmp costs more */
	for (size_t i = 0; i < kv->n; i++) {
		if (kv->v[i].key[0] == key[0] && strcmp(kv->v[i].key, key) == 0) {
			*ret = kv->v[i].val;
			return 0;
		}
	}
	return -ENOENT;
}

/* Drops entries appended after the first n: undoes a failed parse. */
static void kvs_truncate(struct mc_kvs *kv, size_t n)
{
	while (kv->n > n) {
		kv->n--;
		if (!kv->v[kv->n].borrowed)
			free(kv->v[kv->n].key);
	}
}

void mc_kvs_free(struct mc_kvs *kv)
{
	kvs_truncate(kv, 0);
	free(kv->v);
	kv->v = NULL;
	kv->n = kv->cap = 0;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * Parses the unsigned decimal in s[0..len) (all of it). Returns 0, or
 * -EINVAL when it is empty, has other characters, or does not fit 64 bits.
 */
static int parse_u64(const char *s, size_t len, uint64_t *ret)
{
	uint64_t v = 0;

	if (len == 0)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		if (v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return -EINVAL;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*ret = v;
	return 0;
}

/*
 * A counter value in memory.stat / memory.events. Some kernels let per-cpu
 * drift show through as a small negative number in v1 memory.stat; that is
 * "nothing", so it reads as 0 rather than failing the whole snapshot.
 */
static int parse_counter(const char *s, size_t len, uint64_t *ret)
{
	uint64_t v;
	int r;

	if (len > 0 && s[0] == '-') {
		r = parse_u64(s + 1, len - 1, &v);
		if (r < 0)
			return r;
		*ret = 0;
		return 0;
	}
	return parse_u64(s, len, ret);
}

/* The line starting at *pos (without its '\n'); advances *pos past it. */
static void next_line(const char *buf, size_t len, size_t *pos,
		      const char **ret_line, size_t *ret_len)
{
	const char *start = buf + *pos;
	const char *nl = memchr(start, '\n', len - *pos);
	size_t n = nl ? (size_t)(nl - start) : len - *pos;

	*ret_line = start;
	*ret_len = n;
	*pos += n + (nl ? 1 : 0);
}

/* The next blank-separated token of line[*pos..len); false at the end. */
static bool next_token(const char *line, size_t len, size_t *pos,
		       const char **ret_tok, size_t *ret_len)
{
	size_t i = *pos, start;

	while (i < len && is_blank(line[i]))
		i++;
	if (i == len) {
		*pos = i;
		return false;
	}
	start = i;
	while (i < len && !is_blank(line[i]))
		i++;
	*ret_tok = line + start;
	*ret_len = i - start;
	*pos = i;
	return true;
}

int mc_parse_flat_keyed(const char *buf, size_t len, struct mc_kvs *ret)
{
	return mc_parse_flat_keyed_map(buf, len, NULL, ret);
}

/*
 * The line at *pos the way the kernel writes it: a key of no blanks, one
 * space, a decimal, '\n' or the end. One pass over the bytes, without the
 * tokenizer (memory.stat is parsed for every row of top's screen at every
 * refresh). Returns 1 and advances *pos past the line; 0 when the line is
 * anything else (a blank, a tab, a sign, more fields), for the general
 * path, which finds the same tokens.
 */
static int flat_line_fast(const char *buf, size_t len, size_t *pos, const char **ret_key,
			  size_t *ret_kl, uint64_t *ret)
{
	const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
	size_t i = *pos, k = i, d;
	uint64_t v = 0;

	/* the key eight bytes at a time while none of them is a space, a tab or a newline */
	while (k + 8 <= len) {
		uint64_t w, s, t, n;

		memcpy(&w, buf + k, 8);
		s = w ^ (ones * ' ');
		t = w ^ (ones * '\t');
		n = w ^ (ones * '\n');
		if (((s - ones) & ~s & highs) | ((t - ones) & ~t & highs) | ((n - ones) & ~n & highs))
			break;
		k += 8;
	}
	while (k < len && buf[k] != ' ' && buf[k] != '\t' && buf[k] != '\n')
		k++;
	if (k == i || k + 1 >= len || buf[k] != ' ' || buf[k + 1] == '\n')
		return 0;
	/* 19 digits cannot overflow 64 bits; past that, each digit is checked */
	for (d = k + 1; d < len && buf[d] != '\n'; d++) {
		unsigned c = (unsigned char)buf[d] - '0';

		if (c > 9 || (d - k > 19 && v > (UINT64_MAX - c) / 10))
			return 0;
		v = v * 10 + c;
	}
	*ret_key = buf + i;
	*ret_kl = k - i;
	*ret = v;
	*pos = d < len ? d + 1 : d;   /* past the newline, when there is one */
	return 1;
}

int mc_parse_flat_keyed_map(const char *buf, size_t len, const struct mc_key_map *map,
			    struct mc_kvs *ret)
{
	size_t pos = 0, n0 = ret->n;
	int r = 0;

	while (pos < len) {
		const char *line, *key, *val, *extra;
		size_t ll, kl, vl, el, lp = 0;
		uint64_t v;

		if (!flat_line_fast(buf, len, &pos, &key, &kl, &v)) {
			next_line(buf, len, &pos, &line, &ll);
			if (!next_token(line, ll, &lp, &key, &kl))
				continue;  /* blank line */
			if (!next_token(line, ll, &lp, &val, &vl) ||
			    next_token(line, ll, &lp, &extra, &el)) {
				r = -EINVAL;
				break;
			}
			r = parse_counter(val, vl, &v);
			if (r < 0)
				break;
		}
		r = kvs_add_mapped(ret, map, key, kl, v);
		if (r < 0)
			break;
	}
	if (r < 0)
		kvs_truncate(ret, n0);
	return r;
}

/*
 * A PSI average, "12.34": parsed by hand because strtod follows the locale's
 * decimal separator and the kernel's does not.
 */
static int parse_decimal(const char *s, size_t len, double *ret)
{
	const char *dot = memchr(s, '.', len);
	size_t il = dot ? (size_t)(dot - s) : len;
	uint64_t ip, fp = 0;
	double scale = 1.0;
	int r;

	r = parse_u64(s, il, &ip);
	if (r < 0)
		return r;
	if (dot) {
		size_t fl = len - il - 1;

		if (fl == 0 || fl > 9)
			return -EINVAL;
		r = parse_u64(dot + 1, fl, &fp);
		if (r < 0)
			return r;
		for (size_t i = 0; i < fl; i++)
			scale *= 10.0;
	}
	*ret = (double)ip + (double)fp / scale;
	return 0;
}

/* One "some ..." or "full ..." line's fields; all four must be there. */
static int parse_psi_line(const char *line, size_t ll, size_t lp, double *ret_avg,
			  uint64_t *ret_total)
{
	static const char *const names[] = { "avg10", "avg60", "avg300", "total" };
	bool seen[4] = { false, false, false, false };
	const char *tok;
	size_t tl;

	while (next_token(line, ll, &lp, &tok, &tl)) {
		const char *eq = memchr(tok, '=', tl);
		size_t kl;
		int r = 0;

		if (!eq)
			return -EINVAL;
		kl = (size_t)(eq - tok);
		/* A field not in names[] is a newer kernel's: it is skipped. */
		for (int i = 0; i < 4; i++) {
			if (strlen(names[i]) != kl || memcmp(tok, names[i], kl) != 0)
				continue;
			if (i == 3)
				r = parse_u64(eq + 1, tl - kl - 1, ret_total);
			else
				r = parse_decimal(eq + 1, tl - kl - 1, &ret_avg[i]);
			seen[i] = true;
		}
		if (r < 0)
			return r;
	}
	return seen[0] && seen[1] && seen[2] && seen[3] ? 0 : -EINVAL;
}

int mc_parse_psi(const char *buf, size_t len, struct mc_psi *ret)
{
	struct mc_psi p = { 0 };
	bool some = false;
	size_t pos = 0;

	while (pos < len) {
		const char *line, *kind;
		size_t ll, kl, lp = 0;
		double avg[3];
		uint64_t total;
		int r;

		next_line(buf, len, &pos, &line, &ll);
		if (!next_token(line, ll, &lp, &kind, &kl) || kl != 4 ||
		    (memcmp(kind, "some", 4) != 0 && memcmp(kind, "full", 4) != 0))
			continue;
		if ((r = parse_psi_line(line, ll, lp, avg, &total)) < 0)
			return r;
		if (memcmp(kind, "some", 4) == 0) {
			p.some_avg10 = avg[0];
			p.some_avg60 = avg[1];
			p.some_avg300 = avg[2];
			p.some_total = total;
			some = true;
		} else {
			p.full_avg10 = avg[0];
			p.full_avg60 = avg[1];
			p.full_avg300 = avg[2];
			p.full_total = total;
		}
	}
	/* "full" is absent from some files (cpu.pressure of old kernels); "some" never. */
	if (!some)
		return -EINVAL;
	p.valid = true;
	*ret = p;
	return 0;
}

static void numa_free(struct mc_kvs *nodes, size_t n)
{
	for (size_t i = 0; i < n; i++)
		mc_kvs_free(&nodes[i]);
	free(nodes);
}

/* The nodes of one numa_stat being parsed: n in use (the highest index + 1), cap allocated. */
struct numa_nodes {
	struct mc_kvs *v;
	size_t n, cap;
};

/* Makes room for node index idx, zeroing new entries (nodes may be sparse). */
static int numa_grow(struct numa_nodes *nn, size_t idx)
{
	if (idx < nn->n)
		return 0;
	if (mc_array_reserve(&nn->v, &nn->cap, idx + 1, sizeof(*nn->v)) < 0)
		return -ENOMEM;
	memset(nn->v + nn->n, 0, (idx + 1 - nn->n) * sizeof(*nn->v));
	nn->n = idx + 1;
	return 0;
}

/* One numa_stat line: "field N0=v N1=v" (v2) or "field=total N0=v ..." (v1). */
static int parse_numa_line(const char *line, size_t ll, uint64_t mult,
			   const struct mc_key_map *map, struct numa_nodes *nn)
{
	const char *tok, *key, *eq, *name;
	size_t tl, kl, lp = 0;
	bool copy;

	if (!next_token(line, ll, &lp, &tok, &tl))
		return 0;
	/* v1's first token carries the line's total, which is the sum of the nodes. */
	eq = memchr(tok, '=', tl);
	key = tok;
	kl = eq ? (size_t)(eq - tok) : tl;
	if (kl == 0)
		return -EINVAL;
	copy = !map;
	name = map ? map->name(map->arg, key, kl, &copy) : NULL;

	while (next_token(line, ll, &lp, &tok, &tl)) {
		uint64_t idx, v;
		size_t il;
		int r;

		eq = memchr(tok, '=', tl);
		if (tok[0] != 'N' || !eq)
			return -EINVAL;
		il = (size_t)(eq - tok) - 1;
		r = parse_u64(tok + 1, il, &idx);
		if (r < 0)
			return r;
		if (idx >= NUMA_NODE_LIMIT)
			return -EINVAL;
		r = parse_u64(eq + 1, tl - il - 2, &v);
		if (r < 0)
			return r;
		if (__builtin_mul_overflow(v, mult, &v))
			return -EINVAL;
		if (!name && !copy)
			continue;   /* checked, left out */
		r = numa_grow(nn, (size_t)idx);
		if (r < 0)
			return r;
		r = copy ? mc_kvs_add(&nn->v[idx], key, kl, v)
			 : mc_kvs_add_borrowed(&nn->v[idx], name, v);
		if (r < 0)
			return r;
	}
	return 0;
}

int mc_parse_numa_stat(const char *buf, size_t len, uint64_t page_size, bool v1,
		       struct mc_kvs **ret, size_t *ret_n)
{
	return mc_parse_numa_stat_map(buf, len, page_size, v1, NULL, ret, ret_n);
}

int mc_parse_numa_stat_map(const char *buf, size_t len, uint64_t page_size, bool v1,
			   const struct mc_key_map *map, struct mc_kvs **ret, size_t *ret_n)
{
	struct numa_nodes nn = { 0 };
	uint64_t mult = v1 ? page_size : 1;
	size_t pos = 0;

	if (v1 && page_size == 0)
		return -EINVAL;
	while (pos < len) {
		const char *line;
		size_t ll;
		int r;

		next_line(buf, len, &pos, &line, &ll);
		r = parse_numa_line(line, ll, mult, map, &nn);
		if (r < 0) {
			numa_free(nn.v, nn.n);
			return r;
		}
	}
	*ret = nn.v;
	*ret_n = nn.n;
	return 0;
}

/*
 * Besides "max" and decimals this also takes "-1": that is what a v1 tree
 * written by memctl holds when it is a plain directory (the fake hierarchy
 * of the tests), since "-1" is how v1 is told "no limit".
 */
int mc_parse_knob_value(const char *buf, size_t len, uint64_t *ret)
{
	uint64_t v;
	int r;

	while (len > 0 && (is_blank(buf[0]) || buf[0] == '\n')) {
		buf++;
		len--;
	}
	while (len > 0 && (is_blank(buf[len - 1]) || buf[len - 1] == '\n'))
		len--;
	if ((len == 3 && memcmp(buf, "max", 3) == 0) ||
	    (len == 2 && memcmp(buf, "-1", 2) == 0)) {
		*ret = MC_SIZE_MAX;
		return 0;
	}
	r = parse_u64(buf, len, &v);
	if (r < 0)
		return r;
	*ret = v >= MC_SIZE_KERNEL_UNLIMITED ? MC_SIZE_MAX : v;
	return 0;
}

void mc_group_snap_free(struct mc_group_snap *g)
{
	free(g->path);
	g->path = NULL;
	mc_kvs_free(&g->stat);
	mc_kvs_free(&g->events);
	numa_free(g->numa, g->n_numa);
	g->numa = NULL;
	g->n_numa = 0;
}

void mc_snapshot_free(struct mc_snapshot *s)
{
	for (size_t i = 0; i < s->n; i++)
		mc_group_snap_free(&s->groups[i]);
	free(s->groups);
	for (size_t i = 0; i < s->n_notes; i++)
		free(s->notes[i]);
	free(s->notes);
	free(s->parent);
	memset(s, 0, sizeof(*s));
}
