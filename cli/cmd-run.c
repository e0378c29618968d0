/*
 * memctl run PROFILE: apply, then keep the profile and the policies right
 * every interval, logging one line per decision.
 *
 * Signals are blocked and taken synchronously with sigtimedwait() while
 * waiting for the next period: no handler runs in the middle of an
 * iteration, SIGHUP reloads between iterations, SIGTERM/SIGINT end the loop
 * after the current one. The period is kept against CLOCK_MONOTONIC
 * deadlines, so a slow iteration shortens the next wait instead of
 * shifting every later one.
 *
 * Nothing recoverable ends the loop: a busy lock, a failed write (rolled
 * back), a vanished group or parent are logged and the next interval tries
 * again. A broken profile on SIGHUP is reported and the old one kept.
 */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "cmd.h"
#include "escape.h"
#include "export.h"
#include "run-state.h"
#include "file.h"
#include "loop.h"
#include "lowwatch.h"
#include "recorder.h"
#include "units.h"

struct run_opts {
	struct recorder_opts rec; /* first: the shared options' offsets are into it */
	bool once;
	bool dry_run;
	bool no_mlock;
	const char *export_file;  /* --export FILE */
	enum mc_output out;       /* of --export */
};

struct run {
	struct mc_ctx *ctx;
	const struct run_opts *opts;
	bool journal;          /* stderr is journald's: "<N>" priority prefixes */
	char **seen;           /* notes already logged (once per cause) */
	size_t n_seen, cap_seen;
	char **errors;         /* problems logged since the last clean interval */
	size_t n_errors, cap_errors;
	unsigned long repeats; /* problems not logged again since then */
	unsigned long iteration;
	unsigned reclaims;     /* this interval */
	long steady_faults;    /* minor faults after the warm-up intervals */
	size_t heap_room;      /* free heap kept for an interval; 0: memory not locked */
	size_t heap_arena;     /* the heap's size and bytes in use after its last reserve */
	size_t heap_held;
	unsigned peak;         /* most reclaims in flight at once, this interval */
	struct mc_export *export;  /* --export FILE, or NULL */
	struct run_state state;    /* published every interval for top and export */
	struct recorder recorder;  /* --record DIR */
	bool recording;
	struct mc_unit_ids unit_ids;   /* the units' Ids for their locks (mc_plan_req) */
	struct mc_lowwatch *lowwatch;  /* v2: memory.events of protected groups, or NULL */
	int sigfd;                     /* signalfd of the loop's signals, with lowwatch */
};

static void run_log(const struct run *r, int prio, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void run_log(const struct run *r, int prio, const char *fmt, ...)
{
	char *line;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	mc_loop_log(r->journal, "run", prio, "%s", n < 0 ? "out of memory" : line);
	if (n >= 0)
		free(line);
}

/*
 * True the first time s is added to the list: adds it. Out of memory, s
 * counts as new (logged again rather than never).
 */
static bool list_add_new(char ***list, size_t *n, size_t *cap, const char *s)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*list)[i], s) == 0)
			return false;
	if (mc_array_reserve(list, cap, *n + 1, sizeof(**list)) < 0)
		return true;
	(*list)[*n] = strdup(s);
	if ((*list)[*n])
		(*n)++;
	return true;
}

static void list_clear(char ***list, size_t *n, size_t *cap)
{
	for (size_t i = 0; i < *n; i++)
		free((*list)[i]);
	free(*list);
	*list = NULL;
	*n = *cap = 0;
}

/* True the first time a note is seen: notes repeat every interval. */
static bool first_time(struct run *r, const char *note)
{
	return list_add_new(&r->seen, &r->n_seen, &r->cap_seen, note);
}

/*
 * Problems are logged once per cause while they last: the same message in
 * the next intervals is counted, not logged, until an interval completes
 * cleanly; then the loop says it recovered and a recurrence is logged again.
 */
static void on_error(void *arg, const char *msg)
{
	struct run *r = arg;

	run_state_error(&r->state, msg);
	if (list_add_new(&r->errors, &r->n_errors, &r->cap_errors, msg))
		run_log(r, 3, "%s", msg);
	else
		r->repeats++;
}

static void interval_done(struct run *r, int rc)
{
	if (rc != MC_EXIT_OK) {
		on_error(r, "an interval did not complete; trying again every interval");
		return;
	}
	if (r->n_errors) {
		run_log(r, 6, "recovered: interval %lu completed (%zu problem%s, repeated %lu times, "
			   "since the last clean one)", r->iteration, r->n_errors,
			r->n_errors == 1 ? "" : "s", r->repeats);
		list_clear(&r->errors, &r->n_errors, &r->cap_errors);
		r->repeats = 0;
	}
}

/*
 * A derived setting that stopped moving after a change, with the number of
 * intervals in a row it was written (the engine's count): how fast the
 * decision converged. A unit's names the property systemd set it through
 * (a knob without one, its file in the unit's cgroup).
 */
static void log_settled(const struct run *r, const struct mc_decisions *dec)
{
	const struct mc_caps *caps = mc_host_caps(r->ctx->host);

	for (size_t i = 0; i < dec->n_settled; i++) {
		const struct mc_settled *st = &dec->settled[i];
		const char *prop = st->unit ? mc_knob_unit_property(st->knob) : NULL;
		const char *file = prop ? prop : caps->file[st->knob] ? caps->file[st->knob]
								    : mc_knob_info(st->knob)->name;
		char v[MC_UNITS_MARK_LEN];

		run_log(r, 6, "%s: %s converged after %u interval%s at %s (%s)", st->group, file,
			st->intervals, st->intervals == 1 ? "" : "s", mc_fmt_size(st->value, v),
			st->policy);
	}
}

static void on_notes(void *arg, const struct mc_decisions *dec, const struct mc_diags *diags)
{
	struct run *r = arg;

	if (r->export && mc_export_take_decisions(r->export, dec) < 0)
		mc_err("export: out of memory: this interval's decisions are left out");
	run_state_decisions(&r->state, dec);
	for (size_t i = 0; i < dec->n_notes; i++)
		if (first_time(r, dec->notes[i]))
			run_log(r, 5, "note: %s", dec->notes[i]);
	log_settled(r, dec);
	for (size_t i = 0; i < diags->n; i++) {
		char *s;

		if (mc_diag_format(&diags->v[i], &s) == 0) {
			if (first_time(r, s))
				run_log(r, 4, "%s", s);
			free(s);
		}
	}
}

/*
 * One unit per line: what a reclaim got is written in the unit of the
 * step's line (its reason's), with decimals where that unit does not divide
 * it, as the step's own sizes are (mc_step_describe in host/journal.h).
 */
static const char *got_size(const struct mc_step *s, uint64_t got,
			    char buf[static MC_UNITS_MARK_LEN])
{
	return mc_units_format(got, s->unit_valid ? s->unit : mc_units_shift(&s->bytes, 1), buf);
}

/* run --record: the interval's snapshot is the store's sample (one read of the tree). */
static void on_snapshot(void *arg, struct mc_snapshot *snap, double time)
{
	struct run *r = arg;

	recorder_take(&r->recorder, r->ctx->host, snap, time);
}

/* A step, done or (dry run) planned, as run's log and published state show it. */
static void log_step(struct run *r, const struct mc_step *s)
{
	char *line = NULL;
	size_t len = 0;
	FILE *f;

	run_state_step(&r->state, s);
	if (s->kind == MC_STEP_RECLAIM)
		return;	/* logged with its outcome */
	if (s->kind == MC_STEP_NOTE && !first_time(r, s->reason))
		return;
	f = open_memstream(&line, &len);
	if (!f)
		return;
	mc_print_step(f, "", s, true);
	fclose(f);
	if (len && line[len - 1] == '\n')
		line[len - 1] = '\0';
	run_log(r, s->kind == MC_STEP_NOTE ? 5 : 6, "%s", line);
	free(line);
}

static void on_step(void *arg, const struct mc_step *s)
{
	struct run *r = arg;

	if (r->recording)
		recorder_step(&r->recorder, s);
	log_step(r, s);
}

/*
 * A reclaim's outcome, logged with its time: wall, and the CPU the kernel
 * spent reclaiming in memctl's thread (what a reclaim costs the host).
 */
static void on_reclaim(void *arg, const struct mc_step *s, const struct mc_reclaim_result *res)
{
	struct run *r = arg;
	char a[MC_UNITS_MARK_LEN], v[256];
	double wall_ms = res->wall_s * 1e3, cpu_ms = res->cpu_s * 1e3;

	r->reclaims++;
	run_state_reclaim(&r->state, s, res->err, res->reclaimed);
	if (res->err < 0)
		run_log(r, 4, "%s: reclaim %s: %s (got %s in %.2f ms, cpu %.2f ms): %s", s->group,
			mc_fmt_reclaim(s, v, sizeof(v)), mc_strerror(res->err),
			got_size(s, res->reclaimed, a), wall_ms, cpu_ms, s->reason);
	else
		run_log(r, 6, "%s: reclaim %s: got %s in %.2f ms, cpu %.2f ms: %s", s->group,
			mc_fmt_reclaim(s, v, sizeof(v)), got_size(s, res->reclaimed, a), wall_ms,
			cpu_ms, s->reason);
}

static void on_dry_step(void *arg, const struct mc_step *s)
{
	struct run *r = arg;
	char v[256];

	if (s->kind == MC_STEP_RECLAIM)
		run_state_step(&r->state, s);
	if (s->kind == MC_STEP_RECLAIM)
		run_log(arg, 6, "%s: would reclaim %s: %s", s->group, mc_fmt_reclaim(s, v, sizeof(v)),
			s->reason ? s->reason : "");
	else
		log_step(arg, s);
}

/* Export warnings are notes about the host: logged once each, like notes. */
static void on_export_warning(void *arg, const char *msg)
{
	struct run *r = arg;

	if (first_time(r, msg))
		run_log(r, 4, "%s", msg);
}

/*
 * --export FILE: the groups below the profile's parent (it may change on
 * SIGHUP) with this interval's decisions, replacing FILE atomically.
 * A failure is logged like any problem; the loop goes on.
 */
static void export_interval(struct run *r, const struct mc_profile *p,
			    const struct mc_plan_req *req)
{
	enum mc_export_format f = r->opts->out == MC_OUT_JSON ? MC_EXPORT_JSON : MC_EXPORT_PROM;
	char *parent = NULL;
	const char *buf;
	size_t len;
	int e;

	e = mc_host_resolve_parent(r->ctx->host, p->parent, &parent);
	if (e == 0)
		e = mc_export_set_parent(r->export, parent);
	if (e == 0)
		e = mc_export_set_engine(r->export, req->pol, parent);
	free(parent);
	mc_export_set_intervals(r->export, r->iteration);
	if (e == 0)
		e = mc_export_refresh(r->export);
	if (e == 0)
		e = mc_export_render(r->export, f, &buf, &len);
	if (e == 0)
		e = mc_file_replace(r->opts->export_file, buf, len, MC_EXPORT_FILE_MODE);
	if (e < 0)
		mc_err("cannot export to '%s': %s", r->opts->export_file, mc_strerror(e));
}

/*
 * Publishes this interval's state in the state directory (host/runstate.h),
 * for memctl top and export. A failure is logged once; the loop goes on.
 */
static void publish_interval(struct run *r, const struct mc_profile *p,
			     const struct mc_policy *pol, int rc)
{
	int e = run_state_end(&r->state, r->ctx, p, pol, rc);
	char *msg;

	if (e == 0 || asprintf(&msg, "cannot publish the state in '%s': %s; memctl top shows "
			       "simulated decisions", r->ctx->state_dir, mc_strerror(e)) < 0)
		return;
	if (first_time(r, msg))
		run_log(r, 4, "%s", msg);
	free(msg);
}

static int reload(const struct run *r, const char *path, struct mc_profile *cur)
{
	struct mc_profile next;

	run_log(r, 6, "SIGHUP: reloading '%s'", path);
	if (mc_load_profile(r->ctx, path, &next) != 0) {
		run_log(r, 3, "'%s' is invalid (see above): keeping the profile that is running", path);
		return -EINVAL;
	}
	mc_profile_free(cur);
	*cur = next;
	run_log(r, 6, "now running '%s' (%zu top-level groups)", path, cur->n_groups);
	return 0;
}

/*
 * Reloads at most once per RELOAD_GAP_MS. A storm of SIGHUPs (100 a second)
 * must not turn the loop into a profile reader: signals that arrive within
 * the gap after a reload are merged into one reload at the gap's end, so
 * the intervals keep their period.
 */
#define RELOAD_GAP_MS 1000

struct reload_gate {
	struct timespec at;     /* when a reload may next happen */
	bool pending;           /* a SIGHUP came in the gap: reload at its end */
};

/*
 * Early plans (cgroup v2): memory.low holds a protected group only while
 * its siblings have something the kernel can reclaim; once it fails, the
 * engine caps the siblings (policy 2), and every millisecond until then the
 * kernel takes the group's own pages. The loop watches the memory.events
 * of the profile's protected groups and plans at once when a "low" count
 * rises, instead of at the end of the interval (host/lowwatch.h). Without
 * the watch the loop works as before and says so once.
 */
/* Gives the watch up; why (with err) is logged, when given. */
static void lowwatch_stop(struct run *r, const char *why, int err)
{
	if (!r->lowwatch)
		return;
	if (why)
		run_log(r, 4, "a failure of memory.low is acted on at the next interval only: %s: %s",
			why, strerror(-err));
	mc_lowwatch_free(r->lowwatch);
	close(r->sigfd);
	r->lowwatch = NULL;
}

/* Blocks the loop's signals into *set and, for a loop (watch), starts the watch. */
static void loop_start(struct run *r, sigset_t *set, bool watch)
{
	int rc;

	mc_loop_block_signals(set);
	if (!watch)
		return;
	rc = mc_lowwatch_open(r->ctx->host, &r->lowwatch);
	if (rc == -EOPNOTSUPP)
		return;   /* cgroup v1: no memory.low to fail */
	if (rc == 0 && (r->sigfd = mc_loop_signalfd(set)) < 0) {
		rc = r->sigfd;
		mc_lowwatch_free(r->lowwatch);
		r->lowwatch = NULL;
	}
	if (rc < 0)
		run_log(r, 4, "a failure of memory.low is acted on at the next interval only: cannot watch memory.events: %s",
			strerror(-rc));
}

/* Adds the protected groups of g[0..n) below base to *list. */
static int protected_paths(const char *base, const struct mc_group_spec *g, size_t n,
			   char ***list, size_t *len, size_t *cap)
{
	for (size_t i = 0; i < n; i++) {
		char *path;
		int rc = mc_path_join(base, g[i].name, &path);

		if (rc < 0)
			return rc;
		if ((g[i].protect == MC_PROTECT_ACTIVE || g[i].protect == MC_PROTECT_SIZE) &&
		    mc_array_reserve(list, cap, *len + 1, sizeof(**list)) == 0)
			(*list)[(*len)++] = strdup(path);
		rc = protected_paths(path, g[i].children, g[i].n_children, list, len, cap);
		free(path);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Points the watch at this interval's protected groups. */
static void lowwatch_update(struct run *r, const struct mc_profile *p)
{
	char **list = NULL;
	size_t n = 0, cap = 0;

	if (!r->lowwatch || !r->state.parent)
		return;
	if (protected_paths(r->state.parent, p->groups, p->n_groups, &list, &n, &cap) == 0) {
		size_t k = 0;

		for (size_t i = 0; i < n; i++)
			if (list[i])
				list[k++] = list[i];
		mc_lowwatch_set(r->ctx->host, r->lowwatch, list, k);
		n = k;
	}
	list_clear(&list, &n, &cap);
}

/*
 * Whether a protected group's memory.low failed since the last look (the
 * watch's descriptor became readable). A watch that fails is given up,
 * said once.
 */
static bool lowwatch_fired(struct run *r, const struct timespec *next)
{
	const char *group;
	struct timespec now;
	int rc = mc_lowwatch_check(r->lowwatch, &group);

	if (rc < 0) {
		lowwatch_stop(r, "reading the watch", rc);
		return false;
	}
	if (rc == 0)
		return false;
	clock_gettime(CLOCK_MONOTONIC, &now);
	run_log(r, 6, "memory.low did not hold '%s' (memory.events low rose): planning now, %lld ms before the interval",
		group, (long long)(next->tv_sec - now.tv_sec) * 1000 + (next->tv_nsec - now.tv_nsec) / 1000000);
	return true;
}

/* One wait of wait_interval: a signal, 0 at until, or 0 with *woke (the watch fired). */
static int wait_step(struct run *r, const sigset_t *set, const struct timespec *until,
		     const struct timespec *next, bool *woke)
{
	bool readable = false;
	int sig;

	*woke = false;
	if (!r->lowwatch)
		return mc_wait_signal(set, until);
	sig = mc_wait_signal_fd(r->sigfd, until, mc_lowwatch_fd(r->lowwatch), &readable);
	if (sig < 0) {
		/* poll failed: the plain wait, without the watch */
		lowwatch_stop(r, "poll", sig);
		return mc_wait_signal(set, until);
	}
	*woke = readable && lowwatch_fired(r, next);
	return sig;
}

/*
 * Waits for the next interval (next), reloading on SIGHUP as said above (the
 * units' Ids are then forgotten, r->unit_ids). A failure of memory.low seen
 * by the watch makes the interval due now (next is moved to now).
 * Returns SIGTERM, SIGINT or 0 (the interval is due).
 */
static int wait_interval(struct run *r, const sigset_t *set, struct timespec *next,
			 const char *path, struct mc_profile *cur, struct reload_gate *g)
{
	for (;;) {
		const struct timespec *until = g->pending && mc_ts_before(&g->at, next) ? &g->at : next;
		struct timespec now;
		bool woke;
		int sig = wait_step(r, set, until, next, &woke);

		if (sig == SIGTERM || sig == SIGINT)
			return sig;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (woke)
			*next = now;
		g->pending |= sig == SIGHUP;
		if (g->pending && !mc_ts_before(&now, &g->at)) {
			/* whatever the new profile names is looked up again */
			mc_unit_ids_clear(&r->unit_ids);
			reload(r, path, cur);
			g->pending = false;
			clock_gettime(CLOCK_MONOTONIC, &g->at);
			mc_deadline_add(&g->at, RELOAD_GAP_MS);
		}
		if (!mc_ts_before(&now, next))
			return 0;
	}
}

/*
 * Memory for a loop that must keep working while the host is short of it.
 * The loop allocates while it plans (snapshots, decisions, plans), but it
 * frees all of it each interval, so after the first intervals the heap has
 * the size it needs. The heap is kept from shrinking or growing through
 * fresh mmaps (trim and mmap thresholds raised), a reserve of free heap is
 * faulted in, and everything is locked: a steady-state interval then takes
 * no new page from the kernel and none of its pages can be reclaimed. The
 * loop counts minor faults after the warm-up to show that this holds.
 *
 * The reserve is free room on top of what the loop keeps, and what it keeps
 * is known only after its first intervals: --export keeps rows and a text
 * for every group (7 MiB for 1000 groups), which alone took the room
 * faulted in before the first interval, and the plan's memory of a later
 * interval then took new pages. So the room is faulted in again after each
 * warm-up interval, and an interval that still took pages beyond what it
 * kept (the room was too small for what it allocates and frees) widens the
 * room by twice those pages. A room larger than half the mmap threshold
 * would be a mapping of its own, given back at free: it is capped there.
 */
#define RUN_HEAP_RESERVE (8 << 20)
#define RUN_MMAP_THRESHOLD (64 << 20)
#define RUN_WARMUP_INTERVALS 3

/* Makes the room for the next interval (see above): free heap, touched. */
static void heap_reserve(struct run *r)
{
	struct mallinfo2 mi = mallinfo2();
	/* pages taken since the last reserve beyond what the loop kept of them */
	ptrdiff_t grown = (ptrdiff_t)(mi.arena - r->heap_arena) -
			  ((ptrdiff_t)mi.uordblks - (ptrdiff_t)r->heap_held);
	char *room;

	if (r->heap_arena && grown > 0)
		r->heap_room += 2 * (size_t)grown;
	if (r->heap_room > RUN_MMAP_THRESHOLD / 2)
		r->heap_room = RUN_MMAP_THRESHOLD / 2;
	room = malloc(r->heap_room);
	if (room) {
		memset(room, 0, r->heap_room);
		free(room);
	}
	mi = mallinfo2();
	r->heap_arena = mi.arena;
	r->heap_held = mi.uordblks;
}

static void lock_memory(struct run *r)
{
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	mallopt(M_MMAP_THRESHOLD, RUN_MMAP_THRESHOLD);
	r->heap_room = RUN_HEAP_RESERVE;
	heap_reserve(r);
	if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0)
		run_log(r, 4, "cannot lock memctl's memory (mlockall: %s): it may be slowed by reclaim",
			strerror(errno));
}

/*
 * cgroup v2: memctl run moves into a small group of its own below the
 * cgroup it was started in, protected with memory.min (and memory.low) of
 * twice its resident size, 16M to 256M, so that the pressure it is there
 * to relieve does not reclaim it. Where that cannot be done it says why
 * and runs on where it is.
 */
#define RUN_SELF_GROUP "memctl-run"

static uint64_t resident_bytes(void)
{
	unsigned long long kb = 0;
	char line[256];
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb << 10;
}

static void enter_self_group(const struct run *run, struct mc_ctx *ctx, struct mc_self_group *g)
{
	const struct mc_host_status *st = mc_host_status(ctx->host);
	uint64_t protect = 2 * resident_bytes();
	const char *what;
	char v[24];
	int r;

	if (protect < (16 << 20))
		protect = 16 << 20;
	if (protect > (256 << 20))
		protect = 256 << 20;
	r = mc_host_self_group_enter(ctx->host, RUN_SELF_GROUP, protect, g, &what);
	if (r == -EOPNOTSUPP)
		run_log(run, 6, "cgroup v1 has no memory.min: memctl stays in '%s', its memory locked "
			"rather than protected", st->self_path ? st->self_path : "?");
	else if (r < 0)
		run_log(run, 4, "cannot run in a protected group of its own: %s: %s; running "
			"unprotected in '%s'", what, mc_strerror(r),
			st->self_path ? st->self_path : "?");
	else
		run_log(run, 6, "running in its own group '%s' (memory.min and memory.low %s)",
			g->group, mc_fmt_size(g->protect, v));
}

static long minor_faults(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_minflt : 0;
}

/*
 * One interval of the loop: plans and applies p, logs its reclaims,
 * publishes the interval's state and export, and counts the new pages it
 * took once warm. Returns mc_run_plan's exit status.
 */
static int run_interval(struct run *run, const struct mc_profile *p, struct mc_plan_req *req)
{
	long faults = minor_faults();
	int rc;

	run->iteration++;
	run->reclaims = 0;
	run->peak = 0;
	if (run->export)
		mc_export_clear_decisions(run->export);
	req->write_budget_ms = (long)p->interval_ms;
	run_state_begin(&run->state, run->ctx, p);
	rc = mc_run_plan(run->ctx, p, req);
	if (run->reclaims)
		run_log(run, 6, "%u reclaim%s, at most %u in flight (reclaim.concurrency %u)",
			run->reclaims, run->reclaims == 1 ? "" : "s", run->peak, p->concurrency);
	interval_done(run, rc);
	publish_interval(run, p, req->pol, rc);
	/* after publishing: the export carries this interval's figures too */
	if (run->export)
		export_interval(run, p, req);
	/* the store gets the interval as published: decisions, reclaims, problems */
	if (run->recording && run->state.parent)
		recorder_sample(&run->recorder, run->ctx->host, run->state.parent, &run->state.st);
	if (run->iteration > RUN_WARMUP_INTERVALS)
		run->steady_faults += minor_faults() - faults;
	lowwatch_update(run, p);
	if (run->heap_room && run->iteration <= RUN_WARMUP_INTERVALS)
		heap_reserve(run);
	return rc;
}

/*
 * Loads the profile at path into *ret_p, the host's policy into *ret_pol
 * and run's export and state. Returns 0, or the exit status after saying
 * why, with nothing left to free.
 */
static int run_open(struct run *run, const char *path, struct mc_profile *ret_p,
		    struct mc_policy **ret_pol)
{
	int rc;

	if ((rc = mc_load_profile(run->ctx, path, ret_p)) != 0)
		return rc;
	if ((rc = mc_policy_for_host(run->ctx, ret_pol)) != 0) {
		mc_profile_free(ret_p);
		return rc;
	}
	/* export_interval points it at the profile's parent (which SIGHUP may change) */
	if (run->opts->export_file &&
	    mc_export_new(run->ctx->host, "/", on_export_warning, run, &run->export) < 0) {
		mc_err("out of memory");
		mc_policy_free(*ret_pol);
		mc_profile_free(ret_p);
		return MC_EXIT_HOST;
	}
	if (run->opts->rec.dir &&
	    (rc = recorder_open(&run->recorder, &run->opts->rec, "run", run->journal)) != 0) {
		mc_export_free(run->export);
		mc_policy_free(*ret_pol);
		mc_profile_free(ret_p);
		return rc;
	}
	run->recording = run->opts->rec.dir != NULL;
	if ((run->export && mc_export_set_state_dir(run->export, run->ctx->state_dir) < 0) ||
	    run_state_init(&run->state, path, ret_p, run->opts->dry_run) < 0) {
		mc_err("out of memory");
		if (run->recording)
			recorder_close(&run->recorder);
		mc_export_free(run->export);
		mc_policy_free(*ret_pol);
		mc_profile_free(ret_p);
		return MC_EXIT_HOST;
	}
	return 0;
}

/* Logs that signal sig stops the loop and, once warm, the pages taken since. */
static void log_stop(struct run *run, int sig, bool mlock)
{
	run_log(run, 6, "%s: stopping after %lu intervals", strsignal(sig), run->iteration);
	if (run->iteration > RUN_WARMUP_INTERVALS)
		run_log(run, 6, "new pages taken after the first %d intervals: %ld (memory %s)",
			RUN_WARMUP_INTERVALS, run->steady_faults, mlock ? "locked" : "not locked");
}

/* The loop's callbacks of each interval's plan (req->dry_run set). */
static void set_callbacks(struct run *run, struct mc_plan_req *req)
{
	req->arg = run;
	req->notes = on_notes;
	req->step_done = req->dry_run ? on_dry_step : on_step;
	req->reclaim_done = on_reclaim;
	req->ret_peak = &run->peak;
	if (run->recording)
		req->snapshot = on_snapshot;
}

/* The loop's end: its state unpublished, all it holds freed. */
static void run_close(struct run *run, struct mc_plan_req *req, struct mc_profile *p,
		      struct mc_self_group *self_group)
{
	mc_err_sink = (struct mc_err_sink){ 0 };
	run_state_unpublish(&run->state, run->ctx);
	run_state_free(&run->state);
	list_clear(&run->seen, &run->n_seen, &run->cap_seen);
	list_clear(&run->errors, &run->n_errors, &run->cap_errors);
	mc_export_free(run->export);
	if (run->recording)
		recorder_close(&run->recorder);
	mc_policy_free(req->pol);
	mc_profile_free(p);
	mc_self_group_free(self_group);
	mc_unit_ids_clear(&run->unit_ids);
	lowwatch_stop(run, NULL, 0);
}

static int cmd_run_exec(struct mc_ctx *ctx, const void *opts, int argc, char **argv)
{
	const struct run_opts *o = opts;
	struct run run = { .ctx = ctx, .opts = o, .journal = getenv("JOURNAL_STREAM") != NULL };
	struct mc_plan_req req = { .create = true };
	struct mc_self_group self_group = { 0 };
	bool once = o->once, mlock = !o->no_mlock;
	const char *path = argv[0];
	struct mc_profile p;
	struct timespec next;
	struct reload_gate gate = { { 0, 0 }, false };
	sigset_t set, hup;
	int rc, sig = 0;

	/*
	 * SIGHUP is held from the start: one that comes while run starts
	 * (systemctl start, then reload at once) is a reload in its first wait,
	 * not, by its default action, the end of the service.
	 */
	sigemptyset(&hup);
	sigaddset(&hup, SIGHUP);
	sigprocmask(SIG_BLOCK, &hup, NULL);
	req.dry_run = o->dry_run;
	req.unit_ids = &run.unit_ids;
	if ((rc = run_open(&run, path, &p, &req.pol)) != 0)
		return rc;
#if defined(__SANITIZE_ADDRESS__)
	/* The sanitizer's shadow memory cannot be locked: test builds skip it. */
	mlock = false;
#endif
	if (mlock)
		lock_memory(&run);
	if (!once && !req.dry_run)
		enter_self_group(&run, ctx, &self_group);

#ifdef MEMCTL_FAULT_INJECTION
	/* test build: stop here, started and not yet in the loop (integration/11) */
	if (getenv("MEMCTL_STOP_AT_START"))
		raise(SIGSTOP);
#endif
	loop_start(&run, &set, !once);

	mc_err_sink = (struct mc_err_sink){ on_error, &run };
	set_callbacks(&run, &req);
	ctx->no_wait = true;   /* a held lock skips an interval instead of stalling the loop */
	ctx->quiet = true;
	run_log(&run, 6, "running '%s' every %llu ms%s", path, (unsigned long long)p.interval_ms,
		req.dry_run ? " (dry run: nothing is written)" : "");
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (;;) {
		rc = run_interval(&run, &p, &req);
		if (once)
			break;
		mc_deadline_next(&next, p.interval_ms);
		sig = wait_interval(&run, &set, &next, path, &p, &gate);
		if (sig == SIGTERM || sig == SIGINT) {
			log_stop(&run, sig, mlock);
			break;
		}
	}
	run_close(&run, &req, &p, &self_group);
	return once ? rc : MC_EXIT_OK;
}

static const struct mc_opt run_opt_once = {
	"once", 0, MC_OPT_FLAG, NULL, "one interval, then exit with its status",
	MC_COMPLETE_NONE, NULL, false, offsetof(struct run_opts, once),
};
static const struct mc_opt run_opt_dry_run = {
	"dry-run", 0, MC_OPT_FLAG, NULL, "log the decisions, write nothing",
	MC_COMPLETE_NONE, NULL, false, offsetof(struct run_opts, dry_run),
};
static const struct mc_opt run_opt_no_mlock = {
	"no-mlock", 0, MC_OPT_FLAG, NULL, "do not lock memctl's memory",
	MC_COMPLETE_NONE, NULL, false, offsetof(struct run_opts, no_mlock),
};
static const struct mc_opt run_opt_export = {
	"export", 0, MC_OPT_STRING, "FILE", "rewrite FILE atomically with the metrics every interval",
	MC_COMPLETE_FILE, NULL, false, offsetof(struct run_opts, export_file),
};
static const struct mc_opt run_opt_record = {
	"record", 0, MC_OPT_STRING, "DIR",
	"write every interval with its decisions to the history store DIR (see memctl record)",
	MC_COMPLETE_DIR, NULL, false, offsetof(struct run_opts, rec.dir),
};
static const struct mc_opt run_opt_output = {
	"output", 'o', MC_OPT_OUTPUT, "FORMAT", "of --export: prom (default) or json",
	MC_COMPLETE_WORDS, "prom json", false, offsetof(struct run_opts, out),
};

const struct mc_cmd cmd_run_entry = {
	.name = "run",
	.args = "PROFILE",
	.min_args = 1,
	.max_args = 1,
	.flags = CMD_NEED_HOST,
	.summary = "apply, then keep the profile and policies right every interval",
	.help = "Logs one line per decision to stderr (journald priorities when run by systemd).\n"
		"--export FILE holds the metrics of the profile's groups and the engine's\n"
		"decisions (see memctl export).\n"
		"SIGHUP reloads the profile (a broken one is reported, the old one kept);\n"
		"SIGTERM and SIGINT stop after the current interval.\n",
	.arg_complete = { MC_COMPLETE_PROFILE },
	.opts = (const struct mc_opt *const[]){ &run_opt_once, &run_opt_dry_run, &run_opt_no_mlock,
						&run_opt_export, &run_opt_output, &run_opt_record,
						&recorder_opt_retain, &recorder_opt_max_size,
						&mc_opt_state_dir,
						&mc_opt_insecure_profile, &mc_opt_cgroup_root,
						NULL },
	.opts_size = sizeof(struct run_opts),
	.opts_default = &(const struct run_opts){ .out = MC_OUT_PROM },
	.exec = cmd_run_exec,
};
