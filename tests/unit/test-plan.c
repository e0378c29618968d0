/*
 * Planner tests: hand-computed plans for the ordering rules, then a
 * randomized check that every plan's intermediate states are valid, that it
 * reaches the profile, and that planning again afterwards changes nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "tap.h"

#define M (1024ULL * 1024)
#define G (1024ULL * M)
#define UNL MC_SIZE_MAX
#define NA 1 /* "no file" marker in a snapshot row: value 1 is never a real limit */

static struct mc_caps caps_v2 = {
	.ver = MC_CGV2,
	.file = { "memory.max", "memory.high", "memory.low", "memory.min", NULL, "memory.swap.max" },
	.page_size = 4096,
	.mem_total = 16 * G,
};

static struct mc_caps caps_v1 = {
	.ver = MC_CGV1,
	.file = { "memory.limit_in_bytes", NULL, NULL, NULL, "memory.soft_limit_in_bytes",
		  "memory.memsw.limit_in_bytes" },
	.page_size = 4096,
	.mem_total = 16 * G,
};

/* A snapshot row: path and raw values in knob order (max high low min soft swap). */
struct row {
	const char *path;
	uint64_t raw[MC_KNOB__COUNT];
	bool no_mem;    /* v2: its subtree_control lacks memory */
};

static void snap_from_rows(struct mc_snapshot *s, const struct row *rows, size_t n,
			   uint64_t parent_limit)
{
	memset(s, 0, sizeof(*s));
	s->parent = strdup("/test");
	s->parent_limit = parent_limit;
	s->groups = calloc(n, sizeof(*s->groups));
	s->n = n;
	for (size_t i = 0; i < n; i++) {
		s->groups[i].path = strdup(rows[i].path);
		s->groups[i].no_memory_children = rows[i].no_mem;
		s->groups[i].present = true;
		for (int k = 0; k < MC_KNOB__COUNT; k++) {
			s->groups[i].raw[k] = rows[i].raw[k];
			s->groups[i].raw_valid[k] = rows[i].raw[k] != NA;
		}
	}
}

static void snap_free(struct mc_snapshot *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->groups[i].path);
	free(s->groups);
	free(s->parent);
}

static struct mc_size B(uint64_t v)
{
	return (struct mc_size){ .kind = v == UNL ? MC_SIZE_UNLIMITED : MC_SIZE_BYTES, .bytes = v };
}

#define SZ(v) { MC_SIZE_BYTES, (v), 0 }
#define PC(c) { MC_SIZE_PERCENT, 0, (c) }

static void spec_init(struct mc_group_spec *g, const char *name)
{
	memset(g, 0, sizeof(*g));
	g->name = (char *)name;
	g->thp = -1;
}

/* "write GROUP FILE NEW" or "mkdir GROUP" or "note GROUP KNOB" per step, joined by "; " */
static char *plan_str(const struct mc_plan *p)
{
	static char buf[4096];
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < p->n; i++) {
		const struct mc_step *s = &p->steps[i];
		char v[24];

		if (s->kind == MC_STEP_MKDIR)
			off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%smkdir %s", i ? "; " : "",
						s->group);
		else if (s->kind == MC_STEP_ENABLE)
			off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%senable %s", i ? "; " : "",
						s->group);
		else if (s->kind == MC_STEP_WRITE)
			off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s %s=%s", i ? "; " : "",
						s->group, s->file,
						mc_size_format(s->new_raw, v, sizeof(v)) < 0 ? "?" : v);
		else
			off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%snote %s %s",
						i ? "; " : "", s->group, mc_knob_info(s->knob)->name);
	}
	return buf;
}

struct case_ {
	const char *name;
	const struct mc_caps *caps;
	struct row rows[4];
	size_t n_rows;
	uint64_t parent_limit;
	/* the profile: group a (and optionally a/b) with knobs */
	const char *a_name;
	struct mc_size a[MC_KNOB__COUNT];
	const char *b_name;
	struct mc_size b[MC_KNOB__COUNT];
	bool no_create;
	const char *want;      /* plan_str, or NULL when an error is expected */
	const char *want_err;  /* substring of the first diagnostic */
};

static const struct case_ cases[] = {
	{ "v2 new group: create, then max before high", &caps_v2,
	  { { "", { UNL, UNL, 0, 0, NA, UNL } } }, 1, UNL,
	  "web", { [MC_KNOB_MAX] = SZ(512 * M), [MC_KNOB_HIGH] = SZ(256 * M) },
	  NULL, { { 0 } }, false,
	  "mkdir web; web memory.max=512M; web memory.high=256M", NULL },
	{ "v2 lowering: high before max", &caps_v2,
	  { { "", { UNL, UNL, 0, 0, NA, UNL } }, { "web", { 1 * G, 800 * M, 0, 0, NA, UNL } } }, 2, UNL,
	  "web", { [MC_KNOB_MAX] = SZ(512 * M), [MC_KNOB_HIGH] = SZ(256 * M) },
	  NULL, { { 0 } }, false,
	  "web memory.high=256M; web memory.max=512M", NULL },
	{ "v2 raising the whole chain: from the top", &caps_v2,
	  { { "", { UNL, UNL, 0, 0, NA, UNL } }, { "web", { 512 * M, 256 * M, 128 * M, 64 * M, NA, UNL } } }, 2, UNL,
	  "web", { [MC_KNOB_MAX] = SZ(2 * G), [MC_KNOB_HIGH] = SZ(1 * G),
		   [MC_KNOB_LOW] = SZ(768 * M), [MC_KNOB_MIN] = SZ(600 * M) },
	  NULL, { { 0 } }, false,
	  "web memory.max=2G; web memory.high=1G; web memory.low=768M; web memory.min=600M", NULL },
	{ "v2 lowering low and min: from the bottom", &caps_v2,
	  { { "", { UNL, UNL, 0, 0, NA, UNL } }, { "web", { 2 * G, 1 * G, 768 * M, 600 * M, NA, UNL } } }, 2, UNL,
	  "web", { [MC_KNOB_HIGH] = SZ(200 * M), [MC_KNOB_LOW] = SZ(100 * M),
		   [MC_KNOB_MIN] = SZ(50 * M) },
	  NULL, { { 0 } }, false,
	  "web memory.min=50M; web memory.low=100M; web memory.high=200M", NULL },
	{ "v2 parent and child lowered: child first", &caps_v2,
	  { { "", { UNL, UNL, 0, 0, NA, UNL } }, { "a", { 4 * G, UNL, 0, 0, NA, UNL } },
	    { "a/b", { 2 * G, UNL, 0, 0, NA, UNL } } }, 3, UNL,
	  "a", { [MC_KNOB_MAX] = SZ(1 * G) },
	  "b", { [MC_KNOB_MAX] = SZ(500 * M) }, false,
	  "a/b memory.max=500M; a memory.max=1G", NULL },
	{ "v2 parent and child raised: parent first", &caps_v2,
	  { { "", { UNL, UNL, 0, 0, NA, UNL } }, { "a", { 1 * G, UNL, 0, 0, NA, UNL } },
	    { "a/b", { 500 * M, UNL, 0, 0, NA, UNL } } }, 3, UNL,
	  "a", { [MC_KNOB_MAX] = SZ(4 * G) },
	  "b", { [MC_KNOB_MAX] = SZ(2 * G) }, false,
	  "a memory.max=4G; a/b memory.max=2G", NULL },
	{ "v1 raising max keeps the swap allowance: memsw first", &caps_v1,
	  { { "", { UNL, NA, NA, NA, UNL, UNL } }, { "db", { 1 * G, NA, NA, NA, UNL, 1536 * M } } }, 2, UNL,
	  "db", { [MC_KNOB_MAX] = SZ(2 * G) },
	  NULL, { { 0 } }, false,
	  "db memory.memsw.limit_in_bytes=2560M; db memory.limit_in_bytes=2G", NULL },
	{ "v1 lowering max with swap_max: limit first", &caps_v1,
	  { { "", { UNL, NA, NA, NA, UNL, UNL } }, { "db", { 2 * G, NA, NA, NA, UNL, 3 * G } } }, 2, UNL,
	  "db", { [MC_KNOB_MAX] = SZ(1 * G), [MC_KNOB_SWAP] = SZ(256 * M) },
	  NULL, { { 0 } }, false,
	  "db memory.limit_in_bytes=1G; db memory.memsw.limit_in_bytes=1280M", NULL },
	{ "v1: high and low have no file: notes, not dropped", &caps_v1,
	  { { "", { UNL, NA, NA, NA, UNL, UNL } } }, 1, UNL,
	  "web", { [MC_KNOB_MAX] = SZ(512 * M), [MC_KNOB_HIGH] = SZ(256 * M),
		   [MC_KNOB_LOW] = SZ(64 * M), [MC_KNOB_SOFT] = SZ(128 * M) },
	  NULL, { { 0 } }, false,
	  "mkdir web; note web high; note web low; web memory.limit_in_bytes=512M; web memory.soft_limit_in_bytes=128M",
	  NULL },
	{ "percentages resolve against the parent's effective limit, page aligned", &caps_v2,
	  { { "", { 2 * G, UNL, 0, 0, NA, UNL } } }, 1, 2 * G,
	  "web", { [MC_KNOB_MAX] = PC(2500), [MC_KNOB_HIGH] = PC(1), },
	  "c", { [MC_KNOB_MAX] = PC(5000) }, false,
	  "mkdir web; enable web; mkdir web/c; web memory.max=512M; web memory.high=208K; web/c memory.max=256M", NULL },
	{ "v1: nested new groups need no controller enabling", &caps_v1,
	  { { "", { UNL, NA, NA, NA, UNL, UNL } } }, 1, UNL,
	  "web", { [MC_KNOB_MAX] = SZ(512 * M) },
	  "c", { [MC_KNOB_MAX] = SZ(256 * M) }, false,
	  "mkdir web; mkdir web/c; web memory.limit_in_bytes=512M; web/c memory.limit_in_bytes=256M", NULL },
	{ "v2: a parent that does not delegate memory is refused", &caps_v2,
	  { { "", { UNL, UNL, 0, 0, NA, UNL }, true } }, 1, UNL,
	  "web", { [MC_KNOB_MAX] = SZ(512 * M) },
	  NULL, { { 0 } }, false, NULL,
	  "parent '/test' does not enable the memory controller for its children" },
	{ "v2: an existing group that does not delegate memory is refused for its new child", &caps_v2,
	  { { "", { UNL, UNL, 0, 0, NA, UNL } }, { "a", { UNL, UNL, 0, 0, NA, UNL }, true } }, 2, UNL,
	  "a", { [MC_KNOB_MAX] = SZ(1 * G) },
	  "b", { [MC_KNOB_MAX] = SZ(512 * M) }, false, NULL,
	  "group 'a' does not enable the memory controller for its children" },
	{ "v2: existing groups that delegate memory need no enabling", &caps_v2,
	  { { "", { UNL, UNL, 0, 0, NA, UNL } }, { "a", { UNL, UNL, 0, 0, NA, UNL } } }, 2, UNL,
	  "a", { [MC_KNOB_MAX] = SZ(1 * G) },
	  "b", { [MC_KNOB_MAX] = SZ(512 * M) }, false,
	  "mkdir a/b; a memory.max=1G; a/b memory.max=512M", NULL },
	{ "already applied: empty plan", &caps_v2,
	  { { "", { UNL, UNL, 0, 0, NA, UNL } }, { "web", { 512 * M, 256 * M, 0, 0, NA, UNL } } }, 2, UNL,
	  "web", { [MC_KNOB_MAX] = SZ(512 * M), [MC_KNOB_HIGH] = SZ(256 * M) },
	  NULL, { { 0 } }, false, "", NULL },
	{ "high above the live max is refused", &caps_v2,
	  { { "", { UNL, UNL, 0, 0, NA, UNL } }, { "web", { 1 * G, UNL, 0, 0, NA, UNL } } }, 2, UNL,
	  "web", { [MC_KNOB_HIGH] = SZ(2 * G) },
	  NULL, { { 0 } }, false, NULL, "high 2G is above max 1G (live value)" },
	{ "child max above the live parent max is refused", &caps_v2,
	  { { "", { 1 * G, UNL, 0, 0, NA, UNL } }, { "a", { UNL, UNL, 0, 0, NA, UNL } } }, 2, 1 * G,
	  "a", { [MC_KNOB_MAX] = SZ(2 * G) },
	  NULL, { { 0 } }, false, NULL, "max 2G is above the max 1G of its parent '/test' (live value)" },
	{ "set does not create groups", &caps_v2,
	  { { "", { UNL, UNL, 0, 0, NA, UNL } } }, 1, UNL,
	  "ghost", { [MC_KNOB_MAX] = SZ(1 * G) },
	  NULL, { { 0 } }, true, NULL, "group 'ghost' does not exist" },
	{ "v1: swap_max 0 makes memory+swap equal to max", &caps_v1,
	  { { "", { UNL, NA, NA, NA, UNL, UNL } } }, 1, UNL,
	  "db", { [MC_KNOB_MAX] = SZ(2 * G), [MC_KNOB_SWAP] = SZ(0) },
	  NULL, { { 0 } }, false, "mkdir db; db memory.limit_in_bytes=2G; db memory.memsw.limit_in_bytes=2G", NULL },
};

static void run_case(const struct case_ *c)
{
	struct mc_group_spec a, b;
	struct mc_profile p = { .file = "t.yaml", .version = 1, .parent = "/test" };
	struct mc_plan_opts o = { .create = !c->no_create };
	struct mc_snapshot s;
	struct mc_diags d = { 0 };
	struct mc_plan plan;
	int r;

	snap_from_rows(&s, c->rows, c->n_rows, c->parent_limit);
	spec_init(&a, c->a_name);
	memcpy(a.knob, c->a, sizeof(a.knob));
	if (c->b_name) {
		spec_init(&b, c->b_name);
		memcpy(b.knob, c->b, sizeof(b.knob));
		a.children = &b;
		a.n_children = 1;
	}
	p.groups = &a;
	p.n_groups = 1;
	r = mc_plan_build(&p, &s, c->caps, &o, &plan, &d);
	if (c->want) {
		tap_eq_int(r, 0, "%s: plans", c->name);
		if (r == 0) {
			size_t bad = 0;

			tap_eq_str(plan_str(&plan), c->want, "%s: steps", c->name);
			tap_eq_int(mc_plan_replay_check(&plan, &s, c->caps, &bad), 0,
				   "%s: every intermediate state valid", c->name);
			mc_plan_free(&plan);
		}
	} else {
		tap_eq_int(r, -EINVAL, "%s: refused", c->name);
		tap_check(d.n > 0 && strstr(d.v[0].msg, c->want_err) != NULL,
			  "%s: message has '%s' (got '%s')", c->name, c->want_err,
			  d.n ? d.v[0].msg : "");
	}
	mc_diags_free(&d);
	snap_free(&s);
}

/*
 * Random trees: 1 parent, up to 6 groups in two levels, random valid live
 * chains and random valid targets. The plan must replay validly, reach the
 * targets, and a second plan must be empty.
 */
static uint64_t rnd(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

static void random_chain(uint64_t *st, uint64_t cap, uint64_t out[4])
{
	/* four sorted multiples of 1M below cap, the top sometimes unlimited */
	uint64_t v[4];

	for (int i = 0; i < 4; i++)
		v[i] = (rnd(st) % (cap / M + 1)) * M;
	for (int i = 0; i < 4; i++)
		for (int j = i + 1; j < 4; j++)
			if (v[j] < v[i]) {
				uint64_t t = v[i];
				v[i] = v[j];
				v[j] = t;
			}
	memcpy(out, v, sizeof(v));
}

/*
 * One random round: live values and a profile for six groups, the plan,
 * and its checks: every step valid when replayed on the live values, the
 * limits the profile asks for reached, and a second plan on the result
 * empty. It is long because the three stages share the round's arrays.
 */
static void fuzz_round(uint64_t *st, const struct mc_caps *caps, int *fail_replay,
		       int *fail_reach, int *fail_idem)
{
	enum { NG = 6 };
	static const char *names[NG] = { "a", "b", "c", "a/x", "a/y", "b/z" };
	static const char *leaf[NG] = { "a", "b", "c", "x", "y", "z" };
	struct row rows[NG + 1] = { 0 };
	struct mc_group_spec top[3], kids[3];
	struct mc_profile p = { .file = "t.yaml", .version = 1, .parent = "/test" };
	struct mc_plan_opts o = { .create = true };
	struct mc_snapshot s;
	struct mc_diags d = { 0 };
	struct mc_plan plan;
	uint64_t live[NG][4], want[NG][4];
	bool exists[NG];
	size_t nrows = 1;
	bool v1 = caps->ver == MC_CGV1;

	rows[0] = (struct row){ "", { UNL, v1 ? NA : UNL, v1 ? NA : 0, v1 ? NA : 0, v1 ? UNL : NA, UNL } };
	for (int g = 0; g < NG; g++) {
		uint64_t pcap = g < 3 ? 8 * G : live[g == 3 || g == 4 ? 0 : 1][3];
		uint64_t wcap = g < 3 ? 8 * G : want[g == 3 || g == 4 ? 0 : 1][3];
		int parent = g < 3 ? -1 : (g == 5 ? 1 : 0);

		random_chain(st, pcap, live[g]);
		random_chain(st, wcap, want[g]);
		exists[g] = (parent < 0 || exists[parent]) && rnd(st) % 4 != 0;
		if (!exists[g])
			continue;
		rows[nrows].path = names[g];
		/* knob order: max high low min soft swap; chain is min low high max */
		rows[nrows].raw[MC_KNOB_MAX] = live[g][3];
		rows[nrows].raw[MC_KNOB_HIGH] = v1 ? NA : live[g][2];
		rows[nrows].raw[MC_KNOB_LOW] = v1 ? NA : live[g][1];
		rows[nrows].raw[MC_KNOB_MIN] = v1 ? NA : live[g][0];
		rows[nrows].raw[MC_KNOB_SOFT] = v1 ? live[g][1] : NA;
		rows[nrows].raw[MC_KNOB_SWAP] = v1 ? live[g][3] + 64 * M : UNL;
		nrows++;
	}
	snap_from_rows(&s, rows, nrows, UNL);
	for (int g = 0; g < NG; g++) {
		struct mc_group_spec *sp = g < 3 ? &top[g] : &kids[g - 3];

		spec_init(sp, leaf[g]);
		sp->knob[MC_KNOB_MAX] = B(want[g][3]);
		if (v1) {
			sp->knob[MC_KNOB_SOFT] = B(want[g][1]);
			sp->knob[MC_KNOB_SWAP] = B(rnd(st) % 4 * 64 * M);
		} else {
			sp->knob[MC_KNOB_HIGH] = B(want[g][2]);
			sp->knob[MC_KNOB_LOW] = B(want[g][1]);
			sp->knob[MC_KNOB_MIN] = B(want[g][0]);
		}
	}
	top[0].children = &kids[0];
	top[0].n_children = 2;
	top[1].children = &kids[2];
	top[1].n_children = 1;
	p.groups = top;
	p.n_groups = 3;

	if (mc_plan_build(&p, &s, caps, &o, &plan, &d) < 0) {
		(*fail_reach)++;
		mc_diags_free(&d);
		snap_free(&s);
		return;
	}
	if (mc_plan_replay_check(&plan, &s, caps, NULL) != 0)
		(*fail_replay)++;

	/* Apply the plan to a new snapshot by hand, then plan again. */
	{
		struct row after[NG + 1] = { 0 };
		struct mc_snapshot s2;
		struct mc_plan plan2;
		size_t n2 = 1;

		after[0] = rows[0];
		for (int g = 0; g < NG; g++) {
			struct row *rw = &after[n2++];
			size_t j;

			rw->path = names[g];
			for (j = 1; j < nrows; j++)
				if (strcmp(rows[j].path, names[g]) == 0)
					break;
			if (j < nrows) {
				memcpy(rw->raw, rows[j].raw, sizeof(rw->raw));
			} else {
				for (int k = 0; k < MC_KNOB__COUNT; k++)
					rw->raw[k] = caps->file[k] ? (k == MC_KNOB_LOW || k == MC_KNOB_MIN ? 0 : UNL) : NA;
			}
			for (size_t i = 0; i < plan.n; i++)
				if (plan.steps[i].kind == MC_STEP_WRITE && strcmp(plan.steps[i].group, names[g]) == 0)
					rw->raw[plan.steps[i].knob] = plan.steps[i].new_raw;
			if (rw->raw[MC_KNOB_MAX] != want[g][3])
				(*fail_reach)++;
		}
		snap_from_rows(&s2, after, n2, UNL);
		if (mc_plan_build(&p, &s2, caps, &o, &plan2, &d) < 0) {
			(*fail_idem)++;
		} else {
			if (mc_plan_n_changes(&plan2) != 0)
				(*fail_idem)++;
			mc_plan_free(&plan2);
		}
		snap_free(&s2);
	}
	mc_plan_free(&plan);
	mc_diags_free(&d);
	snap_free(&s);
}

/* kernel_per_node: auto is the fewest CPUs of a node, and says so. */
static void test_sysctl_auto(void)
{
	static const struct row rows[] = { { "", { UNL, UNL, 0, 0, NA, UNL } } };
	static const long cpus[] = { 3, 0, 2 }, want[] = { 3, 1, -1 };
	struct mc_profile p = { .file = "t.yaml", .version = 1, .parent = "/test",
				.has_kernel_per_node = true, .kernel_per_node_auto = true };
	struct mc_plan_opts o = { .create = true };

	for (size_t i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++) {
		struct mc_diags d = { 0 };
		struct mc_snapshot s;
		struct mc_plan plan;
		bool one = false;

		snap_from_rows(&s, rows, 1, UNL);
		s.kernel_per_node = 2;   /* the live value */
		s.cpus_per_node = cpus[i];
		tap_eq_int(mc_plan_build(&p, &s, &caps_v2, &o, &plan, &d), 0, "auto, %ld CPUs: plans",
			   cpus[i]);
		if (plan.n == 1 && plan.steps[0].kind == MC_STEP_SYSCTL)
			one = (long)plan.steps[0].new_raw == want[i] &&
			      strstr(plan.steps[0].reason, "auto (") != NULL;
		tap_check(want[i] < 0 ? plan.n == 0 : one, "auto, %ld CPUs a node: %s", cpus[i],
			  want[i] < 0 ? "the live value holds" : "the cap is that, at least 1");
		mc_plan_free(&plan);
		mc_diags_free(&d);
		snap_free(&s);
	}
}

/* reclaim.kernel_per_node: a sysctl step after the writes, a note without the sysctl. */
static void test_sysctl(void)
{
	static const struct row rows[] = { { "", { UNL, UNL, 0, 0, NA, UNL } } };
	static const long live[] = { -1, 2, 4 };
	static const char *const want[] = {
		"note  kernel_per_node 4 not applied: this kernel has no vm.max_reclaimers_per_node",
		"sysctl vm.max_reclaimers_per_node 2 -> 4",
		"",
	};
	struct mc_profile p = { .file = "t.yaml", .version = 1, .parent = "/test",
				.has_kernel_per_node = true, .kernel_per_node = 4 };
	struct mc_plan_opts o = { .create = true };

	for (size_t i = 0; i < sizeof(live) / sizeof(live[0]); i++) {
		struct mc_diags d = { 0 };
		struct mc_snapshot s;
		struct mc_plan plan;
		char got[256] = "";

		snap_from_rows(&s, rows, 1, UNL);
		s.kernel_per_node = live[i];
		tap_eq_int(mc_plan_build(&p, &s, &caps_v2, &o, &plan, &d), 0, "sysctl live %ld: plans", live[i]);
		if (plan.n == 1 && plan.steps[0].kind == MC_STEP_SYSCTL)
			snprintf(got, sizeof(got), "sysctl %s %llu -> %llu", plan.steps[0].file,
				 (unsigned long long)plan.steps[0].old_raw,
				 (unsigned long long)plan.steps[0].new_raw);
		else if (plan.n == 1 && plan.steps[0].kind == MC_STEP_NOTE)
			snprintf(got, sizeof(got), "note  %s", plan.steps[0].reason + strlen("reclaim."));
		else if (plan.n)
			snprintf(got, sizeof(got), "%zu steps", plan.n);
		tap_check(strncmp(got, want[i], strlen(want[i])) == 0 && (*want[i] || !*got),
			  "sysctl live %ld: '%s' (want '%s')", live[i], got, want[i]);
		tap_eq_int((long long)mc_plan_n_changes(&plan), live[i] == 2, "sysctl live %ld: changes", live[i]);
		mc_plan_free(&plan);
		mc_diags_free(&d);
		snap_free(&s);
	}
	test_sysctl_auto();
}

int main(void)
{
	uint64_t st = 0x9e3779b97f4a7c15ULL;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
	test_sysctl();

	for (int v = 0; v < 2; v++) {
		const struct mc_caps *caps = v ? &caps_v1 : &caps_v2;
		int fr = 0, fa = 0, fi = 0;

		for (int i = 0; i < 2000; i++)
			fuzz_round(&st, caps, &fr, &fa, &fi);
		tap_eq_int(fr, 0, "v%d random trees: 2000 plans replay with every intermediate state valid",
			   caps->ver);
		tap_eq_int(fa, 0, "v%d random trees: plans reach every target max", caps->ver);
		tap_eq_int(fi, 0, "v%d random trees: planning again after applying is empty", caps->ver);
	}
	return tap_done();
}
