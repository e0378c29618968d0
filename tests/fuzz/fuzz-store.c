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

static char dir[64];

static void put(int fd, const void *p, size_t n, uint64_t off)
{
	if (pwrite(fd, p, n, (off_t)off) != (ssize_t)n)
		__builtin_trap();
}

/* Writes the shard; returns its number of records. */
static size_t write_shard(const uint8_t *data, size_t size)
{
	unsigned char h[ST_FILE_HDR], rh[ST_REC_HDR], e[ST_IDX_ENTRY], z[70000];
	uint8_t flags = size ? data[0] : 0;
	size_t pos = 1, n = 0, flip = 0;
	uint64_t off = ST_FILE_HDR, t = 1796083200ull * 1000000000ull;
	int d = open("/dev/shm/memctl-fuzz-store-x/20261201-000000.000.mcd",
		     O_RDWR | O_CREAT | O_TRUNC, 0600);
	int x = open("/dev/shm/memctl-fuzz-store-x/20261201-000000.000.mci",
		     O_RDWR | O_CREAT | O_TRUNC, 0600);

	if (d < 0 || x < 0)
		__builtin_trap();
	if ((flags & 4) && size >= 3) {
		flip = (size_t)data[1] | (size_t)data[2] << 8;
		pos = 3;
	}
	st_file_header(h, ST_FILE_MAGIC_DATA, t);
	put(d, h, sizeof(h), 0);
	st_file_header(h, ST_FILE_MAGIC_INDEX, t);
	put(x, h, sizeof(h), 0);
	while (pos + 3 <= size) {
		uint32_t kind = data[pos] & 1 ? ST_REC_KEYFRAME : 0;
		size_t len = (size_t)data[pos + 1] | (size_t)data[pos + 2] << 8;
		const void *p = data + pos + 3;
		size_t stored = len;
		struct st_rec r;

		pos += 3;
		if (len > size - pos)
			len = stored = size - pos;
		if (flags & 1) {
			stored = ZSTD_compress(z, sizeof(z), data + pos, len, 1);
			if (ZSTD_isError(stored))
				__builtin_trap();
			p = z;
			kind |= ST_REC_ZSTD;
		}
		st_rec_header_make(rh, t, kind, (uint32_t)stored, (uint32_t)len, st_crc32c(0, p, stored));
		put(d, rh, sizeof(rh), off);
		put(d, p, stored, off + ST_REC_HDR);
		r = (struct st_rec){ t, off, (uint32_t)(ST_REC_HDR + stored), kind };
		st_index_entry(e, &r);
		if (flags & 2)
			put(x, e, sizeof(e), ST_FILE_HDR + n * ST_IDX_ENTRY);
		off += ST_REC_HDR + stored;
		t += 5000000000ull;
		pos += len;
		n++;
	}
	if (flags & 4 && flip < off) {
		unsigned char c;

		if (pread(d, &c, 1, (off_t)flip) == 1) {
			c ^= 0x41;
			put(d, &c, 1, flip);
		}
	}
	close(d);
	close(x);
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

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/dev/shm/memctl-fuzz-store-x");
		mkdir(dir, 0700);
	}
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
