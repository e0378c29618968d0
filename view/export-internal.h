#ifndef MEMCTL_EXPORT_INTERNAL_H
#define MEMCTL_EXPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "export.h"
#include "model.h"

/*
 * Private to the exporter (export.c) and its renderers (render-prom.c,
 * render-json.c): the exporter's state, what is exported, described once,
 * and the values of one row.
 */

/* One group's decisions in the last interval, by absolute path. */
struct export_dec {
	char *abs;
	uint64_t set[MC_KNOB__COUNT];
	bool set_valid[MC_KNOB__COUNT];
	uint64_t reclaim;
};

struct mc_export {
	struct mc_host *h;
	struct top_model m;
	bool have_model;
	const struct mc_policy *pol;
	char *pparent;              /* the profile's parent, absolute; NULL: no engine */
	struct export_dec *dec;
	size_t n_dec;
	size_t cap_dec;
	unsigned long intervals;
	char *state_dir;            /* where the daemons publish their state; NULL: not read */
	void (*warn)(void *arg, const char *msg);
	void *warn_arg;
	bool *skip;                 /* per row: left out (gone, or a name that is not UTF-8) */
	size_t cap_skip;
	struct mc_buf out;
};

/*
 * memory.stat fields, by their v2 names: the host layer gives v2 names on
 * every host (v1's hierarchical total_* fields renamed; they count the
 * whole subtree, as v2's do).
 */
struct export_stat {
	const char *name;     /* metric name */
	const char *key;      /* JSON key and memory.stat key */
	bool counter;
	const char *help;
};
extern const struct export_stat export_stats[];
extern const size_t export_n_stats;

/* memory.events keys (v1: failcnt as "max", oom_control's oom_kill). */
enum { EXPORT_N_EVENTS = 6 };
extern const char *const export_events[EXPORT_N_EVENTS];
extern const size_t export_n_events;

/* Row o of the display order, or NULL when it is left out. */
const struct top_row *export_row(const struct mc_export *e, size_t o);

/* Each value of a row: false when the host (or the engine) has none. */
bool export_stat_value(const struct mc_export *e, const struct export_stat *s,
		       const struct top_row *r, uint64_t *ret);
bool export_knob_value(const struct mc_export *e, const struct top_row *r, enum mc_knob k,
		       uint64_t *ret);
bool export_usage(const struct mc_export *e, const struct top_row *r, uint64_t *ret);
bool export_eff_limit(const struct mc_export *e, const struct top_row *r, uint64_t *ret);
bool export_working_set(const struct mc_export *e, const struct top_row *r, uint64_t *ret);
bool export_reclaim(const struct mc_export *e, const struct top_row *r, uint64_t *ret);

/* The decisions of group abs in the last interval, or NULL. */
const struct export_dec *export_dec_find(const struct mc_export *e, const char *abs);

/* Render the last refresh into e->out. */
void export_render_prom(struct mc_export *e);
void export_render_json(struct mc_export *e);

#endif
