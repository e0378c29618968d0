/*
 * The history recorder of memctl record and memctl run --record
 * (recorder.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture.h"
#include "duration.h"
#include "loop.h"
#include "recorder.h"
#include "size.h"

#define DEFAULT_RETAIN "7d"
#define DEFAULT_MAX_SIZE "1G"
/* below this a store holds too few shards to delete by size in eighths */
#define MIN_MAX_SIZE (64u << 10)

static int parse_opts(const struct recorder_opts *o, struct mc_store_opts *ret)
{
	const char *retain = o->retain ? o->retain : DEFAULT_RETAIN;
	const char *max = o->max_size ? o->max_size : DEFAULT_MAX_SIZE;
	const char *why = NULL;
	struct mc_size sz;
	double d;

	if (mc_duration_parse(retain, &d, &why) < 0 || d < 1) {
		mc_err("invalid --retain '%s': %s", retain, why ? why : "less than a second");
		return MC_EXIT_INVALID;
	}
	ret->retain_s = (uint64_t)d;
	if (mc_size_parse(max, &sz, &why) < 0 || sz.kind != MC_SIZE_BYTES || sz.bytes < MIN_MAX_SIZE) {
		mc_err("invalid --max-size '%s': %s", max,
		       why ? why : "a size in bytes of at least 64K (not a percentage, not max)");
		return MC_EXIT_INVALID;
	}
	ret->max_bytes = sz.bytes;
	return 0;
}

int recorder_open(struct recorder *r, const struct recorder_opts *o, const char *who,
		  bool journal)
{
	struct mc_store_opts so = { 0 };
	char *why = NULL;
	int rc, e;

	memset(r, 0, sizeof(*r));
	r->dir = o->dir;
	r->who = who;
	r->journal = journal;
	if ((rc = parse_opts(o, &so)) != 0)
		return rc;
	e = mc_store_writer_open(o->dir, &so, &r->w, &why);
	if (e < 0) {
		mc_err("cannot open the store '%s': %s", o->dir, why ? why : mc_strerror(e));
		free(why);
		return MC_EXIT_HOST;
	}
	free(why);
	return 0;
}

void recorder_close(struct recorder *r)
{
	mc_store_writer_close(r->w);
	for (size_t i = 0; i < r->n_seen; i++)
		free(r->seen[i]);
	free(r->seen);
	mc_hist_sample_release(&r->s);
	memset(r, 0, sizeof(*r));
}

/* Logs a note of the snapshot the first time it is seen. */
static void note_once(struct recorder *r, char *note)
{
	for (size_t i = 0; i < r->n_seen; i++)
		if (strcmp(r->seen[i], note) == 0) {
			free(note);
			return;
		}
	mc_loop_log(r->journal, r->who, 4, "%s", note);
	if (mc_array_reserve(&r->seen, &r->cap_seen, r->n_seen + 1, sizeof(*r->seen)) < 0)
		free(note);
	else
		r->seen[r->n_seen++] = note;
}

static void append(struct recorder *r)
{
	int e = mc_store_append(r->w, &r->s);

	if (e < 0) {
		if (!r->paused)
			mc_loop_log(r->journal, r->who, 4, "cannot write the store '%s': %s; recording "
				    "paused, trying again every interval%s", r->dir, mc_strerror(e),
				    strcmp(r->who, "run") == 0 ? " (memctl run goes on controlling)" : "");
		r->paused = true;
		r->lost++;
		return;
	}
	if (r->paused)
		mc_loop_log(r->journal, r->who, 6, "recording to '%s' resumed; %lu sample%s lost",
			    r->dir, r->lost, r->lost == 1 ? "" : "s");
	r->paused = false;
	r->lost = 0;
	r->written++;
}

/* A failed read of the tree for the store, logged once per cause. */
static void capture_failed(struct recorder *r, const char *parent, int e)
{
	if (e != r->last_err)
		mc_loop_log(r->journal, r->who, 3, "cannot read '%s' for the store: %s", parent,
			    mc_strerror(e));
	r->last_err = e;
}

void recorder_take(struct recorder *r, struct mc_host *h, struct mc_snapshot *snap, double time)
{
	int e = mc_hist_capture_snapshot(h, snap, time, &r->s);

	r->pending = e == 0;
	if (e < 0)
		capture_failed(r, snap->parent, e);
}

void recorder_step(struct recorder *r, const struct mc_step *s)
{
	/* a sample that cannot follow a step is dropped: recorder_sample reads the tree */
	if (r->pending && mc_hist_sample_step(&r->s, s) < 0)
		r->pending = false;
}

void recorder_sample(struct recorder *r, struct mc_host *h, const char *parent,
		     const struct mc_runstate *run)
{
	char **notes = NULL;
	size_t n_notes = 0;
	struct timespec now;
	int e = 0;

	if (!r->pending) {
		clock_gettime(CLOCK_REALTIME, &now);
		e = mc_hist_capture(h, parent, (double)now.tv_sec + now.tv_nsec / 1e9, &r->s,
				    &notes, &n_notes);
	}
	r->pending = false;
	if (e < 0) {
		capture_failed(r, parent, e);
		return;
	}
	r->last_err = 0;
	for (size_t i = 0; i < n_notes; i++)
		note_once(r, notes[i]);
	free(notes);
	if (run) {
		r->s.have_run = true;
		r->s.run = *run;   /* borrowed: not released with the sample */
	}
	append(r);
	if (run) {
		memset(&r->s.run, 0, sizeof(r->s.run));
		r->s.have_run = false;
	}
}

const struct mc_opt recorder_opt_retain = {
	"retain", 0, MC_OPT_STRING, "DURATION",
	"delete whole shards older than DURATION (default 7d; ms s m h d w)",
	MC_COMPLETE_NONE, NULL, false, offsetof(struct recorder_opts, retain),
};
const struct mc_opt recorder_opt_max_size = {
	"max-size", 0, MC_OPT_STRING, "SIZE",
	"delete the oldest shards while the store is larger (default 1G)",
	MC_COMPLETE_NONE, NULL, false, offsetof(struct recorder_opts, max_size),
};
