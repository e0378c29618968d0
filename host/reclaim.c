/*
 * Reclaim mechanisms. These run from several threads at once (at most
 * reclaim.concurrency), so unlike the rest of the host layer they share
 * nothing mutable: each call walks to its group from the root descriptor
 * and reads into a buffer on its own stack (knob values are one number).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host-internal.h"
#include "txn.h"

/* Longest knob file content we accept: a decimal u64 or "max" plus newline. */
#define VALUE_MAX 64

static int read_value_at(int gfd, const char *file, uint64_t *ret)
{
	char buf[VALUE_MAX];
	ssize_t n;
	int fd, r;

	fd = openat(gfd, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do
		n = pread(fd, buf, sizeof(buf), 0);
	while (n < 0 && errno == EINTR);
	r = n < 0 ? -errno : (size_t)n >= sizeof(buf) ? -EFBIG : 0;
	close(fd);
	return r < 0 ? r : mc_parse_knob_value(buf, (size_t)n, ret);
}

int mc_host_read_value(struct mc_host *h, const char *group, const char *file, uint64_t *ret)
{
	int gfd, r;

	r = cgfs_open_group(h, group, O_PATH, &gfd);
	if (r < 0)
		return r;
	r = read_value_at(gfd, file, ret);
	close(gfd);
	return r;
}

int mc_host_read_usage(struct mc_host *h, const char *group, uint64_t *ret)
{
	return mc_host_read_value(h, group,
				  h->caps.ver == MC_CGV1 ? "memory.usage_in_bytes" : "memory.current",
				  ret);
}

static int write_at(int gfd, const char *file, const char *val)
{
	ssize_t n;
	int fd, r;

	fd = openat(gfd, file, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	r = n < 0 ? -errno : (size_t)n != strlen(val) ? -EIO : 0;
	close(fd);
	return r;
}

int mc_host_write_knob_ts(struct mc_host *h, const char *group, enum mc_knob k, uint64_t raw)
{
	char val[24];
	uint64_t back;
	int gfd, r;

	if (!h->caps.file[k])
		return -ENOENT;
	if (raw == MC_SIZE_MAX)
		snprintf(val, sizeof(val), "%s", h->caps.ver == MC_CGV1 ? "-1" : "max");
	else
		snprintf(val, sizeof(val), "%" PRIu64, raw);
	r = cgfs_open_group(h, group, O_PATH, &gfd);
	if (r < 0)
		return r;
	r = write_at(gfd, h->caps.file[k], val);
	if (r == 0 && (r = read_value_at(gfd, h->caps.file[k], &back)) == 0 && back != raw)
		r = -EIO;
	close(gfd);
	return r;
}

int mc_host_reclaim_v2(struct mc_host *h, const char *group, uint64_t bytes, int node)
{
	char val[64];
	int gfd, r;

	if (node >= 0)
		snprintf(val, sizeof(val), "%" PRIu64 " nodes=%d", bytes, node);
	else
		snprintf(val, sizeof(val), "%" PRIu64, bytes);
	r = cgfs_open_group(h, group, O_PATH, &gfd);
	if (r < 0)
		return r;
	r = write_at(gfd, "memory.reclaim", val);
	close(gfd);
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

static void reclaim_one(struct reclaim_pool *p, unsigned slot, const struct mc_step *s,
			struct mc_reclaim_result *res)
{
	const struct mc_caps *caps = &p->h->caps;
	uint64_t before = 0, after = 0;
	char *abs;

	res->err = mc_path_join(p->plan->parent, s->group, &abs);
	if (res->err < 0)
		return;
	if (caps->ver == MC_CGV1) {
		res->err = mc_txn_reclaim_v1(p->h, p->l, slot, abs, s->bytes, &res->reclaimed);
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
