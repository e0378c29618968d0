/*
 * The policy engine: profile + live snapshot + engine state -> settings,
 * reclaim actions and notes, each with a reason a person can read.
 *
 * What is considered. The profile's groups, matched to the snapshot by path
 * relative to the parent ("web/cache"); a group missing from the snapshot
 * (or that vanished while being read) is skipped this interval together
 * with its subtree. The profile's parent is node "" and is never reclaimed
 * or changed: it is where demand starts.
 *
 * Demand. A node that has groups below it (the parent, or a group with
 * children present) "needs memory back" when its usage is above its live
 * effective limit minus a headroom (the limit is the smallest max on the
 * way up, the parent's being the snapshot's parent_limit, which is RAM for
 * an unlimited parent, so an unlimited parent far below RAM needs nothing),
 * or when its PSI "some" avg10, less what limits explain, is above the
 * threshold (then at least the headroom). Limits explain all of a node's
 * pressure when it sits within two headrooms of its limit (its usage
 * demand serves that limit; more reclaim only brings thrashing pages
 * back), and otherwise what they explain of its children's, at most its
 * own: a parent far below its limit whose child thrashes at the child's
 * own limit has no pressure of its own to relieve. On a host without memory.high (v1), usage above the profile's
 * high is demand too: memctl emulates high. Demand is rounded up to a page.
 *
 * 1. Soft-limit ordering. A node's demand is split over its children by
 *    mc_softlimit_split_stream: first from those above their soft limit in
 *    proportion to the excess, never more than it; the rest in proportion
 *    to usage, streaming children first, nobody below its protection.
 *    Protection bounds the first pass too: a soft limit below the working
 *    set would otherwise undo the protection every interval, and the
 *    operator asked for both. The split works in pages so every share is
 *    page aligned and the reasons print exact sizes. A child with children
 *    of its own does not reclaim: its share becomes its demand (the larger
 *    of that and its own) and is split again below it, so reclaim happens
 *    at the leaves and no subtree is reclaimed twice. What the children
 *    cannot give is reported as a note.
 *    Soft limits on the host: v1 and the patched kernel have a file, which
 *    the planner writes from the profile. Stock v2 has none: a group with a
 *    soft limit gets memory.low = max(profile low, protection, its soft
 *    limit), the soft limit bounded so that the lows of a parent's children
 *    claim no more than the parent's limit (soft_lows says why, in v2's
 *    effective-low terms), so the kernel keeps it below its soft limit from
 *    the first interval while the proactive reclaims above take the
 *    ordering. On v2 the share of a group above its soft limit is left to
 *    the kernel when the kernel spares the siblings to be spared already:
 *    its limit reclaim takes from that group first: reclaim_futile.
 *    And on v2 the split takes nobody below its soft limit (split_node):
 *    the kernel protects it, and falls back to it itself under real
 *    pressure.
 * 2. Active-set protection (protect: active). The working set is
 *    mc_ws_update over active_anon + active_file plus the bytes refaulted
 *    since the last interval (workingset_refault_* are page counts) less
 *    those the kernel activated (workingset_activate_*: on the active
 *    lists already): it
 *    rises at once; it holds, however long the active size stays down,
 *    while the pages come back into use (the active size plus refaults plus
 *    the pages activated since the last interval - v2's pgactivate, or on
 *    v1, which counts no activations, what the active lists grew by - is
 *    within the deadband of it); without that evidence it holds for ws_hold
 *    intervals (a job between passes over its pages is still using them),
 *    then comes down to what is seen in use within MC_WS_RELEASE (3)
 *    intervals, so what is derived from it converges as fast as a cap
 *    does after a workload change; it never exceeds usage plus
 *    refaults - except while reclaim takes the group's pages (v2's
 *    pgsteal, or refaults of a deadband, in this interval or the ws_hold
 *    before, during which refaults also stop the decay): a usage drop the
 *    kernel caused is not memory freed, and following it would give the
 *    neighbours that pressed the job more room - and is capped at the
 *    group's max. memory.stat keys
 *    are v2's on every host (the host layer renames v1's total_* ones). The
 *    estimate (or the size of protect: SIZE) is a floor for the split
 *    above. On v2 it becomes memory.low - until memory.low fails the group
 *    (memory.events low rises: its siblings held nothing the kernel could
 *    reclaim, such as anonymous memory without swap), from when on its
 *    siblings are capped as on v1 (sibling_caps; memctl run plans at once
 *    when it sees the count rise, not at the end of its interval). v1 has
 *    no memory.low and limit reclaim walks every child, so the unprotected
 *    siblings get limit_in_bytes caps (mc_sibling_cap) that leave room inside the
 *    parent's limit for each protected group (its working set, or its
 *    usage when larger: a parent driven to its limit reclaims from every
 *    child, the protected ones too), the headroom and a deadband. A cap is
 *    never below the child's soft limit (the planner requires soft_limit
 *    <= max) and the child's own profile groups follow it down (their max
 *    may not exceed their parent's).
 *    Deadband: every value a policy derives from sizes that move between
 *    intervals - a v1 cap (and the caps of the groups below it, which
 *    follow it), memory.low from a working set or from a stock v2 soft
 *    limit's share of an over-claimed parent limit (which follows the
 *    usages) - is rewritten only when it moves by more than mc_deadband of
 *    its live value (1%, at least 1 MiB), except a cap that must come down
 *    while the parent is above limit - headroom; the room the caps leave
 *    for the deadband keeps a cap that lags below that line, so a steady
 *    workload sees no write and no demand reclaim at all. The other derived
 *    values (THP's high, protect: SIZE, a stock soft limit's low that fits
 *    its parent, the protect switch) are functions of the profile and the
 *    live limits alone and do not move while those stay. A v1 reclaim lowers a limit
 *    for a moment, but only when usage is within the headroom of it.
 *    With memctl's kernel patch, memory.reclaim_protect_active is set in
 *    the group and its profile ancestors too (protect_switches).
 * 3. THP. A group is a THP group with thp: true, or with thp unset and
 *    anon_thp (v1: rss_huge) > 0; thp: false is the operator's word. Where
 *    memory.high exists its value (profile's, else live) goes through
 *    mc_thp_high; a changed value is a setting. Where it does not, high is
 *    emulated by reclaim. Reclaims of THP groups are whole huge pages.
 *    Fallback counters are reported as notes when they grew.
 * 4. NUMA. Each reclaim of a group with more than one node is split by
 *    node: weighted (deficit round-robin over inactive_file, plus
 *    inactive_anon with swap; v1's numa_stat has only file and anon; a
 *    node's weight less what it refaulted in the last interval times the
 *    hold, so the node whose cache is read again gives less) or
 *    round-robin, in units of 2 MiB for THP groups, else pages. Only v2
 *    with memctl's kernel patch can reclaim per node; elsewhere the split
 *    is shown and one note per call says it is not enforced.
 * 5. Concurrency is the host layer's; reclaims come out largest first.
 *
 * Settings are desired state, not deltas: every interval every policy
 * value is emitted again, because the planner would otherwise write the
 * profile's static value over it (a value the deadband keeps is emitted as
 * the live value). The planner drops writes equal to the live value.
 * Convergence: each emitted value is compared with the live one; a group
 * counts, per knob, the intervals in a row whose value was not live (each a
 * write), and the first interval whose value is live reports the count in
 * the decisions' settled list (what memctl run logs as "converged after N
 * intervals"). Reclaims are not counted: emulating high on v1 reclaims
 * every interval for as long as the group runs above it.
 * Reasons and notes carry every size in one unit (units.h), chosen with the
 * setting's old and new value so that a log line showing them is in one
 * unit too. Settings of one group never break min <= low <= high <= max:
 * a derived low is clamped below the (derived) high and max.
 *
 * State (smoothed working sets, refault, activation and fallback counters,
 * the last active sizes, the moving counts, NUMA deficits and round-robin
 * positions) is kept per group path. A group not
 * seen in a call has its state dropped at the end of that call: a group of
 * that name seen later is a new group with a new workload. Everything a
 * call computes is committed only when the call succeeds, so a failed call
 * (-ENOMEM) leaves the state as it was, except for empty entries.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "policy.h"
#include "units.h"

#define K MC_KNOB__COUNT
#define NO_NODE ((size_t)-1)

struct gstate {
	char *path;
	bool seen;               /* in the call being committed */
	struct mc_ws_state ws;   /* working-set estimate, est 0 = no history */
	bool ws_valid;
	uint64_t refault;        /* last workingset_refault counter, pages */
	bool refault_valid;
	uint64_t activate;       /* last pgactivate counter, pages */
	bool activate_valid;
	uint64_t reactivate;     /* last workingset_activate counter, pages */
	bool reactivate_valid;
	uint64_t steal;          /* last pgsteal counter, pages */
	bool steal_valid;
	uint64_t low_events;     /* last memory.events low counter (v2) */
	bool low_events_valid;
	bool breached;           /* v2: its memory.low did not hold once; siblings are capped */
	uint64_t active;         /* last active size, bytes */
	bool active_valid;
	unsigned moving[K];      /* intervals in a row the derived value was not the live one */
	uint64_t fallback;       /* last THP fallback counter */
	bool fallback_valid;
	int64_t *deficit;        /* NUMA deficit per node */
	size_t n_deficit;
	uint64_t *node_refault;  /* last workingset_refault per node, pages */
	size_t n_node_refault;
	size_t rr_next;          /* round-robin: next node */
};

struct policy_child {
	char *key;
	struct mc_policy *pol;
};

struct mc_policy {
	struct mc_policy_config cfg;
	struct gstate *g;
	size_t n;
	size_t cap;
	struct policy_child *kids;   /* mc_policy_child's, by key */
	size_t n_kids, cap_kids;
};

struct node {
	char *path;                        /* relative to the parent, "" = the parent */
	char *keypath;                     /* "groups.web.cache", NULL for the parent */
	const struct mc_group_spec *spec;  /* NULL for the parent */
	const struct mc_group_snap *g;     /* NULL: the parent is not in the snapshot */
	size_t parent;
	size_t n_kids;
	size_t st;                         /* index in pol->g; NO_NODE for the parent */
	uint64_t want[K];                  /* resolved profile values, page aligned */
	bool wanted[K];
	uint64_t base;                     /* what its percentages resolve against */
	uint64_t limit;                    /* live effective limit */
	uint64_t usage;
	bool usage_valid;
	uint64_t active, active_anon, active_file, inactive_file;
	uint64_t refault_now;              /* counter, pages */
	bool refault_now_valid;
	uint64_t refault_bytes;            /* since the last interval */
	uint64_t activate_now;             /* counter, pages */
	bool activate_now_valid;
	uint64_t reactivate_now;           /* workingset_activate counter, pages */
	bool reactivate_now_valid;
	uint64_t reactivate_bytes;         /* refaults activated since the last interval */
	uint64_t steal_now;                /* pgsteal counter, pages */
	bool steal_now_valid;
	uint64_t steal_bytes;              /* reclaimed since the last interval, MC_SIZE_MAX unknown */
	uint64_t low_events_now;           /* memory.events low (v2) */
	bool low_events_now_valid;
	uint64_t low_breaches;             /* of them since the last interval */
	bool breached;                     /* its memory.low did not hold, now or before */
	uint64_t touched;                  /* bytes back in use since the last interval */
	bool touched_counted;              /* touched is activations, not active growth */
	uint64_t fallback_now;
	bool fallback_now_valid;
	uint64_t fallback_delta;
	bool thp;
	bool streaming;
	uint64_t ws;                       /* protect: active, this interval */
	struct mc_ws_state ws_st;          /* its state to commit */
	bool ws_capped;
	uint64_t protect;                  /* floor for reclaim */
	uint64_t soft;                     /* MC_SIZE_MAX: none */
	/* stock v2: the memory.low its soft limit gives (soft_lows) */
	bool soft_low_set;
	uint64_t soft_low;
	bool soft_shared;                  /* a share of the parent's limit: moves with usage */
	uint64_t soft_room;                /* that limit */
	uint64_t high;                     /* final high, MC_SIZE_MAX: none */
	uint64_t max;                      /* own max (profile, else live) */
	/* the THP high setting */
	bool high_set;
	char *high_why;
	/* the v1 sibling cap */
	bool cap_set;
	uint64_t cap;
	char *cap_why;
	/* demand */
	double psi_limits;                 /* of its PSI some avg10, what limits explain */
	double psi_kids;                   /* its children's psi_limits, summed */
	uint64_t demand;
	char *why;
	uint64_t emu;                      /* usage above an emulated high */
	/* share of the parent's demand */
	uint64_t take, first;
	unsigned moving[K];                /* pol's moving[] to commit */
	/* NUMA state to commit */
	bool numa_touched;
	int64_t *new_deficit;
	size_t n_new_deficit;
	uint64_t *node_refault_now;        /* per node, pages; NULL: not counted */
	uint64_t *node_refault_bytes;      /* per node, since the last interval */
	size_t new_rr;
};

struct build {
	struct mc_policy *pol;
	const struct mc_policy_config *cfg;
	const struct mc_profile *p;
	const struct mc_snapshot *s;
	const struct mc_caps *caps;
	struct mc_diags *diags;
	uint64_t page;
	struct node *n;
	size_t len, cap;
	struct mc_decisions d;
};

/* ---- strings ---- */

struct sz {
	char s[24];
};

/*
 * Sizes in reasons, notes and diagnostics are marked (S) and resolved into
 * one unit per message when it is pushed (units.h), the huge-page size too.
 */
static struct sz S(uint64_t v)
{
	struct sz r;

	mc_units_mark(v, r.s);
	return r;
}

/*
 * Adds diagnostic msg (taken; NULL: out of memory) with its marked sizes in
 * one unit. Returns mc_diags_add's result, or -ENOMEM.
 */
static int diag_units(struct mc_diags *diags, const char *file, int line, int col,
		      const char *path, char *msg)
{
	int r = -ENOMEM;

	msg = mc_units_resolve(msg, NULL, 0, NULL);
	if (msg)
		r = mc_diags_add(diags, file, line, col, path, "%s", msg);
	free(msg);
	return r;
}


/* Appends to a (which is consumed); NULL when a is NULL or on failure. */
static char *xcat(char *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *xcat(char *a, const char *fmt, ...)
{
	va_list ap;
	char *tail, *s;
	int r;

	if (!a)
		return NULL;
	va_start(ap, fmt);
	r = vasprintf(&tail, fmt, ap);
	va_end(ap);
	if (r < 0) {
		free(a);
		return NULL;
	}
	s = mc_asprintf("%s%s", a, tail);
	free(a);
	free(tail);
	return s;
}

/* How a node is named in messages: the parent by its absolute path. */
static const char *subject(const struct build *b, const struct node *nd)
{
	return *nd->path ? nd->path : b->s->parent;
}

/* ---- config and state ---- */

static int config_fill(const struct mc_policy_config *in, struct mc_policy_config *out)
{
	if (!in || in->cpus < 1)
		return -EINVAL;
	*out = *in;
	if (!(in->psi_some_threshold >= 0.0))  /* also NaN */
		return -EINVAL;
	if (in->psi_some_threshold == 0.0)
		out->psi_some_threshold = 10.0;
	if (in->ws_hold == 0)
		out->ws_hold = 10;
	if (in->ws_alpha == 0.0)
		out->ws_alpha = 0.3;
	else if (!(in->ws_alpha > 0.0 && in->ws_alpha <= 1.0))
		return -EINVAL;
	return 0;
}

int mc_policy_new(const struct mc_policy_config *cfg, struct mc_policy **ret)
{
	struct mc_policy *pol;
	struct mc_policy_config c;
	int r = config_fill(cfg, &c);

	if (r < 0)
		return r;
	pol = calloc(1, sizeof(*pol));
	if (!pol)
		return -ENOMEM;
	pol->cfg = c;
	*ret = pol;
	return 0;
}

static void gstate_clear(struct gstate *g)
{
	free(g->path);
	free(g->deficit);
	free(g->node_refault);
}

void mc_policy_free(struct mc_policy *pol)
{
	if (!pol)
		return;
	for (size_t i = 0; i < pol->n; i++)
		gstate_clear(&pol->g[i]);
	free(pol->g);
	for (size_t i = 0; i < pol->n_kids; i++) {
		free(pol->kids[i].key);
		mc_policy_free(pol->kids[i].pol);
	}
	free(pol->kids);
	free(pol);
}

int mc_policy_child(struct mc_policy *pol, const char *key, struct mc_policy **ret)
{
	struct policy_child *k;
	int r;

	for (size_t i = 0; i < pol->n_kids; i++)
		if (strcmp(pol->kids[i].key, key) == 0) {
			*ret = pol->kids[i].pol;
			return 0;
		}
	if (mc_array_reserve(&pol->kids, &pol->cap_kids, pol->n_kids + 1, sizeof(*pol->kids)) < 0)
		return -ENOMEM;
	k = &pol->kids[pol->n_kids];
	if (!(k->key = strdup(key)))
		return -ENOMEM;
	if ((r = mc_policy_new(&pol->cfg, &k->pol)) < 0) {
		free(k->key);
		return r;
	}
	pol->n_kids++;
	*ret = k->pol;
	return 0;
}

static size_t state_find(const struct mc_policy *pol, const char *path)
{
	for (size_t i = 0; i < pol->n; i++)
		if (strcmp(pol->g[i].path, path) == 0)
			return i;
	return NO_NODE;
}

/* The state entry of path, created empty when there is none. */
static int state_get(struct mc_policy *pol, const char *path, size_t *ret)
{
	size_t i = state_find(pol, path);

	if (i == NO_NODE) {
		if (mc_array_reserve(&pol->g, &pol->cap, pol->n + 1, sizeof(*pol->g)) < 0)
			return -ENOMEM;
		memset(&pol->g[pol->n], 0, sizeof(pol->g[pol->n]));
		pol->g[pol->n].path = strdup(path);
		if (!pol->g[pol->n].path)
			return -ENOMEM;
		i = pol->n++;
	}
	*ret = i;
	return 0;
}

int mc_policy_working_set(const struct mc_policy *pol, const char *group, uint64_t *ret)
{
	size_t i = state_find(pol, group);

	if (i == NO_NODE || !pol->g[i].ws_valid)
		return -ENOENT;
	*ret = pol->g[i].ws.est;
	return 0;
}

/* ---- decisions ---- */

void mc_decisions_free(struct mc_decisions *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n_set; i++) {
		free(d->set[i].group);
		free(d->set[i].reason);
	}
	for (size_t i = 0; i < d->n_reclaim; i++) {
		free(d->reclaim[i].group);
		free(d->reclaim[i].node_bytes);
		free(d->reclaim[i].reason);
	}
	for (size_t i = 0; i < d->n_notes; i++)
		free(d->notes[i]);
	for (size_t i = 0; i < d->n_settled; i++)
		free(d->settled[i].group);
	free(d->set);
	free(d->reclaim);
	free(d->notes);
	free(d->settled);
	memset(d, 0, sizeof(*d));
}

/*
 * Convergence of setting st, pushed for node nd: a value that is not the
 * live one (a write) extends the group's run of moving intervals for that
 * knob; the live value ends the run, and a run that ended is reported.
 */
static int track_settled(struct build *b, const struct mc_setting *st)
{
	struct node *nd = NULL;
	const struct gstate *gs;
	struct mc_settled *out;

	for (size_t i = 1; i < b->len && !nd; i++)
		if (strcmp(b->n[i].path, st->group) == 0)
			nd = &b->n[i];
	if (!nd || nd->st == NO_NODE)
		return 0;	/* not on the host yet: nothing to compare with */
	gs = &b->pol->g[nd->st];
	if (!nd->g->raw_valid[st->knob] || nd->g->raw[st->knob] != st->value) {
		nd->moving[st->knob] = gs->moving[st->knob] + (gs->moving[st->knob] < UINT_MAX);
		return 0;
	}
	nd->moving[st->knob] = 0;
	if (!gs->moving[st->knob])
		return 0;
	if (mc_array_reserve(&b->d.settled, &b->d.cap_settled, b->d.n_settled + 1,
			     sizeof(*b->d.settled)) < 0)
		return -ENOMEM;
	out = &b->d.settled[b->d.n_settled];
	*out = (struct mc_settled){ .knob = st->knob, .value = st->value,
				    .intervals = gs->moving[st->knob], .policy = st->policy };
	if (!(out->group = strdup(st->group)))
		return -ENOMEM;
	b->d.n_settled++;
	return 0;
}

/* Takes ownership of reason (NULL: out of memory). */
static int push_setting(struct build *b, const char *group, const char *policy, enum mc_knob k,
			uint64_t v, char *reason)
{
	struct mc_setting st = { .knob = k, .value = v, .policy = policy };
	const struct mc_group_snap *g = mc_snapshot_find(b->s, group);
	uint64_t shown[2] = { v, g && g->raw_valid[k] ? g->raw[k] : 0 };

	/* one unit for the reason and the old -> new a log line shows beside it */
	reason = mc_units_resolve(reason, shown, 2, &st.reason_unit);
	st.reason = reason;
	if (!reason || mc_array_reserve(&b->d.set, &b->d.cap_set, b->d.n_set + 1, sizeof(st)) < 0 ||
	    !(st.group = strdup(group))) {
		free(reason);
		return -ENOMEM;
	}
	b->d.set[b->d.n_set++] = st;
	return track_settled(b, &st);
}

/* Takes ownership of reason and node_bytes. */
static int push_reclaim(struct build *b, const char *group, uint64_t bytes, uint64_t *node_bytes,
			size_t n_nodes, char *reason)
{
	struct mc_reclaim rc = { .bytes = bytes, .node_bytes = node_bytes,
				 .n_nodes = node_bytes ? n_nodes : 0,
				 .policy = MC_POLICY_SOFT_LIMIT };

	reason = mc_units_resolve(reason, &bytes, 1, &rc.reason_unit);
	rc.reason = reason;
	if (!reason ||
	    mc_array_reserve(&b->d.reclaim, &b->d.cap_reclaim, b->d.n_reclaim + 1, sizeof(rc)) < 0 ||
	    !(rc.group = strdup(group))) {
		free(reason);
		free(node_bytes);
		return -ENOMEM;
	}
	b->d.reclaim[b->d.n_reclaim++] = rc;
	return 0;
}

int mc_decisions_add_note(struct mc_decisions *d, char *note)
{
	if (!note || mc_array_reserve(&d->notes, &d->cap_notes, d->n_notes + 1, sizeof(note)) < 0) {
		free(note);
		return -ENOMEM;
	}
	d->notes[d->n_notes++] = note;
	return 0;
}

static int push_note(struct build *b, char *note)
{
	return mc_decisions_add_note(&b->d, mc_units_resolve(note, NULL, 0, NULL));
}

/* ---- reading the snapshot ---- */

/*
 * A memory.stat value by its v2 name (the host layer gives v2 names on
 * every host; they count the group's whole subtree).
 */
static bool stat_get(const struct mc_group_snap *g, const char *key, uint64_t *ret)
{
	return mc_kvs_get(&g->stat, key, ret) == 0;
}

static uint64_t stat_or0(const struct mc_group_snap *g, const char *key)
{
	uint64_t v;

	return stat_get(g, key, &v) ? v : 0;
}

static uint64_t page_down(uint64_t v, uint64_t page)
{
	return v == MC_SIZE_MAX ? v : v - v % page;
}

static uint64_t page_up(uint64_t v, uint64_t page)
{
	if (v % page == 0)
		return v;
	return v > UINT64_MAX - page ? v - v % page : v + page - v % page;
}

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static int node_add(struct build *b, struct node **ret)
{
	if (mc_array_reserve(&b->n, &b->cap, b->len + 1, sizeof(*b->n)) < 0)
		return -ENOMEM;
	*ret = &b->n[b->len++];
	memset(*ret, 0, sizeof(**ret));
	(*ret)->parent = NO_NODE;
	(*ret)->st = NO_NODE;
	(*ret)->soft = MC_SIZE_MAX;
	(*ret)->high = MC_SIZE_MAX;
	(*ret)->max = MC_SIZE_MAX;
	return 0;
}

/* The sum of KEY_anon and KEY_file; false when the host has neither. */
static bool stat_pair(const struct mc_group_snap *g, const char *key, uint64_t *ret)
{
	char k[64];
	uint64_t a = 0, f = 0;
	bool have;

	snprintf(k, sizeof(k), "%s_anon", key);
	have = stat_get(g, k, &a);
	snprintf(k, sizeof(k), "%s_file", key);
	have |= stat_get(g, k, &f);
	*ret = a + f;
	return have;
}

/*
 * Bytes a page counter grew by since the last interval: 0 on the first
 * interval, and when it went back (a new group under the same name).
 */
static uint64_t delta_bytes(const struct build *b, bool now_valid, uint64_t now, bool last_valid,
			    uint64_t last)
{
	uint64_t pages;

	if (!now_valid || !last_valid || now < last)
		return 0;
	pages = now - last;
	return pages > UINT64_MAX / b->page ? UINT64_MAX : pages * b->page;
}

/*
 * The counters of reclaim's effect on nd since the last interval: refaults,
 * those of them activated, pages stolen, memory.low failures (v2).
 */
static void node_reclaimed(struct build *b, struct node *nd)
{
	const struct mc_group_snap *g = nd->g;
	const struct gstate *st = &b->pol->g[nd->st];

	nd->refault_now_valid = stat_pair(g, "workingset_refault", &nd->refault_now);
	nd->refault_bytes = delta_bytes(b, nd->refault_now_valid, nd->refault_now,
					st->refault_valid, st->refault);
	/* Refaults the kernel activated: on the active list already. */
	nd->reactivate_now_valid = stat_pair(g, "workingset_activate", &nd->reactivate_now);
	nd->reactivate_bytes = delta_bytes(b, nd->reactivate_now_valid, nd->reactivate_now,
					   st->reactivate_valid, st->reactivate);
	/* What reclaim took from it (v2); v1 counts no steals: unknown. */
	nd->steal_now_valid = stat_get(g, "pgsteal", &nd->steal_now);
	nd->steal_bytes = nd->steal_now_valid && st->steal_valid
				  ? delta_bytes(b, true, nd->steal_now, true, st->steal)
				  : MC_SIZE_MAX;

	/*
	 * v2: reclaim that went below its memory.low (nothing else was left to
	 * reclaim: a neighbour's unreclaimable memory). From then on its
	 * unprotected siblings are capped as on v1 (sibling_caps).
	 */
	nd->low_events_now_valid = b->caps->ver == MC_CGV2 &&
				   mc_kvs_get(&g->events, "low", &nd->low_events_now) == 0;
	if (nd->low_events_now_valid && st->low_events_valid && nd->low_events_now > st->low_events)
		nd->low_breaches = nd->low_events_now - st->low_events;
	nd->breached = st->breached || nd->low_breaches;
}

/*
 * `numa: weighted`: what nd refaulted on each node since the last interval
 * (v2's memory.numa_stat counts workingset_refault_* per node; v1's has
 * none). Leaves the arrays NULL where they are not counted. Returns 0 or
 * -ENOMEM.
 */
static int node_numa_refaults(struct build *b, struct node *nd)
{
	const struct mc_group_snap *g = nd->g;
	const struct gstate *st = &b->pol->g[nd->st];
	size_t n = g->n_numa;

	if (b->p->numa != MC_NUMA_WEIGHTED || n <= 1)
		return 0;
	nd->node_refault_now = calloc(n, sizeof(*nd->node_refault_now));
	nd->node_refault_bytes = calloc(n, sizeof(*nd->node_refault_bytes));
	if (!nd->node_refault_now || !nd->node_refault_bytes)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint64_t a = 0, f = 0;
		bool have = mc_kvs_get(&g->numa[i], "workingset_refault_file", &f) == 0;

		have |= mc_kvs_get(&g->numa[i], "workingset_refault_anon", &a) == 0;
		if (!have) {
			free(nd->node_refault_now);
			free(nd->node_refault_bytes);
			nd->node_refault_now = nd->node_refault_bytes = NULL;
			return 0;
		}
		nd->node_refault_now[i] = a + f;
		nd->node_refault_bytes[i] = delta_bytes(b, true, a + f, st->n_node_refault == n,
							st->n_node_refault == n ? st->node_refault[i] : 0);
	}
	return 0;
}

/* Counters and sizes from memory.stat, and what they mean against the state. */
static void node_stats(struct build *b, struct node *nd)
{
	const struct mc_group_snap *g = nd->g;
	const struct gstate *st = &b->pol->g[nd->st];
	uint64_t a = 0, f = 0, thp = 0;
	bool have_a, have_f;

	nd->usage_valid = g->usage_valid;
	nd->usage = g->usage_valid ? g->usage : 0;
	nd->active_anon = stat_or0(g, "active_anon");
	nd->active_file = stat_or0(g, "active_file");
	nd->active = nd->active_anon + nd->active_file;
	nd->inactive_file = stat_or0(g, "inactive_file");

	node_reclaimed(b, nd);

	/*
	 * Pages brought back into use: activations where the host counts them
	 * (v2's pgactivate), else (v1) what the active lists grew by.
	 */
	nd->activate_now_valid = stat_get(g, "pgactivate", &nd->activate_now);
	if (nd->activate_now_valid) {
		nd->touched = delta_bytes(b, true, nd->activate_now, st->activate_valid,
					  st->activate);
		nd->touched_counted = st->activate_valid;
	} else if (st->active_valid && nd->active > st->active) {
		nd->touched = nd->active - st->active;
	}

	a = f = 0;
	have_a = mc_kvs_get(&g->stat, "thp_fault_fallback_charge", &a) == 0;
	have_f = mc_kvs_get(&g->stat, "thp_charge_fallback", &f) == 0;
	if (have_a || have_f) {
		nd->fallback_now = a + f;
		nd->fallback_now_valid = true;
		if (st->fallback_valid && nd->fallback_now > st->fallback)
			nd->fallback_delta = nd->fallback_now - st->fallback;
	}

	stat_get(g, "anon_thp", &thp);
	nd->thp = nd->spec->thp == 1 || (nd->spec->thp == -1 && thp > 0);

	/* Streams: mostly inactive file cache that is not needed again. */
	nd->streaming = nd->usage > 0 && nd->inactive_file > nd->usage / 2 &&
			nd->refault_bytes <= (nd->usage - 1) / 100;
}

/*
 * Adds group spec below node parent, then its children, in preorder.
 * Resolution mirrors the planner: percentages against base, page aligned
 * down; the children's base is the group's profile max, else its live max.
 */
static int add_group(struct build *b, const struct mc_group_spec *spec, size_t parent,
		     uint64_t base)
{
	const struct node *pn = &b->n[parent];
	const struct mc_group_snap *g;
	char *path = *pn->path ? mc_asprintf("%s/%s", pn->path, spec->name) : strdup(spec->name);
	char *key = mc_asprintf("%s.%s", pn->keypath ? pn->keypath : "groups", spec->name);
	struct node *nd;
	size_t idx;
	uint64_t eff;
	int r;

	if (!path || !key) {
		r = -ENOMEM;
		goto fail;
	}
	g = mc_snapshot_find(b->s, path);
	if (!g || !g->present) {
		/* Not on the host this interval: skipped with its subtree. */
		free(path);
		free(key);
		return 0;
	}
	if ((r = node_add(b, &nd)) < 0)
		goto fail;
	idx = b->len - 1;
	nd->path = path;
	nd->keypath = key;
	nd->spec = spec;
	nd->g = g;
	nd->parent = parent;
	nd->base = base;
	b->n[parent].n_kids++;
	if ((r = state_get(b->pol, path, &nd->st)) < 0)
		return r;

	for (int k = 0; k < K; k++) {
		uint64_t v;

		if (spec->knob[k].kind == MC_SIZE_UNSET || mc_size_resolve(&spec->knob[k], base, &v) < 0)
			continue;
		nd->want[k] = page_down(v, b->page);
		nd->wanted[k] = true;
	}
	nd->limit = b->n[parent].limit;
	if (g->raw_valid[MC_KNOB_MAX] && g->raw[MC_KNOB_MAX] < nd->limit)
		nd->limit = g->raw[MC_KNOB_MAX];
	nd->max = nd->wanted[MC_KNOB_MAX] ? nd->want[MC_KNOB_MAX]
		  : g->raw_valid[MC_KNOB_MAX] ? g->raw[MC_KNOB_MAX] : MC_SIZE_MAX;

	eff = base;
	if (nd->wanted[MC_KNOB_MAX] && nd->want[MC_KNOB_MAX] < eff)
		eff = nd->want[MC_KNOB_MAX];
	else if (!nd->wanted[MC_KNOB_MAX] && g->raw_valid[MC_KNOB_MAX] && g->raw[MC_KNOB_MAX] < eff)
		eff = g->raw[MC_KNOB_MAX];
	for (size_t c = 0; c < spec->n_children; c++)
		if ((r = add_group(b, &spec->children[c], idx, eff)) < 0)
			return r;
	return 0;
fail:
	free(path);
	free(key);
	return r;
}

static int build_nodes(struct build *b)
{
	const struct mc_snapshot *s = b->s;
	struct node *root;
	int r;

	if ((r = node_add(b, &root)) < 0)
		return r;
	root->path = strdup("");
	if (!root->path)
		return -ENOMEM;
	root->g = mc_snapshot_find(s, "");
	if (root->g && !root->g->present)
		root->g = NULL;
	root->limit = s->parent_limit;
	if (root->g && root->g->raw_valid[MC_KNOB_MAX] && root->g->raw[MC_KNOB_MAX] < root->limit)
		root->limit = root->g->raw[MC_KNOB_MAX];
	if (root->g) {
		root->usage_valid = root->g->usage_valid;
		root->usage = root->g->usage;
	}
	for (size_t i = 0; i < b->p->n_groups; i++)
		if ((r = add_group(b, &b->p->groups[i], 0, s->parent_limit)) < 0)
			return r;
	return 0;
}

/* ---- per group policy values ---- */

static void node_protect(struct build *b, struct node *nd)
{
	const struct gstate *st = &b->pol->g[nd->st];

	if (nd->spec->protect == MC_PROTECT_ACTIVE) {
		uint64_t cap = min64(nd->max, nd->limit);
		struct mc_ws_sample in = {
			.active = nd->active, .refault = nd->refault_bytes, .touched = nd->touched,
			.usage = nd->usage_valid ? nd->usage : MC_SIZE_MAX,
			.reactivated = nd->reactivate_bytes, .stolen = nd->steal_bytes,
		};
		uint64_t raw;

		nd->ws_st = st->ws_valid ? st->ws : (struct mc_ws_state){ 0 };
		raw = mc_ws_update(&nd->ws_st, &in, MC_SIZE_MAX, b->cfg->ws_alpha, b->cfg->ws_hold,
				   b->page);
		nd->ws = min64(raw, cap);
		nd->ws_capped = raw > cap;
		nd->protect = nd->ws;
	} else if (nd->spec->protect == MC_PROTECT_SIZE) {
		uint64_t v;

		if (mc_size_resolve(&nd->spec->protect_size, nd->base, &v) == 0)
			nd->protect = v;
	}
}

static void node_soft(struct build *b, struct node *nd)
{
	if (nd->wanted[MC_KNOB_SOFT])
		nd->soft = nd->want[MC_KNOB_SOFT];
	else if (b->caps->file[MC_KNOB_SOFT] && nd->g->raw_valid[MC_KNOB_SOFT])
		nd->soft = nd->g->raw[MC_KNOB_SOFT];
}

static const char *cpu_word(unsigned cpus)
{
	return cpus == 1 ? "CPU" : "CPUs";
}

/* The gap a THP group needs between high and max, and why, for messages. */
static uint64_t thp_gap(const struct mc_policy_config *cfg, char why[static 64])
{
	unsigned cpus = cfg && cfg->cpus ? cfg->cpus : 1;
	uint64_t gap = MC_THP_SIZE * cpus;

	if (cfg && cfg->thp_floor > gap) {
		snprintf(why, 64, "the configured THP floor");
		return cfg->thp_floor;
	}
	snprintf(why, 64, "%s x %u %s", S(MC_THP_SIZE).s, cpus, cpu_word(cpus));
	return gap;
}

/*
 * High: the profile's, else the live one. Where memory.high exists a THP
 * group's high is aligned and kept below max by the gap; where it does
 * not, usage above high is reclaimed (emu).
 */
static int node_high(struct build *b, struct node *nd)
{
	const struct mc_group_snap *g = nd->g;
	bool has_file = b->caps->file[MC_KNOB_HIGH] != NULL;
	uint64_t high = MC_SIZE_MAX, h;
	char gapwhy[64];
	int r;

	if (nd->wanted[MC_KNOB_HIGH])
		high = nd->want[MC_KNOB_HIGH];
	else if (has_file && g->raw_valid[MC_KNOB_HIGH])
		high = g->raw[MC_KNOB_HIGH];
	nd->high = high;
	if (high == MC_SIZE_MAX)
		return 0;
	if (!has_file) {
		if (nd->usage_valid && nd->usage > high)
			nd->emu = nd->usage - high;
		return 0;
	}
	if (!nd->thp)
		return 0;
	r = mc_thp_high(high, nd->max, b->cfg->cpus, b->cfg->thp_floor, &h);
	if (r == -ERANGE) {
		uint64_t gap = thp_gap(b->cfg, gapwhy);
		const struct mc_pos *pos = &nd->spec->knob_pos[MC_KNOB_HIGH];
		char *path = mc_asprintf("%s.high", nd->keypath);

		if (!path)
			return -ENOMEM;
		r = b->diags ? diag_units(b->diags, b->p->file, nd->wanted[MC_KNOB_HIGH] ? pos->line : 0,
					  nd->wanted[MC_KNOB_HIGH] ? pos->col : 0, path,
					  mc_asprintf("max '%s' leaves no room for high: a THP group needs at least %s (%s) between high and max",
						      S(nd->max).s, S(gap).s, gapwhy))
			     : 0;
		free(path);
		return r;
	}
	if (h == high)
		return 0;
	nd->high = h;
	nd->high_set = true;
	if (nd->max != MC_SIZE_MAX && (high > nd->max || nd->max - high < thp_gap(b->cfg, gapwhy)))
		nd->high_why = mc_asprintf("lowers high %s to %s: a THP group needs %s (%s) between high and max %s, on a %s boundary",
					 S(high).s, S(h).s, S(thp_gap(b->cfg, gapwhy)).s, gapwhy,
					 S(nd->max).s, S(MC_THP_SIZE).s);
	else
		nd->high_why = mc_asprintf("aligns high %s down to a %s boundary: %s (THP group)",
					 S(high).s, S(MC_THP_SIZE).s, S(h).s);
	return nd->high_why ? 0 : -ENOMEM;
}

/* ---- 1. demand and its split ---- */

static bool is_protected(const struct node *nd)
{
	return nd->spec && (nd->spec->protect == MC_PROTECT_ACTIVE ||
			    nd->spec->protect == MC_PROTECT_SIZE);
}

/* A cgroup limit of nd's own or an ancestor's, not the host's RAM. */
static bool limited(const struct build *b, const struct node *nd)
{
	return nd->limit != MC_SIZE_MAX && !(b->caps->mem_total && nd->limit >= b->caps->mem_total);
}

/*
 * How much of each node's memory pressure (PSI some avg10, %) cgroup
 * limits explain: all of it when the node is within two headrooms of a
 * limit (its own or an ancestor's: its tasks stall in that limit's
 * reclaim, and its usage demand is what serves it), else what its
 * children's limits explain, summed, at most its own. Children come after
 * their parent in b->n, so one pass from the end sees them first.
 */
static void psi_limits_pass(struct build *b)
{
	for (size_t i = b->len; i-- > 0;) {
		struct node *nd = &b->n[i];
		double own = nd->g && nd->g->psi.valid ? nd->g->psi.some_avg10 : 0.0;
		uint64_t h2 = 2 * mc_policy_headroom(nd->limit, b->cfg->headroom, b->page);

		if (limited(b, nd) && nd->usage_valid && nd->usage > (nd->limit > h2 ? nd->limit - h2 : 0))
			nd->psi_limits = own;
		else
			nd->psi_limits = nd->psi_kids < own ? nd->psi_kids : own;
		if (i)
			b->n[nd->parent].psi_kids += nd->psi_limits;
	}
}

/*
 * What node i needs back on its own account, and why. Memory pressure adds
 * a headroom only where limits do not explain it (psi_limits_pass): a
 * group stalling at its limit is thrashing, and reclaiming more from it,
 * or from its parent for it, brings the pages back at once.
 */
static int own_demand(struct build *b, struct node *nd, uint64_t *ret, char **ret_why)
{
	const struct mc_group_snap *g = nd->g;
	uint64_t d = 0, h = mc_policy_headroom(nd->limit, b->cfg->headroom, b->page);
	char *why = NULL;

	*ret = 0;
	*ret_why = NULL;
	if (nd->limit != MC_SIZE_MAX && nd->usage_valid) {
		uint64_t thr = nd->limit > h ? nd->limit - h : 0;

		if (nd->usage > thr) {
			d = nd->usage - thr;
			why = mc_asprintf("usage %s above limit %s minus headroom %s", S(nd->usage).s,
					S(nd->limit).s, S(h).s);
			if (!why)
				return -ENOMEM;
		}
	}
	if (g && g->psi.valid && g->psi.some_avg10 - nd->psi_limits > b->cfg->psi_some_threshold) {
		char lim[64] = "";

		if (nd->psi_limits > 0)
			snprintf(lim, sizeof(lim), ", %.2f%% of it not at limits below,",
				 g->psi.some_avg10 - nd->psi_limits);
		if (why)
			why = xcat(why, ", memory pressure %.2f%%%s above %.2f%%", g->psi.some_avg10, lim,
				   b->cfg->psi_some_threshold);
		else
			why = mc_asprintf("memory pressure %.2f%% (some avg10)%s above %.2f%%: headroom %s",
					g->psi.some_avg10, lim, b->cfg->psi_some_threshold, S(h).s);
		if (!why)
			return -ENOMEM;
		d = max64(d, h);
	}
	if (nd->emu > d) {
		free(why);
		why = mc_asprintf("usage %s above high %s (%s)", S(nd->usage).s, S(nd->high).s,
				b->caps->ver == MC_CGV1 ? "emulates high on v1"
							 : "emulated: this host has no memory.high");
		if (!why)
			return -ENOMEM;
		d = nd->emu;
	}
	*ret = page_up(d, b->page);
	*ret_why = why;
	return 0;
}

static uint64_t to_pages_up(uint64_t v, uint64_t page)
{
	return v == MC_SIZE_MAX ? MC_SIZE_MAX : v / page + (v % page != 0);
}

/*
 * Splits node i's demand over its children (b->n[j].parent == i).
 * It is long because it gathers the children's inputs in pages, splits
 * them twice and writes the shares back, all through the same arrays.
 */
static int split_node(struct build *b, size_t i)
{
	struct node *nd = &b->n[i];
	uint64_t *usage, *soft, *prot, *take, *first, *buf;
	bool *stream;
	size_t m = nd->n_kids, k = 0;
	uint64_t dp = nd->demand / b->page, excess = 0, got;
	int r = 0;

	buf = calloc(m * 5, sizeof(*buf));
	stream = calloc(m, sizeof(*stream));
	if (!buf || !stream) {
		free(buf);
		free(stream);
		return -ENOMEM;
	}
	usage = buf;
	soft = buf + m;
	prot = buf + 2 * m;
	take = buf + 3 * m;
	first = buf + 4 * m;
	for (size_t j = i + 1; j < b->len && k < m; j++) {
		const struct node *c = &b->n[j];

		if (c->parent != i)
			continue;
		usage[k] = c->usage / b->page;
		soft[k] = to_pages_up(c->soft, b->page);
		prot[k] = to_pages_up(c->protect, b->page);
		/*
		 * The estimate lags the job: while it is idle its pages turn
		 * inactive and the estimate follows them down. memctl's own
		 * reclaim is rooted at the group, where neither memory.low nor
		 * the patch's switch protects it, so it would take the working
		 * set itself. Keep protect: active groups out of memctl's
		 * reclaim altogether; the kernel's reclaim sees memory.low (v2)
		 * or the siblings' caps (v1); see "Mechanism by host" in
		 * docs/ARCHITECTURE.md.
		 */
		if (c->spec && c->spec->protect == MC_PROTECT_ACTIVE)
			prot[k] = usage[k];
		/*
		 * On v2 a group below its soft limit is protected by the kernel
		 * (memory.low, or the patch's soft-limit ordering), and under
		 * real pressure the kernel falls back to it by itself when the
		 * others yield nothing. memctl's reclaim is rooted at the group,
		 * where neither applies, and serves a headroom or pressure demand
		 * that nothing forces: it takes nobody below the soft limit.
		 * (v1's limit reclaim spares nobody: there the fallback stays.)
		 */
		if (b->caps->ver == MC_CGV2 && soft[k] != MC_SIZE_MAX)
			prot[k] = max64(prot[k], soft[k]);
		stream[k] = c->streaming;
		if (soft[k] != MC_SIZE_MAX && usage[k] > max64(soft[k], prot[k]))
			excess += usage[k] - max64(soft[k], prot[k]);
		k++;
	}
	got = mc_softlimit_split_stream(dp, usage, soft, prot, stream, m, take);
	mc_softlimit_split(min64(dp, excess), usage, soft, prot, m, first);
	k = 0;
	for (size_t j = i + 1; j < b->len && k < m; j++) {
		struct node *c = &b->n[j];

		if (c->parent != i)
			continue;
		c->take = take[k] * b->page;
		c->first = first[k] * b->page;
		k++;
	}
	if (got < dp)
		r = push_note(b, mc_asprintf("'%s' needs %s back (%s) but its groups can give only %s",
					   subject(b, nd), S(nd->demand).s, nd->why,
					   S(got * b->page).s));
	free(buf);
	free(stream);
	return r;
}

static int demand_pass(struct build *b)
{
	psi_limits_pass(b);
	for (size_t i = 0; i < b->len; i++) {
		struct node *nd = &b->n[i];
		uint64_t own;
		char *why;
		int r;

		if (i != 0 && nd->n_kids == 0)
			continue;
		if ((r = own_demand(b, nd, &own, &why)) < 0)
			return r;
		if (own >= nd->take && own > 0) {
			nd->demand = own;
			nd->why = why;
		} else {
			free(why);
			nd->demand = nd->take;
			if (nd->take) {
				nd->why = mc_asprintf("its share of what '%s' needs back",
						    subject(b, &b->n[nd->parent]));
				if (!nd->why)
					return -ENOMEM;
			}
		}
		/* Passed down: a group with children reclaims through them. */
		nd->take = nd->first = 0;
		if (!nd->demand)
			continue;
		if (nd->n_kids == 0) {
			r = push_note(b, mc_asprintf("'%s' needs %s back (%s) but has no groups to take it from",
						   subject(b, nd), S(nd->demand).s, nd->why));
			if (r < 0)
				return r;
			continue;
		}
		if ((r = split_node(b, i)) < 0)
			return r;
	}
	return 0;
}

/* ---- 2. protection settings ---- */

static char *ws_text(const struct build *b, const struct node *nd)
{
	uint64_t fresh = nd->refault_bytes - min64(nd->reactivate_bytes, nd->refault_bytes);
	uint64_t raw = fresh > UINT64_MAX - nd->active ? UINT64_MAX : nd->active + fresh;
	char *why = mc_asprintf("working set %s (active %s, refaults %s/interval", S(nd->ws).s,
				S(nd->active).s, S(nd->refault_bytes).s);

	if (nd->reactivate_bytes)
		why = xcat(why, " of which %s activated", S(min64(nd->reactivate_bytes,
								   nd->refault_bytes)).s);

	if (nd->touched)
		why = xcat(why, nd->touched_counted ? ", activated %s/interval" : ", active grew %s",
			   S(nd->touched).s);
	if (nd->ws_capped)
		why = xcat(why, ", capped at its max");
	if (nd->ws_st.below && nd->ws_st.below <= b->cfg->ws_hold)
		why = xcat(why, ", held: active below it for %u of %u intervals", nd->ws_st.below,
			   b->cfg->ws_hold);
	else if (!nd->ws_st.below && nd->ws > raw && nd->ws - raw >= mc_deadband(nd->ws, b->page))
		why = xcat(why, nd->refault_bytes >= mc_deadband(nd->ws, b->page)
				? ", held: it refaults, reclaim is taking its pages"
				: ", held: its pages are coming back into use");
	if (nd->ws_st.loss && nd->usage_valid && nd->ws > nd->usage)
		why = xcat(why, ", above its usage: reclaim took pages from it");
	return xcat(why, ")");
}

/* A stock v2 soft limit: a profile soft limit and no file for it on a v2 host with memory.low. */
static bool stock_soft(const struct build *b, const struct node *nd)
{
	return b->caps->ver == MC_CGV2 && b->caps->file[MC_KNOB_LOW] &&
	       !b->caps->file[MC_KNOB_SOFT] && nd->wanted[MC_KNOB_SOFT] &&
	       nd->want[MC_KNOB_SOFT] != MC_SIZE_MAX;
}

/*
 * The protection of node c that is not its soft limit's: its working set
 * or protect: SIZE, the profile's low, and where no policy decides its low
 * the live one (someone else's, which memctl leaves in place).
 */
static uint64_t fixed_low(const struct node *c)
{
	uint64_t v = is_protected(c) ? c->protect : 0;

	if (c->wanted[MC_KNOB_LOW])
		v = max64(v, c->want[MC_KNOB_LOW]);
	else if (!is_protected(c) && !c->wanted[MC_KNOB_SOFT] && c->g->raw_valid[MC_KNOB_LOW])
		v = max64(v, c->g->raw[MC_KNOB_LOW]);
	return v;
}

/*
 * Stock v2 soft limits of node i's children as memory.low (the
 * "soft-limit ordering" of docs/ARCHITECTURE.md). Why the soft limit and
 * not the usage below it: a low above usage costs nothing in the kernel.
 * For the children of the group whose limit reclaims (here i), the kernel
 * takes each child's low as its effective low unchanged, and a child whose
 * usage is within it is skipped whole; further down, effective low splits
 * a parent's protection by the protected usage, min(usage, low), so an
 * unused claim is left to the siblings. A low that follows the usage
 * instead trails a growing job by an interval, and everything the job
 * charged since is unprotected against i's limit reclaim meanwhile.
 * Why bounded: the reclaim root's children's lows are not scaled, so lows
 * that claim more than i's limit all hold until i is full; then nothing is
 * unprotected, the kernel retries ignoring every low, and takes from all of
 * them alike. So the protections of i's children claim at most i's limit
 * (and its own max, which this plan may lower): when they fit, each
 * soft-limited child is protected up to its soft limit (capped by that
 * limit) from the first interval; when they do not, each keeps what it
 * holds below its soft limit and a share of the rest (mc_soft_low_split),
 * which moves with the usages and so is subject to the deadband.
 * Reclaim rooted above i (an ancestor's limit, the host's) sees a child's
 * low only as far as i's own low passes protection down, which memctl does
 * not raise for a soft limit. Returns 0 or -ENOMEM.
 */
static int soft_lows(struct build *b, size_t i)
{
	struct node *nd = &b->n[i];
	uint64_t room = i ? min64(nd->limit, nd->max) : nd->limit;
	uint64_t *need, *have, *ret;
	size_t m = nd->n_kids, k = 0, n_soft = 0;
	bool fits;

	/* i's children follow it: stop at the last, not at the end of the tree (every interval) */
	for (size_t j = i + 1; j < b->len && k < m; j++) {
		if (b->n[j].parent != i)
			continue;
		k++;
		n_soft += stock_soft(b, &b->n[j]);
	}
	if (!n_soft)
		return 0;
	k = 0;
	need = calloc(3 * m, sizeof(*need));
	if (!need)
		return -ENOMEM;
	have = need + m;
	ret = need + 2 * m;
	for (size_t j = i + 1; j < b->len && k < m; j++) {
		const struct node *c = &b->n[j];
		uint64_t fixed;

		if (c->parent != i)
			continue;
		fixed = fixed_low(c);
		need[k] = have[k] = fixed;
		if (stock_soft(b, c)) {
			uint64_t claim = min64(min64(c->want[MC_KNOB_SOFT], room),
					       min64(c->high, c->max));

			need[k] = max64(fixed, claim);
			have[k] = max64(fixed, c->usage_valid ? min64(claim, page_up(c->usage, b->page)) : 0);
		}
		k++;
	}
	fits = mc_soft_low_split(room, need, have, m, b->page, ret);
	k = 0;
	for (size_t j = i + 1; j < b->len && k < m; j++) {
		struct node *c = &b->n[j];

		if (c->parent != i)
			continue;
		if (stock_soft(b, c)) {
			c->soft_low_set = true;
			/* fits: the soft limit itself; node_low's clamps say what bounds it */
			c->soft_low = fits ? min64(c->want[MC_KNOB_SOFT], room) : ret[k];
			c->soft_shared = !fits;
			c->soft_room = room;
		}
		k++;
	}
	free(need);
	return 0;
}

/* Why a stock v2 soft limit gives node nd the low soft_lows decided. NULL: no memory. */
static char *soft_text(const struct build *b, const struct node *nd)
{
	const char *p = subject(b, &b->n[nd->parent]);
	uint64_t soft = nd->want[MC_KNOB_SOFT];

	if (nd->soft_shared)
		return mc_asprintf("protects %s of its soft limit %s at usage %s: the protections below '%s' claim more than its limit %s, so each keeps what it holds below them and a share of the rest (stock v2 has no memory.soft_limit)",
				   S(nd->soft_low).s, S(soft).s, S(nd->usage).s, p, S(nd->soft_room).s);
	if (soft > nd->soft_room)
		return mc_asprintf("protects up to its soft limit %s, bounded by the limit %s of '%s' (stock v2 has no memory.soft_limit)",
				   S(soft).s, S(nd->soft_room).s, p);
	return mc_asprintf("protects up to its soft limit %s (stock v2 has no memory.soft_limit)",
			   S(soft).s);
}

/*
 * v2: memory.low from the working set, protect: SIZE and the stock soft limit.
 * It is long because it is one chain (protection, soft limit, profile low,
 * min and high clamps, deadband) in which each step may change the
 * value and adds its reason to the same text.
 */
static int node_low(struct build *b, struct node *nd)
{
	const struct mc_group_snap *g = nd->g;
	/* The profile's low, else the live one: a lowered high must not leave it above. */
	uint64_t prof = nd->wanted[MC_KNOB_LOW] ? nd->want[MC_KNOB_LOW]
			: g->raw_valid[MC_KNOB_LOW] ? g->raw[MC_KNOB_LOW] : 0;
	const char *prof_word = nd->wanted[MC_KNOB_LOW] ? "profile" : "live";
	uint64_t min = nd->wanted[MC_KNOB_MIN] ? nd->want[MC_KNOB_MIN]
		       : g->raw_valid[MC_KNOB_MIN] ? g->raw[MC_KNOB_MIN] : 0;
	uint64_t top = min64(nd->high, nd->max), v = 0;
	bool clamped = false, moves = false;
	const char *policy = MC_POLICY_ACTIVE_SET;
	char *why = NULL;

	if (b->caps->ver != MC_CGV2 || !b->caps->file[MC_KNOB_LOW])
		return 0;
	if (is_protected(nd)) {
		v = nd->protect;
		moves = nd->spec->protect == MC_PROTECT_ACTIVE;
		why = nd->spec->protect == MC_PROTECT_ACTIVE ? ws_text(b, nd)
			: mc_asprintf("protect %s", S(nd->protect).s);
		if (!why)
			return -ENOMEM;
	}
	if (nd->soft_low_set && (!why || nd->soft_low > v)) {
		free(why);
		v = nd->soft_low;
		/* only a share of the parent's limit moves (with the usages) */
		moves = nd->soft_shared;
		policy = MC_POLICY_SOFT_LIMIT;
		why = soft_text(b, nd);
		if (!why)
			return -ENOMEM;
	}
	if (!why && !(prof > top))
		return 0;
	/*
	 * The live low is a floor only where no policy decides it: beside a
	 * working set or a soft limit it is the value memctl wrote last
	 * interval, which must be able to come down with them.
	 */
	if (!why || (prof > v && nd->wanted[MC_KNOB_LOW])) {
		char *w = why ? mc_asprintf("%s low %s is above the %s", prof_word, S(prof).s, why)
			      : mc_asprintf("%s low %s", prof_word, S(prof).s);

		free(why);
		if (!w)
			return -ENOMEM;
		why = w;
		v = prof;
		moves = false;
	}
	/* min <= low <= high <= max, or the planner refuses the plan. */
	if (v < min) {
		why = xcat(why, " (raised to min %s)", S(min).s);
		v = min;
		clamped = true;
	}
	if (v > top) {
		why = xcat(why, " (limited by %s %s)", nd->high <= nd->max ? "high" : "max",
			   S(top).s);
		v = top;
		clamped = true;
	}
	v = page_down(v, b->page);
	/*
	 * A working set, and a stock soft limit's share of a parent's limit
	 * claimed beyond it (which follows the usages), move a little every
	 * interval: memory.low follows them only beyond the deadband. (It is no limit that can be hit: a group's usage is above
	 * its low nearly always, so that cannot be the sign of urgency it is
	 * for a cap.) A clamp or the profile's own value is written exactly.
	 */
	if (!clamped && moves && g->raw_valid[MC_KNOB_LOW]) {
		uint64_t live = g->raw[MC_KNOB_LOW];
		uint64_t held = mc_deadband_hold(live, true, v, false, b->page);

		if (held != v) {
			why = xcat(why, " within the deadband %s of the live %s: kept",
				   S(mc_deadband(live, b->page)).s, S(live).s);
			v = held;
		}
	}
	why = xcat(why, ": %s %s", b->caps->file[MC_KNOB_LOW], S(v).s);
	return push_setting(b, nd->path, policy, MC_KNOB_LOW, v, why);
}

/* Sets (or lowers) the v1 cap of node j. Takes why. */
static int set_cap(struct node *nd, uint64_t cap, char *why)
{
	if (!why)
		return -ENOMEM;
	if (nd->cap_set && nd->cap <= cap) {
		free(why);
		return 0;
	}
	free(nd->cap_why);
	nd->cap_set = true;
	nd->cap = cap;
	nd->cap_why = why;
	return 0;
}

/*
 * The room a protected child needs inside its parent's limit: protect:
 * SIZE its size; protect: active its working set, or its usage when that is
 * larger (what it holds beyond the estimate stays charged to the parent
 * too, and a parent driven to its limit by it would reclaim from every
 * child, the protected one included).
 */
static uint64_t room_of(const struct build *b, const struct node *c)
{
	if (c->spec->protect == MC_PROTECT_ACTIVE && c->usage_valid)
		return max64(c->protect, page_up(c->usage, b->page));
	return c->protect;
}

/*
 * Caps each group below node j whose max is above v, j's new cap: a
 * group's max may not exceed its parent's. Returns 0 or -ENOMEM.
 */
static int cap_descendants(struct build *b, size_t j, uint64_t v)
{
	for (size_t d = j + 1; d < b->len; d++) {
		struct node *dn = &b->n[d];
		size_t up = dn->parent;
		int r;

		while (up != NO_NODE && up != j)
			up = b->n[up].parent;
		if (up != j || dn->max <= v)
			continue;
		r = set_cap(dn, v, mc_asprintf("follows the cap of '%s' at %s (a group's max may not exceed its parent's)",
					     b->n[j].path, S(v).s));
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * v2: did memory.low fail one of node i's protected children (now or in an
 * earlier interval)?
 */
static const struct node *low_failed(const struct build *b, size_t i)
{
	for (size_t j = i + 1; j < b->len; j++) {
		const struct node *c = &b->n[j];

		if (c->parent == i && is_protected(c) && c->protect && c->breached)
			return c;
	}
	return NULL;
}

/*
 * Caps the unprotected children of node i so its limit leaves the
 * protected ones room: always on v1, which has no memory.low; on v2 once
 * memory.low failed a protected child (the kernel reclaimed it below its
 * protection because its siblings held nothing it could reclaim, such as
 * anonymous memory without swap), from then on.
 * It is long because it is two passes over i's children (sum the room the
 * protected ones need, then cap the others) that share the limit, headroom,
 * deadband and the text naming the protected children.
 */
static int sibling_caps(struct build *b, size_t i)
{
	struct node *nd = &b->n[i];
	uint64_t prot = 0, h, cap, db;
	bool urgent, v1 = b->caps->ver == MC_CGV1;
	const struct node *failed = v1 ? NULL : low_failed(b, i);
	char *list = NULL, *because = NULL;
	size_t n_prot = 0;
	int r = 0;

	if (!v1 && !failed)
		return 0;
	for (size_t j = i + 1; j < b->len; j++) {
		const struct node *c = &b->n[j];

		if (c->parent != i || !is_protected(c) || !c->protect)
			continue;
		if (!limited(b, nd) && !v1)
			continue;
		if (!limited(b, nd)) {
			/* Nothing to leave room in: only memctl's own reclaims spare it. */
			r = push_note(b, mc_asprintf("'%s' is protected only from memctl's reclaims: '%s' has no memory limit to leave it room in (cgroup v1 has no memory.low)",
						   c->path, subject(b, nd)));
			if (r < 0)
				goto out;
			continue;
		}
		prot += room_of(b, c);
		list = list ? xcat(list, ", '%s' %s", c->path, S(room_of(b, c)).s)
			    : mc_asprintf("'%s' %s", c->path, S(room_of(b, c)).s);
		if (list && room_of(b, c) > c->protect)
			list = xcat(list, " (its usage; working set %s)", S(c->protect).s);
		if (!list)
			return -ENOMEM;
		n_prot++;
	}
	if (!n_prot) {
		r = 0;
		goto out;
	}
	because = failed ? mc_asprintf(" (memory.low did not hold '%s'%s: the kernel reclaimed it below its protection)",
				      failed->path, failed->low_breaches ? "" : " before")
			 : strdup("");
	if (!because) {
		r = -ENOMEM;
		goto out;
	}
	/*
	 * The caps also leave a deadband of room: a cap is rewritten only when
	 * it moves by more than that (mc_deadband_hold), so a cap that lags
	 * its computed value still keeps the parent below limit - headroom.
	 * Lowering is urgent (written however small) once the parent is above
	 * that: room is needed now.
	 */
	h = mc_policy_headroom(nd->limit, b->cfg->headroom, b->page);
	db = mc_deadband(nd->limit, b->page);
	cap = mc_sibling_cap(nd->limit, prot + db, h, MC_SIZE_MAX, b->page);
	urgent = nd->usage_valid && nd->limit > h && nd->usage > nd->limit - h;
	for (size_t j = i + 1; j < b->len; j++) {
		struct node *c = &b->n[j];
		const char *extra = "";
		char floor_txt[64];
		uint64_t v = cap, live, held;
		bool live_ok, bound = false;
		char *why;

		if (c->parent != i || is_protected(c))
			continue;
		if (c->wanted[MC_KNOB_MAX] && c->want[MC_KNOB_MAX] < v) {
			v = c->want[MC_KNOB_MAX];
			extra = " (its own max is lower)";
			bound = true;
		} else if (c->soft != MC_SIZE_MAX && c->soft > v) {
			v = page_down(c->soft, b->page);
			extra = " (not below its soft limit)";
			bound = true;
		} else if (v == mc_sibling_cap(MC_SIZE_MAX, MC_SIZE_MAX, h, MC_SIZE_MAX, b->page)) {
			/* (that call yields the floor alone) */
			snprintf(floor_txt, sizeof(floor_txt), " (the floor: 2 x headroom, at least %s)",
				 S(16ULL << 20).s);
			extra = floor_txt;
		}
		live_ok = c->g->raw_valid[MC_KNOB_MAX];
		live = live_ok ? c->g->raw[MC_KNOB_MAX] : MC_SIZE_MAX;
		/* a bound (own max, soft limit) is kept exactly */
		held = mc_deadband_hold(live, live_ok, v, bound || (urgent && v < live), b->page);
		if (held != v)
			why = mc_asprintf("keeps '%s' at %s: the cap %s it would get is within the deadband %s (the limit %s of '%s' leaves room for the protected %s, headroom %s and the deadband)%s",
					c->path, S(held).s, S(v).s, S(mc_deadband(live, b->page)).s,
					S(nd->limit).s, subject(b, nd), list, S(h).s, because);
		else
			why = mc_asprintf("caps '%s' at %s%s so the limit %s of '%s' leaves room for the protected %s, headroom %s and a deadband %s%s",
					c->path, S(v).s, extra, S(nd->limit).s, subject(b, nd), list, S(h).s,
					S(db).s, because);
		v = held;
		if ((r = set_cap(c, v, why)) < 0)
			goto out;
		if ((r = cap_descendants(b, j, v)) < 0)
			goto out;
	}
	r = 0;
out:
	free(because);
	free(list);
	return r;
}

/* ---- 3/4. reclaims ---- */

/*
 * Node i's weight in nd's split of a reclaim of bytes: its reclaimable
 * cache - inactive file not mapped, discounted by the mapped pages a
 * reclaim may scan first (mc_numa_cheap), plus inactive anon with swap -
 * less its refaults.
 */
static uint64_t numa_weight(const struct build *b, const struct node *nd, size_t i,
			    uint64_t bytes)
{
	const struct mc_kvs *kv = &nd->g->numa[i];
	uint64_t f = 0, a = 0, mapped = 0;

	if (mc_kvs_get(kv, "inactive_file", &f) < 0)
		mc_kvs_get(kv, "file", &f);
	/*
	 * Mapped cache is not cheap to reclaim: one in use is found referenced
	 * and kept, scanned for nothing (see mc_numa_cheap). Which list its
	 * pages are on is not said, so all of it counts as inactive.
	 */
	if (b->p->numa == MC_NUMA_WEIGHTED && mc_kvs_get(kv, "file_mapped", &mapped) == 0)
		f = page_down(mc_numa_cheap(f, mapped, bytes), b->page);
	if (b->cfg->swap && mc_kvs_get(kv, "inactive_anon", &a) < 0)
		mc_kvs_get(kv, "anon", &a);
	if (b->p->numa == MC_NUMA_WEIGHTED && nd->node_refault_bytes)
		return mc_numa_weight(f + a, nd->node_refault_bytes[i], b->cfg->ws_hold);
	return f + a;
}

/*
 * The weighted split: the nodes' weights levelled from the top (the
 * largest gives first), then split with the deficits carried in st.
 */
static int numa_weighted(struct node *nd, const struct gstate *st, const uint64_t *w,
			 uint64_t bytes, uint64_t unit, uint64_t *out)
{
	size_t n = nd->g->n_numa;
	uint64_t *share = calloc(n, sizeof(*share));

	nd->new_deficit = calloc(n, sizeof(*nd->new_deficit));
	if (!share || !nd->new_deficit) {
		free(share);
		return -ENOMEM;
	}
	nd->n_new_deficit = n;
	if (st->n_deficit == n)
		memcpy(nd->new_deficit, st->deficit, n * sizeof(*st->deficit));
	mc_numa_level(w, n, bytes, share);
	mc_numa_split(nd->new_deficit, share, n, bytes, unit, out);
	free(share);
	return 0;
}

/*
 * The per-node split of bytes for node nd, appended to *why. Sets
 * *ret_nodes (NULL: no split). The new NUMA state goes to the node and is
 * committed with the rest.
 */
static int numa_split(struct build *b, struct node *nd, uint64_t bytes, uint64_t **ret_nodes,
		      char **why)
{
	const struct mc_group_snap *g = nd->g;
	const struct gstate *st = &b->pol->g[nd->st];
	size_t n = g->n_numa;
	uint64_t *w, *out, unit = nd->thp ? MC_THP_SIZE : b->page;
	bool v1 = b->caps->ver == MC_CGV1;
	char *list;

	*ret_nodes = NULL;
	if (b->p->numa == MC_NUMA_OFF || n <= 1)
		return 0;
	w = calloc(n, sizeof(*w));
	out = calloc(n, sizeof(*out));
	if (!w || !out)
		goto nomem;
	for (size_t i = 0; i < n; i++)
		w[i] = numa_weight(b, nd, i, bytes);
	if (b->p->numa == MC_NUMA_ROUND_ROBIN) {
		nd->new_rr = st->rr_next;
		mc_numa_round_robin(&nd->new_rr, w, n, bytes, unit, out);
	} else if (numa_weighted(nd, st, w, bytes, unit, out) < 0) {
		goto nomem;
	}
	nd->numa_touched = true;

	list = mc_asprintf("; per node");
	for (size_t i = 0; i < n && list; i++)
		list = xcat(list, "%s N%zu %s", i ? "," : "", i, S(out[i]).s);
	if (list && b->p->numa == MC_NUMA_ROUND_ROBIN) {
		list = xcat(list, " (round-robin)");
	} else if (list) {
		list = xcat(list, " (the largest weights first; weights: %s%s%s",
			    v1 ? "file" : "inactive file not mapped x reclaim / (reclaim + mapped)",
			    b->cfg->swap ? (v1 ? " + anon" : " + inactive anon") : "",
			    nd->node_refault_bytes ? ", less what the node refaulted x the hold" : "");
		for (size_t i = 0; i < n && list; i++)
			list = xcat(list, "%s %s", i ? "," : "", S(w[i]).s);
		list = xcat(list, ")");
	}
	if (!list)
		goto nomem;
	*why = xcat(*why, "%s", list);
	free(list);
	free(w);
	if (!*why) {
		free(out);
		return -ENOMEM;
	}
	*ret_nodes = out;
	return 0;
nomem:
	free(w);
	free(out);
	return -ENOMEM;
}

/* Why child nd gives its share of its parent's demand. */
static char *share_text(struct build *b, const struct node *nd)
{
	const struct node *from = &b->n[nd->parent];
	uint64_t rest = nd->take - nd->first;
	char *why;

	if (nd->first)
		why = mc_asprintf("'%s' is %s above its soft limit %s: gives %s", nd->path,
				S(nd->usage - nd->soft).s, S(nd->soft).s, S(nd->first).s);
	else
		why = mc_asprintf("gives %s", S(rest).s);
	if (rest && nd->first)
		why = xcat(why, ", then %s", S(rest).s);
	if (rest && nd->streaming)
		why = xcat(why, " first as it streams (inactive file %s of usage %s, refaults %s/interval)",
			   S(nd->inactive_file).s, S(nd->usage).s, S(nd->refault_bytes).s);
	else if (rest)
		why = xcat(why, " in proportion to its usage %s", S(nd->usage).s);
	why = xcat(why, "%s of the %s '%s' needs back (%s)", rest && nd->first ? "," : "",
		   S(from->demand).s, subject(b, from), from->why);
	if (nd->protect && nd->usage >= nd->protect && nd->take >= nd->usage - nd->protect)
		why = xcat(why, ", keeping its %s %s",
			   nd->spec->protect == MC_PROTECT_ACTIVE ? "working set" : "protected",
			   S(nd->protect).s);
	return why;
}

/* c has a soft limit and its usage is within it. */
static bool below_soft(const struct node *c)
{
	return c->soft != MC_SIZE_MAX && c->usage <= c->soft;
}

/*
 * Whether the kernel's limit reclaim of c's parent spares c as far as c is
 * to be spared: a group to spare (protect:, or below its soft limit) is
 * spared while its usage is within its live memory.low, or, below its soft
 * limit on memctl's kernel patch, by the kernel's own soft-limit ordering;
 * the other groups are reclaim targets anyway.
 */
static bool kernel_spares(const struct build *b, const struct node *c)
{
	const struct mc_group_snap *g = c->g;

	if (!is_protected(c) && !below_soft(c))
		return true;
	if (!is_protected(c) && b->caps->file[MC_KNOB_SOFT])
		return true;
	return c->usage_valid && g->raw_valid[MC_KNOB_LOW] && c->usage <= g->raw[MC_KNOB_LOW];
}

/*
 * A share of its parent's demand that memctl leaves to the kernel (v2):
 * nd is above its soft limit, has no demand of its own (emulated high),
 * some sibling is to be spared, and the kernel spares every such one. Then the
 * kernel's limit reclaim takes from nd first anyway, when the memory is
 * needed and not before; memctl's reclaim of the headroom ahead of it
 * only moves that reclaim into memctl's context, and for a group that
 * does not fit what it takes comes back as refaults. Measured
 * (docs/BENCHMARKS-guest.md, soft-limit ordering): with the earlier rule,
 * which left a share to the kernel only once the group had refaulted more
 * than it, memctl reclaimed once in 19 of 20 rounds, and each such round
 * took twice the oracle's time with 5000 more major faults; the round
 * without it matched the oracle. v1's limit reclaim spares nobody, so
 * there memctl's reclaim is the ordering.
 */
static bool reclaim_futile(const struct build *b, const struct node *nd)
{
	bool spared = false;

	if (b->caps->ver != MC_CGV2 || nd->emu || !nd->take || nd->soft == MC_SIZE_MAX ||
	    !nd->usage_valid || nd->usage <= nd->soft)
		return false;
	for (size_t j = nd->parent + 1, k = 0; j < b->len && k < b->n[nd->parent].n_kids; j++) {
		const struct node *c = &b->n[j];

		if (c->parent != nd->parent)
			continue;
		k++;
		if (c == nd)
			continue;
		if (!kernel_spares(b, c))
			return false;
		/* one to spare: protected, or below its soft limit */
		spared |= is_protected(c) || below_soft(c);
	}
	/* With nobody to spare there is no ordering, and the headroom is memctl's to keep. */
	return spared;
}

static int node_reclaim(struct build *b, struct node *nd, char **numa_names)
{
	uint64_t raw = max64(nd->take, nd->emu), bytes;
	uint64_t *nodes = NULL;
	char *share = NULL, *emu = NULL, *why;
	int r;

	/* A group with children gives through them (see demand_pass). */
	if (nd->n_kids || !raw)
		return 0;
	if (reclaim_futile(b, nd))
		return push_note(b, mc_asprintf("'%s' is left to the kernel's reclaim for its %s of the %s '%s' needs back: it is above its soft limit and the groups beside it that are to be spared are spared by the kernel, whose limit reclaim takes from it first when the memory is needed",
					      nd->path, S(nd->take).s, S(b->n[nd->parent].demand).s,
					      subject(b, &b->n[nd->parent])));
	if (nd->take)
		share = share_text(b, nd);
	if (nd->emu)
		emu = mc_asprintf("usage %s is %s above high %s: %s", S(nd->usage).s, S(nd->emu).s,
				S(nd->high).s,
				b->caps->ver == MC_CGV1 ? "emulates high on v1"
							 : "emulates high (this host has no memory.high)");
	if ((nd->take && !share) || (nd->emu && !emu)) {
		free(share);
		free(emu);
		return -ENOMEM;
	}
	if (share && emu) {
		/* One reclaim of the larger amount serves both. */
		why = nd->take >= nd->emu ? mc_asprintf("%s; %s", share, emu)
					  : mc_asprintf("%s; %s", emu, share);
		free(share);
		free(emu);
	} else {
		why = share ? share : emu;
	}
	if (!why)
		return -ENOMEM;
	bytes = nd->thp ? mc_thp_round_up(raw) : page_up(raw, b->page);
	if (nd->thp && bytes != raw)
		why = xcat(why, "; rounded up to whole %s huge pages: %s", S(MC_THP_SIZE).s, S(bytes).s);
	if (!why)
		return -ENOMEM;
	if ((r = numa_split(b, nd, bytes, &nodes, &why)) < 0) {
		free(why);
		return r;
	}
	if (nodes && !(b->caps->ver == MC_CGV2 && b->caps->patched)) {
		*numa_names = *numa_names ? xcat(*numa_names, ", '%s'", nd->path)
					  : mc_asprintf("'%s'", nd->path);
		if (!*numa_names) {
			free(why);
			free(nodes);
			return -ENOMEM;
		}
	}
	return push_reclaim(b, nd->path, bytes, nodes, nd->g->n_numa, why);
}

static int reclaim_cmp(const void *a, const void *b)
{
	const struct mc_reclaim *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return strcmp(x->group, y->group);
}

/* ---- the interval ---- */

static void commit(struct build *b)
{
	struct mc_policy *pol = b->pol;
	size_t keep = 0;

	for (size_t i = 1; i < b->len; i++) {
		struct node *nd = &b->n[i];
		struct gstate *st = &pol->g[nd->st];

		st->seen = true;
		st->ws_valid = nd->spec->protect == MC_PROTECT_ACTIVE;
		st->ws = st->ws_valid ? nd->ws_st : (struct mc_ws_state){ 0 };
		st->refault_valid = nd->refault_now_valid;
		st->refault = nd->refault_now;
		st->activate_valid = nd->activate_now_valid;
		st->activate = nd->activate_now;
		st->reactivate_valid = nd->reactivate_now_valid;
		st->reactivate = nd->reactivate_now;
		st->steal_valid = nd->steal_now_valid;
		st->steal = nd->steal_now;
		if (nd->node_refault_now) {
			free(st->node_refault);
			st->node_refault = nd->node_refault_now;
			st->n_node_refault = nd->g->n_numa;
			nd->node_refault_now = NULL;
		} else {
			free(st->node_refault);
			st->node_refault = NULL;
			st->n_node_refault = 0;
		}
		st->low_events_valid = nd->low_events_now_valid;
		st->low_events = nd->low_events_now;
		st->breached = nd->breached && is_protected(nd);
		st->active_valid = true;
		st->active = nd->active;
		memcpy(st->moving, nd->moving, sizeof(st->moving));
		st->fallback_valid = nd->fallback_now_valid;
		st->fallback = nd->fallback_now;
		if (!nd->numa_touched)
			continue;
		if (b->p->numa == MC_NUMA_ROUND_ROBIN) {
			st->rr_next = nd->new_rr;
		} else {
			free(st->deficit);
			st->deficit = nd->new_deficit;
			st->n_deficit = nd->n_new_deficit;
			nd->new_deficit = NULL;
		}
	}
	for (size_t i = 0; i < pol->n; i++) {
		if (!pol->g[i].seen) {
			gstate_clear(&pol->g[i]);
			continue;
		}
		pol->g[i].seen = false;
		pol->g[keep++] = pol->g[i];
	}
	pol->n = keep;
}

static void nodes_free(struct build *b)
{
	for (size_t i = 0; i < b->len; i++) {
		free(b->n[i].path);
		free(b->n[i].keypath);
		free(b->n[i].why);
		free(b->n[i].high_why);
		free(b->n[i].cap_why);
		free(b->n[i].new_deficit);
		free(b->n[i].node_refault_now);
		free(b->n[i].node_refault_bytes);
	}
	free(b->n);
}

/*
 * The patched kernel's active-set switch: reclaim rooted at a group with
 * memory.reclaim_protect_active=1 takes inactive pages first, and only from
 * groups whose inactive lists are not low. Pressure on a protect: active
 * group comes from its own limit or an ancestor's, so the switch is on in
 * the group and in every profile ancestor of it, off in the other profile
 * groups (unless the profile sets it). The profile's parent is not memctl's
 * to write: a note says when a top-level group needs it there.
 */
/* Sets the switch of g (path) and its subtree; *ret_on: protect: active in it. */
static int switch_walk(struct build *b, const struct mc_group_spec *g, const char *ppath,
		       bool *ret_on)
{
	char *path = *ppath ? mc_asprintf("%s/%s", ppath, g->name) : strdup(g->name);
	bool on = g->protect == MC_PROTECT_ACTIVE;
	int r = path ? 0 : -ENOMEM;

	for (size_t c = 0; r == 0 && c < g->n_children; c++) {
		bool kid = false;

		r = switch_walk(b, &g->children[c], path, &kid);
		on |= kid;
	}
	if (r == 0 && g->knob[MC_KNOB_PROTECT_ACTIVE].kind == MC_SIZE_UNSET)
		r = push_setting(b, path, MC_POLICY_ACTIVE_SET, MC_KNOB_PROTECT_ACTIVE, on,
				 strdup(on ? (g->protect == MC_PROTECT_ACTIVE ?
					      "protect: active: its own reclaim takes inactive pages first" :
					      "protect: active below: reclaim rooted here takes inactive pages first")
					   : "no protect: active here or below"));
	free(path);
	*ret_on = on;
	return r;
}

/*
 * The patched kernel's active-set switch: reclaim rooted at a group with
 * memory.reclaim_protect_active=1 takes inactive pages first, and only from
 * groups whose inactive lists are not low. Pressure on a protect: active
 * group comes from its own limit or an ancestor's, so the switch is on in
 * the group and in every profile ancestor of it, off in the other profile
 * groups (unless the profile sets it). It depends on the profile alone, so
 * groups about to be created get it too. The profile's parent is not
 * memctl's to write: a note says when its limit reclaims with the switch off.
 */
static int protect_switches(struct build *b)
{
	const struct mc_group_snap *g = b->n[0].g;
	bool top = false;
	int r = 0;

	for (size_t i = 0; r == 0 && i < b->p->n_groups; i++) {
		bool on = false;

		r = switch_walk(b, &b->p->groups[i], "", &on);
		top |= on;
	}
	if (r == 0 && top && g && g->raw_valid[MC_KNOB_MAX] && g->raw[MC_KNOB_MAX] != MC_SIZE_MAX &&
	    g->raw_valid[MC_KNOB_PROTECT_ACTIVE] && g->raw[MC_KNOB_PROTECT_ACTIVE] == 0)
		r = push_note(b, mc_asprintf("reclaim at the limit of the profile's parent '%s' does not protect active sets: its memory.reclaim_protect_active is 0, and memctl writes only the profile's groups",
					   b->s->parent));
	return r;
}

/*
 * Puts each node's decided settings into the plan, in plan order: high,
 * then low (node_low decides it now, against that high), then the v1 cap.
 * Returns 0 or -ENOMEM.
 */
static int push_settings(struct build *b)
{
	int r;

	for (size_t i = 1; i < b->len; i++) {
		struct node *nd = &b->n[i];

		if (nd->high_set) {
			r = push_setting(b, nd->path, MC_POLICY_THP_HIGH, MC_KNOB_HIGH, nd->high,
					 nd->high_why);
			nd->high_why = NULL;
			if (r < 0)
				return r;
		}
		if ((r = node_low(b, nd)) < 0)
			return r;
		if (nd->cap_set) {
			r = push_setting(b, nd->path, MC_POLICY_ACTIVE_SET, MC_KNOB_MAX, nd->cap,
					 nd->cap_why);
			nd->cap_why = NULL;
			if (r < 0)
				return r;
		}
	}
	return 0;
}

static int decide(struct build *b)
{
	char *numa_names = NULL;
	int r;

	if ((r = build_nodes(b)) < 0)
		return r;
	for (size_t i = 1; i < b->len; i++) {
		struct node *nd = &b->n[i];

		node_stats(b, nd);
		if ((r = node_numa_refaults(b, nd)) < 0)
			return r;
		node_protect(b, nd);
		node_soft(b, nd);
		if ((r = node_high(b, nd)) < 0)
			return r;
	}
	if ((r = demand_pass(b)) < 0)
		return r;
	if (b->caps->file[MC_KNOB_MAX])
		for (size_t i = 0; i < b->len; i++)
			if (b->n[i].n_kids && (r = sibling_caps(b, i)) < 0)
				return r;

	for (size_t i = 0; i < b->len; i++)
		if (b->n[i].n_kids && (r = soft_lows(b, i)) < 0)
			return r;
	if ((r = push_settings(b)) < 0)
		return r;

	for (size_t i = 1; i < b->len; i++) {
		struct node *nd = &b->n[i];

		if ((r = node_reclaim(b, nd, &numa_names)) < 0) {
			free(numa_names);
			return r;
		}
	}
	if (b->d.n_reclaim > 1)
		qsort(b->d.reclaim, b->d.n_reclaim, sizeof(*b->d.reclaim), reclaim_cmp);

	if (numa_names) {
		r = push_note(b, mc_asprintf("NUMA split computed for %s but this host cannot reclaim per node (no memory.reclaim nodes=)",
					   numa_names));
		free(numa_names);
		if (r < 0)
			return r;
	}
	if (b->caps->file[MC_KNOB_PROTECT_ACTIVE] && (r = protect_switches(b)) < 0)
		return r;
	for (size_t i = 1; i < b->len; i++) {
		const struct node *nd = &b->n[i];

		if (nd->fallback_delta &&
		    (r = push_note(b, mc_asprintf("'%s': %llu huge-page charges fell back to small pages since the last interval",
						nd->path, (unsigned long long)nd->fallback_delta))) < 0)
			return r;
	}
	return 0;
}

int mc_policy_decide(struct mc_policy *pol, const struct mc_profile *p,
		     const struct mc_snapshot *s, const struct mc_caps *caps,
		     struct mc_decisions *ret, struct mc_diags *diags)
{
	struct build b = {
		.pol = pol, .cfg = &pol->cfg, .p = p, .s = s, .caps = caps, .diags = diags,
		.page = caps->page_size ? caps->page_size : 4096,
	};
	int r = decide(&b);

	if (r < 0) {
		mc_decisions_free(&b.d);
		nodes_free(&b);
		return r;
	}
	commit(&b);
	nodes_free(&b);
	*ret = b.d;
	return 0;
}

/* ---- memctl check ---- */

static int check_group(const struct mc_profile *p, const struct mc_policy_config *cfg,
		       const struct mc_group_spec *g, const char *pkey, struct mc_diags *diags)
{
	char *key = mc_asprintf("%s.%s", pkey, g->name);
	const struct mc_size *hi = &g->knob[MC_KNOB_HIGH], *mx = &g->knob[MC_KNOB_MAX];
	int n = 0, r;

	if (!key)
		return -ENOMEM;
	if (g->thp == 1 && hi->kind == MC_SIZE_BYTES && mx->kind == MC_SIZE_BYTES &&
	    hi->bytes <= mx->bytes) {
		char gapwhy[64];
		uint64_t gap = thp_gap(cfg, gapwhy);

		if (mx->bytes - hi->bytes < gap) {
			char *path = mc_asprintf("%s.high", key);

			r = path ? diag_units(diags, p->file, g->knob_pos[MC_KNOB_HIGH].line,
					      g->knob_pos[MC_KNOB_HIGH].col, path,
					      mc_asprintf("high '%s' leaves %s below max '%s'; a THP group needs at least %s (%s)",
							  S(hi->bytes).s, S(mx->bytes - hi->bytes).s,
							  S(mx->bytes).s, S(gap).s, gapwhy))
				 : -ENOMEM;
			free(path);
			if (r < 0) {
				free(key);
				return r;
			}
			n++;
		}
	}
	for (size_t c = 0; c < g->n_children; c++) {
		r = check_group(p, cfg, &g->children[c], key, diags);
		if (r < 0) {
			free(key);
			return r;
		}
		n += r;
	}
	free(key);
	return n;
}

int mc_policy_check(const struct mc_profile *p, const struct mc_policy_config *cfg,
		    struct mc_diags *diags)
{
	int n = 0;

	for (size_t i = 0; i < p->n_groups; i++) {
		int r = check_group(p, cfg, &p->groups[i], "groups", diags);

		if (r < 0)
			return r;
		n += r;
	}
	return n;
}
