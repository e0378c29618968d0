/*
 * The store's writer (store.h): one per directory (flock on DIR/lock),
 * appending each sample as a record to the newest shard and an entry to its
 * index, beginning a shard per UTC day or when the current one is an eighth
 * of the store's size limit, and deleting whole shards by age and by size.
 *
 * A record is appended with one pwrite() at the end of the data file, then
 * its index entry with another. When either fails (a full disk), both
 * files are cut back to where they were, so no part of a record stays, and
 * the encoder starts again with a keyframe. Nothing is fsynced: the state
 * after a crash is some prefix of the records plus, at worst, a torn one,
 * which the next open (reader or writer) tells apart by its checksums.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include <zstd.h>

#include "state.h"
#include "store-internal.h"

struct shard_info {
	char name[ST_NAME_LEN + 1];
	uint64_t start_ns;
	uint64_t bytes;           /* data and index */
};

struct mc_store_writer {
	char *dir;
	int dirfd, lockfd;
	struct mc_store_opts o;
	struct st_enc enc;
	ZSTD_CCtx *cctx;
	unsigned char *buf;       /* header and compressed payload */
	size_t cap;
	struct shard_info *shards;   /* oldest first; the last is the current one when dfd >= 0 */
	size_t n_shards, cap_shards;
	int dfd, ifd;
	uint64_t dsize, isize;
	uint64_t last_ns;         /* of the last record */
	uint64_t total;           /* bytes of every shard */
};

#define NS 1000000000ull
#define DEFAULT_ROLL_BYTES (1ull << 30)

static int write_at(int fd, const void *p, size_t n, uint64_t off)
{
	size_t done = 0;

	while (done < n) {
		ssize_t k = pwrite(fd, (const char *)p + done, n - done, (off_t)(off + done));

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -ENOSPC;
		done += (size_t)k;
	}
	return 0;
}

static int file_name(char *buf, size_t len, const char *shard, const char *ext)
{
	return snprintf(buf, len, "%s%s", shard, ext) < (int)len ? 0 : -ENAMETOOLONG;
}

static void remove_shard(struct mc_store_writer *w, size_t i)
{
	char name[ST_NAME_LEN + 8];

	file_name(name, sizeof(name), w->shards[i].name, ST_DATA_EXT);
	unlinkat(w->dirfd, name, 0);
	file_name(name, sizeof(name), w->shards[i].name, ST_INDEX_EXT);
	unlinkat(w->dirfd, name, 0);
	w->total -= w->shards[i].bytes;
	memmove(w->shards + i, w->shards + i + 1, (w->n_shards - i - 1) * sizeof(*w->shards));
	w->n_shards--;
}

/*
 * Deletes the oldest shards (never the current one) whose newest record is
 * older than the retention (the next shard began before now - retain), and
 * while the store is larger than max_bytes.
 */
static void retention(struct mc_store_writer *w, uint64_t now_ns)
{
	uint64_t keep = w->o.retain_s ? w->o.retain_s * NS : 0;

	while (w->n_shards > 1) {
		bool old = keep && now_ns > keep && w->shards[1].start_ns < now_ns - keep;
		bool big = w->o.max_bytes && w->total > w->o.max_bytes;

		if (!old && !big)
			break;
		remove_shard(w, 0);
	}
}

static void close_current(struct mc_store_writer *w)
{
	if (w->dfd >= 0)
		close(w->dfd);
	if (w->ifd >= 0)
		close(w->ifd);
	w->dfd = w->ifd = -1;
}

/* Creates a shard for records from t_ns on. */
static int new_shard(struct mc_store_writer *w, uint64_t t_ns)
{
	char name[ST_NAME_LEN + 8];
	unsigned char h[ST_FILE_HDR];
	struct shard_info si = { .start_ns = t_ns / 1000000 * 1000000 };
	int r;

	close_current(w);
	/* a name taken (two shards in one millisecond): the next millisecond */
	for (;; si.start_ns += 1000000) {
		st_shard_name(si.start_ns, si.name);
		if (w->n_shards == 0 || strcmp(si.name, w->shards[w->n_shards - 1].name) > 0)
			break;
	}
	if ((r = mc_array_reserve(&w->shards, &w->cap_shards, w->n_shards + 1, sizeof(*w->shards))) < 0)
		return r;
	file_name(name, sizeof(name), si.name, ST_DATA_EXT);
	w->dfd = openat(w->dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	file_name(name, sizeof(name), si.name, ST_INDEX_EXT);
	if (w->dfd >= 0)
		w->ifd = openat(w->dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	r = w->dfd < 0 || w->ifd < 0 ? -errno : 0;
	st_file_header(h, ST_FILE_MAGIC_DATA, si.start_ns);
	if (r == 0)
		r = write_at(w->dfd, h, sizeof(h), 0);
	st_file_header(h, ST_FILE_MAGIC_INDEX, si.start_ns);
	if (r == 0)
		r = write_at(w->ifd, h, sizeof(h), 0);
	if (r < 0) {
		close_current(w);
		unlinkat(w->dirfd, name, 0);
		file_name(name, sizeof(name), si.name, ST_DATA_EXT);
		unlinkat(w->dirfd, name, 0);
		return r;
	}
	w->dsize = w->isize = ST_FILE_HDR;
	si.bytes = 2 * ST_FILE_HDR;
	w->shards[w->n_shards++] = si;
	w->total += si.bytes;
	st_enc_reset(&w->enc);
	retention(w, t_ns);
	return 0;
}

static bool same_day(uint64_t a_ns, uint64_t b_ns)
{
	return a_ns / (86400 * NS) == b_ns / (86400 * NS);
}

static uint64_t roll_bytes(const struct mc_store_writer *w)
{
	return w->o.max_bytes ? w->o.max_bytes / 8 : DEFAULT_ROLL_BYTES;
}

/* Compresses the encoder's payload and frames it in w->buf; its length. */
static int frame_record(struct mc_store_writer *w, uint64_t t_ns, bool key, size_t *ret_len)
{
	size_t bound = ZSTD_compressBound(w->enc.raw_len), n;
	uint32_t flags = (key ? ST_REC_KEYFRAME : 0) | ST_REC_ZSTD;

	if (w->enc.raw_len > ST_MAX_RAW || bound > ST_MAX_STORED)
		return -EFBIG;
	if (mc_array_reserve(&w->buf, &w->cap, ST_REC_HDR + bound, 1) < 0)
		return -ENOMEM;
	n = ZSTD_compressCCtx(w->cctx, w->buf + ST_REC_HDR, bound, w->enc.raw, w->enc.raw_len,
			      w->o.level ? w->o.level : MC_STORE_ZSTD_LEVEL);
	if (ZSTD_isError(n))
		return -EIO;
	st_rec_header_make(w->buf, t_ns, flags, (uint32_t)n, (uint32_t)w->enc.raw_len,
			   st_crc32c(0, w->buf + ST_REC_HDR, n));
	*ret_len = ST_REC_HDR + n;
	return 0;
}

int mc_store_append(struct mc_store_writer *w, const struct mc_hist_sample *s)
{
	uint64_t t_ns = st_u64_of(s->time, 1e9);
	unsigned char e[ST_IDX_ENTRY];
	struct st_rec rec;
	size_t len;
	bool key;
	int r;

	if (t_ns < w->last_ns)
		t_ns = w->last_ns;
	if (w->dfd < 0 || !same_day(t_ns, w->shards[w->n_shards - 1].start_ns) ||
	    w->dsize >= roll_bytes(w))
		if ((r = new_shard(w, t_ns)) < 0)
			return r;
	if ((r = st_enc_sample(&w->enc, s, &key)) < 0 || (r = frame_record(w, t_ns, key, &len)) < 0) {
		st_enc_reset(&w->enc);
		return r;
	}
	rec = (struct st_rec){ t_ns, w->dsize, (uint32_t)len, key ? ST_REC_KEYFRAME | ST_REC_ZSTD : ST_REC_ZSTD };
	st_index_entry(e, &rec);
	if ((r = write_at(w->dfd, w->buf, len, w->dsize)) == 0 &&
	    (r = write_at(w->ifd, e, sizeof(e), w->isize)) == 0) {
		st_enc_commit(&w->enc);
		w->dsize += len;
		w->isize += sizeof(e);
		w->total += len + sizeof(e);
		w->shards[w->n_shards - 1].bytes += len + sizeof(e);
		w->last_ns = t_ns;
		retention(w, t_ns);
		return 0;
	}
	/* nothing of the record stays */
	if (ftruncate(w->dfd, (off_t)w->dsize) < 0 || ftruncate(w->ifd, (off_t)w->isize) < 0)
		close_current(w);   /* cannot cut back: the next append begins a shard */
	st_enc_reset(&w->enc);
	return r;
}

uint64_t mc_store_writer_bytes(const struct mc_store_writer *w)
{
	return w->total;
}

static int lock_dir(struct mc_store_writer *w, char **why)
{
	int fd = mc_state_open_file(w->dirfd, w->dir, ST_LOCK, O_RDWR | O_CREAT, NULL, why);

	if (fd < 0)
		return fd;
	w->lockfd = fd;
	if (flock(w->lockfd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	if (errno != EWOULDBLOCK)
		return -errno;
	if (why) {
		free(*why);
		if (asprintf(why, "another recorder writes the store '%s'", w->dir) < 0)
			*why = NULL;
	}
	return -EBUSY;
}

/* Rewrites the index of sh from its records (which the load checked). */
static int write_index(struct mc_store_writer *w, const struct st_shard *sh)
{
	char name[ST_NAME_LEN + 8];
	unsigned char h[ST_FILE_HDR], e[ST_IDX_ENTRY];
	int fd, r;

	file_name(name, sizeof(name), sh->name, ST_INDEX_EXT);
	fd = openat(w->dirfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	st_file_header(h, ST_FILE_MAGIC_INDEX, sh->start_ns);
	r = ftruncate(fd, 0) < 0 ? -errno : write_at(fd, h, sizeof(h), 0);
	for (size_t i = 0; r == 0 && i < sh->n; i++) {
		st_index_entry(e, &sh->rec[i]);
		r = write_at(fd, e, sizeof(e), ST_FILE_HDR + i * ST_IDX_ENTRY);
	}
	if (r < 0) {
		close(fd);
		return r;
	}
	w->ifd = fd;
	w->isize = ST_FILE_HDR + sh->n * ST_IDX_ENTRY;
	return 0;
}

/*
 * Continues the newest shard: cuts a torn record off its data file and
 * indexes what the index lacks. A newest shard that cannot be read is left
 * as it is for the reader to report; the next append begins a new one.
 */
static int resume(struct mc_store_writer *w, struct st_shard *sh, char **why)
{
	uint64_t end;
	int r = st_shard_load(w->dirfd, w->dir, sh, true, why);

	if (r == -EBADMSG || (r == 0 && sh->n == 0))
		return 0;
	if (r < 0)
		return r;
	end = sh->n ? sh->rec[sh->n - 1].off + sh->rec[sh->n - 1].len : ST_FILE_HDR;
	if (end < sh->data_size && ftruncate(sh->fd, (off_t)end) < 0)
		return -errno;
	if ((r = write_index(w, sh)) < 0)
		return r;
	w->dfd = sh->fd;
	sh->fd = -1;
	w->dsize = end;
	w->last_ns = sh->rec[sh->n - 1].time_ns;
	return 0;
}

static int shard_bytes(struct mc_store_writer *w, const char *shard, uint64_t *ret)
{
	char name[ST_NAME_LEN + 8];
	struct stat st;

	*ret = 0;
	for (int k = 0; k < 2; k++) {
		file_name(name, sizeof(name), shard, k ? ST_INDEX_EXT : ST_DATA_EXT);
		if (fstatat(w->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			*ret += (uint64_t)st.st_size;
		else if (errno != ENOENT)
			return -errno;
	}
	return 0;
}

static int load_shards(struct mc_store_writer *w, char **why)
{
	struct st_shard *v = NULL;
	size_t n = 0;
	int r = st_list_shards(w->dirfd, w->dir, &v, &n, why);

	if (r < 0)
		return r;
	if (n && (r = mc_array_reserve(&w->shards, &w->cap_shards, n, sizeof(*w->shards))) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		struct shard_info *si = &w->shards[i];

		memcpy(si->name, v[i].name, ST_NAME_LEN + 1);
		si->start_ns = v[i].start_ns;
		if ((r = shard_bytes(w, si->name, &si->bytes)) < 0)
			goto out;
		w->total += si->bytes;
		w->n_shards++;
	}
	if (n)
		r = resume(w, &v[n - 1], why);
	if (r == 0 && w->dfd >= 0 && shard_bytes(w, w->shards[n - 1].name, &w->shards[n - 1].bytes) == 0) {
		w->total = 0;
		for (size_t i = 0; i < w->n_shards; i++)
			w->total += w->shards[i].bytes;
	}
out:
	st_shards_free(v, n);
	return r;
}

int mc_store_writer_open(const char *dir, const struct mc_store_opts *o,
			 struct mc_store_writer **ret, char **ret_why)
{
	struct mc_store_writer *w = calloc(1, sizeof(*w));
	int r;

	if (!w)
		return -ENOMEM;
	w->dirfd = w->lockfd = w->dfd = w->ifd = -1;
	if (o)
		w->o = *o;
	w->enc.key_every = w->o.keyframe_every;
	if (!(w->dir = strdup(dir)) || !(w->cctx = ZSTD_createCCtx())) {
		r = -ENOMEM;
		goto fail;
	}
	if ((r = mc_state_open_dir(dir, true, ret_why)) < 0)
		goto fail;
	w->dirfd = r;
	if ((r = lock_dir(w, ret_why)) < 0 || (r = load_shards(w, ret_why)) < 0)
		goto fail;
	st_enc_reset(&w->enc);
	*ret = w;
	return 0;
fail:
	mc_store_writer_close(w);
	return r;
}

void mc_store_writer_close(struct mc_store_writer *w)
{
	if (!w)
		return;
	close_current(w);
	if (w->lockfd >= 0)
		close(w->lockfd);
	if (w->dirfd >= 0)
		close(w->dirfd);
	st_enc_release(&w->enc);
	ZSTD_freeCCtx(w->cctx);
	free(w->buf);
	free(w->shards);
	free(w->dir);
	free(w);
}
