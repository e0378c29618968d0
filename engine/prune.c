/*
 * The end of a group's life: removals for memctl rm and apply --prune.
 *
 * apply --prune removes only what memctl itself created (the host layer
 * keeps that record and hands the candidates in), only what the profile no
 * longer names, and only what is empty: a group with a task of its own, or
 * with a child group that stays, is kept, and the plan says why. Removals
 * go children first, so that every rmdir finds its group without children.
 * Each removal carries the group's knob values: undoing it recreates the
 * group as it was, which is what makes a prune one transaction.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "plan-build.h"

int mc_plan_add_remove(struct mc_plan *plan, const char *path, const struct mc_group_snap *g,
		       bool created, const char *reason)
{
	struct mc_step step = { .kind = MC_STEP_RMDIR, .knob = MC_KNOB__COUNT, .created = created };

	for (int k = 0; k < MC_KNOB__COUNT; k++) {
		if (!g->raw_valid[k])
			continue;
		step.saved_raw[k] = g->raw[k];
		step.saved_mask |= 1u << k;
	}
	return plan_step_add(plan, &step, (struct plan_target){ path, NULL }, strdup(reason));
}

/* Whether the profile names path or a group below it (path: relative, not ""). */
static bool named(const struct mc_group_spec *g, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(g[i].name);

		if (strncmp(path, g[i].name, len) != 0 || (path[len] != '\0' && path[len] != '/'))
			continue;
		if (path[len] == '\0' || named(g[i].children, g[i].n_children, path + len + 1))
			return true;
	}
	return false;
}

/* Whether snapshot group j lies below group i (both relative paths, i not ""). */
static bool below(const struct mc_snapshot *s, size_t i, size_t j)
{
	size_t len = strlen(s->groups[i].path);

	return strncmp(s->groups[j].path, s->groups[i].path, len) == 0 &&
	       s->groups[j].path[len] == '/';
}

static int add_kept(struct mc_plan *plan, const char *path, const char *file, char *reason)
{
	struct mc_step step = { .kind = MC_STEP_NOTE, .knob = MC_KNOB__COUNT, .file = file };

	return plan_step_add(plan, &step, (struct plan_target){ path, NULL }, reason);
}

/*
 * Decides on candidate i of the snapshot (its descendants decided already):
 * removes it (removed[i]) or says why it stays.
 */
static int prune_one(struct mc_plan *plan, const struct mc_snapshot *s, size_t i, size_t tasks,
		     bool *removed)
{
	const char *path = s->groups[i].path, *first = NULL;
	size_t kept = 0;

	for (size_t j = i + 1; j < s->n && below(s, i, j); j++)
		if (!removed[j] && s->groups[j].present && !kept++)
			first = s->groups[j].path + strlen(path) + 1;
	if (kept)
		return add_kept(plan, path, "",
				mc_asprintf("kept: memctl created it and the profile no longer names "
					    "it, but it has %zu child group%s that stay%s ('%s'%s)",
					    kept, kept == 1 ? "" : "s", kept == 1 ? "s" : "", first,
					    kept > 1 ? ", ..." : ""));
	if (tasks)
		return add_kept(plan, path, "cgroup.procs",
				mc_asprintf("kept: memctl created it and the profile no longer names "
					    "it, but it holds %zu task%s", tasks,
					    tasks == 1 ? "" : "s"));
	removed[i] = true;
	return mc_plan_add_remove(plan, path, &s->groups[i], true,
				  "memctl created it, the profile no longer names it, and it is "
				  "empty");
}

int mc_plan_prune(struct mc_plan *plan, const struct mc_profile *p, const struct mc_snapshot *s,
		  const struct mc_prune_cand *cands, size_t n, size_t *ret_removed)
{
	size_t *tasks = calloc(s->n ? s->n : 1, sizeof(*tasks)), removals = 0;
	bool *cand = calloc(s->n ? s->n : 1, sizeof(*cand));
	bool *removed = calloc(s->n ? s->n : 1, sizeof(*removed));
	int r = 0;

	if (!tasks || !cand || !removed) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t c = 0; c < n; c++) {
		const struct mc_group_snap *g = mc_snapshot_find(s, cands[c].path);
		size_t i = g ? (size_t)(g - s->groups) : 0;

		if (i == 0 || !g->present || named(p->groups, p->n_groups, g->path))
			continue;
		cand[i] = true;
		tasks[i] = cands[c].tasks;
	}
	/* preorder backwards: every group's descendants are decided before it */
	for (size_t i = s->n; r == 0 && i-- > 1;) {
		if (!cand[i])
			continue;
		r = prune_one(plan, s, i, tasks[i], removed);
		removals += removed[i];
	}
	if (r == 0 && ret_removed)
		*ret_removed = removals;
out:
	free(tasks);
	free(cand);
	free(removed);
	return r;
}
