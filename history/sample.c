/*
 * Samples: freeing, finding a group, copying a run's interval (store.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "store-internal.h"

void mc_hist_sample_release(struct mc_hist_sample *s)
{
	for (size_t i = 0; i < s->n_groups; i++)
		mc_group_snap_free(&s->groups[i].g);
	free(s->groups);
	free(s->parent);
	mc_kvs_free(&s->host.meminfo);
	mc_kvs_free(&s->host.vmstat);
	mc_runstate_release(&s->run);
	memset(s, 0, sizeof(*s));
}

const struct mc_hist_group *mc_hist_find(const struct mc_hist_sample *s, const char *path)
{
	for (size_t i = 0; i < s->n_groups; i++)
		if (strcmp(s->groups[i].g.path, path) == 0)
			return &s->groups[i];
	return NULL;
}

static int dup_str(char **dst, const char *src)
{
	*dst = strdup(src ? src : "");
	return *dst ? 0 : -ENOMEM;
}

int st_run_copy(struct mc_runstate *dst, const struct mc_runstate *src)
{
	int r = 0;

	dst->pid = src->pid;
	dst->started = src->started;
	dst->period_ms = src->period_ms;
	dst->dry_run = src->dry_run;
	dst->interval = src->interval;
	dst->time = src->time;
	dst->duration = src->duration;
	dst->exit_code = src->exit_code;
	dst->reclaimed_bytes = src->reclaimed_bytes;
	dst->reclaim_requests = src->reclaim_requests;
	dst->reclaim_failures = src->reclaim_failures;
	dst->intervals_failed = src->intervals_failed;
	memcpy(dst->hist, src->hist, sizeof(dst->hist));
	dst->hist_count = src->hist_count;
	dst->hist_sum = src->hist_sum;
	if ((r = dup_str(&dst->profile, src->profile)) < 0 || (r = dup_str(&dst->parent, src->parent)) < 0)
		return r;
	for (size_t i = 0; r == 0 && i < src->n_groups; i++) {
		const struct mc_run_group *g = &src->groups[i];

		r = mc_runstate_add_group(dst, g->group, g->ws_valid, g->ws, g->cap_valid, g->cap);
	}
	for (size_t i = 0; r == 0 && i < src->n_dec; i++)
		r = mc_runstate_add_decision(dst, &src->dec[i]);
	for (size_t i = 0; r == 0 && i < src->n_notes; i++)
		r = mc_runstate_add_note(dst, src->notes[i]);
	for (size_t i = 0; r == 0 && i < src->n_errors; i++)
		r = mc_runstate_add_error(dst, src->errors[i]);
	return r;
}

uint64_t st_u64_of(double v, double scale)
{
	double x = v * scale;

	if (!(x > 0))
		return 0;
	return x >= 0x1p64 ? UINT64_MAX : (uint64_t)x;
}
