/*
 * libFuzzer target: the history store's reader (history/store.h), which
 * dump and top --replay run on store files that anyone with write access
 * to the directory could have made. The input is a list of record
 * payloads: the target frames them as a shard would hold them (headers,
 * checksums, zstd when asked, an index when asked, one byte flipped when
 * asked), writes the shard in a scratch directory and reads it through
 * the public API forwards, backwards and by time. Whatever it returns must
 * be a sample that holds together, or an error: never a crash, a hang or
 * a leak.
 *
 * Input: flags (bit 0 compress, bit 1 write the index, bit 2 flip the byte
 * at the offset of the next two bytes), then records as kind (bit 0
 * keyframe), a 16-bit little-endian length and the payload.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "store-internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * What stays from one execution to the next, so that an execution costs
 * the reader's work and not the setup's: this process's own directory
 * (two fuzzers, or -jobs workers, do not share one), the two shard files
 * kept open and rewritten in place (one pwrite each, then cut to length,
 * instead of truncating and growing them record by record), the buffers
 * the shard is composed in, and one zstd compression context (zstd's
 * one-shot ZSTD_compress makes and frees one per call).
 */
static char dir[] = "/dev/shm/memctl-fuzz-store.XXXXXX";
static char data_path[sizeof(dir) + 32], index_path[sizeof(dir) + 32];
static int data_fd = -1, index_fd = -1;
static ZSTD_CCtx *cctx;
static unsigned char *dbuf, *xbuf;
static size_t dcap, xcap;

static void cleanup(void)
{
	unlink(data_path);
	unlink(index_path);
	rmdir(dir);
}

static void setup(void)
{
	if (!mkdtemp(dir))
		__builtin_trap();
	snprintf(data_path, sizeof(data_path), "%s/20261201-000000.000.mcd", dir);
	snprintf(index_path, sizeof(index_path), "%s/20261201-000000.000.mci", dir);
	data_fd = open(data_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	index_fd = open(index_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (data_fd < 0 || index_fd < 0 || !(cctx = ZSTD_createCCtx()))
		__builtin_trap();
	atexit(cleanup);
}

/* Room for n more bytes at *len in *buf; the room's start. */
static unsigned char *room(unsigned char **buf, size_t *cap, size_t len, size_t n)
{
	if (len + n > *cap) {
		size_t c = *cap ? *cap : 65536;

		while (c < len + n)
			c *= 2;
		if (!(*buf = realloc(*buf, c)))
			__builtin_trap();
		*cap = c;
	}
	return *buf + len;
}

/* Makes fd hold exactly p[0..n). */
static void put_file(int fd, const unsigned char *p, size_t n)
{
	if (pwrite(fd, p, n, 0) != (ssize_t)n || ftruncate(fd, (off_t)n) < 0)
		__builtin_trap();
}

/* Writes the shard; returns its number of records. */
static size_t write_shard(const uint8_t *data, size_t size)
{
	uint8_t flags = size ? data[0] : 0;
	size_t pos = 1, n = 0, flip = 0, dlen = ST_FILE_HDR, xlen = ST_FILE_HDR;
	uint64_t t = 1796083200ull * 1000000000ull;

	if ((flags & 4) && size >= 3) {
		flip = (size_t)data[1] | (size_t)data[2] << 8;
		pos = 3;
	}
	st_file_header(room(&dbuf, &dcap, 0, ST_FILE_HDR), ST_FILE_MAGIC_DATA, t);
	st_file_header(room(&xbuf, &xcap, 0, ST_FILE_HDR), ST_FILE_MAGIC_INDEX, t);
	while (pos + 3 <= size) {
		uint32_t kind = data[pos] & 1 ? ST_REC_KEYFRAME : 0;
		size_t len = (size_t)data[pos + 1] | (size_t)data[pos + 2] << 8;
		size_t stored = len, bound;
		unsigned char *rh, *p;
		struct st_rec r;

		pos += 3;
		if (len > size - pos)
			len = stored = size - pos;
		bound = flags & 1 ? ZSTD_compressBound(len) : len;
		rh = room(&dbuf, &dcap, dlen, ST_REC_HDR + bound);
		p = rh + ST_REC_HDR;
		if (flags & 1) {
			stored = ZSTD_compressCCtx(cctx, p, bound, data + pos, len, 1);
			if (ZSTD_isError(stored))
				__builtin_trap();
			kind |= ST_REC_ZSTD;
		} else {
			memcpy(p, data + pos, len);
		}
		st_rec_header_make(rh, t, kind, (uint32_t)stored, (uint32_t)len, st_crc32c(0, p, stored));
		r = (struct st_rec){ t, dlen, (uint32_t)(ST_REC_HDR + stored), kind };
		if (flags & 2) {
			st_index_entry(room(&xbuf, &xcap, xlen, ST_IDX_ENTRY), &r);
			xlen += ST_IDX_ENTRY;
		}
		dlen += ST_REC_HDR + stored;
		t += 5000000000ull;
		pos += len;
		n++;
	}
	if (flags & 4 && flip < dlen)
		dbuf[flip] ^= 0x41;
	put_file(data_fd, dbuf, dlen);
	put_file(index_fd, xbuf, xlen);
	return n;
}

static void check(const struct mc_hist_sample *s)
{
	if (!s->parent || (s->cgroup_version != 1 && s->cgroup_version != 2))
		__builtin_trap();
	for (size_t i = 0; i < s->n_groups; i++) {
		const struct mc_group_snap *g = &s->groups[i].g;

		if (!g->path || !g->present)
			__builtin_trap();
		for (size_t k = 0; k < g->stat.n; k++)
			if (!g->stat.v[k].key)
				__builtin_trap();
	}
	for (size_t i = 0; s->have_run && i < s->run.n_dec; i++)
		if (!s->run.dec[i].group || !s->run.dec[i].reason)
			__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mc_hist_sample s = { 0 };
	struct mc_store_reader *r;
	double first, last;
	size_t n, steps = 0;
	int e;

	if (data_fd < 0)
		setup();
	n = write_shard(data, size);
	if (mc_store_open(dir, &r, NULL) < 0)
		__builtin_trap();
	while ((e = mc_store_next(r, &s)) != -ENODATA && steps++ <= n)
		if (e == 0)
			check(&s);
		else if (e != -EBADMSG && e != -ENOMEM)
			__builtin_trap();
	if (steps > n + 1)
		__builtin_trap();   /* next must come to an end */
	for (steps = 0; (e = mc_store_prev(r, &s)) != -ENODATA && steps++ <= n;)
		if (e == 0)
			check(&s);
	if (mc_store_range(r, &first, &last) == 0 && mc_store_seek(r, (first + last) / 2, &s) == 0)
		check(&s);
	mc_hist_sample_release(&s);
	mc_store_close(r);
	return 0;
}
