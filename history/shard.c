/*
 * Shard files (docs/STORE.md, "Files"): the trust checks of the store
 * directory and its files, listing the shards, loading a shard's index
 * (and finding the records its index lacks), reading one record.
 *
 * A shard's data file is the truth; its index is a cache of it. Index
 * entries are taken while they are whole, contiguous and in time order;
 * past the last one the data file is scanned record by record (header and
 * payload checksums), which is how the records of a writer killed before
 * it indexed them are found, and how a torn last record is told from a
 * whole one.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "state.h"
#include "store-internal.h"

void st_shard_name(uint64_t time_ns, char buf[static ST_NAME_LEN + 1])
{
	time_t t = (time_t)(time_ns / 1000000000u);
	struct tm tm;

	char tmp[64];

	gmtime_r(&t, &tm);
	/* years past 9999 do not fit a name: such a clock is stamped 9999 */
	snprintf(tmp, sizeof(tmp), "%04d%02d%02d-%02d%02d%02d.%03u",
		 tm.tm_year + 1900 > 9999 ? 9999 : tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
		 tm.tm_hour, tm.tm_min, tm.tm_sec, (unsigned)(time_ns / 1000000u % 1000u));
	memcpy(buf, tmp, ST_NAME_LEN);
	buf[ST_NAME_LEN] = '\0';
}

int st_shard_name_time(const char *s, size_t len, uint64_t *ret_ns)
{
	static const char pat[] = "dddddddd-dddddd.ddd";
	struct tm tm = { 0 };
	int v[7];
	time_t t;

	if (len != ST_NAME_LEN)
		return -EINVAL;
	for (size_t i = 0; i < ST_NAME_LEN; i++)
		if (pat[i] == 'd' ? (s[i] < '0' || s[i] > '9') : s[i] != pat[i])
			return -EINVAL;
	if (sscanf(s, "%4d%2d%2d-%2d%2d%2d.%3d", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]) != 7)
		return -EINVAL;
	if (v[1] < 1 || v[1] > 12 || v[2] < 1 || v[2] > 31 || v[3] > 23 || v[4] > 59 || v[5] > 60 ||
	    v[0] < 1970)
		return -EINVAL;
	tm.tm_year = v[0] - 1900;
	tm.tm_mon = v[1] - 1;
	tm.tm_mday = v[2];
	tm.tm_hour = v[3];
	tm.tm_min = v[4];
	tm.tm_sec = v[5];
	t = timegm(&tm);
	if (t < 0)
		return -EINVAL;
	*ret_ns = (uint64_t)t * 1000000000u + (uint64_t)v[6] * 1000000u;
	return 0;
}

static int cmp_shard(const void *a, const void *b)
{
	const struct st_shard *x = a, *y = b;

	return strcmp(x->name, y->name);
}

void st_shards_free(struct st_shard *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		st_shard_unload(&v[i]);
		free(v[i].name);
	}
	free(v);
}

/* name ends in ext and the rest is a shard name: its time in *ret. */
static bool shard_file(const char *name, const char *ext, uint64_t *ret)
{
	size_t n = strlen(name), e = strlen(ext);

	return n > e && strcmp(name + n - e, ext) == 0 && st_shard_name_time(name, n - e, ret) == 0;
}

int st_list_shards(int dirfd, const char *dir, struct st_shard **ret, size_t *ret_n, char **why)
{
	struct st_shard *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	struct stat st;
	DIR *d;
	int r;

	if ((r = mc_state_dir_stream(dirfd, &d)) < 0)
		return r;
	while (r == 0 && (de = readdir(d))) {
		uint64_t t;

		if (!shard_file(de->d_name, ST_DATA_EXT, &t) && !shard_file(de->d_name, ST_INDEX_EXT, &t))
			continue;
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno != ENOENT)
				r = -errno;
			continue;
		}
		if ((r = mc_state_trust_stat(&st, dir, de->d_name, why)) < 0 ||
		    !shard_file(de->d_name, ST_DATA_EXT, &t))
			continue;
		if ((r = mc_array_reserve(&v, &cap, n + 1, sizeof(*v))) < 0)
			break;
		v[n] = (struct st_shard){ .name = strndup(de->d_name, ST_NAME_LEN), .start_ns = t, .fd = -1 };
		if (!v[n].name)
			r = -ENOMEM;
		else
			n++;
	}
	closedir(d);
	if (r < 0) {
		st_shards_free(v, n);
		return r;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_shard);
	*ret = v;
	*ret_n = n;
	return 0;
}

void st_file_header(unsigned char h[ST_FILE_HDR], const char *magic, uint64_t start_ns)
{
	memset(h, 0, ST_FILE_HDR);
	memcpy(h, magic, 8);
	st_put_u32(h + 8, MC_STORE_VERSION);
	st_put_u32(h + 12, ST_FILE_HDR);
	st_put_u64(h + 16, start_ns);
	st_put_u32(h + 28, st_crc32c(0, h, 28));
}

/* Checks a file header: -EBADMSG with *why. */
static int check_file_header(const unsigned char *h, const char *magic, const char **why)
{
	if (memcmp(h, magic, 8) != 0)
		*why = "not a memctl store file (bad magic)";
	else if (st_get_u32(h + 28) != st_crc32c(0, h, 28))
		*why = "file header checksum mismatch";
	else if (st_get_u32(h + 8) != MC_STORE_VERSION)
		*why = "a store format version this memctl does not read";
	else if (st_get_u32(h + 12) != ST_FILE_HDR)
		*why = "a bad file header length";
	else
		return 0;
	return -EBADMSG;
}

void st_index_entry(unsigned char e[ST_IDX_ENTRY], const struct st_rec *r)
{
	st_put_u64(e, r->time_ns);
	st_put_u64(e + 8, r->off);
	st_put_u32(e + 16, r->len);
	st_put_u32(e + 20, r->flags);
	st_put_u32(e + 24, 0);
	st_put_u32(e + 28, st_crc32c(0, e, 28));
}

void st_rec_header_make(unsigned char h[ST_REC_HDR], uint64_t time_ns, uint32_t flags,
			uint32_t stored, uint32_t raw, uint32_t pcrc)
{
	st_put_u32(h, ST_REC_MAGIC);
	st_put_u32(h + 4, flags);
	st_put_u64(h + 8, time_ns);
	st_put_u32(h + 16, stored);
	st_put_u32(h + 20, raw);
	st_put_u32(h + 24, pcrc);
	st_put_u32(h + 28, st_crc32c(0, h, 28));
}

bool st_rec_header(const unsigned char *h, struct st_rec *ret, uint32_t *ret_stored,
		   uint32_t *ret_raw, uint32_t *ret_pcrc)
{
	uint32_t stored = st_get_u32(h + 16), raw = st_get_u32(h + 20);

	if (st_get_u32(h) != ST_REC_MAGIC || st_get_u32(h + 28) != st_crc32c(0, h, 28) ||
	    stored > ST_MAX_STORED || raw > ST_MAX_RAW)
		return false;
	ret->flags = st_get_u32(h + 4);
	ret->time_ns = st_get_u64(h + 8);
	ret->len = ST_REC_HDR + stored;
	*ret_stored = stored;
	*ret_raw = raw;
	*ret_pcrc = st_get_u32(h + 24);
	return true;
}

static ssize_t pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			break;
		got += (size_t)k;
	}
	return (ssize_t)got;
}

static int add_rec(struct st_shard *sh, const struct st_rec *r)
{
	if (mc_array_reserve(&sh->rec, &sh->cap, sh->n + 1, sizeof(*sh->rec)) < 0)
		return -ENOMEM;
	sh->rec[sh->n++] = *r;
	return 0;
}

/* The index entries that are whole, contiguous and in order. */
static int load_index(int dirfd, const char *dir, struct st_shard *sh, char **why)
{
	char name[ST_NAME_LEN + 8];
	unsigned char *buf = NULL;
	uint64_t end = ST_FILE_HDR, last = 0;
	const char *bad = NULL;
	struct stat st;
	size_t n;
	ssize_t got;
	int fd, r = 0;

	snprintf(name, sizeof(name), "%s%s", sh->name, ST_INDEX_EXT);
	fd = mc_state_open_file(dirfd, dir, name, O_RDONLY, &st, why);
	if (fd == -ENOENT)
		return 0;   /* the data file is scanned */
	if (fd < 0)
		return fd;
	n = (size_t)st.st_size;
	if (n > (sh->data_size / ST_REC_HDR + 1) * ST_IDX_ENTRY + ST_FILE_HDR)
		n = (sh->data_size / ST_REC_HDR + 1) * ST_IDX_ENTRY + ST_FILE_HDR;
	if (n < ST_FILE_HDR || !(buf = malloc(n))) {
		close(fd);
		return n < ST_FILE_HDR ? 0 : -ENOMEM;
	}
	got = pread_all(fd, buf, n, 0);
	close(fd);
	if (got < 0 || (size_t)got < ST_FILE_HDR || check_file_header(buf, ST_FILE_MAGIC_INDEX, &bad) < 0) {
		free(buf);
		return got < 0 ? (int)got : 0;   /* an index that cannot be used: scan */
	}
	for (size_t o = ST_FILE_HDR; r == 0 && o + ST_IDX_ENTRY <= (size_t)got; o += ST_IDX_ENTRY) {
		const unsigned char *e = buf + o;
		struct st_rec rec = { st_get_u64(e), st_get_u64(e + 8), st_get_u32(e + 16),
				      st_get_u32(e + 20) };

		if (st_get_u32(e + 28) != st_crc32c(0, e, 28) || rec.off != end ||
		    rec.len < ST_REC_HDR || rec.len > ST_REC_HDR + ST_MAX_STORED ||
		    rec.off + rec.len > sh->data_size || rec.time_ns < last)
			break;
		r = add_rec(sh, &rec);
		end = rec.off + rec.len;
		last = rec.time_ns;
	}
	free(buf);
	return r;
}

/* Records past the index: each whole and checked, up to a torn or bad one. */
static int scan_data(struct st_shard *sh)
{
	uint64_t off = sh->n ? sh->rec[sh->n - 1].off + sh->rec[sh->n - 1].len : ST_FILE_HDR;
	uint64_t last = sh->n ? sh->rec[sh->n - 1].time_ns : 0;
	unsigned char h[ST_REC_HDR], *p = NULL;
	size_t cap = 0;
	int r = 0;

	while (r == 0 && off < sh->data_size) {
		uint32_t stored, raw, pcrc;
		struct st_rec rec;
		ssize_t got = pread_all(sh->fd, h, ST_REC_HDR, off);

		if (got < 0) {
			r = (int)got;
			break;
		}
		if ((size_t)got < ST_REC_HDR || !st_rec_header(h, &rec, &stored, &raw, &pcrc) ||
		    off + rec.len > sh->data_size || rec.time_ns < last)
			break;
		if (mc_array_reserve(&p, &cap, stored ? stored : 1, 1) < 0) {
			r = -ENOMEM;
			break;
		}
		got = pread_all(sh->fd, p, stored, off + ST_REC_HDR);
		if (got < 0 || (size_t)got != stored || st_crc32c(0, p, stored) != pcrc)
			break;
		rec.off = off;
		r = add_rec(sh, &rec);
		off += rec.len;
		last = rec.time_ns;
	}
	free(p);
	sh->torn = r == 0 && off < sh->data_size;
	return r;
}

int st_shard_load(int dirfd, const char *dir, struct st_shard *sh, bool rw, char **why)
{
	char name[ST_NAME_LEN + 8];
	unsigned char h[ST_FILE_HDR];
	const char *bad = NULL;
	struct stat st;
	ssize_t got;
	int r;

	st_shard_unload(sh);
	snprintf(name, sizeof(name), "%s%s", sh->name, ST_DATA_EXT);
	if ((sh->fd = mc_state_open_file(dirfd, dir, name, rw ? O_RDWR : O_RDONLY, &st, why)) < 0) {
		r = sh->fd;
		sh->fd = -1;
		return r;
	}
	sh->data_size = (uint64_t)st.st_size;
	got = pread_all(sh->fd, h, ST_FILE_HDR, 0);
	if (got >= 0 && (size_t)got < ST_FILE_HDR) {
		/* a writer killed while it made the shard: no record yet */
		sh->torn = got > 0;
		sh->loaded = true;
		return 0;
	}
	r = got < 0 ? (int)got : check_file_header(h, ST_FILE_MAGIC_DATA, &bad);
	if (r == 0 && (r = load_index(dirfd, dir, sh, why)) == 0 && (r = scan_data(sh)) == 0) {
		sh->loaded = true;
		return 0;
	}
	if (r == -EBADMSG && why) {
		free(*why);
		if (asprintf(why, "'%s/%s': %s", dir, name, bad) < 0)
			*why = NULL;
	}
	st_shard_unload(sh);
	return r;
}

void st_shard_unload(struct st_shard *sh)
{
	if (sh->fd >= 0)
		close(sh->fd);
	sh->fd = -1;
	free(sh->rec);
	sh->rec = NULL;
	sh->n = sh->cap = 0;
	sh->loaded = false;
	sh->torn = 0;
}

int st_shard_read(struct st_shard *sh, size_t i, struct st_io *io, const unsigned char **ret,
		  size_t *ret_len, const char **why)
{
	const struct st_rec *x = &sh->rec[i];
	uint32_t stored, raw, pcrc;
	struct st_rec h;
	ssize_t got;
	size_t n;

	if (mc_array_reserve(&io->fbuf, &io->fcap, x->len, 1) < 0)
		return -ENOMEM;
	got = pread_all(sh->fd, io->fbuf, x->len, x->off);
	if (got < 0)
		return (int)got;
	if ((size_t)got != x->len)
		return *why = "the file ends inside the record", -EBADMSG;
	if (!st_rec_header(io->fbuf, &h, &stored, &raw, &pcrc) || h.len != x->len ||
	    h.time_ns != x->time_ns || h.flags != x->flags)
		return *why = "a record header that does not match its index entry", -EBADMSG;
	if (st_crc32c(0, io->fbuf + ST_REC_HDR, stored) != pcrc)
		return *why = "record checksum mismatch", -EBADMSG;
	if (!(h.flags & ST_REC_ZSTD)) {
		if (raw != stored)
			return *why = "an uncompressed record of two lengths", -EBADMSG;
		*ret = io->fbuf + ST_REC_HDR;
		*ret_len = stored;
		return 0;
	}
	if (ZSTD_getFrameContentSize(io->fbuf + ST_REC_HDR, stored) != raw)
		return *why = "a compressed record of another length than its header says", -EBADMSG;
	if (mc_array_reserve(&io->rbuf, &io->rcap, raw ? raw : 1, 1) < 0 ||
	    (!io->dctx && !(io->dctx = ZSTD_createDCtx())))
		return -ENOMEM;
	n = ZSTD_decompressDCtx(io->dctx, io->rbuf, raw, io->fbuf + ST_REC_HDR, stored);
	if (ZSTD_isError(n) || n != raw)
		return *why = "a record that does not decompress", -EBADMSG;
	*ret = io->rbuf;
	*ret_len = n;
	return 0;
}

void st_io_release(struct st_io *io)
{
	free(io->fbuf);
	free(io->rbuf);
	ZSTD_freeDCtx(io->dctx);
	memset(io, 0, sizeof(*io));
}
