/*
 * A sample of the live host (capture.h): the snapshot's groups are moved
 * into the sample, not copied.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "proc-read.h"

static int take_groups(struct mc_host *h, struct mc_snapshot *snap, struct mc_hist_sample *s)
{
	if (mc_array_reserve(&s->groups, &s->cap_groups, snap->n, sizeof(*s->groups)) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < snap->n; i++) {
		struct mc_hist_group *hg = &s->groups[s->n_groups];

		if (!snap->groups[i].present)
			continue;
		memset(hg, 0, sizeof(*hg));
		hg->tasks_valid = mc_host_snapshot_tasks(h, snap, i, &hg->tasks) == 0;
		hg->g = snap->groups[i];
		memset(&snap->groups[i], 0, sizeof(snap->groups[i]));
		s->n_groups++;
	}
	return 0;
}

int mc_hist_capture_snapshot(struct mc_host *h, struct mc_snapshot *snap, double time,
			     struct mc_hist_sample *ret)
{
	int r;

	mc_hist_sample_release(ret);
	ret->time = time;
	ret->cgroup_version = mc_host_status(h)->memory_version == MC_CGV2 ? 2 : 1;
	if (!(ret->parent = strdup(snap->parent)))
		return -ENOMEM;
	ret->parent_limit = snap->parent_limit;
	ret->parent_limit_valid = true;
	r = take_groups(h, snap, ret);
	if (r == 0 && (r = mc_host_meminfo(NULL, &ret->host.meminfo)) == -ENOENT)
		r = 0;
	if (r == 0 && (r = mc_host_vmstat_reclaim(NULL, &ret->host.vmstat)) == -ENOENT)
		r = 0;
	if (r == 0 && mc_host_pressure(NULL, &ret->host.psi) < 0)
		ret->host.psi.valid = false;
	return r;
}

int mc_hist_capture(struct mc_host *h, const char *parent, double now,
		    struct mc_hist_sample *ret, char ***ret_notes, size_t *ret_n_notes)
{
	struct mc_snapshot snap = { 0 };
	int r;

	mc_hist_sample_release(ret);
	if ((r = mc_host_snapshot(h, parent, &snap)) < 0)
		return r;
	r = mc_hist_capture_snapshot(h, &snap, now, ret);
	if (r == 0 && ret_notes) {
		*ret_notes = snap.notes;
		*ret_n_notes = snap.n_notes;
		snap.notes = NULL;
		snap.n_notes = 0;
	}
	mc_snapshot_free(&snap);
	return r;
}

/* The index of the group at path in s, or s->n_groups. */
static size_t find_index(const struct mc_hist_sample *s, const char *path)
{
	size_t i = 0;

	while (i < s->n_groups && strcmp(s->groups[i].g.path, path) != 0)
		i++;
	return i;
}

/* The end of the subtree of group i (preorder: the first group after it not below it). */
static size_t subtree_end(const struct mc_hist_sample *s, size_t i)
{
	const char *up = s->groups[i].g.path;
	size_t n = strlen(up), end = i + 1;

	while (end < s->n_groups && (n == 0 || (strncmp(s->groups[end].g.path, up, n) == 0 &&
						 s->groups[end].g.path[n] == '/')))
		end++;
	return end;
}

/* A group made after the sample was read: last below its parent, so preorder holds. */
static int add_group(struct mc_hist_sample *s, const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t up, at;
	char *dup, *parent = strndup(path, slash ? (size_t)(slash - path) : 0);

	if (!parent)
		return -ENOMEM;
	up = find_index(s, parent);
	free(parent);
	if (!*path || up == s->n_groups || find_index(s, path) < s->n_groups)
		return 0;
	if (!(dup = strdup(path)) ||
	    mc_array_reserve(&s->groups, &s->cap_groups, s->n_groups + 1, sizeof(*s->groups)) < 0) {
		free(dup);
		return -ENOMEM;
	}
	at = subtree_end(s, up);
	memmove(&s->groups[at + 1], &s->groups[at], (s->n_groups - at) * sizeof(*s->groups));
	memset(&s->groups[at], 0, sizeof(s->groups[at]));
	s->groups[at].g.path = dup;
	s->groups[at].g.present = true;
	s->n_groups++;
	return 0;
}

static void remove_group(struct mc_hist_sample *s, size_t i)
{
	size_t end = subtree_end(s, i);

	for (size_t k = i; k < end; k++)
		mc_group_snap_free(&s->groups[k].g);
	memmove(&s->groups[i], &s->groups[end], (s->n_groups - end) * sizeof(*s->groups));
	s->n_groups -= end - i;
}

int mc_hist_sample_step(struct mc_hist_sample *s, const struct mc_step *step)
{
	size_t i;

	if (step->kind == MC_STEP_MKDIR)
		return add_group(s, step->group);
	i = find_index(s, step->group);
	if (i == s->n_groups)
		return 0;
	if (step->kind == MC_STEP_WRITE && step->knob < MC_KNOB__COUNT) {
		s->groups[i].g.raw[step->knob] = step->new_raw;
		s->groups[i].g.raw_valid[step->knob] = true;
		s->groups[i].g.bad &= ~(1u << step->knob);
	} else if (step->kind == MC_STEP_ENABLE) {
		s->groups[i].g.no_memory_children = false;
	} else if (step->kind == MC_STEP_RMDIR && i > 0) {
		remove_group(s, i);
	}
	return 0;
}
