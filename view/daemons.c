/*
 * The daemons' real decisions in `memctl top`: the state every running
 * `memctl run` publishes in the state directory (host/runstate.h). Each
 * refresh compares a signature of the state files (the directory listed
 * again only when its inotify watch reported a change) and reads them
 * again only when one changed, so a screen refreshing every second costs
 * nothing more while the daemons' intervals are longer.
 *
 * A group managed by a daemon (below or at its profile's parent) shows
 * that daemon's decisions; top's own simulation (--profile) is shown only
 * for the groups no daemon manages, marked "simulated".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "format.h"
#include "model.h"

int top_daemons_init(struct top_daemons *d, const char *state_dir)
{
	memset(d, 0, sizeof(*d));
	d->state_dir = strdup(state_dir);
	if (!d->state_dir)
		return -ENOMEM;
	mc_runstate_watch_init(&d->watch, true);
	return 0;
}

static void daemons_clear(struct top_daemons *d)
{
	for (size_t i = 0; !d->borrowed && i < d->n; i++)
		mc_runstate_release(&d->v[i]);
	if (!d->borrowed)
		free(d->v);
	d->v = NULL;
	d->n = 0;
	d->borrowed = false;
}

void top_daemons_release(struct top_daemons *d)
{
	daemons_clear(d);
	/* the watch is set up exactly when state_dir is: a model's daemons are zero until init */
	if (d->state_dir)
		mc_runstate_watch_release(&d->watch);
	free(d->state_dir);
	memset(d, 0, sizeof(*d));
}

char *top_decision_text(const struct mc_run_decision *d)
{
	char a[24], b[24], *t = NULL;
	int r;

	if (d->kind == MC_RUN_WRITE)
		r = asprintf(&t, "%s: %s %s -> %s: %s", d->policy, d->knob,
			     d->old_valid ? mc_fmt_size(d->old, a) : "(new)", mc_fmt_size(d->value, b),
			     d->reason);
	else if (d->kind == MC_RUN_RECLAIM && d->err < 0)
		r = asprintf(&t, "%s: reclaim %s, got %s (%s): %s", d->policy,
			     mc_fmt_size(d->value, a), mc_fmt_size(d->got, b), strerror(-d->err),
			     d->reason);
	else if (d->kind == MC_RUN_RECLAIM)
		r = asprintf(&t, "%s: reclaim %s, got %s: %s", d->policy, mc_fmt_size(d->value, a),
			     mc_fmt_size(d->got, b), d->reason);
	else
		r = asprintf(&t, "%s: %s = %s: %s", d->policy, d->knob, mc_fmt_size(d->value, a),
			     d->reason);
	return r < 0 ? NULL : t;
}

/*
 * The decision the DECISION column shows for a group: what the daemon did
 * in its last interval (writes, reclaims) before what it holds (settings
 * already in place), with a count of the others.
 */
static char *row_text(const struct mc_runstate *s, const char *abs)
{
	const struct mc_run_decision *d, *best = NULL;
	size_t pos = 0, n = 0;
	char *one, *t;

	while ((d = mc_runstate_next(s, abs, &pos))) {
		n++;
		if (!best || (best->kind == MC_RUN_SET && d->kind != MC_RUN_SET))
			best = d;
	}
	if (!best)
		return NULL;
	one = top_decision_text(best);
	if (!one || n == 1)
		return one;
	if (asprintf(&t, "%s (+%zu more)", one, n - 1) < 0)
		t = NULL;
	free(one);
	return t;
}

/*
 * Reads the running daemons' states again when their files changed, into
 * d. Returns whether they did, or -1 when there is nothing to show.
 */
static int daemons_from_state_dir(struct top_daemons *d)
{
	uint64_t sig = 0;
	bool changed;

	if (!d->state_dir)
		return -1;
	if (mc_runstate_dir_sig_watched(&d->watch, d->state_dir, &sig) < 0)
		return 0;
	changed = sig != d->sig;
	if (changed) {
		daemons_clear(d);
		if (sig && mc_runstate_list(d->state_dir, &d->v, &d->n, &d->refused, &d->problem) < 0)
			sig = 0;   /* out of memory: try again next refresh */
		d->sig = sig;
	}
	return changed;
}

/* The states the source gives (a recorded sample's), borrowed. Whether they changed. */
static int daemons_from_source(struct top_model *m)
{
	struct top_daemons *d = &m->daemons;
	const struct mc_runstate *v = NULL;
	size_t n = 0;

	if (!m->src->ops->daemons(m->src, &v, &n))
		return 0;
	daemons_clear(d);
	d->v = (struct mc_runstate *)v;   /* never written through: the rows only read it */
	d->n = n;
	d->borrowed = true;
	return 1;
}

void top_daemons_refresh(struct top_model *m)
{
	struct top_daemons *d = &m->daemons;
	int changed = m->src->ops->daemons ? daemons_from_source(m) : daemons_from_state_dir(d);

	if (changed < 0) {
		/* no state: every row has none (a pass only when that is news) */
		for (size_t i = 0; (!m->daemons_none || m->daemons_new) && i < m->n; i++)
			m->rows[i].daemon = -1;
		m->daemons_none = true;
		m->daemons_new = false;
		return;
	}
	if (m->daemons_none)
		changed = 1;   /* rows set to -1 above: look them up */
	m->daemons_none = false;
	/* rows keep their text until the state changes (a new row is looked up) */
	for (size_t i = 0; (changed || m->daemons_new) && i < m->n; i++) {
		struct top_row *r = &m->rows[i];
		int k;

		if (!changed && r->daemon != TOP_DAEMON_UNKNOWN)
			continue;
		k = mc_runstate_owner(d->v, d->n, r->abs);
		if (k >= 0 || r->daemon >= 0) {
			/* a daemon's text, or the one of a daemon that stopped */
			free(r->decision);
			free(r->decision_label);
			r->decision = k >= 0 ? row_text(&d->v[k], r->abs) : NULL;
			r->decision_label = r->decision ? mc_esc_text_dup(r->decision) : NULL;
		}
		r->daemon = k;
	}
	m->daemons_new = false;
}

const struct mc_runstate *top_row_daemon(const struct top_model *m, const struct top_row *r)
{
	return r->daemon >= 0 && (size_t)r->daemon < m->daemons.n ? &m->daemons.v[r->daemon] : NULL;
}

static const char *const kind_json[] = {
	[MC_RUN_SET] = "set",
	[MC_RUN_WRITE] = "write",
	[MC_RUN_RECLAIM] = "reclaim",
};

/* One decision as a JSON object. */
static void json_decision(struct mc_buf *b, const struct mc_run_decision *d)
{
	mc_buf_adds(b, "{\"kind\":\"");
	mc_buf_adds(b, kind_json[d->kind]);
	mc_buf_adds(b, "\",\"policy\":");
	mc_esc_json(b, d->policy);
	mc_buf_adds(b, ",\"group\":");
	mc_esc_json(b, d->group);
	mc_buf_adds(b, ",\"knob\":");
	if (d->kind == MC_RUN_RECLAIM)
		mc_buf_adds(b, "null");
	else
		mc_esc_json(b, d->knob);
	mc_buf_adds(b, ",\"old\":");
	if (d->kind == MC_RUN_WRITE && d->old_valid)
		mc_fmt_json_size(b, d->old);
	else
		mc_buf_adds(b, "null");
	mc_buf_adds(b, ",\"new\":");
	mc_fmt_json_size(b, d->value);
	if (d->kind == MC_RUN_RECLAIM) {
		mc_buf_printf(b, ",\"got\":%" PRIu64 ",\"error\":", d->got);
		if (d->err < 0)
			mc_esc_json(b, strerror(-d->err));
		else
			mc_buf_adds(b, "null");
	}
	mc_buf_adds(b, ",\"reason\":");
	mc_esc_json(b, d->reason);
	mc_buf_addc(b, '}');
}

void top_json_decisions(struct mc_buf *b, const struct mc_runstate *s, const char *group)
{
	const struct mc_run_decision *d;
	bool first = true;

	mc_buf_addc(b, '[');
	for (size_t i = 0; i < s->n_dec; i++) {
		d = &s->dec[i];
		if (group && strcmp(d->group, group) != 0)
			continue;
		if (!first)
			mc_buf_addc(b, ',');
		first = false;
		json_decision(b, d);
	}
	mc_buf_addc(b, ']');
}

void top_json_daemon(struct mc_buf *b, const struct mc_runstate *s)
{
	uint64_t cum = 0;

	mc_buf_printf(b, "{\"pid\":%ld,\"profile\":", s->pid);
	mc_esc_json(b, s->profile ? s->profile : "");
	mc_buf_adds(b, ",\"parent\":");
	mc_esc_json(b, s->parent);
	mc_buf_printf(b, ",\"dry_run\":%s,\"interval\":%lu,\"time\":%.3f,"
			 "\"duration_seconds\":%.6f,\"reclaimed_bytes\":%" PRIu64
			 ",\"reclaim_requests\":%" PRIu64 ",\"reclaim_failures\":%" PRIu64
			 ",\"intervals_failed\":%" PRIu64 ",\"interval_duration_seconds\":"
			 "{\"count\":%" PRIu64 ",\"sum\":%.6f,\"buckets\":[",
		      s->dry_run ? "true" : "false", s->interval, s->time, s->duration,
		      s->reclaimed_bytes, s->reclaim_requests, s->reclaim_failures,
		      s->intervals_failed, s->hist_count, s->hist_sum);
	for (size_t i = 0; i < MC_RUN_HIST_N; i++) {
		cum += s->hist[i];
		if (i + 1 < MC_RUN_HIST_N)
			mc_buf_printf(b, "%s{\"le\":%g,\"count\":%" PRIu64 "}", i ? "," : "",
				      mc_run_hist_le[i], cum);
		else
			mc_buf_printf(b, ",{\"le\":\"+Inf\",\"count\":%" PRIu64 "}", cum);
	}
	mc_buf_adds(b, "]},\"decisions\":");
	top_json_decisions(b, s, NULL);
	mc_buf_addc(b, '}');
}
