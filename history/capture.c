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

/* The absolute path of group path below parent, or NULL. */
static char *abs_path(const char *parent, const char *path)
{
	char *s;

	if (!*path)
		return strdup(parent);
	return asprintf(&s, "%s/%s", strcmp(parent, "/") == 0 ? "" : parent, path) < 0 ? NULL : s;
}

static int take_groups(struct mc_host *h, struct mc_snapshot *snap, struct mc_hist_sample *s)
{
	if (mc_array_reserve(&s->groups, &s->cap_groups, snap->n, sizeof(*s->groups)) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < snap->n; i++) {
		struct mc_hist_group *hg = &s->groups[s->n_groups];
		char *abs;
		size_t n;

		if (!snap->groups[i].present)
			continue;
		memset(hg, 0, sizeof(*hg));
		hg->g = snap->groups[i];
		memset(&snap->groups[i], 0, sizeof(snap->groups[i]));
		s->n_groups++;
		if (!(abs = abs_path(s->parent, hg->g.path)))
			return -ENOMEM;
		if (mc_host_group_nprocs(h, abs, &n) == 0) {
			hg->tasks = n;
			hg->tasks_valid = true;
		}
		free(abs);
	}
	return 0;
}

int mc_hist_capture(struct mc_host *h, const char *parent, double now,
		    struct mc_hist_sample *ret, char ***ret_notes, size_t *ret_n_notes)
{
	struct mc_snapshot snap = { 0 };
	int r;

	mc_hist_sample_release(ret);
	ret->time = now;
	ret->cgroup_version = mc_host_status(h)->memory_version == MC_CGV2 ? 2 : 1;
	if (!(ret->parent = strdup(parent)))
		return -ENOMEM;
	if ((r = mc_host_snapshot(h, parent, &snap)) < 0)
		return r;
	r = take_groups(h, &snap, ret);
	if (r == 0 && (r = mc_host_meminfo(NULL, &ret->host.meminfo)) == -ENOENT)
		r = 0;
	if (r == 0 && (r = mc_host_vmstat_reclaim(NULL, &ret->host.vmstat)) == -ENOENT)
		r = 0;
	if (r == 0 && mc_host_pressure(NULL, &ret->host.psi) < 0)
		ret->host.psi.valid = false;
	if (r == 0 && ret_notes) {
		*ret_notes = snap.notes;
		*ret_n_notes = snap.n_notes;
		snap.notes = NULL;
		snap.n_notes = 0;
	}
	mc_snapshot_free(&snap);
	return r;
}
