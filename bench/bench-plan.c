/*
 * Engine cost: profile parse and plan for N groups, on a synthetic snapshot
 * (no host, no I/O: the pure engine only). A measuring instrument for
 * bench/plan.sh; it asserts nothing about time, but it does check that each
 * plan has the number of steps the profile implies, so a fast wrong answer
 * cannot pass for a fast right one.
 *
 * The profile: one group "bench" (max 8G) with N children, each with max and
 * soft_limit (the two memory settings of the cgconfig.conf in bench/apply.sh).
 * Ways, interleaved round by round, one TSV row each (medians):
 *   parse      mc_profile_parse of the YAML text (built once, in memory)
 *   plan-new   mc_plan_build against a snapshot of the parent alone: every
 *              group is created and written (1 + N mkdirs, 2 + 2N writes)
 *   plan-diff  against a snapshot holding every group with other values:
 *              2N writes
 *   plan-same  against a snapshot already equal to the profile: no step
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench-util.h"
#include "plan.h"

#define MiB (1024ULL * 1024)
#define GiB (1024 * MiB)

enum way { PARSE, PLAN_NEW, PLAN_DIFF, PLAN_SAME, WAY__COUNT };
static const char *const way_name[WAY__COUNT] = { "parse", "plan-new", "plan-diff", "plan-same" };

static const struct mc_caps caps_v1 = {
	.ver = MC_CGV1,
	.file = { "memory.limit_in_bytes", NULL, NULL, NULL, "memory.soft_limit_in_bytes",
		  "memory.memsw.limit_in_bytes" },
	.page_size = 4096,
	.mem_total = 16 * GiB,
};

/* Group i's settings: distinct, page-aligned, soft below max. */
static uint64_t g_max(size_t i) { return 64 * MiB + i * 4096 * 16; }
static uint64_t g_soft(size_t i) { return 32 * MiB + i * 4096 * 8; }

static char *profile_text(size_t n, size_t *ret_len)
{
	char *p = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&p, &len);

	if (!f)
		bench_die("open_memstream", errno);
	fprintf(f, "version: 1\nparent: /bench\ngroups:\n  bench:\n    max: 8G\n    groups:\n");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "      g%06zu: { max: %llu, soft_limit: %llu }\n", i,
			(unsigned long long)g_max(i), (unsigned long long)g_soft(i));
	if (fclose(f) != 0)
		bench_die("open_memstream", ENOMEM);
	*ret_len = len;
	return p;
}

/* The parent, then (when n_children >= 0) "bench" and its children. */
static void snap_make(struct mc_snapshot *s, long n_children, int values)
{
	size_t n = n_children < 0 ? 1 : 2 + (size_t)n_children;

	memset(s, 0, sizeof(*s));
	s->parent = strdup("/bench");
	s->parent_limit = caps_v1.mem_total;
	s->groups = calloc(n, sizeof(*s->groups));
	if (!s->parent || !s->groups)
		bench_die("calloc", ENOMEM);
	s->n = n;
	for (size_t i = 0; i < n; i++) {
		struct mc_group_snap *g = &s->groups[i];
		uint64_t max = MC_SIZE_MAX, soft = MC_SIZE_MAX;

		if (i == 0)
			g->path = strdup("");
		else if (i == 1)
			g->path = strdup("bench"), max = 8 * GiB;
		else if (asprintf(&g->path, "bench/g%06zu", i - 2) < 0)
			g->path = NULL;
		if (!g->path)
			bench_die("strdup", ENOMEM);
		if (i >= 2 && values == 0)
			max = g_max(i - 2), soft = g_soft(i - 2);
		else if (i >= 2)
			max = 2 * g_max(i - 2), soft = 2 * g_soft(i - 2);
		g->present = true;
		g->raw[MC_KNOB_MAX] = max;
		g->raw[MC_KNOB_SOFT] = soft;
		g->raw[MC_KNOB_SWAP] = MC_SIZE_MAX;
		g->raw_valid[MC_KNOB_MAX] = g->raw_valid[MC_KNOB_SOFT] = g->raw_valid[MC_KNOB_SWAP] = true;
	}
}

static void plan_once(const struct mc_profile *p, const struct mc_snapshot *s, size_t want_changes,
		      const char *what)
{
	struct mc_plan_opts o = { .create = true };
	struct mc_diags d = { 0 };
	struct mc_plan plan;
	int r = mc_plan_build(p, s, &caps_v1, &o, &plan, &d);

	if (r < 0) {
		for (size_t i = 0; i < d.n; i++)
			fprintf(stderr, "bench-plan: %s\n", d.v[i].msg);
		bench_die(what, r);
	}
	if (mc_plan_n_changes(&plan) != want_changes) {
		fprintf(stderr, "bench-plan: %s: %zu changes, want %zu\n", what, mc_plan_n_changes(&plan),
			want_changes);
		exit(1);
	}
	mc_plan_free(&plan);
	mc_diags_free(&d);
}

/*
 * One round of way w on the profile text (PARSE fills *p for the plans after
 * it) and the snapshots new, diff and same of n groups.
 */
static void run_way(int w, const char *text, size_t len, struct mc_profile *p, struct mc_diags *d,
		    struct mc_snapshot *const snaps[3], size_t n)
{
	int r;

	switch (w) {
	case PARSE:
		r = mc_profile_parse("bench.yaml", text, len, p, d);
		if (r < 0) {
			for (size_t k = 0; k < d->n; k++)
				fprintf(stderr, "bench-plan: %s\n", d->v[k].msg);
			bench_die("mc_profile_parse", r);
		}
		break;
	case PLAN_NEW:
		/* bench and its children: a mkdir each; max and soft each */
		plan_once(p, snaps[0], 3 * (n + 1) - 1, "plan-new");
		break;
	case PLAN_DIFF:
		plan_once(p, snaps[1], 2 * n, "plan-diff");
		break;
	case PLAN_SAME:
		plan_once(p, snaps[2], 0, "plan-same");
		break;
	}
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: bench-plan GROUPS [ROUNDS]\n"
				"output: way groups rounds wall_us cpu_us (TSV, medians)\n");
		return 2;
	}
	size_t n = strtoul(argv[1], NULL, 10);
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	size_t len;
	char *text = profile_text(n, &len);
	struct mc_snapshot s_new, s_diff, s_same;
	struct mc_snapshot *const snaps[] = { &s_new, &s_diff, &s_same };
	struct bench_times t[WAY__COUNT];

	if (n == 0 || rounds < 1) {
		fprintf(stderr, "bench-plan: GROUPS and ROUNDS must be positive\n");
		return 2;
	}
	snap_make(&s_new, -1, 0);
	snap_make(&s_diff, (long)n, 1);
	snap_make(&s_same, (long)n, 0);
	for (int w = 0; w < WAY__COUNT; w++)
		bench_times_init(&t[w], rounds);
	for (int i = 0; i < rounds; i++) {
		struct mc_profile p;

		for (int w = 0; w < WAY__COUNT; w++) {
			struct mc_diags d = { 0 };
			struct bench_clock clk;

			bench_clock_start(&clk);
			run_way(w, text, len, &p, &d, snaps, n);
			bench_clock_stop(&clk, &t[w], i);
			mc_diags_free(&d);
		}
		mc_profile_free(&p);
	}
	for (int w = 0; w < WAY__COUNT; w++)
		printf("%s\t%zu\t%d\t%.1f\t%.1f\n", way_name[w], n, rounds, bench_median(t[w].wall, (size_t)rounds),
		       bench_median(t[w].cpu, (size_t)rounds));
	for (int w = 0; w < WAY__COUNT; w++)
		bench_times_free(&t[w]);
	mc_snapshot_free(&s_new);
	mc_snapshot_free(&s_diff);
	mc_snapshot_free(&s_same);
	free(text);
	return 0;
}
