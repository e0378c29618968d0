/*
 * The plan for systemd units (engine/plan-unit.c): each knob with a unit
 * property becomes a step through systemd, none when the property already
 * holds the value, in an order that keeps min <= low <= high <= max; a knob
 * systemd has no property for is a visible note; order problems against
 * live properties and properties this systemd lacks are diagnostics.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "tap.h"

#define MiB (UINT64_C(1) << 20)
#define GiB (UINT64_C(1) << 30)
#define INF MC_SIZE_MAX

static const struct mc_caps caps_v2 = {
	.ver = MC_CGV2,
	.file = { [MC_KNOB_MAX] = "memory.max", [MC_KNOB_HIGH] = "memory.high",
		  [MC_KNOB_LOW] = "memory.low", [MC_KNOB_MIN] = "memory.min",
		  [MC_KNOB_SWAP] = "memory.swap.max" },
	.page_size = 4096,
	.mem_total = 8 * GiB,
};

static int parse(const char *yaml, struct mc_profile *p)
{
	struct mc_diags d = { 0 };
	int r = mc_profile_parse("u.yaml", yaml, strlen(yaml), p, &d);

	for (size_t i = 0; i < d.n; i++)
		printf("# %s\n", d.v[i].msg);
	mc_diags_free(&d);
	return r;
}

/* A unit as a fresh systemd shows it: every property known, unlimited, min/low 0. */
static struct mc_unit_state fresh(const char *name)
{
	struct mc_unit_state u = { .name = name };

	for (int k = 0; k < MC_KNOB__COUNT; k++) {
		u.prop_known[k] = mc_knob_unit_property(k) != NULL;
		u.prop[k] = (k == MC_KNOB_MIN || k == MC_KNOB_LOW) ? 0 : INF;
	}
	return u;
}

static const struct mc_step *find(const struct mc_plan *pl, const char *unit, enum mc_knob k,
				  size_t *ret_idx)
{
	for (size_t i = 0; i < pl->n; i++)
		if (strcmp(pl->steps[i].group, unit) == 0 && pl->steps[i].knob == k) {
			if (ret_idx)
				*ret_idx = i;
			return &pl->steps[i];
		}
	return NULL;
}

static void test_steps(void)
{
	struct mc_profile p;
	struct mc_unit_state u[2];
	struct mc_plan pl = { 0 };
	struct mc_diags d = { 0 };
	const struct mc_step *s;
	int r;

	if (parse("version: 1\nparent: self\nunits:\n"
		  "  postgresql.service: {low: 1G, max: 4G, protect: active}\n"
		  "  backup.service: {soft_limit: 0, max: 2G, swap_max: 0}\n", &p) < 0) {
		tap_check(false, "profile parses");
		return;
	}
	u[0] = fresh("postgresql.service");
	u[0].prop[MC_KNOB_MAX] = 4 * GiB;       /* already there: no step */
	u[1] = fresh("backup.service");
	r = mc_plan_units(&p, u, &caps_v2, &pl, &d);
	tap_eq_int(r, 0, "planned");
	s = find(&pl, "postgresql.service", MC_KNOB_LOW, NULL);
	tap_check(s && s->kind == MC_STEP_UNIT && s->new_raw == GiB && s->old_raw == 0 &&
		  strcmp(s->file, "MemoryLow") == 0, "low becomes MemoryLow 0 -> 1G");
	tap_check(!find(&pl, "postgresql.service", MC_KNOB_MAX, NULL),
		  "a property that holds the value already is left alone");
	s = find(&pl, "backup.service", MC_KNOB_MAX, NULL);
	tap_check(s && s->kind == MC_STEP_UNIT && s->new_raw == 2 * GiB && s->old_raw == INF &&
		  strcmp(s->file, "MemoryMax") == 0, "max becomes MemoryMax max -> 2G");
	s = find(&pl, "backup.service", MC_KNOB_SWAP, NULL);
	tap_check(s && s->kind == MC_STEP_UNIT && strcmp(s->file, "MemorySwapMax") == 0 &&
		  s->new_raw == 0, "swap_max becomes MemorySwapMax");
	s = find(&pl, "backup.service", MC_KNOB_SOFT, NULL);
	tap_check(s && s->kind == MC_STEP_NOTE && strstr(s->reason, "no unit property"),
		  "soft_limit has no property: a note that says so, not silence");
	tap_eq_int((long long)mc_plan_n_changes(&pl), 3, "three changes");
	s = NULL;
	for (size_t i = 0; i < pl.n; i++)
		if (pl.steps[i].kind == MC_STEP_NOTE && pl.steps[i].file &&
		    strcmp(pl.steps[i].file, "protect") == 0)
			s = &pl.steps[i];
	tap_check(s && strcmp(s->group, "postgresql.service") == 0 &&
		  strstr(s->reason, "not carried out"), "protect on a unit says it is not carried out");
	tap_eq_int((long long)d.n, 0, "no diagnostics");
	mc_plan_free(&pl);
	mc_profile_free(&p);
}

/* Lowering max below a live high lowers high first; raising does max first. */
static void test_order(void)
{
	struct mc_profile p;
	struct mc_unit_state u;
	struct mc_plan pl = { 0 };
	struct mc_diags d = { 0 };
	size_t ih = 0, im = 0, il = 0;

	if (parse("version: 1\nparent: self\nunits:\n"
		  "  a.service: {low: 64M, high: 256M, max: 512M}\n", &p) < 0) {
		tap_check(false, "profile parses");
		return;
	}
	u = fresh("a.service");
	u.prop[MC_KNOB_LOW] = 128 * MiB;
	u.prop[MC_KNOB_HIGH] = GiB;
	u.prop[MC_KNOB_MAX] = 2 * GiB;
	tap_eq_int(mc_plan_units(&p, &u, &caps_v2, &pl, &d), 0, "lowering planned");
	tap_check(find(&pl, "a.service", MC_KNOB_LOW, &il) && find(&pl, "a.service", MC_KNOB_HIGH, &ih) &&
		  find(&pl, "a.service", MC_KNOB_MAX, &im) && il < ih && ih < im,
		  "decreases from the bottom: low, high, max");
	mc_plan_free(&pl);

	u.prop[MC_KNOB_LOW] = 0;
	u.prop[MC_KNOB_HIGH] = 128 * MiB;
	u.prop[MC_KNOB_MAX] = 192 * MiB;
	tap_eq_int(mc_plan_units(&p, &u, &caps_v2, &pl, &d), 0, "raising planned");
	tap_check(find(&pl, "a.service", MC_KNOB_LOW, &il) && find(&pl, "a.service", MC_KNOB_HIGH, &ih) &&
		  find(&pl, "a.service", MC_KNOB_MAX, &im) && im < ih && ih < il,
		  "increases from the top: max, high, low");
	mc_plan_free(&pl);
	mc_profile_free(&p);
}

static void test_refused(void)
{
	struct mc_profile p;
	struct mc_unit_state u;
	struct mc_plan pl = { 0 };
	struct mc_diags d = { 0 };
	int r;

	if (parse("version: 1\nparent: self\nunits:\n  a.service: {low: 1G}\n"
		  "  b.service: {min: 4K}\n", &p) < 0) {
		tap_check(false, "profile parses");
		return;
	}
	{
		struct mc_unit_state v[2] = { fresh("a.service"), fresh("b.service") };

		v[0].prop[MC_KNOB_MAX] = 512 * MiB;   /* the unit's own MemoryMax, not the profile's */
		v[1].prop_known[MC_KNOB_MIN] = false; /* systemd before 240 has no MemoryMin */
		r = mc_plan_units(&p, v, &caps_v2, &pl, &d);
		u = v[0];
	}
	tap_eq_int(r, -EINVAL, "refused");
	tap_eq_int((long long)d.n, 2, "two problems");
	if (d.n == 2) {
		tap_eq_str(d.v[0].path, "units.a.service.low", "the low is named");
		tap_check(strstr(d.v[0].msg, "low 1024M is above max 512M (the unit's live value)") != NULL,
			  "against the unit's live MemoryMax: %s", d.v[0].msg);
		tap_eq_int(d.v[0].line, 4, "at the knob's line");
		tap_eq_str(d.v[1].path, "units.b.service.min", "the min is named");
		tap_check(strstr(d.v[1].msg, "no unit property MemoryMin") != NULL,
			  "a property this systemd lacks: %s", d.v[1].msg);
	}
	tap_eq_str(u.name, "a.service", "state untouched");
	mc_diags_free(&d);
	mc_plan_free(&pl);
	mc_profile_free(&p);
}

/* The policies' decisions for a unit: a setting through systemd, a reclaim in its cgroup. */
static void test_decisions(void)
{
	struct mc_setting set[] = {
		{ .group = (char *)"db.service", .knob = MC_KNOB_LOW, .value = 300 * MiB + 123,
		  .policy = "active-set", .reason = (char *)"working set 300M" },
		{ .group = (char *)"other.service", .knob = MC_KNOB_LOW, .value = GiB,
		  .policy = "active-set", .reason = (char *)"not this unit" },
	};
	struct mc_reclaim rc[] = {
		{ .group = (char *)"db.service", .bytes = 8 * MiB, .policy = "soft-limit",
		  .reason = (char *)"above its soft limit" },
	};
	struct mc_decisions dec = { .set = set, .n_set = 2, .reclaim = rc, .n_reclaim = 1 };
	struct mc_caps v1 = caps_v2;
	struct mc_profile p;
	struct mc_unit_state u;
	struct mc_plan pl = { 0 };
	struct mc_diags d = { 0 };
	const struct mc_step *s;

	if (parse("version: 1\nparent: self\nunits:\n  db.service: {protect: active}\n", &p) < 0) {
		tap_check(false, "profile parses");
		return;
	}
	u = fresh("db.service");
	u.cgroup = "/system.slice/db.service";
	u.dec = &dec;
	u.group = "db.service";
	tap_eq_int(mc_plan_units(&p, &u, &caps_v2, &pl, &d), 0, "planned with decisions");
	s = find(&pl, "db.service", MC_KNOB_LOW, NULL);
	tap_check(s && s->kind == MC_STEP_UNIT && s->new_raw == 300 * MiB &&
		  strcmp(s->policy, "active-set") == 0 && strstr(s->reason, "policy: working set"),
		  "the working set becomes MemoryLow, page-aligned, with the policy's reason");
	s = NULL;
	for (size_t i = 0; i < pl.n; i++)
		if (pl.steps[i].kind == MC_STEP_RECLAIM)
			s = &pl.steps[i];
	tap_check(s && s->bytes == 8 * MiB && s->cgroup &&
		  strcmp(s->cgroup, "/system.slice/db.service") == 0 &&
		  strcmp(s->group, "db.service") == 0, "a reclaim in the unit's own cgroup");
	tap_eq_int((long long)mc_plan_n_changes(&pl), 1, "one change; no 'not carried out' note");
	for (size_t i = 0; i < pl.n; i++)
		tap_check(pl.steps[i].kind != MC_STEP_NOTE, "no note: %s", pl.steps[i].reason);
	mc_plan_free(&pl);

	v1.ver = MC_CGV1;
	tap_eq_int(mc_plan_units(&p, &u, &v1, &pl, &d), 0, "planned on v1");
	s = NULL;
	for (size_t i = 0; i < pl.n; i++)
		if (pl.steps[i].kind == MC_STEP_NOTE && pl.steps[i].file &&
		    strcmp(pl.steps[i].file, "reclaim") == 0)
			s = &pl.steps[i];
	tap_check(s && strstr(s->reason, "which systemd owns"),
		  "v1: a unit's reclaim is a note (it would lower a limit systemd owns)");
	mc_plan_free(&pl);
	mc_profile_free(&p);
}

/* soft_limit has no unit property and systemd does not write the file: memctl does, in the unit's cgroup. */
static void test_unit_file(void)
{
	struct mc_caps patched = caps_v2;
	struct mc_profile p;
	struct mc_unit_state u;
	struct mc_plan pl = { 0 };
	struct mc_diags d = { 0 };
	const struct mc_step *s;

	patched.file[MC_KNOB_SOFT] = "memory.soft_limit";
	patched.patched = true;
	if (parse("version: 1\nparent: self\nunits:\n  backup.service: {soft_limit: 0}\n", &p) < 0) {
		tap_check(false, "profile parses");
		return;
	}
	u = fresh("backup.service");
	u.cgroup = "/system.slice/backup.service";
	u.raw[MC_KNOB_SOFT] = INF;
	u.raw_valid[MC_KNOB_SOFT] = true;
	tap_eq_int(mc_plan_units(&p, &u, &patched, &pl, &d), 0, "planned on the patched kernel");
	s = find(&pl, "backup.service", MC_KNOB_SOFT, NULL);
	tap_check(s && s->kind == MC_STEP_UNIT_FILE && s->old_raw == INF && s->new_raw == 0 &&
		  strcmp(s->file, "memory.soft_limit") == 0 && s->cgroup &&
		  strcmp(s->cgroup, "/system.slice/backup.service") == 0,
		  "memory.soft_limit written in the unit's cgroup");
	mc_plan_free(&pl);
	u.cgroup = NULL;
	tap_eq_int(mc_plan_units(&p, &u, &patched, &pl, &d), 0, "planned for a stopped unit");
	s = find(&pl, "backup.service", MC_KNOB_SOFT, NULL);
	tap_check(s && s->kind == MC_STEP_NOTE && strstr(s->reason, "no cgroup now"),
		  "a unit without a cgroup: a note, not a write");
	mc_plan_free(&pl);
	mc_profile_free(&p);
}

int main(void)
{
	test_unit_file();
	test_decisions();
	test_steps();
	test_order();
	test_refused();
	return tap_done();
}
