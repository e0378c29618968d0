/*
 * The history store's costs, for bench/record.sh (a measuring instrument,
 * not a test: it asserts nothing about time). Modes:
 *
 *   cost PARENT DIR N [GAP_MS]  N rounds on the live tree below PARENT
 *                         (absolute), GAP_MS apart (default 0: a recorder
 *                         samples every few seconds, and cgroup v1's task
 *                         counts are read differently within 2 s, see
 *                         host/subtree.c), each: mc_host_snapshot twice
 *                         (snapshot, and snapshot-aa, the A/A control),
 *                         then the store's sample of the second, as memctl
 *                         run --record takes it (mc_hist_capture_snapshot:
 *                         task counts, /proc files: the extras) and its
 *                         append to the store in DIR, then the task counts
 *                         by path (an open of each group's cgroup.procs, the
 *                         way before). One line per round: CPU µs of
 *                         snapshot, snapshot-aa, extras, append, the store's
 *                         bytes after it, the groups, tasks by path, and
 *                         the release of the round before's sample (its
 *                         snapshot's free, which the extras once counted).
 *   gen DIR DAYS STEP G [K]  a synthetic store of DAYS days of samples STEP
 *                         seconds apart, G groups each, counters that move
 *                         like a busy host's (written through the writer)
 *   open DIR N [TIME]     N rounds of mc_store_open + mc_store_seek to a
 *                         pseudo-random time (or TIME, unix seconds) +
 *                         close: wall and CPU µs
 *   evict FILE...         the files (a shard's) written back and dropped
 *                         from the page cache (posix_fadvise), for a cold
 *                         open
 *   step DIR N            seek to a pseudo-random time, then N rounds of
 *                         mc_store_next (mc_store_prev at the end): µs each
 *   schemes DIR           every record of the store decompressed, then
 *                         compressed again: per record (the store's way, and
 *                         at other levels), in chunks of 32 records, and
 *                         both with a zstd dictionary trained on the first
 *                         half; bytes per group per sample of each
 *   corpus DIR OUT N      the first N raw payloads as fuzz seeds in OUT
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zdict.h>
#include <zstd.h>

#include "bench-util.h"
#include "capture.h"
#include "proc-read.h"
#include "state.h"
#include "store-internal.h"

static double cpu_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static double wall_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static double unix_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* CPU µs of counting every group's processes by path, one open each (the way before the reader). */
static double tasks_by_path(struct mc_host *h, const struct mc_hist_sample *s)
{
	double t = cpu_us();

	for (size_t i = 0; i < s->n_groups; i++) {
		char *abs;
		size_t n;

		if (mc_path_join(s->parent, s->groups[i].g.path, &abs) < 0)
			bench_die("mc_path_join", -ENOMEM);
		mc_host_group_nprocs(h, abs, &n);
		free(abs);
	}
	return cpu_us() - t;
}

static int mode_cost(const char *parent, const char *dir, int n, long gap_ms)
{
	struct timespec gap = { gap_ms / 1000, (gap_ms % 1000) * 1000000 };
	struct mc_store_opts o = { .max_bytes = 1ull << 40 };
	struct mc_hist_sample s = { 0 };
	struct mc_store_writer *w;
	struct mc_host *h;
	int r;

	if ((r = mc_host_open(NULL, &h)) < 0)
		bench_die("mc_host_open", r);
	if ((r = mc_store_writer_open(dir, &o, &w, NULL)) < 0)
		bench_die("mc_store_writer_open", r);
	printf("round\tsnapshot_us\tsnapshot_aa_us\textras_us\tappend_us\tbytes\tgroups\t"
	       "tasks_path_us\trelease_us\n");
	for (int i = 0; i < n; i++) {
		double t[6];
		struct mc_snapshot snap;

		if (i && gap_ms > 0)
			nanosleep(&gap, NULL);
		for (int k = 0; k < 2; k++) {
			t[k] = cpu_us();
			if ((r = mc_host_snapshot(h, parent, &snap)) < 0)
				bench_die("mc_host_snapshot", r);
			t[k] = cpu_us() - t[k];
			if (k == 0)
				mc_snapshot_free(&snap);
		}
		/*
		 * the store's sample of the second, as memctl run --record takes
		 * it. The sample before is released first, timed apart (t[5]): it
		 * holds the last round's snapshot (moved into it), and freeing a
		 * snapshot is the snapshot's own cost (run frees each one, recording
		 * or not; the first snapshot's free above is not timed either)
		 */
		t[5] = cpu_us();
		mc_hist_sample_release(&s);
		t[5] = cpu_us() - t[5];
		t[2] = cpu_us();
		if ((r = mc_hist_capture_snapshot(h, &snap, unix_now(), &s)) < 0)
			bench_die("mc_hist_capture_snapshot", r);
		t[2] = cpu_us() - t[2];
		mc_snapshot_free(&snap);
		t[3] = cpu_us();
		if ((r = mc_store_append(w, &s)) < 0)
			bench_die("mc_store_append", r);
		t[3] = cpu_us() - t[3];
		/* last: its opens would refresh the kernel's v1 process lists for the capture */
		t[4] = tasks_by_path(h, &s);
		printf("%d\t%.1f\t%.1f\t%.1f\t%.1f\t%llu\t%zu\t%.1f\t%.1f\n", i, t[0], t[1], t[2], t[3],
		       (unsigned long long)mc_store_writer_bytes(w), s.n_groups, t[4], t[5]);
	}
	mc_hist_sample_release(&s);
	mc_store_writer_close(w);
	mc_host_free(h);
	return 0;
}

static const char *const gen_keys[] = {
	"anon", "file", "kernel_stack", "shmem", "file_mapped", "file_dirty", "file_writeback",
	"anon_thp", "inactive_anon", "active_anon", "inactive_file", "active_file", "unevictable",
	"pgfault", "pgmajfault", "workingset_refault_anon", "workingset_refault_file",
	"workingset_activate_anon", "workingset_activate_file", "workingset_restore_anon",
	"workingset_restore_file", "workingset_nodereclaim", "pgrefill", "pgscan", "pgsteal",
	"pgactivate", "pgdeactivate", "pglazyfree", "pglazyfreed", "thp_fault_alloc",
	"hierarchical_memory_limit", "hierarchical_memsw_limit",
};
#define N_GEN_KEYS (sizeof(gen_keys) / sizeof(gen_keys[0]))

/* Group i at step k: sizes that stay, counters that grow for a quarter of the groups. */
static void gen_group(struct mc_hist_group *hg, size_t i, uint64_t k)
{
	struct mc_group_snap *g = &hg->g;
	bool busy = i % 4 == 0;
	char p[32];

	snprintf(p, sizeof(p), i ? "g%05zu" : "", i);
	g->path = strdup(p);
	g->present = true;
	g->usage = (64ull << 20) + i * 4096 + (busy ? (k % 97) * 4096 : 0);
	g->usage_valid = true;
	g->raw[MC_KNOB_MAX] = UINT64_MAX;
	g->raw[MC_KNOB_SOFT] = UINT64_MAX;
	g->raw[MC_KNOB_SWAP] = UINT64_MAX;
	g->raw_valid[MC_KNOB_MAX] = g->raw_valid[MC_KNOB_SOFT] = g->raw_valid[MC_KNOB_SWAP] = true;
	for (size_t j = 0; j < N_GEN_KEYS; j++)
		mc_kvs_add_borrowed(&g->stat, gen_keys[j],
				    busy && j >= 13 && j < 20 ? 1000 * i + 37 * k * (j - 12) : 4096 * (i + j));
	mc_kvs_add_borrowed(&g->events, "max", busy ? k / 100 : 0);
	mc_kvs_add_borrowed(&g->events, "oom_kill", 0);
	g->n_numa = 1;
	g->numa = calloc(1, sizeof(*g->numa));
	mc_kvs_add_borrowed(&g->numa[0], "anon", g->usage / 2);
	mc_kvs_add_borrowed(&g->numa[0], "file", g->usage / 2);
	mc_kvs_add_borrowed(&g->numa[0], "unevictable", 0);
	hg->tasks = busy ? 3 : 1;
	hg->tasks_valid = true;
}

static int mode_gen(const char *dir, double days, double step, size_t groups, unsigned key_every)
{
	struct mc_store_opts o = { .max_bytes = 1ull << 40, .keyframe_every = key_every };
	struct mc_store_writer *w;
	double t0 = 1796083200.0 - days * 86400;   /* ending 2026-12-01 */
	uint64_t n = (uint64_t)(days * 86400 / step);
	int r;

	if ((r = mc_store_writer_open(dir, &o, &w, NULL)) < 0)
		bench_die("mc_store_writer_open", r);
	for (uint64_t k = 0; k < n; k++) {
		struct mc_hist_sample s = { .time = t0 + (double)k * step, .cgroup_version = 1 };

		s.parent = strdup("/bench");
		s.groups = calloc(groups + 1, sizeof(*s.groups));
		if (!s.parent || !s.groups)
			bench_die("calloc", ENOMEM);
		for (size_t i = 0; i <= groups; i++)
			gen_group(&s.groups[s.n_groups++], i, k);
		mc_kvs_add(&s.host.meminfo, "MemFree", 7, (8ull << 30) - (k % 1000) * 4096);
		mc_kvs_add(&s.host.vmstat, "pgscan_kswapd", 13, 1000 * k);
		if ((r = mc_store_append(w, &s)) < 0)
			bench_die("mc_store_append", r);
		mc_hist_sample_release(&s);
	}
	printf("samples\t%llu\tbytes\t%llu\n", (unsigned long long)n,
	       (unsigned long long)mc_store_writer_bytes(w));
	mc_store_writer_close(w);
	return 0;
}

static double frand(unsigned *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return (double)(*seed >> 8) / (double)(1u << 24);
}

static struct mc_store_reader *open_store(const char *dir)
{
	struct mc_store_reader *rd;
	int r = mc_store_open(dir, &rd, NULL);

	if (r < 0)
		bench_die("mc_store_open", r);
	return rd;
}

/* at < 0: pseudo-random times; else the time at (unix seconds) every round */
static int mode_open(const char *dir, int n, double at)
{
	struct mc_hist_sample s = { 0 };
	struct mc_store_reader *rd = open_store(dir);
	double first, last;
	unsigned seed = 1;
	int r;

	if ((r = mc_store_range(rd, &first, &last)) < 0)
		bench_die("mc_store_range", r);
	mc_store_close(rd);
	printf("round\twall_us\tcpu_us\tgroups\n");
	for (int i = 0; i < n; i++) {
		double t = at >= 0 ? at : first + frand(&seed) * (last - first), w0 = wall_us(), c0 = cpu_us();

		rd = open_store(dir);
		if ((r = mc_store_seek(rd, t, &s)) < 0)
			bench_die("mc_store_seek", r);
		mc_store_close(rd);
		printf("%d\t%.1f\t%.1f\t%zu\n", i, wall_us() - w0, cpu_us() - c0, s.n_groups);
		mc_hist_sample_release(&s);
	}
	return 0;
}

/*
 * Writes back and drops from the page cache each of the files (posix_fadvise
 * on our own files: no kernel setting changes), so that the next open reads
 * them from the disk.
 */
static int mode_evict(char **files, int n)
{
	for (int i = 0; i < n; i++) {
		int fd = open(files[i], O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

		if (fd < 0)
			bench_die(files[i], errno);
		if (fdatasync(fd) < 0)
			bench_die(files[i], errno);
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		close(fd);
	}
	return 0;
}

static int mode_step(const char *dir, int n)
{
	struct mc_hist_sample s = { 0 };
	struct mc_store_reader *rd = open_store(dir);
	double first, last;
	int r;

	if ((r = mc_store_range(rd, &first, &last)) < 0 || (r = mc_store_seek(rd, first, &s)) < 0)
		bench_die("mc_store_seek", r);
	printf("round\tway\twall_us\tcpu_us\tgroups\n");
	for (int i = 0; i < n; i++) {
		double w0 = wall_us(), c0 = cpu_us();

		/* one step forward a round; every other round also one back (and forward again, untimed) */
		r = mc_store_next(rd, &s);
		if (r == -ENODATA) {
			if ((r = mc_store_seek(rd, first, &s)) < 0)
				bench_die("mc_store_seek", r);
			continue;
		}
		if (r < 0)
			bench_die("mc_store_next", r);
		printf("%d\tnext\t%.1f\t%.1f\t%zu\n", i, wall_us() - w0, cpu_us() - c0, s.n_groups);
		if (i % 2 == 0)
			continue;
		w0 = wall_us();
		c0 = cpu_us();
		if ((r = mc_store_prev(rd, &s)) < 0)
			bench_die("mc_store_prev", r);
		printf("%d\tprev\t%.1f\t%.1f\t%zu\n", i, wall_us() - w0, cpu_us() - c0, s.n_groups);
		if ((r = mc_store_next(rd, &s)) < 0)
			bench_die("mc_store_next", r);
	}
	mc_hist_sample_release(&s);
	mc_store_close(rd);
	return 0;
}

struct payloads {
	unsigned char **p;
	size_t *len;
	size_t n, cap_p, cap_len, bytes_on_disk;
};

/* Every record of the store, decompressed, and the groups of its samples. */
static void read_payloads(const char *dir, struct payloads *pl, size_t *ret_groups)
{
	struct st_shard *sh = NULL;
	struct st_io io = { 0 };
	size_t n = 0, groups = 0;
	char *why = NULL;
	int fd = mc_state_open_dir(dir, false, &why), r;

	if (fd < 0 || (r = st_list_shards(fd, dir, &sh, &n, &why)) < 0)
		bench_die(why ? why : "st_list_shards", fd < 0 ? fd : EIO);
	for (size_t s = 0; s < n; s++) {
		if ((r = st_shard_load(fd, dir, &sh[s], false, &why)) < 0)
			bench_die("st_shard_load", r);
		for (size_t i = 0; i < sh[s].n; i++) {
			const unsigned char *p;
			const char *bad;
			size_t len;

			if ((r = st_shard_read(&sh[s], i, &io, &p, &len, &bad)) < 0)
				bench_die("st_shard_read", r);
			if (mc_array_reserve(&pl->p, &pl->cap_p, pl->n + 1, sizeof(*pl->p)) < 0 ||
			    mc_array_reserve(&pl->len, &pl->cap_len, pl->n + 1, sizeof(*pl->len)) < 0)
				bench_die("realloc", ENOMEM);
			pl->p[pl->n] = malloc(len ? len : 1);
			memcpy(pl->p[pl->n], p, len);
			pl->len[pl->n++] = len;
			pl->bytes_on_disk += sh[s].rec[i].len + ST_IDX_ENTRY;
		}
	}
	{
		struct mc_store_reader *rd = open_store(dir);
		struct mc_hist_sample smp = { 0 };

		if (mc_store_next(rd, &smp) == 0)
			groups = smp.n_groups;
		mc_hist_sample_release(&smp);
		mc_store_close(rd);
	}
	st_io_release(&io);
	st_shards_free(sh, n);
	*ret_groups = groups;
}

/* Bytes of the payloads compressed per record (chunk 1) or by chunks, with dict or not. */
static size_t compress_all(const struct payloads *pl, size_t from, size_t chunk, int level,
			   const void *dict, size_t dict_len)
{
	ZSTD_CCtx *c = ZSTD_createCCtx();
	ZSTD_CDict *cd = dict ? ZSTD_createCDict(dict, dict_len, level) : NULL;
	size_t total = 0;

	for (size_t i = from; i < pl->n; i += chunk) {
		size_t len = 0, n;
		unsigned char *buf, *out;

		for (size_t j = i; j < i + chunk && j < pl->n; j++)
			len += pl->len[j];
		buf = malloc(len + 1);
		out = malloc(ZSTD_compressBound(len));
		len = 0;
		for (size_t j = i; j < i + chunk && j < pl->n; j++) {
			memcpy(buf + len, pl->p[j], pl->len[j]);
			len += pl->len[j];
		}
		n = cd ? ZSTD_compress_usingCDict(c, out, ZSTD_compressBound(len), buf, len, cd)
		       : ZSTD_compressCCtx(c, out, ZSTD_compressBound(len), buf, len, level);
		if (ZSTD_isError(n))
			bench_die(ZSTD_getErrorName(n), EIO);
		total += n + ST_REC_HDR + ST_IDX_ENTRY;
		free(buf);
		free(out);
	}
	ZSTD_freeCDict(cd);
	ZSTD_freeCCtx(c);
	return total;
}

static int mode_schemes(const char *dir)
{
	struct payloads pl = { 0 };
	size_t groups, half, dict_len = 0, raw = 0;
	unsigned char dict[64 << 10];
	size_t *sizes;
	unsigned char *cat;

	read_payloads(dir, &pl, &groups);
	if (pl.n < 4 || !groups)
		bench_die("too few records to compare", EINVAL);
	half = pl.n / 2;
	/* the dictionary learns from the first half; sizes are of the second */
	sizes = calloc(half, sizeof(*sizes));
	for (size_t i = 0; i < half; i++)
		raw += sizes[i] = pl.len[i];
	cat = malloc(raw);
	raw = 0;
	for (size_t i = 0; i < half; i++) {
		memcpy(cat + raw, pl.p[i], pl.len[i]);
		raw += pl.len[i];
	}
	dict_len = ZDICT_trainFromBuffer(dict, sizeof(dict), cat, sizes, (unsigned)half);
	if (ZDICT_isError(dict_len))
		dict_len = 0;
	raw = 0;
	for (size_t i = half; i < pl.n; i++)
		raw += pl.len[i] + ST_REC_HDR + ST_IDX_ENTRY;
	{
		double per = (double)(pl.n - half) * (double)groups;
		struct {
			const char *name;
			size_t bytes;
		} v[] = {
			{ "uncompressed", raw },
			{ "per-record-zstd1", compress_all(&pl, half, 1, 1, NULL, 0) },
			{ "per-record-zstd3 (the store)", compress_all(&pl, half, 1, 3, NULL, 0) },
			{ "per-record-zstd9", compress_all(&pl, half, 1, 9, NULL, 0) },
			{ "per-record-zstd3+dict", dict_len ? compress_all(&pl, half, 1, 3, dict, dict_len) : 0 },
			{ "chunk32-zstd3", compress_all(&pl, half, 32, 3, NULL, 0) },
			{ "chunk32-zstd3+dict", dict_len ? compress_all(&pl, half, 32, 3, dict, dict_len) : 0 },
		};

		printf("scheme\tbytes_per_group_sample\trecords\tgroups\tdict_bytes\n");
		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
			printf("%s\t%.2f\t%zu\t%zu\t%zu\n", v[i].name, (double)v[i].bytes / per, pl.n - half,
			       groups, strstr(v[i].name, "dict") ? dict_len : 0);
		printf("on-disk\t%.2f\t%zu\t%zu\t0\n", (double)pl.bytes_on_disk / ((double)pl.n * groups),
		       pl.n, groups);
	}
	for (size_t i = 0; i < pl.n; i++)
		free(pl.p[i]);
	free(pl.p);
	free(pl.len);
	free(sizes);
	free(cat);
	return 0;
}

/* The fuzz target's input: flags, then kind, length, payload per record. */
static int mode_corpus(const char *dir, const char *out, int n)
{
	struct payloads pl = { 0 };
	size_t groups;
	char path[4096];
	FILE *f;

	read_payloads(dir, &pl, &groups);
	for (int variant = 0; variant < 2; variant++) {
		snprintf(path, sizeof(path), "%s/records-%s", out, variant ? "zstd-index" : "plain");
		if (!(f = fopen(path, "w")))
			bench_die(path, errno);
		fputc(variant ? 3 : 0, f);
		for (size_t i = 0; i < pl.n && (int)i < n; i++) {
			fputc(i == 0, f);
			fputc((int)(pl.len[i] & 0xff), f);
			fputc((int)(pl.len[i] >> 8 & 0xff), f);
			fwrite(pl.p[i], 1, pl.len[i], f);
		}
		fclose(f);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if ((argc == 5 || argc == 6) && strcmp(argv[1], "cost") == 0)
		return mode_cost(argv[2], argv[3], atoi(argv[4]), argc == 6 ? atol(argv[5]) : 0);
	if ((argc == 6 || argc == 7) && strcmp(argv[1], "gen") == 0)
		return mode_gen(argv[2], atof(argv[3]), atof(argv[4]), (size_t)atol(argv[5]),
				argc == 7 ? (unsigned)atoi(argv[6]) : 0);
	if ((argc == 4 || argc == 5) && strcmp(argv[1], "open") == 0)
		return mode_open(argv[2], atoi(argv[3]), argc == 5 ? atof(argv[4]) : -1);
	if (argc >= 3 && strcmp(argv[1], "evict") == 0)
		return mode_evict(argv + 2, argc - 2);
	if (argc == 4 && strcmp(argv[1], "step") == 0)
		return mode_step(argv[2], atoi(argv[3]));
	if (argc == 3 && strcmp(argv[1], "schemes") == 0)
		return mode_schemes(argv[2]);
	if (argc == 5 && strcmp(argv[1], "corpus") == 0)
		return mode_corpus(argv[2], argv[3], atoi(argv[4]));
	fprintf(stderr, "usage: bench-record cost PARENT DIR N [GAP_MS] | gen DIR DAYS STEP GROUPS | "
			"open DIR N [TIME] | evict FILE... | step DIR N | schemes DIR | corpus DIR OUT N\n");
	return 2;
}
