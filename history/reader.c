/*
 * The store's reader (store.h). Shards are listed when the store is opened
 * (and refreshed) and loaded when first needed: seeking a time loads only
 * the shard that holds it, by the times in the shard names. The position is
 * a record; the decoder holds the record it decoded last, so stepping
 * forward decodes one record, and anything else (a seek, a step back)
 * decodes from the keyframe at or before the record wanted (at most
 * keyframe_every records). A span that did not decode is remembered (its
 * keyframe and the record that failed) until the shards are listed again,
 * so that stepping back or seeking into it reports that record again
 * without decoding the span once more per step.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "state.h"
#include "store-internal.h"

struct mc_store_reader {
	char *dir;
	int dirfd;
	struct st_shard *sh;
	size_t n;
	struct st_io io;
	struct st_dec dec;
	bool have_pos;
	size_t pos_s, pos_i;      /* the position */
	bool dec_valid;
	size_t dec_s, dec_i;      /* what the decoder holds */
	bool broken;              /* the record at the position did not decode */
	bool bad_valid;           /* the span from record bad_k of shard bad_s does not */
	size_t bad_s, bad_k, bad_i;   /* decode past record bad_i (-EBADMSG, bad_why) */
	const char *bad_why;
	char *problem;
	size_t torn;
};

static void set_problem(struct mc_store_reader *r, const char *shard, uint64_t off, const char *why)
{
	free(r->problem);
	if (asprintf(&r->problem, "'%s/%s%s': record at %llu: %s", r->dir, shard, ST_DATA_EXT,
		     (unsigned long long)off, why) < 0)
		r->problem = NULL;
}

/* Loads shard s when it is not: -errno with the problem set. */
static int load(struct mc_store_reader *r, size_t s)
{
	char *why = NULL;
	int e;

	if (r->sh[s].loaded)
		return 0;
	e = st_shard_load(r->dirfd, r->dir, &r->sh[s], false, &why);
	if (e == 0) {
		r->torn += r->sh[s].torn;
		return 0;
	}
	free(r->problem);
	r->problem = why;
	if (!r->problem && asprintf(&r->problem, "'%s/%s%s': %s", r->dir, r->sh[s].name, ST_DATA_EXT,
				    strerror(-e)) < 0)
		r->problem = NULL;
	return e;
}

/* Decodes record i of shard s; *ret_why: the static text of an -EBADMSG. */
static int decode_one(struct mc_store_reader *r, size_t s, size_t i, const char **ret_why)
{
	struct st_shard *sh = &r->sh[s];
	const unsigned char *p;
	const char *why = NULL;
	size_t len;
	int e;

	r->dec_valid = false;
	e = st_shard_read(sh, i, &r->io, &p, &len, &why);
	if (e == 0)
		e = st_dec_record(&r->dec, p, len, sh->rec[i].flags & ST_REC_KEYFRAME);
	if (e == -EBADMSG) {
		*ret_why = why ? why : r->dec.why;
		set_problem(r, sh->name, sh->rec[i].off, *ret_why);
	} else if (e < 0)
		set_problem(r, sh->name, sh->rec[i].off, strerror(-e));
	if (e < 0)
		return e;
	r->dec_valid = true;
	r->dec_s = s;
	r->dec_i = i;
	return 0;
}

/* Makes the decoder hold record i of shard s (loaded), and the position that. */
static int decode_to(struct mc_store_reader *r, size_t s, size_t i)
{
	struct st_shard *sh = &r->sh[s];
	const char *why = NULL;
	size_t k, key = i;
	int e;

	r->have_pos = true;
	r->pos_s = s;
	r->pos_i = i;
	r->broken = false;
	if (r->dec_valid && r->dec_s == s && r->dec_i == i)
		return 0;
	while (key > 0 && !(sh->rec[key].flags & ST_REC_KEYFRAME))
		key--;
	if (r->bad_valid && r->bad_s == s && r->bad_k == key && r->bad_i <= i) {
		/* known not to decode up to record i: the same error, without decoding again */
		r->dec_valid = false;
		r->broken = true;
		set_problem(r, sh->name, sh->rec[r->bad_i].off, r->bad_why);
		return -EBADMSG;
	}
	if (!(sh->rec[i].flags & ST_REC_KEYFRAME) && r->dec_valid && r->dec_s == s && r->dec_i + 1 == i)
		k = i;
	else
		k = key;
	for (; k <= i; k++)
		if ((e = decode_one(r, s, k, &why)) < 0) {
			r->broken = true;
			if (e == -EBADMSG) {
				r->bad_valid = true;
				r->bad_s = s;
				r->bad_k = key;
				r->bad_i = k;
				r->bad_why = why;
			}
			return e;
		}
	return 0;
}

static int fill(struct mc_store_reader *r, struct mc_hist_sample *ret)
{
	const struct st_shard *sh = &r->sh[r->dec_s];

	return st_dec_sample(&r->dec, sh->rec[r->dec_i].time_ns, ret);
}

/* The first shard from s on (dir 1) or back (dir -1) that has records; -ENODATA; -errno. */
static int find_shard(struct mc_store_reader *r, long s, int dir, size_t *ret)
{
	for (; s >= 0 && (size_t)s < r->n; s += dir) {
		int e = load(r, (size_t)s);

		if (e < 0) {
			/* a shard that cannot be read: report it, the position moves past it */
			r->have_pos = true;
			r->pos_s = (size_t)s;
			r->pos_i = dir > 0 ? 0 : 0;
			r->broken = true;
			r->dec_valid = false;
			return e;
		}
		if (r->sh[s].n) {
			*ret = (size_t)s;
			return 0;
		}
	}
	return -ENODATA;
}

int mc_store_seek(struct mc_store_reader *r, double t, struct mc_hist_sample *ret)
{
	uint64_t t_ns = st_u64_of(t, 1e9);
	size_t lo = 0, hi = r->n, s, i;
	const struct st_shard *sh;
	int e;

	if (isnan(t))
		return -EINVAL;

	while (lo < hi) {   /* the last shard named at or before t */
		size_t mid = (lo + hi) / 2;

		if (r->sh[mid].start_ns <= t_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	e = find_shard(r, lo ? (long)lo - 1 : 0, lo ? -1 : 1, &s);
	if (e == -ENODATA && lo)
		e = find_shard(r, (long)lo, 1, &s);
	if (e < 0)
		return e;
	sh = &r->sh[s];
	lo = 0;
	hi = sh->n;
	while (lo < hi) {   /* the last record at or before t */
		size_t mid = (lo + hi) / 2;

		if (sh->rec[mid].time_ns <= t_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	i = lo ? lo - 1 : 0;
	if ((e = decode_to(r, s, i)) < 0)
		return e;
	return fill(r, ret);
}

/* The first keyframe after the position (past a record that did not decode). */
static int next_keyframe(struct mc_store_reader *r, size_t *ret_s, size_t *ret_i)
{
	size_t s = r->pos_s, i = r->pos_i + 1;
	int e;

	for (;;) {
		if (r->sh[s].loaded)
			for (; i < r->sh[s].n; i++)
				if (r->sh[s].rec[i].flags & ST_REC_KEYFRAME) {
					*ret_s = s;
					*ret_i = i;
					return 0;
				}
		if ((e = find_shard(r, (long)s + 1, 1, &s)) < 0)
			return e;
		i = 0;
	}
}

int mc_store_next(struct mc_store_reader *r, struct mc_hist_sample *ret)
{
	size_t s, i;
	int e;

	free(r->problem);
	r->problem = NULL;
	if (!r->have_pos) {
		if ((e = find_shard(r, 0, 1, &s)) < 0)
			return e;
		i = 0;
	} else if (r->broken) {
		if ((e = next_keyframe(r, &s, &i)) < 0)
			return e;
	} else if (r->pos_i + 1 < r->sh[r->pos_s].n) {
		s = r->pos_s;
		i = r->pos_i + 1;
	} else {
		if ((e = find_shard(r, (long)r->pos_s + 1, 1, &s)) < 0)
			return e;
		i = 0;
	}
	if ((e = decode_to(r, s, i)) < 0)
		return e;
	return fill(r, ret);
}

int mc_store_prev(struct mc_store_reader *r, struct mc_hist_sample *ret)
{
	size_t s, i;
	int e;

	free(r->problem);
	r->problem = NULL;
	if (!r->have_pos)
		return -ENODATA;
	if (r->sh[r->pos_s].loaded && r->pos_i > 0 && r->pos_i <= r->sh[r->pos_s].n) {
		s = r->pos_s;
		i = r->pos_i - 1;
	} else {
		if (r->pos_s == 0 || (e = find_shard(r, (long)r->pos_s - 1, -1, &s)) < 0)
			return r->pos_s == 0 ? -ENODATA : e;
		i = r->sh[s].n - 1;
	}
	if ((e = decode_to(r, s, i)) < 0)
		return e;
	return fill(r, ret);
}

int mc_store_range(struct mc_store_reader *r, double *ret_first, double *ret_last)
{
	size_t a, b;
	int e;

	if ((e = find_shard(r, 0, 1, &a)) < 0 || (e = find_shard(r, (long)r->n - 1, -1, &b)) < 0)
		return e;
	*ret_first = (double)r->sh[a].rec[0].time_ns / 1e9;
	*ret_last = (double)r->sh[b].rec[r->sh[b].n - 1].time_ns / 1e9;
	return 0;
}

static long find_name(const struct st_shard *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].name && strcmp(v[i].name, name) == 0)
			return (long)i;
	return -1;
}

int mc_store_refresh(struct mc_store_reader *r)
{
	struct st_shard *v = NULL;
	size_t n = 0, reload[2], n_reload = 0;
	char *why = NULL;
	long ps = -1, ds = -1;
	int e = st_list_shards(r->dirfd, r->dir, &v, &n, &why);

	if (e < 0) {
		free(r->problem);
		r->problem = why;
		return e;
	}
	for (size_t i = 0; i < n; i++) {
		long o = find_name(r->sh, r->n, v[i].name);

		if (o < 0)
			continue;
		if (r->have_pos && (size_t)o == r->pos_s)
			ps = (long)i;
		if (r->dec_valid && (size_t)o == r->dec_s)
			ds = (long)i;
		free(v[i].name);
		v[i] = r->sh[o];
		r->sh[o] = (struct st_shard){ .name = NULL, .fd = -1 };
		if (v[i].loaded && ((size_t)o + 1 == r->n || i + 1 == n)) {
			/* the newest shard may have grown: its records again (a prefix is kept) */
			v[i].loaded = false;
			r->torn -= v[i].torn;
			reload[n_reload++] = i;
		}
	}
	st_shards_free(r->sh, r->n);
	r->sh = v;
	r->n = n;
	r->bad_valid = false;   /* shards are loaded anew: their spans decode again */
	r->have_pos = ps >= 0 && r->have_pos;
	r->pos_s = ps >= 0 ? (size_t)ps : 0;
	r->dec_valid = ds >= 0 && r->dec_valid;
	r->dec_s = ds >= 0 ? (size_t)ds : 0;
	for (size_t i = 0; i < n_reload; i++)
		if ((e = load(r, reload[i])) < 0)
			return e;
	if (r->have_pos && r->pos_i >= r->sh[r->pos_s].n)
		r->have_pos = r->dec_valid = false;
	return 0;
}

int mc_store_open(const char *dir, struct mc_store_reader **ret, char **ret_why)
{
	struct mc_store_reader *r = calloc(1, sizeof(*r));
	int e;

	if (!r)
		return -ENOMEM;
	r->dirfd = -1;
	if (!(r->dir = strdup(dir))) {
		e = -ENOMEM;
		goto fail;
	}
	if ((e = mc_state_open_dir(dir, false, ret_why)) < 0)
		goto fail;
	r->dirfd = e;
	if ((e = st_list_shards(r->dirfd, dir, &r->sh, &r->n, ret_why)) < 0)
		goto fail;
	*ret = r;
	return 0;
fail:
	mc_store_close(r);
	return e;
}

void mc_store_close(struct mc_store_reader *r)
{
	if (!r)
		return;
	st_shards_free(r->sh, r->n);
	st_io_release(&r->io);
	st_dec_release(&r->dec);
	if (r->dirfd >= 0)
		close(r->dirfd);
	free(r->problem);
	free(r->dir);
	free(r);
}

const char *mc_store_problem(const struct mc_store_reader *r)
{
	return r->problem;
}

size_t mc_store_torn(const struct mc_store_reader *r)
{
	return r->torn;
}
