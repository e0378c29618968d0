/*
 * bench-replay: the cost of one step of `memctl top --replay` through top's
 * own path (the recorded source, the model's refresh, the rows a screen
 * shows filled), against the store's reader alone (decoding the next
 * sample: the floor).
 *
 *   bench-replay make DIR GROUPS SAMPLES
 *       writes a store of SAMPLES samples, 5 s apart, of a tree of GROUPS
 *       groups (GROUPS / 100 parents of up to 100 children each), with
 *       memory.stat, events, numa_stat (2 nodes), pressure and task counts
 *       as a v2 host records them; counters grow from sample to sample, a
 *       few groups come and go
 *   bench-replay time DIR WAY STEPS ROWS
 *       WAY step: STEPS steps forward (] on the screen), each the source's
 *       step, top_model_refresh and top_model_fill of ROWS rows with the
 *       columns of the default screen; back: the same backwards ([); reader:
 *       mc_store_next alone; reader-back: mc_store_prev alone. Prints "WAY groups median_wall_us median_cpu_us"
 *       per step.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench-util.h"
#include "columns.h"
#include "model.h"
#include "source.h"
#include "store.h"

static const char *const stat_keys[] = {
	"anon", "file", "kernel", "kernel_stack", "pagetables", "sec_pagetables", "percpu", "sock",
	"vmalloc", "shmem", "file_mapped", "file_dirty", "file_writeback", "swapcached", "anon_thp",
	"file_thp", "shmem_thp", "inactive_anon", "active_anon", "inactive_file", "active_file",
	"unevictable", "slab_reclaimable", "slab_unreclaimable", "slab", "workingset_refault_anon",
	"workingset_refault_file", "workingset_activate_anon", "workingset_activate_file",
	"workingset_restore_anon", "workingset_restore_file", "workingset_nodereclaim", "pgscan",
	"pgsteal", "pgfault", "pgmajfault", "thp_fault_alloc", "thp_collapse_alloc",
};
static const char *const event_keys[] = { "low", "high", "max", "oom", "oom_kill" };
static const char *const numa_keys[] = { "anon", "file", "kernel_stack", "shmem", "file_mapped",
					 "file_dirty", "inactive_anon", "active_anon",
					 "inactive_file", "active_file" };
#define N(a) (sizeof(a) / sizeof((a)[0]))

static void fill_group(struct mc_hist_group *hg, char *path, unsigned k, size_t i)
{
	struct mc_group_snap *g = &hg->g;

	g->path = path;
	g->present = true;
	g->usage = (100u << 20) + 4096u * (k * 7 + i);
	g->usage_valid = true;
	for (int kn = 0; kn < MC_KNOB__COUNT; kn++) {
		g->raw[kn] = kn == MC_KNOB_MAX ? (1ull << 30) + (i % 7) * (1u << 20) : 0;
		g->raw_valid[kn] = true;
	}
	for (size_t j = 0; j < N(stat_keys); j++)
		mc_kvs_add_borrowed(&g->stat, stat_keys[j], 4096u * (i + j) + (j >= 25 ? 13u * k : 0));
	for (size_t j = 0; j < N(event_keys); j++)
		mc_kvs_add_borrowed(&g->events, event_keys[j], j == 2 ? k / 3 : 0);
	g->n_numa = 2;
	g->numa = calloc(2, sizeof(*g->numa));
	if (!g->numa)
		bench_die("calloc", -ENOMEM);
	for (size_t nd = 0; nd < 2; nd++)
		for (size_t j = 0; j < N(numa_keys); j++)
			mc_kvs_add_borrowed(&g->numa[nd], numa_keys[j], 4096u * (i + j + nd));
	g->psi.valid = true;
	g->psi.some_avg10 = 0.5;
	g->psi.some_total = 1000u * k + i;
	hg->tasks = i % 5;
	hg->tasks_valid = true;
}

/* Sample k: the parent, then GROUPS/100 parents with their children (one of them gone now and then). */
static void make_sample(struct mc_hist_sample *s, unsigned k, size_t groups, double t)
{
	size_t parents = groups / 100 ? groups / 100 : 1, per = groups / parents;

	memset(s, 0, sizeof(*s));
	s->time = t;
	s->parent = strdup("/bench/replay");
	s->cgroup_version = 2;
	s->groups = calloc(groups + parents + 1, sizeof(*s->groups));
	if (!s->parent || !s->groups)
		bench_die("calloc", -ENOMEM);
	fill_group(&s->groups[s->n_groups++], strdup(""), k, 0);
	for (size_t p = 0; p < parents; p++) {
		char path[64];

		snprintf(path, sizeof(path), "p%03zu", p);
		fill_group(&s->groups[s->n_groups], strdup(path), k, s->n_groups);
		s->n_groups++;
		for (size_t c = 0; c + 1 < per; c++) {
			if ((c + k) % 97 == 0)
				continue;   /* groups come and go */
			snprintf(path, sizeof(path), "p%03zu/g%03zu", p, c);
			fill_group(&s->groups[s->n_groups], strdup(path), k, s->n_groups);
			s->n_groups++;
		}
	}
	mc_kvs_add(&s->host.meminfo, "MemTotal", 8, 16ull << 30);
	s->host.psi.valid = true;
}

static int cmd_make(const char *dir, size_t groups, unsigned samples)
{
	struct mc_store_writer *w;
	char *why = NULL;
	int r = mc_store_writer_open(dir, NULL, &w, &why);

	if (r < 0) {
		fprintf(stderr, "bench-replay: cannot write the store in '%s': %s\n", dir,
			why ? why : strerror(-r));
		return 1;
	}
	for (unsigned k = 0; k < samples; k++) {
		struct mc_hist_sample s;

		make_sample(&s, k, groups, 1796083200.0 + 5.0 * k);
		r = mc_store_append(w, &s);
		mc_hist_sample_release(&s);
		if (r < 0)
			bench_die("mc_store_append", r);
	}
	mc_store_writer_close(w);
	return 0;
}

/* One step of the way, timed by the caller. */
static void one_step(const char *way, struct top_model *m, struct mc_store_reader *rd,
		     struct mc_hist_sample *s, size_t rows, unsigned parts)
{
	struct top_source *src = m->src;
	int r;

	if (strcmp(way, "reader-back") == 0) {
		r = mc_store_prev(rd, s);
		if (r == -ENODATA)
			bench_die("the store began before the steps did (make more samples)", r);
	} else if (strcmp(way, "reader") == 0) {
		r = mc_store_next(rd, s);
		if (r == -ENODATA) {
			mc_store_close(rd);
			bench_die("the store ended before the steps did (make more samples)", r);
		}
	} else {
		r = src->ops->step(src, strcmp(way, "back") == 0 ? -1 : 1);
		if (r == 0)
			r = top_model_refresh(m, 0);
		if (r == 0)
			r = top_model_fill(m, 0, rows, (size_t)-1, parts);
	}
	if (r < 0)
		bench_die(way, r);
}

static int cmd_time(const char *dir, const char *way, int steps, size_t rows)
{
	static const int screen_cols[] = { TOP_COL_NAME, TOP_COL_USAGE, 2, 3, 4, 5, 6, 7, 8, 9 };
	struct top_source *src;
	struct top_model m;
	struct mc_store_reader *rd = NULL;
	struct mc_hist_sample s = { 0 };
	struct bench_times t;
	char *why = NULL;
	bool back = strcmp(way, "back") == 0 || strcmp(way, "reader-back") == 0;
	int r = top_source_replay(dir, back ? 9e9 : 0, &src, &why);

	if (r < 0) {
		fprintf(stderr, "bench-replay: cannot read '%s': %s\n", dir, why ? why : strerror(-r));
		return 1;
	}
	if (top_model_init_source(&m, NULL, src->parent, src) < 0 || top_model_refresh(&m, 0) < 0)
		bench_die("the model", -ENOMEM);
	m.sort_col = TOP_COL_USAGE;   /* as the screen sorts */
	if (strncmp(way, "reader", 6) == 0 && (r = mc_store_open(dir, &rd, &why)) < 0)
		bench_die("mc_store_open", r);
	if (back && rd && (r = mc_store_seek(rd, 9e9, &s)) < 0)
		bench_die("mc_store_seek", r);
	bench_times_init(&t, steps);
	for (int i = 0; i < steps; i++) {
		struct bench_clock c;

		bench_clock_start(&c);
		one_step(way, &m, rd, &s, rows, top_cols_parts(screen_cols, N(screen_cols)));
		bench_clock_stop(&c, &t, i);
	}
	printf("%s\t%zu\t%.1f\t%.1f\n", way, m.n, bench_median(t.wall, (size_t)steps),
	       bench_median(t.cpu, (size_t)steps));
	bench_times_free(&t);
	mc_hist_sample_release(&s);
	if (rd)
		mc_store_close(rd);
	top_model_release(&m);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "make") == 0)
		return cmd_make(argv[2], strtoul(argv[3], NULL, 10), (unsigned)strtoul(argv[4], NULL, 10));
	if (argc == 6 && strcmp(argv[1], "time") == 0)
		return cmd_time(argv[2], argv[3], atoi(argv[4]), strtoul(argv[5], NULL, 10));
	fprintf(stderr, "usage: bench-replay make DIR GROUPS SAMPLES\n"
			"       bench-replay time DIR step|back|reader|reader-back STEPS ROWS\n");
	return 2;
}
