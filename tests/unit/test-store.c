/*
 * The history store (history/store.h) on synthetic samples in a scratch
 * directory: what is written reads back the same, forwards, backwards and
 * by time, across keyframes, shards and groups that come and go; a torn
 * tail is skipped and repaired; a lost or corrupt index is rebuilt from
 * the data; a corrupt record is an error that names it; retention by age
 * and size; trust checks; one writer per store; the encoder's memory of
 * names by their key's address gives the bytes it gives without it, and
 * never the name of a string that was there before.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"
#include "store-internal.h"
#include "tap.h"

static char dir[64];

static const char *const stat_keys[] = { "anon", "file", "active_file", "inactive_file",
					 "workingset_refault_file", "pgfault" };

/* Sample k of a run: groups come and go, counters grow, limits change now and then. */
static void make_sample(struct mc_hist_sample *s, unsigned k, double t, size_t n_groups)
{
	memset(s, 0, sizeof(*s));
	s->time = t;
	s->parent = strdup("/test/parent");
	s->cgroup_version = 1;
	s->groups = calloc(n_groups + 1, sizeof(*s->groups));
	for (size_t i = 0; i <= n_groups; i++) {
		struct mc_hist_group *hg = &s->groups[s->n_groups];
		struct mc_group_snap *g = &hg->g;
		char p[32];

		if (i && (k / 7 + i) % 5 == 0)
			continue;   /* gone in this stretch */
		snprintf(p, sizeof(p), i ? "g%zu%s" : "", i, i % 3 == 0 ? "/sub" : "");
		g->path = strdup(p);
		g->present = true;
		g->usage = 1000000 * i + 4096 * k;
		g->usage_valid = true;
		g->raw[MC_KNOB_MAX] = k / 10 % 2 ? (1u << 30) : UINT64_MAX;
		g->raw_valid[MC_KNOB_MAX] = true;
		g->raw[MC_KNOB_SOFT] = 100u << 20;
		g->raw_valid[MC_KNOB_SOFT] = i % 2;
		for (size_t j = 0; j < sizeof(stat_keys) / sizeof(stat_keys[0]); j++)
			mc_kvs_add_borrowed(&g->stat, stat_keys[j], j == 5 ? 17u * k + i : 4096u * (i + j));
		mc_kvs_add_borrowed(&g->events, "max", k / 20);
		mc_kvs_add_borrowed(&g->events, "oom_kill", 0);
		g->n_numa = 2;
		g->numa = calloc(2, sizeof(*g->numa));
		mc_kvs_add_borrowed(&g->numa[0], "anon", 4096u * k);
		mc_kvs_add_borrowed(&g->numa[1], "file", 8192u * i);
		g->psi.valid = i % 2 == 0;
		g->psi.some_avg10 = 1.25;
		g->psi.full_total = 1000u * k;
		hg->tasks = i + k % 3;
		hg->tasks_valid = true;
		s->n_groups++;
	}
	mc_kvs_add(&s->host.meminfo, "MemTotal", 8, 8ull << 30);
	mc_kvs_add(&s->host.meminfo, "MemFree", 7, (1ull << 30) - 4096u * k);
	mc_kvs_add(&s->host.vmstat, "pgscan_kswapd", 13, 100u * k);
	s->host.psi.valid = true;
	s->host.psi.some_avg60 = 0.5;
	/* the parent's effective limit: changes now and then, missing in a stretch */
	s->parent_limit_valid = k / 13 % 3 != 1;
	s->parent_limit = (2ull << 30) + (k / 5) * 4096;
	if (k % 4 == 0) {
		struct mc_run_decision d = { MC_RUN_RECLAIM, "/test/parent/g1", "soft-limit", "",
					     false, 0, 64u << 20, 60u << 20, -EBUSY, "over its soft limit" };

		s->have_run = true;
		s->run.pid = 42;
		s->run.interval = k;
		s->run.duration = 0.25;
		s->run.parent = strdup("/test/parent");
		s->run.profile = strdup("/etc/memctl/p.yaml");
		mc_runstate_add_group(&s->run, "/test/parent/g1", true, 12345, false, 0);
		mc_runstate_add_decision(&s->run, &d);
		mc_runstate_add_note(&s->run, "a note");
		if (k % 8 == 0)
			mc_runstate_add_error(&s->run, "an error\twith a tab");
	}
}

static bool kvs_same(const struct mc_kvs *a, const struct mc_kvs *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i].key, b->v[i].key) != 0 || a->v[i].val != b->v[i].val)
			return false;
	return true;
}

static bool group_same(const struct mc_hist_group *a, const struct mc_hist_group *b)
{
	const struct mc_group_snap *x = &a->g, *y = &b->g;

	if (strcmp(x->path, y->path) != 0 || x->usage != y->usage || x->usage_valid != y->usage_valid ||
	    a->tasks != b->tasks || a->tasks_valid != b->tasks_valid || x->n_numa != y->n_numa ||
	    x->psi.valid != y->psi.valid || (x->psi.valid && (x->psi.some_avg10 != y->psi.some_avg10 ||
							       x->psi.full_total != y->psi.full_total)))
		return false;
	for (int k = 0; k < MC_KNOB__COUNT; k++)
		if (x->raw_valid[k] != y->raw_valid[k] || (x->raw_valid[k] && x->raw[k] != y->raw[k]))
			return false;
	for (size_t n = 0; n < x->n_numa; n++)
		if (!kvs_same(&x->numa[n], &y->numa[n]))
			return false;
	return kvs_same(&x->stat, &y->stat) && kvs_same(&x->events, &y->events);
}

/* Whether b (read back) is a (written); why in *why. */
static bool sample_same(const struct mc_hist_sample *a, const struct mc_hist_sample *b,
			const char **why)
{
	if ((long long)(a->time * 1e3) != (long long)(b->time * 1e3))
		return *why = "time", false;
	if (strcmp(a->parent, b->parent) || a->cgroup_version != b->cgroup_version)
		return *why = "parent", false;
	if (a->n_groups != b->n_groups)
		return *why = "number of groups", false;
	for (size_t i = 0; i < a->n_groups; i++)
		if (!group_same(&a->groups[i], &b->groups[i]))
			return *why = "a group", false;
	if (!kvs_same(&a->host.meminfo, &b->host.meminfo) || !kvs_same(&a->host.vmstat, &b->host.vmstat) ||
	    a->host.psi.some_avg60 != b->host.psi.some_avg60)
		return *why = "host", false;
	if (a->parent_limit_valid != b->parent_limit_valid ||
	    (a->parent_limit_valid && a->parent_limit != b->parent_limit))
		return *why = "the parent's effective limit", false;
	if (a->have_run != b->have_run)
		return *why = "run", false;
	if (a->have_run && (a->run.n_dec != b->run.n_dec || a->run.interval != b->run.interval ||
			    strcmp(a->run.dec[0].reason, b->run.dec[0].reason) ||
			    a->run.dec[0].err != b->run.dec[0].err || a->run.dec[0].got != b->run.dec[0].got ||
			    a->run.n_errors != b->run.n_errors || a->run.groups[0].ws != b->run.groups[0].ws ||
			    strcmp(a->run.profile, b->run.profile)))
		return *why = "run", false;
	return true;
}

#define N 100
static struct mc_hist_sample want[N];
static const double T0 = 1796083200.0;   /* 2026-12-01 00:00:00 UTC */

static void write_all(const struct mc_store_opts *o, double step, size_t groups)
{
	struct mc_store_writer *w;
	char *why = NULL;
	int r = mc_store_writer_open(dir, o, &w, &why);

	tap_eq_int(r, 0, "writer opens %s (%s)", dir, why ? why : "");
	if (r < 0)
		exit(tap_done());
	for (unsigned k = 0; k < N; k++) {
		mc_hist_sample_release(&want[k]);
		make_sample(&want[k], k, T0 + k * step, groups);
		if ((r = mc_store_append(w, &want[k])) < 0)
			break;
	}
	tap_eq_int(r, 0, "%d samples appended", N);
	mc_store_writer_close(w);
	free(why);
}

/* Reads the store forwards; the number of samples that match want[from...]. */
static int read_forward(size_t from, int *ret_err)
{
	struct mc_store_reader *rd;
	struct mc_hist_sample got = { 0 };
	const char *why = "";
	char *w = NULL;
	int r, n = 0;

	*ret_err = mc_store_open(dir, &rd, &w);
	free(w);
	if (*ret_err < 0)
		return 0;
	while ((r = mc_store_next(rd, &got)) == 0 && from + (size_t)n < N &&
	       sample_same(&want[from + n], &got, &why))
		n++;
	if (r != -ENODATA && r != 0)
		*ret_err = r;
	else if (r == 0)
		printf("# sample %d differs: %s\n", n, why);
	mc_hist_sample_release(&got);
	mc_store_close(rd);
	return n;
}

static void rmstore(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		printf("# cannot remove %s\n", dir);
}

static void test_roundtrip(void)
{
	struct mc_store_opts o = { .keyframe_every = 8 };
	struct mc_store_reader *rd;
	struct mc_hist_sample got = { 0 };
	double first, last;
	const char *why = "";
	bool ok = true;
	int err, r;

	/* 30 minutes apart: the samples span two UTC days, so two shards at least */
	write_all(&o, 1800, 12);
	tap_eq_int(read_forward(0, &err), N, "every sample reads back as written, in order");
	tap_eq_int(err, 0, "and nothing fails");
	r = mc_store_open(dir, &rd, NULL);
	tap_eq_int(r, 0, "reader opens");
	tap_eq_int(mc_store_range(rd, &first, &last), 0, "range");
	tap_check(first == want[0].time && last == want[N - 1].time, "range is first..last sample");
	for (int k = N - 1; ok && k >= 0; k -= 7) {
		r = mc_store_seek(rd, want[k].time + 1, &got);
		ok = r == 0 && sample_same(&want[k], &got, &why);
		if (ok && k > 0) {
			r = mc_store_prev(rd, &got);
			ok = r == 0 && sample_same(&want[k - 1], &got, &why);
		}
		if (ok && k + 1 < N) {
			mc_store_next(rd, &got);
			r = mc_store_next(rd, &got);
			ok = r == 0 && sample_same(&want[k + 1], &got, &why);
		}
		if (!ok)
			printf("# at %d: %d %s\n", k, r, why);
	}
	tap_check(ok, "seek to a time, then one back and one forward, all over the store");
	r = mc_store_seek(rd, T0 - 1e6, &got);
	tap_check(r == 0 && sample_same(&want[0], &got, &why), "a time before the store: its first sample");
	tap_eq_int(mc_store_prev(rd, &got), -ENODATA, "nothing before the first sample");
	r = mc_store_seek(rd, T0 + 1e9, &got);
	tap_check(r == 0 && sample_same(&want[N - 1], &got, &why), "a time after the store: its last sample");
	tap_eq_int(mc_store_next(rd, &got), -ENODATA, "nothing after the last sample");
	/* times past what nanoseconds in 64 bits hold (year 2554): top's open-ended --to is 1e300 */
	for (int k = 0; k < 3; k++) {
		static const double far[] = { 1.9e10, 1e300, INFINITY };

		r = mc_store_seek(rd, far[k], &got);
		tap_check(r == 0 && sample_same(&want[N - 1], &got, &why),
			  "a time of %g: the last sample (%d %s)", far[k], r, r ? "" : why ? why : "");
	}
	r = mc_store_seek(rd, -INFINITY, &got);
	tap_check(r == 0 && sample_same(&want[0], &got, &why), "-inf: the first sample");
	tap_eq_int(mc_store_seek(rd, NAN, &got), -EINVAL, "NaN is not a time");
	r = mc_store_seek(rd, T0 + 1e9, &got);
	tap_check(mc_hist_find(&got, "g2") != NULL && mc_hist_find(&got, "nope") == NULL, "mc_hist_find");
	mc_hist_sample_release(&got);
	mc_store_close(rd);
}

/* The newest data file's path into buf. */
static void newest(char *buf, size_t len, const char *ext)
{
	char cmd[160];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls %s/*%s | tail -n1", dir, ext);
	p = popen(cmd, "r");
	if (!p || !fgets(buf, (int)len, p))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (p)
		pclose(p);
}

static off_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_size : -1;
}

/* The offset of the last record in an index file. */
static off_t last_offset(const char *idx)
{
	unsigned char e[32];
	uint64_t off = 0;
	int fd = open(idx, O_RDONLY);

	if (fd >= 0 && pread(fd, e, 32, file_size(idx) - 32) == 32)
		for (int i = 7; i >= 0; i--)
			off = off << 8 | e[8 + i];
	if (fd >= 0)
		close(fd);
	return (off_t)off;
}

/* Where record i ends, from an index file. */
static off_t rec_end(const char *idx, int i)
{
	unsigned char e[32];
	uint64_t off = 0, len = 0;
	int fd = open(idx, O_RDONLY);

	if (fd >= 0 && pread(fd, e, 32, 32 + 32 * (off_t)i) == 32) {
		for (int b = 7; b >= 0; b--)
			off = off << 8 | e[8 + b];
		for (int b = 3; b >= 0; b--)
			len = len << 8 | e[16 + b];
	}
	if (fd >= 0)
		close(fd);
	return (off_t)(off + len);
}

static void test_torn(void)
{
	struct mc_store_opts o = { .keyframe_every = 8 };
	struct mc_store_reader *rd;
	struct mc_store_writer *w;
	char data[128], idx[128], cmd[300];
	off_t size, last;
	int err, n, bad = 0;

	rmstore();
	write_all(&o, 5, 12);
	newest(data, sizeof(data), ".mcd");
	newest(idx, sizeof(idx), ".mci");
	size = file_size(data);
	last = last_offset(idx);
	/* every cut inside the last record: it is torn, the ones before it read */
	for (off_t cut = size - 1; cut > last; cut -= 7) {
		if (truncate(data, cut) < 0)
			break;
		n = read_forward(0, &err);
		bad += n != N - 1 || err != 0;
	}
	tap_eq_int(bad, 0, "a torn last record: the %d before it read", N - 1);
	/* a cut anywhere (a power cut of a file system that keeps no order): every whole record before it reads */
	snprintf(cmd, sizeof(cmd), "cp %s %s.keep", data, data);
	bad = system(cmd) != 0;
	for (int k = 0; k < 25; k++) {
		/* shorter each time: a cut never grows the file again */
		off_t cut = last - (off_t)(k + 1) * (last - 32) / 26;
		int whole = 0;

		if (truncate(data, cut) < 0)
			break;
		for (int i = 0; i < N; i++)
			whole += rec_end(idx, i) <= cut;
		n = read_forward(0, &err);
		if (n != whole || err != 0)
			printf("# cut at %lld: %d read, %d whole, error %d\n", (long long)cut, n, whole, err);
		bad += n != whole || err != 0;
	}
	tap_eq_int(bad, 0, "cuts anywhere: the records wholly before the cut read, no error");
	snprintf(cmd, sizeof(cmd), "mv %s.keep %s", data, data);
	if (system(cmd) != 0)
		printf("# cannot restore %s\n", data);
	tap_eq_int(mc_store_open(dir, &rd, NULL), 0, "reader opens a torn store");
	tap_eq_int(read_forward(0, &err), N - 1, "torn store reads");
	mc_store_close(rd);
	unlink(idx);
	tap_eq_int(read_forward(0, &err), N - 1, "without its index: the data is scanned");
	tap_eq_int(mc_store_writer_open(dir, &o, &w, NULL), 0, "a writer continues the torn store");
	mc_hist_sample_release(&want[N - 1]);
	make_sample(&want[N - 1], N - 1, want[N - 2].time + 5, 12);
	tap_eq_int(mc_store_append(w, &want[N - 1]), 0, "and appends");
	mc_store_writer_close(w);
	tap_eq_int(read_forward(0, &err), N, "all of it reads, the torn record cut off");
	tap_check(file_size(idx) == 32 + 32 * (off_t)N, "the index was rebuilt (%lld bytes)",
		  (long long)file_size(idx));
}

static void flip(const char *path, off_t at)
{
	int fd = open(path, O_RDWR);
	unsigned char c;

	if (fd >= 0 && pread(fd, &c, 1, at) == 1) {
		c ^= 0x5a;
		if (pwrite(fd, &c, 1, at) != 1)
			printf("# cannot write %s\n", path);
	}
	if (fd >= 0)
		close(fd);
}

static void test_corrupt(void)
{
	struct mc_store_opts o = { .keyframe_every = 8 };
	struct mc_hist_sample got = { 0 };
	struct mc_store_reader *rd;
	char data[128], idx[128];
	int r, n = 0, bad = 0, err;

	rmstore();
	write_all(&o, 5, 12);
	newest(data, sizeof(data), ".mcd");
	newest(idx, sizeof(idx), ".mci");
	flip(idx, 32 + 32 * 50 + 3);
	tap_eq_int(read_forward(0, &err), N, "a corrupt index entry: the rest is found in the data");
	flip(data, file_size(data) / 2);
	tap_eq_int(mc_store_open(dir, &rd, NULL), 0, "a store with a corrupt record opens");
	while ((r = mc_store_next(rd, &got)) != -ENODATA && n + bad < 2 * N) {
		if (r == -EBADMSG) {
			bad++;
			tap_check(mc_store_problem(rd) && strstr(mc_store_problem(rd), ".mcd': record at "),
				  "the problem names the file and offset: %s", mc_store_problem(rd));
		} else if (r == 0) {
			n++;
		}
	}
	tap_eq_int(bad, 1, "the corrupt record is one error");
	tap_check(n > N / 2 + 1 && n < N, "the records before it and from the next keyframe on read (%d)", n);
	mc_store_close(rd);
	mc_hist_sample_release(&got);
}

/*
 * A span that does not decode is remembered: seeking or stepping back into
 * it again reports the same record without decoding the span again (the
 * file repaired behind the reader's back shows it), until a refresh.
 */
static void test_broken_span(void)
{
	struct mc_store_opts o = { .keyframe_every = 8 };
	struct mc_hist_sample got = { 0 };
	struct mc_store_reader *rd;
	char data[128], idx[128], *first = NULL;
	const char *why = "";
	off_t at;
	int r;

	rmstore();
	write_all(&o, 5, 12);
	newest(data, sizeof(data), ".mcd");
	newest(idx, sizeof(idx), ".mci");
	at = rec_end(idx, 42) + 40;   /* in the payload of record 43, a delta of the span 40..47 */
	flip(data, at);
	tap_eq_int(mc_store_open(dir, &rd, NULL), 0, "a store with a corrupt delta record opens");
	tap_eq_int(mc_store_seek(rd, T0 + 46 * 5, &got), -EBADMSG, "a record after it in its span does not decode");
	first = mc_store_problem(rd) ? strdup(mc_store_problem(rd)) : NULL;
	tap_check(first && strstr(first, "record checksum mismatch"), "the problem names the bad record: %s",
		  first ? first : "(none)");
	flip(data, at);   /* repaired: only decoding the span again would see that */
	r = mc_store_prev(rd, &got);
	tap_eq_int(r, -EBADMSG, "a step back in the span: the same error, from memory");
	tap_check(first && mc_store_problem(rd) && strcmp(first, mc_store_problem(rd)) == 0,
		  "with the same problem: %s", mc_store_problem(rd) ? mc_store_problem(rd) : "(none)");
	tap_eq_int(mc_store_seek(rd, T0 + 43 * 5, &got), -EBADMSG, "the bad record itself, again");
	r = mc_store_seek(rd, T0 + 42 * 5, &got);
	tap_check(r == 0 && sample_same(&want[42], &got, &why), "the record before it in the span decodes (%s)", why);
	tap_eq_int(mc_store_refresh(rd), 0, "refresh");
	r = mc_store_seek(rd, T0 + 46 * 5, &got);
	tap_check(r == 0 && sample_same(&want[46], &got, &why), "after a refresh the span is decoded anew (%s)", why);
	free(first);
	mc_store_close(rd);
	mc_hist_sample_release(&got);
}

/* CRC-32C: the standard check value, and eight bytes at a time equal to one at a time. */
static void test_crc(void)
{
	unsigned char buf[300];
	uint32_t seed = 12345;
	bool same = true;

	tap_eq_int((long long)st_crc32c(0, "123456789", 9), 0xe3069283ll, "CRC-32C of \"123456789\"");
	tap_eq_int((long long)st_crc32c(0, "", 0), 0, "CRC-32C of nothing");
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)((seed = seed * 1103515245u + 12345u) >> 16);
	for (size_t off = 0; off < 8; off++)
		for (size_t n = 0; n + off <= sizeof(buf); n++) {
			uint32_t ref = ~0u, cut = n / 3;

			for (size_t i = 0; i < n; i++) {
				ref ^= buf[off + i];
				for (int k = 0; k < 8; k++)
					ref = ref & 1 ? (ref >> 1) ^ 0x82f63b78u : ref >> 1;
			}
			ref = ~ref;
			if (st_crc32c(0, buf + off, n) != ref ||
			    st_crc32c(st_crc32c(0, buf + off, cut), buf + off + cut, n - cut) != ref)
				same = false;
		}
	tap_check(same, "every length and alignment up to 300 bytes, whole and in two parts, as bit by bit");
}

static int count_files(const char *ext)
{
	char cmd[160];
	int n = -1;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls %s | grep -c '%s$'", dir, ext);
	p = popen(cmd, "r");
	if (p && fscanf(p, "%d", &n) != 1)
		n = -1;
	if (p)
		pclose(p);
	return n;
}

static void test_retention(void)
{
	struct mc_store_opts o = { .retain_s = 3 * 86400 };
	struct mc_store_writer *w;
	struct mc_store_reader *rd;
	double first, last;
	int err, n;

	rmstore();
	/* 100 samples 6 hours apart: 25 days, a shard each day; 3 days kept */
	write_all(&o, 6 * 3600, 3);
	tap_eq_int(count_files(".mcd"), 4, "by age: the shards of the last 3 days and today's are kept");
	tap_eq_int(mc_store_open(dir, &rd, NULL), 0, "reader opens");
	mc_store_range(rd, &first, &last);
	tap_check(last - first <= 4 * 86400 && last - first >= 3 * 86400, "they span 3 to 4 days (%.0f s)",
		  last - first);
	mc_store_close(rd);
	(void)err;
	rmstore();
	o = (struct mc_store_opts){ .max_bytes = 16 << 10 };
	write_all(&o, 5, 40);
	tap_eq_int(mc_store_writer_open(dir, &o, &w, NULL), 0, "writer reopens");
	tap_check(mc_store_writer_bytes(w) <= o.max_bytes, "by size: %llu bytes kept of at most %llu",
		  (unsigned long long)mc_store_writer_bytes(w), (unsigned long long)o.max_bytes);
	tap_check(count_files(".mcd") >= 2, "in whole shards (%d)", count_files(".mcd"));
	mc_store_writer_close(w);
	n = read_forward(0, &err);
	tap_check(n == 0 && err == 0, "the oldest samples are gone (%d, %d)", n, err);
}

/* A reader open while the writer appends: refresh takes in the new records and shards. */
static void test_refresh(void)
{
	struct mc_store_opts o = { .keyframe_every = 8 };
	struct mc_hist_sample got = { 0 };
	struct mc_store_reader *rd;
	struct mc_store_writer *w;
	const char *why = "";
	int n = 0, r;

	rmstore();
	tap_eq_int(mc_store_writer_open(dir, &o, &w, NULL), 0, "writer for refresh");
	for (unsigned k = 0; k < 10; k++) {
		mc_hist_sample_release(&want[k]);
		make_sample(&want[k], k, T0 + k * 3600, 4);
		mc_store_append(w, &want[k]);
	}
	tap_eq_int(mc_store_open(dir, &rd, NULL), 0, "reader opens the store being written");
	while (mc_store_next(rd, &got) == 0)
		n++;
	tap_eq_int(n, 10, "it reads what was written so far");
	/* 10 more, 3 hours apart: into the next day's shard too */
	for (unsigned k = 10; k < 20; k++) {
		mc_hist_sample_release(&want[k]);
		make_sample(&want[k], k, T0 + 9 * 3600 + (k - 9) * 3 * 3600, 4);
		mc_store_append(w, &want[k]);
	}
	tap_eq_int(mc_store_next(rd, &got), -ENODATA, "nothing new before the refresh");
	tap_eq_int(mc_store_refresh(rd), 0, "refresh");
	for (n = 10; (r = mc_store_next(rd, &got)) == 0 && n < 20 && sample_same(&want[n], &got, &why); n++)
		;
	tap_eq_int(n, 20, "after it, the position goes on into the new records and shards (%s)", why);
	r = mc_store_prev(rd, &got);
	tap_check(r == 0 && sample_same(&want[18], &got, &why), "and steps back across the old ones");
	mc_hist_sample_release(&got);
	mc_store_close(rd);
	mc_store_writer_close(w);
}

static void test_trust(void)
{
	struct mc_store_writer *w, *w2;
	struct mc_store_reader *rd;
	char *why = NULL, link[160], target[160];
	int r;

	rmstore();
	tap_eq_int(mc_store_writer_open(dir, NULL, &w, NULL), 0, "writer makes the store");
	tap_eq_int(mc_store_writer_open(dir, NULL, &w2, &why), -EBUSY, "a second writer: busy (%s)",
		   why ? why : "");
	free(why);
	why = NULL;
	mc_store_writer_close(w);
	chmod(dir, 0777);
	r = mc_store_open(dir, &rd, &why);
	tap_eq_int(r, -EPERM, "a store anyone can write is refused: %s", why ? why : "");
	free(why);
	why = NULL;
	chmod(dir, 0700);
	snprintf(target, sizeof(target), "%s-x", dir);
	snprintf(link, sizeof(link), "%s/20261201-000000.000.mcd", dir);
	if (symlink(target, link) < 0)
		printf("# symlink failed\n");
	r = mc_store_open(dir, &rd, &why);
	tap_eq_int(r, -EPERM, "a shard that is a symbolic link is refused: %s", why ? why : "");
	free(why);
}

/* The paths of s joined by spaces ("" shown as "."). */
static const char *paths(const struct mc_hist_sample *s)
{
	static char buf[256];
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < s->n_groups && off < sizeof(buf); i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s", i ? " " : "",
					*s->groups[i].g.path ? s->groups[i].g.path : ".");
	return buf;
}

/*
 * memctl run --record's sample is its snapshot taken before its writes:
 * the steps it carried out are brought in (mc_hist_sample_step), keeping
 * the groups in preorder, which the replay's model requires.
 */
static void test_sample_step(void)
{
	static const char *const start[] = { "", "a", "a/b", "c" };
	struct mc_hist_sample s = { 0 };
	struct mc_step st = { .kind = MC_STEP_MKDIR };

	s.parent = strdup("/p");
	s.groups = calloc(4, sizeof(*s.groups));
	s.cap_groups = 4;
	for (size_t i = 0; i < 4; i++) {
		s.groups[i].g.path = strdup(start[i]);
		s.groups[i].g.present = true;
		s.groups[i].g.usage_valid = true;
		s.groups[s.n_groups++].g.usage = 4096 * i;
	}
	st.group = "a/x";
	tap_eq_int(mc_hist_sample_step(&s, &st), 0, "mkdir a/x");
	tap_eq_str(paths(&s), ". a a/b a/x c", "a new group goes last below its parent (preorder)");
	st.group = "d";
	mc_hist_sample_step(&s, &st);
	st.group = "d/e";
	mc_hist_sample_step(&s, &st);
	tap_eq_str(paths(&s), ". a a/b a/x c d d/e", "new groups below new groups, in the order made");
	st.group = "a/x";
	mc_hist_sample_step(&s, &st);
	st.group = "q/r";
	mc_hist_sample_step(&s, &st);
	tap_eq_str(paths(&s), ". a a/b a/x c d d/e", "a group made twice, or below none: nothing");
	tap_check(!mc_hist_find(&s, "d")->g.usage_valid && !mc_hist_find(&s, "d")->tasks_valid,
		  "a new group has no values it was not given");
	st = (struct mc_step){ .kind = MC_STEP_WRITE, .group = "a/b", .knob = MC_KNOB_MAX,
			       .new_raw = 1 << 20 };
	s.groups[2].g.bad = 1u << MC_KNOB_MAX;
	tap_eq_int(mc_hist_sample_step(&s, &st), 0, "a write");
	tap_check(s.groups[2].g.raw_valid[MC_KNOB_MAX] && s.groups[2].g.raw[MC_KNOB_MAX] == 1 << 20 &&
		  !s.groups[2].g.bad && s.groups[2].g.usage == 8192,
		  "sets the knob to the value written (and it parses), the rest stays");
	st.group = "zz";
	tap_eq_int(mc_hist_sample_step(&s, &st), 0, "a write to a group the sample lacks: nothing");
	st = (struct mc_step){ .kind = MC_STEP_RMDIR, .group = "a" };
	mc_hist_sample_step(&s, &st);
	tap_eq_str(paths(&s), ". c d d/e", "a removed group goes with the groups below it");
	st.group = "";
	mc_hist_sample_step(&s, &st);
	tap_eq_str(paths(&s), ". c d d/e", "the parent stays");
	mc_hist_sample_release(&s);
}

/* The keys of kv as copies: the encoder cannot go by their address. */
static void unborrow(struct mc_kvs *kv)
{
	struct mc_kvs c = { 0 };

	for (size_t i = 0; i < kv->n; i++)
		mc_kvs_add(&c, kv->v[i].key, strlen(kv->v[i].key), kv->v[i].val);
	mc_kvs_free(kv);
	*kv = c;
}

static bool encode(struct st_enc *e, const struct mc_hist_sample *s, bool *ret_key)
{
	if (st_enc_sample(e, s, ret_key) < 0)
		return false;
	st_enc_commit(e);
	return true;
}

static void test_key_memo(void)
{
	struct st_enc a = { .key_every = 8 }, b = { .key_every = 8 };
	struct mc_hist_sample s, c, got = { 0 };
	struct st_dec d = { 0 };
	char key[16] = "anon";
	bool same = true, ka, kb, ok;

	/* the same samples with constant keys (remembered) and copied ones (interned each time) */
	for (unsigned k = 0; k < 40; k++) {
		make_sample(&s, k, T0 + k, 12);
		make_sample(&c, k, T0 + k, 12);
		for (size_t i = 0; i < c.n_groups; i++) {
			unborrow(&c.groups[i].g.stat);
			unborrow(&c.groups[i].g.events);
			for (size_t n = 0; n < c.groups[i].g.n_numa; n++)
				unborrow(&c.groups[i].g.numa[n]);
		}
		ok = encode(&a, &s, &ka) && encode(&b, &c, &kb);
		same = same && ok && ka == kb && a.raw_len == b.raw_len && memcmp(a.raw, b.raw, a.raw_len) == 0;
		mc_hist_sample_release(&s);
		mc_hist_sample_release(&c);
	}
	tap_check(same, "40 records, 5 keyframes: the same bytes whether keys are remembered or not");
	st_enc_release(&a);
	/* a key's memory that holds another string by the next record: the new name is recorded */
	make_sample(&s, 0, T0, 1);
	mc_kvs_free(&s.groups[1].g.stat);
	mc_kvs_add_borrowed(&s.groups[1].g.stat, key, 1);
	ok = encode(&a, &s, &ka) && ka && st_dec_record(&d, a.raw, a.raw_len, true) == 0;
	strcpy(key, "file");
	s.groups[1].g.stat.v[0].val = 2;
	ok = ok && encode(&a, &s, &ka) && !ka && st_dec_record(&d, a.raw, a.raw_len, false) == 0 &&
	     st_dec_sample(&d, (uint64_t)T0 * 1000000000u, &got) == 0;
	{
		const struct mc_hist_group *g = ok ? mc_hist_find(&got, s.groups[1].g.path) : NULL;
		uint64_t v = 0;

		tap_check(g && mc_kvs_get(&g->g.stat, "file", &v) == 0 && v == 2 &&
				  mc_kvs_get(&g->g.stat, "anon", &v) == -ENOENT,
			  "a key whose memory now says 'file' is recorded as 'file', not as the 'anon' it was");
	}
	mc_hist_sample_release(&got);
	mc_hist_sample_release(&s);
	st_dec_release(&d);
	st_enc_release(&a);
	st_enc_release(&b);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/memctl-test-store.%ld", (long)getpid());
	test_roundtrip();
	test_torn();
	test_corrupt();
	test_broken_span();
	test_crc();
	test_retention();
	test_refresh();
	test_trust();
	test_sample_step();
	test_key_memo();
	rmstore();
	for (int k = 0; k < N; k++)
		mc_hist_sample_release(&want[k]);
	return tap_done();
}
