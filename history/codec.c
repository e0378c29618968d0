/*
 * The codec between samples and record payloads (docs/STORE.md, "Records").
 *
 * A sample becomes a frame of vectors: entry 0 the host, then one per group,
 * each a list of (name id, value) pairs, names interned in a string table
 * that a keyframe starts afresh and later records extend. A delta record
 * writes, per entry, nothing but a mode byte when its names and values are
 * those of the same group in the record before (steady state: most of them),
 * the differences when only values changed, and the whole vector when the
 * names changed or the group is new. zstd then squeezes what is left.
 *
 * The decoder trusts nothing: every count is bounded by the bytes left,
 * every id by the table, every delta record by the record before it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store-internal.h"

/* --- bytes --- */

/*
 * CRC-32C. Every record is checksummed when written and again on each
 * read, and a byte at a time through one table was most of a read's time:
 * on x86-64 with SSE4.2 (every x86-64 CPU since 2008) the crc32
 * instruction takes eight bytes at a time; elsewhere, the table.
 */
static uint32_t crc_table[256];
static bool crc_ready;
static bool crc_hw;

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t crc_sse42(uint32_t crc, const unsigned char *b, size_t n)
{
	uint64_t c = crc;

	for (; n >= 8; n -= 8, b += 8)
		c = __builtin_ia32_crc32di(c, st_get_u64(b));
	crc = (uint32_t)c;
	for (; n > 0; n--, b++)
		crc = __builtin_ia32_crc32qi(crc, *b);
	return crc;
}
#endif

uint32_t st_crc32c(uint32_t crc, const void *p, size_t n)
{
	const unsigned char *b = p;

	if (!crc_ready) {
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;

			for (int k = 0; k < 8; k++)
				c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
			crc_table[i] = c;
		}
#if defined(__x86_64__)
		crc_hw = __builtin_cpu_supports("sse4.2");
#endif
		crc_ready = true;
	}
	crc = ~crc;
#if defined(__x86_64__)
	if (crc_hw)
		return ~crc_sse42(crc, b, n);
#endif
	while (n--)
		crc = crc_table[(crc ^ *b++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

void st_put_u32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

void st_put_u64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

uint32_t st_get_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint64_t st_get_u64(const unsigned char *p)
{
	return (uint64_t)st_get_u32(p) | (uint64_t)st_get_u32(p + 4) << 32;
}

uint64_t st_in_varint(struct st_in *in)
{
	uint64_t v = 0;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		unsigned char c;

		if (in->p >= in->end) {
			in->bad = true;
			return 0;
		}
		c = *in->p++;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
	}
	in->bad = true;   /* more than ten bytes */
	return 0;
}

const unsigned char *st_in_bytes(struct st_in *in, size_t n)
{
	const unsigned char *p = in->p;

	if ((size_t)(in->end - in->p) < n) {
		in->bad = true;
		in->p = in->end;
		return NULL;
	}
	in->p += n;
	return p;
}

static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* --- output buffer --- */

struct st_out {
	unsigned char *p;
	size_t len, cap;
	bool oom;
};

/* Room for n more bytes (at least 4 KiB: a sample's payload is rarely less); oom when none. */
static void out_room(struct st_out *o, size_t n)
{
	if (o->oom || o->len + n <= o->cap)
		return;
	if (n > SIZE_MAX - o->len ||
	    mc_array_reserve(&o->p, &o->cap, o->len + n < 4096 ? 4096 : o->len + n, 1) < 0)
		o->oom = true;
}

static void out_varint(struct st_out *o, uint64_t v)
{
	out_room(o, 10);
	if (o->oom)
		return;
	while (v >= 0x80) {
		o->p[o->len++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	o->p[o->len++] = (unsigned char)v;
}

static void out_bytes(struct st_out *o, const void *s, size_t n)
{
	out_room(o, n);
	if (o->oom)
		return;
	memcpy(o->p + o->len, s, n);
	o->len += n;
}

static void out_str(struct st_out *o, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	out_varint(o, n);
	out_bytes(o, s, n);
}

/* --- string table --- */

static uint32_t name_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;

	while (n--)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static void tab_clear(struct st_strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->s[i]);
	t->n = 0;
	if (t->hash)
		memset(t->hash, 0, t->hcap * sizeof(*t->hash));
}

static void tab_release(struct st_strtab *t)
{
	tab_clear(t);
	free(t->s);
	free(t->len);
	free(t->hash);
	memset(t, 0, sizeof(*t));
}

/* Appends name s[0..n) (class byte first). Its id, or -ENOMEM. */
static int64_t tab_push(struct st_strtab *t, const char *s, size_t n)
{
	size_t cap = t->cap;
	char *c;

	if (t->n == t->cap) {
		cap = cap ? cap * 2 : 256;
		if (mc_array_reserve(&t->s, &t->cap, cap, sizeof(*t->s)) < 0)
			return -ENOMEM;
		t->cap = 0;
		if (mc_array_reserve(&t->len, &t->cap, cap, sizeof(*t->len)) < 0)
			return -ENOMEM;
	}
	c = malloc(n + 1);
	if (!c)
		return -ENOMEM;
	memcpy(c, s, n);
	c[n] = '\0';
	t->s[t->n] = c;
	t->len[t->n] = (uint32_t)n;
	return (int64_t)t->n++;
}

static int tab_rehash(struct st_strtab *t, size_t hcap)
{
	uint32_t *h = calloc(hcap, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		size_t j = name_hash(t->s[i], t->len[i]) & (hcap - 1);

		while (h[j])
			j = (j + 1) & (hcap - 1);
		h[j] = (uint32_t)i + 1;
	}
	free(t->hash);
	t->hash = h;
	t->hcap = hcap;
	return 0;
}

/* The id of name s[0..n), added when new. Or -ENOMEM. */
static int64_t tab_intern(struct st_strtab *t, const char *s, size_t n)
{
	size_t j;
	int64_t id;

	if ((t->n + 1) * 2 > t->hcap && tab_rehash(t, t->hcap ? t->hcap * 2 : 1024) < 0)
		return -ENOMEM;
	j = name_hash(s, n) & (t->hcap - 1);
	while (t->hash[j]) {
		uint32_t i = t->hash[j] - 1;

		if (t->len[i] == n && memcmp(t->s[i], s, n) == 0)
			return i;
		j = (j + 1) & (t->hcap - 1);
	}
	id = tab_push(t, s, n);
	if (id >= 0)
		t->hash[j] = (uint32_t)id + 1;
	return id;
}

/* --- frames --- */

static void frame_clear(struct st_frame *f)
{
	f->n = f->len = 0;
}

static void frame_release(struct st_frame *f)
{
	free(f->gid);
	free(f->off);
	free(f->cnt);
	free(f->keys);
	free(f->vals);
	memset(f, 0, sizeof(*f));
}

static int frame_entry(struct st_frame *f, uint32_t gid)
{
	size_t c = f->cap_e;

	if (f->n == f->cap_e) {
		c = c ? 2 * c : 64;
		if (mc_array_reserve(&f->gid, &f->cap_e, c, sizeof(*f->gid)) < 0)
			return -ENOMEM;
		f->cap_e = 0;
		if (mc_array_reserve(&f->off, &f->cap_e, c, sizeof(*f->off)) < 0)
			return -ENOMEM;
		f->cap_e = 0;
		if (mc_array_reserve(&f->cnt, &f->cap_e, c, sizeof(*f->cnt)) < 0)
			return -ENOMEM;
	}
	f->gid[f->n] = gid;
	f->off[f->n] = f->len;
	f->cnt[f->n] = 0;
	f->n++;
	return 0;
}

static int frame_room(struct st_frame *f, size_t n)
{
	size_t c = f->cap_kv;

	if (f->len + n <= f->cap_kv)
		return 0;
	c = c ? c : 4096;
	while (c < f->len + n)
		c *= 2;
	if (mc_array_reserve(&f->keys, &f->cap_kv, c, sizeof(*f->keys)) < 0)
		return -ENOMEM;
	f->cap_kv = 0;
	return mc_array_reserve(&f->vals, &f->cap_kv, c, sizeof(*f->vals));
}

/* Adds (key, val) to the last entry. */
static int frame_kv(struct st_frame *f, uint32_t key, uint64_t val)
{
	if (frame_room(f, 1) < 0)
		return -ENOMEM;
	f->keys[f->len] = key;
	f->vals[f->len] = val;
	f->len++;
	f->cnt[f->n - 1]++;
	return 0;
}

static int set_ix(int32_t **ix, size_t *cap, const struct st_frame *f, size_t n_names)
{
	if (*cap < n_names) {
		size_t old = *cap;

		if (mc_array_reserve(ix, cap, n_names, sizeof(**ix)) < 0)
			return -ENOMEM;
		memset(*ix + old, 0xff, (*cap - old) * sizeof(**ix));
	}
	for (size_t i = 1; i < f->n; i++)
		if (f->gid[i] < *cap)
			(*ix)[f->gid[i]] = (int32_t)i;
	return 0;
}

static void unset_ix(int32_t *ix, size_t cap, const struct st_frame *f)
{
	for (size_t i = 1; i < f->n; i++)
		if (f->gid[i] < cap)
			ix[f->gid[i]] = -1;
}

/* --- encoder --- */

static const char *const psi_fields[8] = {
	"some_avg10", "some_avg60", "some_avg300", "some_total",
	"full_avg10", "full_avg60", "full_avg300", "full_total",
};

static uint64_t hundredths(double v)
{
	return v <= 0 ? 0 : (uint64_t)(v * 100 + 0.5);
}

static void psi_values(const struct mc_psi *p, uint64_t v[8])
{
	v[0] = hundredths(p->some_avg10);
	v[1] = hundredths(p->some_avg60);
	v[2] = hundredths(p->some_avg300);
	v[3] = p->some_total;
	v[4] = hundredths(p->full_avg10);
	v[5] = hundredths(p->full_avg60);
	v[6] = hundredths(p->full_avg300);
	v[7] = p->full_total;
}

/* Interns class cls with suffix: prefix (a node number, or none with -1) then s[0..n). */
static int64_t enc_name(struct st_enc *e, int cls, long node, const char *s, size_t n)
{
	char buf[ST_MAX_STRING];
	size_t len = 1;

	buf[0] = (char)cls;
	if (node >= 0)
		len += (size_t)snprintf(buf + 1, 24, "%ld:", node);
	if (n > sizeof(buf) - len)
		return -ENAMETOOLONG;
	memcpy(buf + len, s, n);
	return tab_intern(&e->tab, buf, len + n);
}

/*
 * The names of a sample repeat from group to group and from sample to
 * sample, and their keys are mostly the very same strings: the host
 * layer's key map gives one constant per key, knobs and pressure fields
 * are constants too. Building and hashing each name again was most of an
 * append's CPU (1000 groups, some 27 000 names a sample), so the encoder
 * remembers the id of each (class, node, key address) it interned, until
 * the table starts afresh at a keyframe. A hit is checked against the name
 * in the table (the key's text, not only its address), once a sample (a
 * sample's strings do not change while it is encoded), so a key whose
 * memory now holds another string is interned again, never recorded under
 * the wrong name. Only constant and borrowed keys are remembered: a copied
 * key has a new address every sample and would only push the others out.
 */
#define MEMO_SLOTS 4096u

struct st_key_memo {
	const char *key;
	uint64_t cls_node;
	uint32_t gen, id;
	uint32_t off;             /* where the key begins in the table's name */
	uint32_t checked;         /* the sample (memo_sample) in which the text was compared */
};

static int64_t enc_name_memo(struct st_enc *e, int cls, long node, const char *s)
{
	uint64_t cn = (uint64_t)cls << 32 | (uint32_t)(node + 1);
	uint64_t h = ((uint64_t)(uintptr_t)s * 0x9e3779b97f4a7c15ull) ^ (cn * 0xff51afd7ed558ccdull);
	struct st_key_memo *m;
	int64_t id;

	if (!e->memo) {
		if (!(e->memo = calloc(MEMO_SLOTS, sizeof(*e->memo))))
			return enc_name(e, cls, node, s, strlen(s));
		e->memo_gen = 1;
	}
	m = &e->memo[(h >> 40) & (MEMO_SLOTS - 1)];
	if (m->gen == e->memo_gen && m->key == s && m->cls_node == cn) {
		if (m->checked == e->memo_sample)
			return m->id;
		if (strcmp(e->tab.s[m->id] + m->off, s) == 0) {
			m->checked = e->memo_sample;
			return m->id;
		}
	}
	id = enc_name(e, cls, node, s, strlen(s));
	if (id >= 0)
		*m = (struct st_key_memo){ s, cn, e->memo_gen, (uint32_t)id,
					   e->tab.len[id] - (uint32_t)strlen(s), e->memo_sample };
	return id;
}

/* Forgets what enc_name_memo remembered (the table starts afresh). */
static void memo_forget(struct st_enc *e)
{
	if (++e->memo_gen == 0) {
		if (e->memo)
			memset(e->memo, 0, MEMO_SLOTS * sizeof(*e->memo));
		e->memo_gen = 1;
	}
}

/* (key, v) into the entry; s is a constant (a literal, a table's name), or NULL. */
static int enc_kv(struct st_enc *e, int cls, long node, const char *s, uint64_t v)
{
	int64_t id = s ? enc_name_memo(e, cls, node, s) : enc_name(e, cls, node, "", 0);

	return id < 0 ? (int)id : frame_kv(&e->cur, (uint32_t)id, v);
}

static int enc_kvs(struct st_enc *e, int cls, long node, const struct mc_kvs *kv)
{
	for (size_t i = 0; i < kv->n; i++) {
		const struct mc_kv *p = &kv->v[i];
		int64_t id = !p->key ? enc_name(e, cls, node, "", 0) :
			     p->borrowed ? enc_name_memo(e, cls, node, p->key) :
			     enc_name(e, cls, node, p->key, strlen(p->key));
		int r;

		if (id < 0)
			return (int)id;
		if ((r = frame_kv(&e->cur, (uint32_t)id, p->val)) < 0)
			return r;
	}
	return 0;
}

static int enc_psi(struct st_enc *e, int cls, const struct mc_psi *p)
{
	uint64_t v[8];
	int r = 0;

	if (!p->valid)
		return 0;
	psi_values(p, v);
	for (int i = 0; r == 0 && i < 8; i++)
		r = enc_kv(e, cls, -1, psi_fields[i], v[i]);
	return r;
}

/*
 * The id of the path of the sample's group i. A tree's groups come in the
 * same order sample after sample, so the path at the same place in the
 * record before is tried first (the table still holds it: only a keyframe
 * clears it).
 */
static int64_t enc_path(struct st_enc *e, size_t i, const char *path)
{
	if (e->have_prev && i + 1 < e->prev.n) {
		const char *t = e->tab.s[e->prev.gid[i + 1]];

		if (t[0] == STC_PATH && strcmp(t + 1, path) == 0)
			return e->prev.gid[i + 1];
	}
	return enc_name(e, STC_PATH, -1, path, strlen(path));
}

static int enc_group(struct st_enc *e, size_t at, const struct mc_hist_group *hg)
{
	const struct mc_group_snap *g = &hg->g;
	int64_t gid = enc_path(e, at, g->path ? g->path : "");
	int r;

	if (gid < 0 || (r = frame_entry(&e->cur, (uint32_t)gid)) < 0)
		return gid < 0 ? (int)gid : r;
	if (g->usage_valid && (r = enc_kv(e, STC_USAGE, -1, "", g->usage)) < 0)
		return r;
	for (int k = 0; k < MC_KNOB__COUNT; k++)
		if (g->raw_valid[k] && (r = enc_kv(e, STC_KNOB, -1, mc_knob_info(k)->name, g->raw[k])) < 0)
			return r;
	if ((r = enc_kvs(e, STC_STAT, -1, &g->stat)) < 0 || (r = enc_kvs(e, STC_EVENT, -1, &g->events)) < 0)
		return r;
	for (size_t i = 0; i < g->n_numa; i++)
		if ((r = enc_kvs(e, STC_NUMA, (long)i, &g->numa[i])) < 0)
			return r;
	if ((r = enc_psi(e, STC_PSI, &g->psi)) < 0)
		return r;
	if (hg->tasks_valid && (r = enc_kv(e, STC_TASKS, -1, "", hg->tasks)) < 0)
		return r;
	if (g->bad && (r = enc_kv(e, STC_BAD, -1, "", g->bad)) < 0)
		return r;
	if (g->no_memory_children && (r = enc_kv(e, STC_NOMEMCHILD, -1, "", 1)) < 0)
		return r;
	return 0;
}

static int enc_frame(struct st_enc *e, const struct mc_hist_sample *s)
{
	int64_t pid;
	int r;

	frame_clear(&e->cur);
	pid = enc_name(e, STC_PATH, -1, s->parent ? s->parent : "/", s->parent ? strlen(s->parent) : 1);
	if (pid < 0)
		return (int)pid;
	e->cur.parent = (uint32_t)pid;
	e->cur.version = (uint32_t)s->cgroup_version;
	if ((r = frame_entry(&e->cur, 0)) < 0 || (r = enc_kvs(e, STC_MEMINFO, -1, &s->host.meminfo)) < 0 ||
	    (r = enc_kvs(e, STC_VMSTAT, -1, &s->host.vmstat)) < 0 ||
	    (r = enc_psi(e, STC_HPSI, &s->host.psi)) < 0 ||
	    (s->parent_limit_valid && (r = enc_kv(e, STC_LIMIT, -1, "", s->parent_limit)) < 0))
		return r;
	for (size_t i = 0; i < s->n_groups; i++)
		if ((r = enc_group(e, i, &s->groups[i])) < 0)
			return r;
	return 0;
}

/* One entry's vector against its base (the same group in the record before, or none). */
static void enc_vector(struct st_enc *e, struct st_out *o, size_t i)
{
	const struct st_frame *c = &e->cur, *p = &e->prev;
	const uint32_t *k = c->keys + c->off[i];
	const uint64_t *v = c->vals + c->off[i];
	uint32_t n = c->cnt[i];
	long b = -1;

	if (e->have_prev)
		b = i == 0 ? 0 : c->gid[i] < e->cap_ix ? e->prev_ix[c->gid[i]] : -1;
	if (b >= 0 && p->cnt[b] == n && memcmp(p->keys + p->off[b], k, n * sizeof(*k)) == 0) {
		const uint64_t *pv = p->vals + p->off[b];

		if (memcmp(pv, v, n * sizeof(*v)) == 0) {
			out_varint(o, 0);
			return;
		}
		out_varint(o, 1);
		for (uint32_t j = 0; j < n; j++)
			out_varint(o, zigzag((int64_t)(v[j] - pv[j])));
		return;
	}
	out_varint(o, 2);
	out_varint(o, n);
	for (uint32_t j = 0; j < n; j++)
		out_varint(o, k[j]);
	for (uint32_t j = 0; j < n; j++)
		out_varint(o, v[j]);
}

static void enc_run(struct st_out *o, const struct mc_runstate *s)
{
	out_varint(o, (uint64_t)s->pid);
	out_varint(o, st_u64_of(s->started, 1e6));
	out_str(o, s->profile);
	out_str(o, s->parent);
	out_varint(o, s->period_ms);
	out_varint(o, s->dry_run);
	out_varint(o, s->interval);
	out_varint(o, st_u64_of(s->time, 1e6));
	out_varint(o, st_u64_of(s->duration, 1e6));
	out_varint(o, zigzag(s->exit_code));
	out_varint(o, s->reclaimed_bytes);
	out_varint(o, s->reclaim_requests);
	out_varint(o, s->reclaim_failures);
	out_varint(o, s->intervals_failed);
	out_varint(o, s->hist_count);
	out_varint(o, st_u64_of(s->hist_sum, 1e6));
	out_varint(o, MC_RUN_HIST_N);
	for (int i = 0; i < MC_RUN_HIST_N; i++)
		out_varint(o, s->hist[i]);
	out_varint(o, s->n_groups);
	for (size_t i = 0; i < s->n_groups; i++) {
		const struct mc_run_group *g = &s->groups[i];

		out_str(o, g->group);
		out_varint(o, (uint64_t)g->ws_valid | (uint64_t)g->cap_valid << 1);
		out_varint(o, g->ws);
		out_varint(o, g->cap);
	}
	out_varint(o, s->n_dec);
	for (size_t i = 0; i < s->n_dec; i++) {
		const struct mc_run_decision *d = &s->dec[i];

		out_varint(o, d->kind);
		out_str(o, d->group);
		out_str(o, d->policy);
		out_str(o, d->knob);
		out_varint(o, d->old_valid);
		out_varint(o, d->old);
		out_varint(o, d->value);
		out_varint(o, d->got);
		out_varint(o, zigzag(d->err));
		out_str(o, d->reason);
	}
	out_varint(o, s->n_notes);
	for (size_t i = 0; i < s->n_notes; i++)
		out_str(o, s->notes[i]);
	out_varint(o, s->n_errors);
	for (size_t i = 0; i < s->n_errors; i++)
		out_str(o, s->errors[i]);
}

/* The body: parent, groups, vectors, run. */
static void enc_body(struct st_enc *e, struct st_out *o, const struct mc_hist_sample *s)
{
	const struct st_frame *c = &e->cur, *p = &e->prev;
	bool same = e->have_prev && p->n == c->n &&
		    memcmp(p->gid + 1, c->gid + 1, (c->n - 1) * sizeof(*c->gid)) == 0;

	out_varint(o, c->parent);
	out_varint(o, c->version);
	out_varint(o, c->n - 1);
	out_varint(o, same);
	if (!same)
		for (size_t i = 1; i < c->n; i++)
			out_varint(o, c->gid[i]);
	for (size_t i = 0; i < c->n; i++)
		enc_vector(e, o, i);
	out_varint(o, s->have_run);
	if (s->have_run)
		enc_run(o, &s->run);
}

void st_enc_reset(struct st_enc *e)
{
	e->force_key = true;
}

int st_enc_sample(struct st_enc *e, const struct mc_hist_sample *s, bool *ret_key)
{
	struct st_out body = { 0 }, o = { .p = e->raw, .cap = e->raw_cap };
	bool key = e->force_key || !e->have_prev || e->since_key + 1 >= (e->key_every ? e->key_every :
									    MC_STORE_KEYFRAME_EVERY);
	int r;

	e->memo_sample++;   /* the keys' texts are compared again, once */
	if (key) {
		if (e->have_prev)
			unset_ix(e->prev_ix, e->cap_ix, &e->prev);
		tab_clear(&e->tab);
		memo_forget(e);
		e->emitted = 0;
		e->have_prev = false;
	}
	if ((r = enc_frame(e, s)) < 0)
		return r;
	enc_body(e, &body, s);
	out_varint(&o, e->tab.n - e->emitted);
	for (size_t i = e->emitted; i < e->tab.n; i++) {
		out_varint(&o, e->tab.len[i]);
		out_bytes(&o, e->tab.s[i], e->tab.len[i]);
	}
	out_bytes(&o, body.p, body.len);
	free(body.p);
	e->raw = o.p;
	e->raw_cap = o.cap;
	e->raw_len = o.len;
	if (o.oom || body.oom)
		return -ENOMEM;
	*ret_key = key;
	return 0;
}

void st_enc_commit(struct st_enc *e)
{
	struct st_frame t;
	bool key = !e->have_prev;

	if (e->have_prev)
		unset_ix(e->prev_ix, e->cap_ix, &e->prev);
	t = e->prev;
	e->prev = e->cur;
	e->cur = t;
	e->emitted = e->tab.n;
	/* without room for the index, the next record is a keyframe */
	e->have_prev = set_ix(&e->prev_ix, &e->cap_ix, &e->prev, e->tab.n) == 0;
	e->since_key = key ? 0 : e->since_key + 1;
	e->force_key = false;
}

void st_enc_release(struct st_enc *e)
{
	tab_release(&e->tab);
	frame_release(&e->cur);
	frame_release(&e->prev);
	free(e->prev_ix);
	free(e->raw);
	free(e->memo);
	memset(e, 0, sizeof(*e));
}

/* --- the reader's interned keys --- */

struct st_pool {
	char **s;
	size_t n, cap;
};

static void pool_free(struct st_pool *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->cap; i++)
		free(p->s[i]);
	free(p->s);
	free(p);
}

/* s[0..n) kept for the pool's lifetime (one copy per distinct key), or NULL. */
static const char *pool_get(struct st_pool *p, const char *s, size_t n)
{
	size_t j;

	if ((p->n + 1) * 2 > p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 512;
		char **v = calloc(cap, sizeof(*v));

		if (!v)
			return NULL;
		for (size_t i = 0; i < p->cap; i++) {
			if (!p->s[i])
				continue;
			j = name_hash(p->s[i], strlen(p->s[i])) & (cap - 1);
			while (v[j])
				j = (j + 1) & (cap - 1);
			v[j] = p->s[i];
		}
		free(p->s);
		p->s = v;
		p->cap = cap;
	}
	j = name_hash(s, n) & (p->cap - 1);
	while (p->s[j]) {
		if (strncmp(p->s[j], s, n) == 0 && p->s[j][n] == '\0')
			return p->s[j];
		j = (j + 1) & (p->cap - 1);
	}
	p->s[j] = strndup(s, n);
	if (p->s[j])
		p->n++;
	return p->s[j];
}

/* --- decoder --- */

#define BAD(d, msg) ((d)->why = (msg), -EBADMSG)

/* Classifies name i of the table (just added). */
static int dec_name(struct st_dec *d, size_t i)
{
	const char *s = d->tab.s[i];
	size_t n = d->tab.len[i];
	struct st_name *nm;
	enum mc_knob k;

	if (mc_array_reserve(&d->names, &d->cap_names, i + 1, sizeof(*d->names)) < 0)
		return -ENOMEM;
	nm = &d->names[i];
	*nm = (struct st_name){ .cls = (unsigned char)s[0] < STC__COUNT ? (unsigned char)s[0] : 0 };
	if (memchr(s + 1, '\0', n - 1))
		return BAD(d, "a name holds a NUL byte");
	switch (nm->cls) {
	case STC_PATH:
		nm->key = s + 1;
		break;
	case STC_KNOB:
		nm->aux = mc_knob_lookup(s + 1, &k) == 0 ? (int)k : -1;
		break;
	case STC_NUMA: {
		char *end;
		unsigned long node = strtoul(s + 1, &end, 10);

		if (end == s + 1 || *end != ':' || node >= ST_MAX_NODES)
			return BAD(d, "a NUMA name without its node");
		nm->aux = (int)node;
		nm->key = pool_get(d->pool, end + 1, strlen(end + 1));
		if (!nm->key)
			return -ENOMEM;
		break;
	}
	case STC_PSI:
	case STC_HPSI:
		nm->aux = -1;
		for (int f = 0; f < 8; f++)
			if (strcmp(s + 1, psi_fields[f]) == 0)
				nm->aux = f;
		break;
	case STC_STAT:
	case STC_EVENT:
	case STC_MEMINFO:
	case STC_VMSTAT:
		nm->key = pool_get(d->pool, s + 1, n - 1);
		if (!nm->key)
			return -ENOMEM;
		break;
	default:
		break;
	}
	return 0;
}

static int dec_strings(struct st_dec *d, struct st_in *in)
{
	uint64_t n = st_in_varint(in);
	int r;

	if (n > (uint64_t)(in->end - in->p) || d->tab.n + n > ST_MAX_STRINGS)
		return BAD(d, "too many names");
	for (uint64_t i = 0; i < n; i++) {
		uint64_t len = st_in_varint(in);
		const unsigned char *b;
		int64_t id;

		if (len == 0 || len > ST_MAX_STRING)
			return BAD(d, "a name of a bad length");
		if (!(b = st_in_bytes(in, (size_t)len)))
			return BAD(d, "the record ends in a name");
		if ((id = tab_push(&d->tab, (const char *)b, (size_t)len)) < 0)
			return (int)id;
		if ((r = dec_name(d, (size_t)id)) < 0)
			return r;
	}
	return 0;
}

/* Reads a name id that must be of class cls (0: any). */
static int dec_id(struct st_dec *d, struct st_in *in, int cls, uint32_t *ret)
{
	uint64_t id = st_in_varint(in);

	if (in->bad)
		return BAD(d, "the record ends early");
	if (id >= d->tab.n)
		return BAD(d, "a name id past the table");
	if (cls && d->names[id].cls != cls)
		return BAD(d, "a name of the wrong kind");
	*ret = (uint32_t)id;
	return 0;
}

static int dec_groups(struct st_dec *d, struct st_in *in)
{
	uint64_t n = st_in_varint(in), same = st_in_varint(in);
	int r;

	if (in->bad || n > ST_MAX_GROUPS || n > (uint64_t)(in->end - in->p))
		return BAD(d, "a bad number of groups");
	if (frame_entry(&d->cur, 0) < 0)
		return -ENOMEM;
	if (same && (!d->have || d->prev.n != n + 1))
		return BAD(d, "the same groups as a record that has other groups");
	for (uint64_t i = 0; i < n; i++) {
		uint32_t gid;

		if (same)
			gid = d->prev.gid[i + 1];
		else if ((r = dec_id(d, in, STC_PATH, &gid)) < 0)
			return r;
		if (frame_entry(&d->cur, gid) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int dec_vector(struct st_dec *d, struct st_in *in, size_t i)
{
	struct st_frame *c = &d->cur, *p = &d->prev;
	uint64_t mode = st_in_varint(in), n;
	long b = -1;
	int r;

	c->off[i] = c->len;   /* entries were made before their vectors */
	if (mode == 2) {
		n = st_in_varint(in);
		if (in->bad || n > ST_MAX_KEYS || n > (uint64_t)(in->end - in->p))
			return BAD(d, "a bad number of values");
		if (frame_room(c, (size_t)n) < 0)
			return -ENOMEM;
		for (uint64_t j = 0; j < n; j++)
			if ((r = dec_id(d, in, 0, &c->keys[c->len + j])) < 0)
				return r;
		for (uint64_t j = 0; j < n; j++)
			c->vals[c->len + j] = st_in_varint(in);
		c->len += n;
		c->cnt[i] = (uint32_t)n;
		return in->bad ? BAD(d, "the record ends early") : 0;
	}
	if (mode > 2 || in->bad)
		return BAD(d, "a bad vector mode");
	if (d->have)
		b = i == 0 ? 0 : c->gid[i] < d->cap_ix ? d->prev_ix[c->gid[i]] : -1;
	if (b < 0)
		return BAD(d, "a change to a group the record before does not have");
	n = p->cnt[b];
	if (frame_room(c, (size_t)n) < 0)
		return -ENOMEM;
	memcpy(c->keys + c->len, p->keys + p->off[b], n * sizeof(*c->keys));
	memcpy(c->vals + c->len, p->vals + p->off[b], n * sizeof(*c->vals));
	if (mode == 1)
		for (uint64_t j = 0; j < n; j++)
			c->vals[c->len + j] += (uint64_t)unzigzag(st_in_varint(in));
	c->len += n;
	c->cnt[i] = (uint32_t)n;
	return in->bad ? BAD(d, "the record ends early") : 0;
}

/* A string of the run section (NUL-free, at most 64 KiB) into *ret (allocated). */
static int dec_str(struct st_dec *d, struct st_in *in, char **ret)
{
	uint64_t n = st_in_varint(in);
	const unsigned char *b;

	if (in->bad || n > 65536 || !(b = st_in_bytes(in, (size_t)n)))
		return BAD(d, "a bad text in the run section");
	if (memchr(b, '\0', (size_t)n))
		return BAD(d, "a text holds a NUL byte");
	*ret = strndup((const char *)b, (size_t)n);
	return *ret ? 0 : -ENOMEM;
}

static int dec_count(struct st_dec *d, struct st_in *in, uint64_t *ret)
{
	*ret = st_in_varint(in);
	if (in->bad || *ret > ST_MAX_RUN_ITEMS || *ret > (uint64_t)(in->end - in->p))
		return BAD(d, "a bad count in the run section");
	return 0;
}

static int dec_run_groups(struct st_dec *d, struct st_in *in)
{
	uint64_t n;
	int r;

	if ((r = dec_count(d, in, &n)) < 0)
		return r;
	for (uint64_t i = 0; i < n; i++) {
		char *g = NULL;
		uint64_t f, ws, cap;

		if ((r = dec_str(d, in, &g)) < 0)
			return r;
		f = st_in_varint(in);
		ws = st_in_varint(in);
		cap = st_in_varint(in);
		r = mc_runstate_add_group(&d->run, g, f & 1, ws, f & 2, cap);
		free(g);
		if (r < 0)
			return r;
	}
	return 0;
}

static int dec_decision(struct st_dec *d, struct st_in *in)
{
	struct mc_run_decision x = { 0 };
	uint64_t kind = st_in_varint(in);
	int64_t err;
	int r;

	if (kind > MC_RUN_RECLAIM)
		return BAD(d, "a decision of an unknown kind");
	x.kind = (enum mc_run_kind)kind;
	if ((r = dec_str(d, in, &x.group)) == 0 && (r = dec_str(d, in, &x.policy)) == 0 &&
	    (r = dec_str(d, in, &x.knob)) == 0) {
		x.old_valid = st_in_varint(in) != 0;
		x.old = st_in_varint(in);
		x.value = st_in_varint(in);
		x.got = st_in_varint(in);
		err = unzigzag(st_in_varint(in));
		x.err = err < -4095 || err > 0 ? -EIO : (int)err;
		if ((r = dec_str(d, in, &x.reason)) == 0)
			r = mc_runstate_add_decision(&d->run, &x);
	}
	free(x.group);
	free(x.policy);
	free(x.knob);
	free(x.reason);
	return r;
}

static int dec_lines(struct st_dec *d, struct st_in *in, bool notes)
{
	uint64_t n;
	int r;

	if ((r = dec_count(d, in, &n)) < 0)
		return r;
	for (uint64_t i = 0; i < n; i++) {
		char *s = NULL;

		if ((r = dec_str(d, in, &s)) < 0)
			return r;
		r = notes ? mc_runstate_add_note(&d->run, s) : mc_runstate_add_error(&d->run, s);
		free(s);
		if (r < 0)
			return r;
	}
	return 0;
}

static int dec_run(struct st_dec *d, struct st_in *in)
{
	struct mc_runstate *s = &d->run;
	uint64_t n;
	int r;

	s->pid = (long)(st_in_varint(in) & 0x7fffffff);
	s->started = (double)st_in_varint(in) / 1e6;
	if ((r = dec_str(d, in, &s->profile)) < 0 || (r = dec_str(d, in, &s->parent)) < 0)
		return r;
	s->period_ms = st_in_varint(in);
	s->dry_run = st_in_varint(in) != 0;
	s->interval = (unsigned long)st_in_varint(in);
	s->time = (double)st_in_varint(in) / 1e6;
	s->duration = (double)st_in_varint(in) / 1e6;
	s->exit_code = (int)(unzigzag(st_in_varint(in)) & 0xff);
	s->reclaimed_bytes = st_in_varint(in);
	s->reclaim_requests = st_in_varint(in);
	s->reclaim_failures = st_in_varint(in);
	s->intervals_failed = st_in_varint(in);
	s->hist_count = st_in_varint(in);
	s->hist_sum = (double)st_in_varint(in) / 1e6;
	n = st_in_varint(in);
	if (n != MC_RUN_HIST_N)
		return BAD(d, "a histogram of another size");
	for (int i = 0; i < MC_RUN_HIST_N; i++)
		s->hist[i] = st_in_varint(in);
	if ((r = dec_run_groups(d, in)) < 0 || (r = dec_count(d, in, &n)) < 0)
		return r;
	for (uint64_t i = 0; i < n; i++)
		if ((r = dec_decision(d, in)) < 0)
			return r;
	if ((r = dec_lines(d, in, true)) < 0 || (r = dec_lines(d, in, false)) < 0)
		return r;
	return in->bad ? BAD(d, "the run section ends early") : 0;
}

/* Starts decoding a record: the decoded one becomes the base. */
static int dec_begin(struct st_dec *d, bool keyframe)
{
	struct st_frame t;

	if (!d->pool && !(d->pool = calloc(1, sizeof(*d->pool))))
		return -ENOMEM;
	if (d->have)
		unset_ix(d->prev_ix, d->cap_ix, &d->prev);
	if (keyframe) {
		tab_clear(&d->tab);
		d->have = false;
	} else if (!d->have) {
		return BAD(d, "a delta record without the record before it");
	}
	t = d->prev;
	d->prev = d->cur;
	d->cur = t;
	frame_clear(&d->cur);
	if (d->have && set_ix(&d->prev_ix, &d->cap_ix, &d->prev, d->tab.n) < 0)
		return -ENOMEM;
	mc_runstate_release(&d->run);
	d->have_run = false;
	return 0;
}

int st_dec_record(struct st_dec *d, const unsigned char *raw, size_t len, bool keyframe)
{
	struct st_in in = { raw, raw + len, false };
	uint64_t run;
	int r;

	d->why = NULL;
	if ((r = dec_begin(d, keyframe)) < 0)
		goto fail;
	if ((r = dec_strings(d, &in)) < 0 || (r = dec_id(d, &in, STC_PATH, &d->cur.parent)) < 0)
		goto fail;
	d->cur.version = (uint32_t)st_in_varint(&in);
	if (d->cur.version != 1 && d->cur.version != 2) {
		r = BAD(d, "a cgroup version other than 1 or 2");
		goto fail;
	}
	if (d->have && set_ix(&d->prev_ix, &d->cap_ix, &d->prev, d->tab.n) < 0) {
		r = -ENOMEM;
		goto fail;
	}
	if ((r = dec_groups(d, &in)) < 0)
		goto fail;
	for (size_t i = 0; i < d->cur.n; i++)
		if ((r = dec_vector(d, &in, i)) < 0)
			goto fail;
	run = st_in_varint(&in);
	if (run > 1 || in.bad) {
		r = BAD(d, "a bad run flag");
		goto fail;
	}
	if (run && (r = dec_run(d, &in)) < 0)
		goto fail;
	if (in.p != in.end) {
		r = BAD(d, "bytes after the end of the record");
		goto fail;
	}
	d->have_run = run;
	d->have = true;
	return 0;
fail:
	/* the state is gone: the next record must be a keyframe */
	if (d->have)
		unset_ix(d->prev_ix, d->cap_ix, &d->prev);
	d->have = false;
	return r;
}

static void psi_set(struct mc_psi *p, int f, uint64_t v)
{
	double a = (double)v / 100;

	p->valid = true;
	switch (f) {
	case 0: p->some_avg10 = a; break;
	case 1: p->some_avg60 = a; break;
	case 2: p->some_avg300 = a; break;
	case 3: p->some_total = v; break;
	case 4: p->full_avg10 = a; break;
	case 5: p->full_avg60 = a; break;
	case 6: p->full_avg300 = a; break;
	case 7: p->full_total = v; break;
	default: break;
	}
}

static int numa_add(struct mc_group_snap *g, int node, const char *key, uint64_t v)
{
	if ((size_t)node >= g->n_numa) {
		struct mc_kvs *n = realloc(g->numa, ((size_t)node + 1) * sizeof(*n));

		if (!n)
			return -ENOMEM;
		memset(n + g->n_numa, 0, ((size_t)node + 1 - g->n_numa) * sizeof(*n));
		g->numa = n;
		g->n_numa = (size_t)node + 1;
	}
	return mc_kvs_add_borrowed(&g->numa[node], key, v);
}

/* One value of a group into g (and the task count); names of other classes are skipped. */
static int group_value(struct mc_hist_group *hg, const struct st_name *nm, uint64_t v)
{
	struct mc_group_snap *g = &hg->g;

	switch (nm->cls) {
	case STC_USAGE: g->usage = v; g->usage_valid = true; return 0;
	case STC_KNOB:
		if (nm->aux >= 0) {
			g->raw[nm->aux] = v;
			g->raw_valid[nm->aux] = true;
		}
		return 0;
	case STC_STAT: return mc_kvs_add_borrowed(&g->stat, nm->key, v);
	case STC_EVENT: return mc_kvs_add_borrowed(&g->events, nm->key, v);
	case STC_NUMA: return numa_add(g, nm->aux, nm->key, v);
	case STC_PSI: psi_set(&g->psi, nm->aux, v); return 0;
	case STC_TASKS: hg->tasks = v; hg->tasks_valid = true; return 0;
	case STC_BAD: g->bad = (uint32_t)v; return 0;
	case STC_NOMEMCHILD: g->no_memory_children = v != 0; return 0;
	default: return 0;
	}
}

static int host_values(struct st_dec *d, struct mc_hist_sample *s)
{
	const struct st_frame *f = &d->cur;
	struct mc_hist_host *h = &s->host;
	int r = 0;

	for (size_t j = f->off[0]; r == 0 && j < f->off[0] + f->cnt[0]; j++) {
		const struct st_name *nm = &d->names[f->keys[j]];

		if (nm->cls == STC_MEMINFO)
			r = mc_kvs_add_borrowed(&h->meminfo, nm->key, f->vals[j]);
		else if (nm->cls == STC_VMSTAT)
			r = mc_kvs_add_borrowed(&h->vmstat, nm->key, f->vals[j]);
		else if (nm->cls == STC_HPSI)
			psi_set(&h->psi, nm->aux, f->vals[j]);
		else if (nm->cls == STC_LIMIT) {
			s->parent_limit = f->vals[j];
			s->parent_limit_valid = true;
		}
	}
	return r;
}

int st_dec_sample(struct st_dec *d, uint64_t time_ns, struct mc_hist_sample *ret)
{
	const struct st_frame *f = &d->cur;
	int r;

	mc_hist_sample_release(ret);
	ret->time = (double)time_ns / 1e9;
	ret->cgroup_version = (int)f->version;
	ret->parent = strdup(d->names[f->parent].key);
	if (!ret->parent || mc_array_reserve(&ret->groups, &ret->cap_groups, f->n, sizeof(*ret->groups)) < 0)
		return -ENOMEM;
	if ((r = host_values(d, ret)) < 0)
		return r;
	for (size_t i = 1; i < f->n; i++) {
		struct mc_hist_group *hg = &ret->groups[ret->n_groups];

		memset(hg, 0, sizeof(*hg));
		hg->g.present = true;
		hg->g.path = strdup(d->names[f->gid[i]].key);
		if (!hg->g.path)
			return -ENOMEM;
		ret->n_groups++;
		for (size_t j = f->off[i]; j < f->off[i] + f->cnt[i]; j++)
			if ((r = group_value(hg, &d->names[f->keys[j]], f->vals[j])) < 0)
				return r;
	}
	ret->have_run = d->have_run;
	return d->have_run ? st_run_copy(&ret->run, &d->run) : 0;
}

void st_dec_release(struct st_dec *d)
{
	tab_release(&d->tab);
	frame_release(&d->cur);
	frame_release(&d->prev);
	free(d->prev_ix);
	free(d->names);
	mc_runstate_release(&d->run);
	pool_free(d->pool);
	memset(d, 0, sizeof(*d));
}
