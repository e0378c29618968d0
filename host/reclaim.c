/*
 * Reclaim mechanisms. These run from several threads at once (at most
 * reclaim.concurrency), so unlike the rest of the host layer they share
 * nothing mutable: they use cgfs.c's thread-safe helpers, which walk to
 * the group from the root descriptor and read into a buffer on their own
 * stack (knob values are one number), and the journal API, whose writes
 * to distinct slots share only the state directory's descriptor.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "host-internal.h"
#include "reclaim.h"

int mc_reclaim_v1(struct mc_host *h, struct mc_lock *l, unsigned slot, const char *parent,
		  const char *group, uint64_t bytes, uint64_t *ret_reclaimed)
{
	struct mc_jrec rec = { .kind = MC_STEP_WRITE, .knob = MC_KNOB_MAX, .old_valid = true,
			       .path = (char *)group };
	struct mc_journal j = { .pid = (long)getpid(), .parent = (char *)parent, .v = &rec, .n = 1 };
	uint64_t usage, after, page = mc_host_caps(h)->page_size;
	char name[32];
	int r, r2;

	*ret_reclaimed = 0;
	r = mc_host_read_usage(h, group, &usage);
	if (r == 0)
		r = mc_host_read_value(h, group, mc_host_caps(h)->file[MC_KNOB_MAX], &rec.old_raw);
	if (r < 0)
		return r;
	if (bytes >= usage)
		bytes = usage;
	rec.new_raw = usage - bytes;
	rec.new_raw -= rec.new_raw % (page ? page : 4096);
	if (rec.new_raw >= rec.old_raw)
		return 0;	/* already below the limit the reclaim would set */
	snprintf(name, sizeof(name), "reclaim.%u", slot);
	if ((r = mc_state_journal_write(l, name, &j)) < 0)
		return r;
	/*
	 * The kernel reclaims down to the new limit, or gives up with EBUSY
	 * rather than OOM-killing: either way the old limit goes back.
	 */
	r = mc_host_write_knob_ts(h, group, MC_KNOB_MAX, rec.new_raw);
	r2 = mc_host_write_knob_ts(h, group, MC_KNOB_MAX, rec.old_raw);
	if (r2 < 0)
		return r2;	/* the journal stays: memctl rollback restores it */
	if (mc_host_read_usage(h, group, &after) == 0 && after < usage)
		*ret_reclaimed = usage - after;
	mc_state_journal_remove(l, name);
	return r;
}

/*
 * Running a plan's reclaims: at most `concurrency` at once. Workers take the
 * next step from a shared index; each has a slot number, which on v1 names
 * its reclaim journal. In-flight counting is kept to report the peak, so a
 * test can see the cap hold.
 */
struct reclaim_pool {
	struct mc_host *h;
	struct mc_lock *l;
	const struct mc_plan *plan;
	struct mc_reclaim_result *res;
	pthread_mutex_t lock;
	size_t next;
	unsigned inflight;
	unsigned peak;
};

static double clock_s(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) < 0)
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void reclaim_step(struct reclaim_pool *p, unsigned slot, const struct mc_step *s,
			 struct mc_reclaim_result *res)
{
	const struct mc_caps *caps = &p->h->caps;
	uint64_t before = 0, after = 0;
	char *abs;

	/* a unit's cgroup is named as it is: it need not lie below the parent */
	if (s->cgroup)
		res->err = (abs = strdup(s->cgroup)) ? 0 : -ENOMEM;
	else
		res->err = mc_path_join(p->plan->parent, s->group, &abs);
	if (res->err < 0)
		return;
	if (caps->ver == MC_CGV1) {
		res->err = mc_reclaim_v1(p->h, p->l, slot, p->plan->parent, abs, s->bytes,
					 &res->reclaimed);
		free(abs);
		return;
	}
	mc_host_read_usage(p->h, abs, &before);
	if (s->node_bytes && caps->patched) {
		res->err = 0;
		for (size_t n = 0; n < s->n_nodes; n++) {
			int r;

			if (!s->node_bytes[n])
				continue;
			r = mc_host_reclaim_v2(p->h, abs, s->node_bytes[n], (int)n);
			if (r < 0 && !res->err)
				res->err = r;
		}
	} else {
		res->err = mc_host_reclaim_v2(p->h, abs, s->bytes, -1);
	}
	if (mc_host_read_usage(p->h, abs, &after) == 0 && after < before)
		res->reclaimed = before - after;
	free(abs);
}

/* A step, timed. */
static void reclaim_one(struct reclaim_pool *p, unsigned slot, const struct mc_step *s,
			struct mc_reclaim_result *res)
{
	double w0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);

	reclaim_step(p, slot, s, res);
	res->cpu_s = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
	res->wall_s = clock_s(CLOCK_MONOTONIC) - w0;
}

static void *reclaim_worker(void *arg)
{
	struct reclaim_pool *p = ((void **)arg)[0];
	unsigned slot = (unsigned)(uintptr_t)((void **)arg)[1];

	for (;;) {
		size_t i;

		pthread_mutex_lock(&p->lock);
		while (p->next < p->plan->n && p->plan->steps[p->next].kind != MC_STEP_RECLAIM)
			p->next++;
		i = p->next;
		if (i < p->plan->n) {
			p->next++;
			if (++p->inflight > p->peak)
				p->peak = p->inflight;
		}
		pthread_mutex_unlock(&p->lock);
		if (i >= p->plan->n)
			return NULL;
		reclaim_one(p, slot, &p->plan->steps[i], &p->res[i]);
		pthread_mutex_lock(&p->lock);
		p->inflight--;
		pthread_mutex_unlock(&p->lock);
	}
}

int mc_reclaims_run(struct mc_host *h, struct mc_lock *l, const struct mc_plan *plan,
		    unsigned concurrency, struct mc_reclaim_result *ret, unsigned *ret_peak)
{
	struct reclaim_pool p = { .h = h, .l = l, .plan = plan, .res = ret,
				  .lock = PTHREAD_MUTEX_INITIALIZER };
	size_t n = 0;
	unsigned nthreads;
	pthread_t tid[MC_RECLAIM_CONCURRENCY_MAX];
	void *args[MC_RECLAIM_CONCURRENCY_MAX][2];
	unsigned started = 0;
	int r = 0;

	for (size_t i = 0; i < plan->n; i++) {
		ret[i] = (struct mc_reclaim_result){ 0 };
		n += plan->steps[i].kind == MC_STEP_RECLAIM;
	}
	if (ret_peak)
		*ret_peak = 0;
	if (!n)
		return 0;
	if (concurrency < 1)
		concurrency = 1;
	if (concurrency > MC_RECLAIM_CONCURRENCY_MAX)
		concurrency = MC_RECLAIM_CONCURRENCY_MAX;
	nthreads = n < concurrency ? (unsigned)n : concurrency;
	for (unsigned t = 0; t < nthreads; t++) {
		args[t][0] = &p;
		args[t][1] = (void *)(uintptr_t)t;
		r = -pthread_create(&tid[t], NULL, reclaim_worker, args[t]);
		if (r < 0)
			break;
		started++;
	}
	/* With no thread at all, do the work here rather than not at all. */
	if (!started) {
		args[0][0] = &p;
		args[0][1] = (void *)(uintptr_t)0;
		reclaim_worker(args[0]);
	}
	for (unsigned t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	if (ret_peak)
		*ret_peak = p.peak;
	return 0;
}
