/*
 * The recorded source of the read model (view/source-replay.c) on a store
 * written here: the model at a time shows that sample's values, stepping
 * moves one sample either way and stops at the ends, groups that come and
 * go rebuild the rows, rates are those between the sample shown and the
 * one before it whichever way the operator stepped, the decisions are
 * those recorded with the sample, and a store that is missing, empty or
 * not a tree is an error, not a crash.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "columns.h"
#include "model.h"
#include "render.h"
#include "source.h"
#include "store.h"
#include "tap.h"

static const double T0 = 1796083200.0;   /* 2026-12-01 00:00:00 UTC */
static char dir[64];

static struct mc_hist_group *add_group(struct mc_hist_sample *s, const char *path, uint64_t usage,
				       uint64_t refaults, uint64_t maxev)
{
	struct mc_hist_group *hg = &s->groups[s->n_groups++];
	struct mc_group_snap *g = &hg->g;

	g->path = strdup(path);
	g->present = true;
	g->usage = usage;
	g->usage_valid = true;
	g->raw[MC_KNOB_MAX] = 1u << 30;
	g->raw_valid[MC_KNOB_MAX] = true;
	mc_kvs_add_borrowed(&g->stat, "anon", usage / 2);
	mc_kvs_add_borrowed(&g->stat, "workingset_refault_file", refaults);
	mc_kvs_add_borrowed(&g->events, "max", maxev);
	hg->tasks = 3;
	hg->tasks_valid = true;
	return hg;
}

/*
 * Sample k (0, 1, 2) at T0 + 5k: groups "", a, a/b; the last has c instead
 * of a/b. a's refaults go 0, 500, 1500 (100/s, then 200/s); sample 1 was
 * recorded by memctl run with a decision about a. Every group's max is
 * 1G; from sample 1 on the parent's effective limit, 512M, is recorded.
 */
static void make_sample(struct mc_hist_sample *s, unsigned k, const char *first_path)
{
	static const uint64_t refaults[] = { 0, 500, 1500 };

	memset(s, 0, sizeof(*s));
	s->time = T0 + 5 * k;
	s->parent = strdup("/test/p");
	s->cgroup_version = 1;
	s->groups = calloc(4, sizeof(*s->groups));
	add_group(s, first_path, 10000000 + k, 0, 0);
	add_group(s, "a", 1000000 * (k + 1), refaults[k], 10 * k);
	add_group(s, k == 2 ? "c" : "a/b", 4096 * (k + 1), 0, 0);
	mc_kvs_add(&s->host.meminfo, "MemTotal", 8, 8ull << 30);
	/* the limit above the parent, recorded from sample 1 on (sample 0 is as older stores) */
	s->parent_limit_valid = k > 0;
	s->parent_limit = 512u << 20;
	s->host.psi.valid = true;
	s->host.psi.some_avg10 = 1.5 + k;
	if (k == 1) {
		struct mc_run_decision d = { MC_RUN_WRITE, "/test/p/a", "soft-limit", "memory.limit_in_bytes",
					     true, 2u << 30, 1u << 30, 0, 0, "over its soft limit" };

		s->have_run = true;
		s->run.pid = 42;
		s->run.interval = 7;
		s->run.time = s->time - 0.5;
		s->run.parent = strdup("/test/p");
		s->run.profile = strdup("/etc/memctl/p.yaml");
		mc_runstate_add_decision(&s->run, &d);
	}
}

static void write_store(const char *first_path_of_last)
{
	struct mc_store_writer *w;
	char *why = NULL;
	int r = mc_store_writer_open(dir, NULL, &w, &why);

	tap_eq_int(r, 0, "writer opens %s (%s)", dir, why ? why : "");
	free(why);
	if (r < 0)
		exit(tap_done());
	for (unsigned k = 0; k < 3; k++) {
		struct mc_hist_sample s;

		make_sample(&s, k, k == 2 ? first_path_of_last : "");
		tap_eq_int(mc_store_append(w, &s), 0, "sample %u appended", k);
		mc_hist_sample_release(&s);
	}
	mc_store_writer_close(w);
}

static void rmstore(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		printf("# cannot remove %s\n", dir);
}

static const struct top_row *row(const struct top_model *m, const char *path)
{
	size_t i = top_model_find(m, path);

	return i == (size_t)-1 ? NULL : &m->rows[i];
}

/* Refreshes m, fills every row, and checks the shown sample's time and a's values. */
static void check_at(struct top_model *m, unsigned k, bool rate_valid, double rate)
{
	const struct top_row *a;

	tap_eq_int(top_model_refresh(m, 0), 0, "refresh at sample %u", k);
	tap_eq_int(top_model_fill(m, 0, m->n_order, (size_t)-1, MC_READ_ALL | TOP_READ_TASKS), 0,
		   "fill at sample %u", k);
	tap_check(m->wall == T0 + 5 * k, "the model's time is sample %u's (%.1f)", k, m->wall - T0);
	a = row(m, "a");
	tap_check(a != NULL, "row a at sample %u", k);
	if (!a)
		return;
	tap_eq_u64(a->g.usage, 1000000 * (k + 1), "a's usage at sample %u", k);
	tap_eq_int(a->refault.valid, rate_valid, "a's refault rate %s at sample %u",
		   rate_valid ? "known" : "unknown", k);
	if (rate_valid)
		tap_check(a->refault.rate == rate, "a's refault rate %.1f/s at sample %u (want %.1f)",
			  a->refault.rate, k, rate);
	tap_eq_int(a->tasks_valid && a->tasks == 3, 1, "a's recorded task count");
	tap_check(m->host_psi_valid && m->host_psi.some_avg10 == 1.5 + k, "host PSI of sample %u", k);
	tap_check(row(m, "a/b") != NULL || k == 2, "a/b there until sample 2");
	tap_check((row(m, "c") != NULL) == (k == 2), "c there only at sample 2");
}

static void test_steps(void)
{
	struct top_source *src;
	struct top_model m;
	char *why = NULL;
	const struct top_row *a;

	write_store("");
	tap_eq_int(top_source_replay(dir, T0 + 7, &src, &why), 0, "opens at T0+7 (%s)",
		   why ? why : "");
	free(why);
	tap_eq_str(src->parent, "/test/p", "the recorded parent");
	tap_eq_int(top_model_init_source(&m, NULL, src->parent, src), 0, "model over the store");
	check_at(&m, 1, true, 100);
	a = row(&m, "a");
	tap_check(a && a->decision && strstr(a->decision, "over its soft limit"),
		  "the decision recorded with sample 1: %s", a && a->decision ? a->decision : "(none)");
	tap_check(a && top_row_daemon(&m, a) && top_row_daemon(&m, a)->pid == 42,
		  "recorded by run 42");
	tap_check(m.caps->ver == MC_CGV1 && m.caps->file[MC_KNOB_MAX] && !m.caps->file[MC_KNOB_HIGH],
		  "the recording host's knobs: v1, max, no high");
	tap_eq_u64(a ? a->eff_limit : 0, 512u << 20,
		   "%%LIM's limit: the recorded parent's effective limit (its ancestors'), not RAM");

	tap_eq_int(src->ops->step(src, 1), 0, "] to sample 2");
	check_at(&m, 2, true, 200);
	a = row(&m, "a");
	tap_check(a && !a->decision, "no run recorded with sample 2: no decision");
	tap_eq_int(src->ops->step(src, 1), -ENODATA, "] at the last sample: nothing after it");
	tap_check(src->ops->wall(src) == T0 + 10, "and it stays there");

	tap_eq_int(src->ops->step(src, -1), 0, "[ back to sample 1");
	check_at(&m, 1, true, 100);
	tap_eq_int(src->ops->step(src, -1), 0, "[ back to sample 0");
	check_at(&m, 0, false, 0);
	a = row(&m, "a");
	tap_eq_u64(a ? a->eff_limit : 0, 1u << 30,
		   "a sample without it (an older store): RAM above the parent, then the max files");
	tap_eq_int(src->ops->step(src, -1), -ENODATA, "[ at the first sample: nothing before it");
	tap_eq_int(src->ops->step(src, 2), 0, "two samples on at once");
	check_at(&m, 2, true, 200);

	tap_eq_int(src->ops->seek(src, T0 + 1000), 0, "a time after the last: the last");
	tap_check(src->ops->wall(src) == T0 + 10, "at T0+10");
	tap_eq_int(src->ops->seek(src, 0), 0, "a time before the first: the first");
	check_at(&m, 0, false, 0);
	tap_eq_int(src->ops->seek(src, T0 + 5), 0, "exactly a sample's time");
	check_at(&m, 1, true, 100);
	{
		struct mc_buf b = { 0 };
		int cols[] = { TOP_COL_NAME, TOP_COL_USAGE };

		top_render_json(&b, &m, cols, 2);
		tap_check(mc_buf_error(&b) == 0 && strstr(mc_buf_str(&b), "\"time\":1796083205.000") &&
			  strstr(mc_buf_str(&b), "\"usage\":2000000"),
			  "JSON of the sample: its time and values");
		mc_buf_release(&b);
	}
	top_model_release(&m);
	rmstore();
}

static void test_bad(void)
{
	struct top_source *src = NULL;
	char *why = NULL;

	tap_eq_int(top_source_replay("/nonexistent/memctl-store", T0, &src, &why), -ENOENT,
		   "no such store");
	free(why);
	why = NULL;
	/* a store whose last sample does not start with the parent */
	write_store("z");
	tap_eq_int(top_source_replay(dir, T0 + 10, &src, &why), -EBADMSG,
		   "a sample that is no tree is refused");
	tap_check(why && strstr(why, "no tree"), "and says so: %s", why ? why : "(nothing)");
	free(why);
	why = NULL;
	/* the samples before it still open, and stepping onto it is refused */
	tap_eq_int(top_source_replay(dir, T0 + 5, &src, &why), 0, "the sample before it opens");
	free(why);
	if (src) {
		tap_eq_int(src->ops->step(src, 1), -EBADMSG, "stepping onto it is refused");
		tap_check(src->ops->problem(src) != NULL, "with the problem: %s",
			  src->ops->problem(src) ? src->ops->problem(src) : "");
		tap_check(src->ops->wall(src) == T0 + 5, "and stays on the sample shown");
		tap_eq_int(src->ops->step(src, -1), 0, "going back still works");
		top_source_free(src);
	}
	rmstore();
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/memctl-test-replay.%d", (int)getpid());
	test_steps();
	test_bad();
	return tap_done();
}
