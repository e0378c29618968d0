#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "created.h"
#include "plan.h"
#include "tap.h"

/*
 * The end of a group's life without a host: the record of created groups
 * against well-formed and hostile texts (it is read back from the state
 * directory), and apply --prune's decisions on a hand-made snapshot: only
 * candidates the profile does not name, only empty ones, children first,
 * and a reason for each group kept.
 */

#define HDR "memctl-created 1\n"

static void test_record(void)
{
	static const struct {
		const char *text;
		unsigned line;
		const char *why;
	} bad[] = {
		{ "", 1, "the record is empty" },
		{ "memctl-created 2\n", 1, "not a memctl record of created groups" },
		{ HDR "group 1 /a\ngroup 2 /a\n", 3, "the group is recorded twice" },
		{ HDR "group 0 /a\n", 2, "expected 'group ID PATH'" },
		{ HDR "group x /a\n", 2, "the identity is not a number" },
		{ HDR "group 18446744073709551616 /a\n", 2, "the identity is out of range" },
		{ HDR "group 1 a/b\n", 2, "not a clean absolute cgroup path below the root" },
		{ HDR "group 1 /a/../b\n", 2, "not a clean absolute cgroup path below the root" },
		{ HDR "group 1 /a//b\n", 2, "not a clean absolute cgroup path below the root" },
		{ HDR "group 1 /a/\n", 2, "not a clean absolute cgroup path below the root" },
		{ HDR "group 1 /\n", 2, "not a clean absolute cgroup path below the root" },
		{ HDR "mkdir /a\n", 2, "expected 'group ID PATH'" },
		{ HDR "group 1 /a", 2, "the last line does not end" },
	};
	const char *good = HDR "group 7 /a b\ngroup 18446744073709551615 /x/y\n";
	struct mc_created c;
	const char *why;
	unsigned line;
	char *text;
	size_t len;
	int r;

	r = mc_created_parse(good, strlen(good), &c, &line, &why);
	tap_eq_int(r, 0, "a record parses");
	if (r < 0)
		return;
	tap_check(c.n == 2 && c.v[1].id == UINT64_MAX, "two groups, ids up to 64 bits");
	tap_check(mc_created_find(&c, "/a b") && !mc_created_find(&c, "/a"), "found by path");
	tap_eq_int(mc_created_set(&c, "/a b", 9), 0, "set an existing path");
	tap_check(c.n == 2 && mc_created_find(&c, "/a b")->id == 9, "... replaces its id");
	tap_eq_int(mc_created_format(&c, &text, &len), 0, "format");
	tap_eq_str(text, HDR "group 9 /a b\ngroup 18446744073709551615 /x/y\n", "... as parsed");
	free(text);
	mc_created_drop(&c, 0);
	tap_check(c.n == 1 && strcmp(c.v[0].path, "/x/y") == 0, "drop");
	mc_created_free(&c);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		line = 0;
		why = NULL;
		r = mc_created_parse(bad[i].text, strlen(bad[i].text), &c, &line, &why);
		tap_eq_int(r, -EBADMSG, "refused: %s", bad[i].why);
		tap_eq_int(line, bad[i].line, "  at line %u", bad[i].line);
		tap_eq_str(why ? why : "", bad[i].why, "  with the reason");
		if (r == 0)
			mc_created_free(&c);
	}
	r = mc_created_parse(HDR "group 1 /a\0\n", strlen(HDR) + 12, &c, &line, &why);
	tap_eq_int(r, -EBADMSG, "refused: a NUL byte");
}

/* The snapshot: "" then preorder. */
static const char *const paths[] = { "", "keep", "keep/x", "old", "old/leaf", "busy", "mixed",
				     "mixed/theirs", "gone" };
#define N_PATHS (sizeof(paths) / sizeof(paths[0]))

static void test_prune(void)
{
	struct mc_group_snap g[N_PATHS] = { 0 };
	struct mc_snapshot s = { .parent = (char *)"/p", .groups = g, .n = N_PATHS };
	struct mc_group_spec keep = { .name = (char *)"keep" };
	struct mc_profile p = { .groups = &keep, .n_groups = 1 };
	const struct mc_prune_cand c[] = {
		{ "keep" }, { "keep/x" }, { "old" }, { "old/leaf" }, { "busy", 3 }, { "mixed" },
		{ "gone" }, { "nowhere" },
	};
	struct mc_plan plan = { .parent = (char *)"/p" };
	size_t removed = 0;
	char want[512] = "", got[512] = "";
	int r;

	for (size_t i = 0; i < N_PATHS; i++) {
		g[i].path = (char *)paths[i];
		g[i].present = strcmp(paths[i], "gone") != 0;
	}
	g[3].raw[MC_KNOB_MAX] = 1 << 20;
	g[3].raw_valid[MC_KNOB_MAX] = true;
	r = mc_plan_prune(&plan, &p, &s, c, sizeof(c) / sizeof(c[0]), &removed);
	tap_eq_int(r, 0, "prune");
	tap_eq_int((long long)removed, 3, "three removals");
	for (size_t i = 0; i < plan.n; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s %s;",
			 plan.steps[i].kind == MC_STEP_RMDIR ? "rmdir" :
			 plan.steps[i].kind == MC_STEP_NOTE ? "note" : "?", plan.steps[i].group);
	snprintf(want, sizeof(want), "note mixed;note busy;rmdir old/leaf;rmdir old;rmdir keep/x;");
	tap_eq_str(got, want, "kept with notes, removed children first; keep is named, keep/x "
		   "is not; gone and nowhere are not there");
	for (size_t i = 0; i < plan.n; i++) {
		const struct mc_step *st = &plan.steps[i];

		if (strcmp(st->group, "busy") == 0)
			tap_check(strstr(st->reason, "it holds 3 tasks") != NULL, "busy: %s", st->reason);
		if (strcmp(st->group, "mixed") == 0)
			tap_check(strstr(st->reason, "1 child group that stays ('theirs')") != NULL,
				  "mixed: %s", st->reason);
		if (strcmp(st->group, "old") == 0)
			tap_check(st->created && st->saved_mask == 1u << MC_KNOB_MAX &&
				  st->saved_raw[MC_KNOB_MAX] == 1 << 20,
				  "old: its max saved for undo, marked created");
	}
	for (size_t i = 0; i < plan.n; i++) {
		free(plan.steps[i].group);
		free(plan.steps[i].reason);
	}
	free(plan.steps);
}

int main(void)
{
	test_record();
	test_prune();
	return tap_done();
}
