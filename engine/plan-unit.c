/*
 * The plan for systemd units (the profile's `units:`): each knob that has a
 * unit property becomes a step that systemd carries out, so that systemd
 * stays the one writer of its units' cgroups and never reverts the value.
 *
 * Ordering is simpler than for groups: a unit's settings involve the unit
 * alone (systemd writes the parent slices), so keeping min <= low <= high
 * <= max after each step is enough. Lowering from the bottom of the chain
 * and raising from its top does that when the start and the end are in
 * order: a lowered knob never passes one below it that is lowered later,
 * and a raised knob never passes one above it that is raised earlier.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "plan-build.h"
#include "units.h"

#define K MC_KNOB__COUNT

/* The chain, bottom to top. */
static const enum mc_knob unit_chain[] = { MC_KNOB_MIN, MC_KNOB_LOW, MC_KNOB_HIGH, MC_KNOB_MAX };
#define N_UNIT_CHAIN (sizeof(unit_chain) / sizeof(unit_chain[0]))

struct unit_build {
	const struct mc_caps *caps;
	const struct mc_profile *p;
	const struct mc_group_spec *spec;
	const struct mc_unit_state *st;
	struct mc_plan *plan;
	struct mc_diags *diags;
	struct plan_want w;
	int errors;
};

/* A diagnostic at pos for "units.UNIT.KNOB"; takes msg. 0 or -ENOMEM. */
static int unit_diag(struct unit_build *b, const struct mc_pos *pos, enum mc_knob k, char *msg)
{
	char *path = mc_asprintf("units.%s.%s", b->spec->name, mc_knob_info(k)->name);
	int r = -ENOMEM;

	msg = mc_units_resolve(msg, NULL, 0, NULL);
	if (path && msg)
		r = mc_diags_add(b->diags, b->p->file, pos->line, pos->col, path, "%s", msg);
	free(path);
	free(msg);
	b->errors++;
	return r < 0 ? -ENOMEM : 0;
}

/*
 * Adds a step for knob k of the unit (kind UNIT, UNIT_FILE or NOTE; k
 * MC_KNOB__COUNT for a NOTE about a setting that is not a knob, named by
 * file) through the plan's builder, with the unit as its target: a
 * UNIT_FILE step names the unit's cgroup, where memctl writes the file
 * itself, and starts from the file's value, the others from the unit's
 * property. Takes reason.
 */
static int unit_step(struct unit_build *b, enum mc_step_kind kind, enum mc_knob k,
		     const char *file, char *reason)
{
	bool knob = k < K, in_cgroup = kind == MC_STEP_UNIT_FILE;
	struct mc_step step = {
		.kind = kind,
		.knob = k,
		.file = file,
		.old_raw = !knob ? 0 : in_cgroup ? b->st->raw[k] : b->st->prop[k],
		.old_valid = true,
		.new_raw = knob ? b->w.v[k] : 0,
		.want = knob ? b->w.v[k] : 0,
		.policy = knob && b->w.policy[k] ? b->w.policy[k] : "profile",
	};
	struct plan_target to = { b->spec->name, in_cgroup ? b->st->cgroup : NULL };

	if (knob && kind != MC_STEP_NOTE)
		plan_want_unit(&b->w, k, &step);
	return plan_step_add(b->plan, &step, to, reason);
}

/* The final value of knob k: the one asked for, else the live property. */
static uint64_t final_of(const struct unit_build *b, enum mc_knob k)
{
	return b->w.set[k] ? b->w.v[k] : b->st->prop[k];
}

/*
 * Checks min <= low <= high <= max in the final state, every pair (an
 * unlimited lower knob is unset); one message per knob that is too high.
 */
static int unit_check_order(struct unit_build *b)
{
	for (size_t i = 0; i < N_UNIT_CHAIN; i++) {
		for (size_t j = i + 1; j < N_UNIT_CHAIN; j++) {
			enum mc_knob lo = unit_chain[i], hi = unit_chain[j], at;
			uint64_t a = final_of(b, lo), c = final_of(b, hi);
			char s1[24], s2[24];
			int r;

			if (!(b->w.set[lo] || b->w.set[hi]) || !b->st->prop_known[lo] ||
			    !b->st->prop_known[hi] || a == MC_SIZE_MAX || a <= c)
				continue;
			at = b->w.set[lo] ? lo : hi;
			r = unit_diag(b, &b->spec->knob_pos[at], at,
				      mc_asprintf("%s %s%s is above %s %s%s", mc_knob_info(lo)->name,
						  plan_fmt_size(a, s1),
						  b->w.set[lo] ? "" : " (the unit's live value)",
						  mc_knob_info(hi)->name, plan_fmt_size(c, s2),
						  b->w.set[hi] ? "" : " (the unit's live value)"));
			if (r < 0)
				return r;
			break;
		}
	}
	return 0;
}

/*
 * The policies' settings for the unit take the place of the profile's
 * values (as apply_settings does for groups), rounded down to a page.
 */
static int unit_settings(struct unit_build *b, uint64_t page)
{
	const struct mc_decisions *d = b->st->dec;

	for (size_t i = 0; d && b->st->group && i < d->n_set; i++) {
		const struct mc_setting *set = &d->set[i];

		if (strcmp(set->group, b->st->group) != 0 || set->knob >= K ||
		    (mc_knob_unit_property(set->knob) && !b->st->prop_known[set->knob]))
			continue;
		plan_want_setting(&b->w, set, page);
	}
	return 0;
}

/* Resolves the unit's sizes and refuses knobs this systemd has no property for. */
static int unit_resolve(struct unit_build *b, const struct mc_caps *caps)
{
	uint64_t page = plan_page(caps);

	for (int k = 0; k < K; k++) {
		const struct mc_size *sz = &b->spec->knob[k];
		uint64_t v;
		int r;

		if (sz->kind == MC_SIZE_UNSET || mc_size_resolve(sz, MC_SIZE_MAX, &v) < 0)
			continue;
		plan_want_size(&b->w, k, v, page);
		if (!mc_knob_unit_property(k) || b->st->prop_known[k])
			continue;
		r = unit_diag(b, &b->spec->knob_pos[k], k,
			      mc_asprintf("systemd on this host has no unit property %s (it is too old "
					  "for it), so %s cannot be set on unit '%s'",
					  mc_knob_unit_property(k), mc_knob_info(k)->name,
					  b->spec->name));
		if (r < 0)
			return r;
	}
	return unit_settings(b, page);
}
/*
 * Knobs without a unit property (soft_limit, reclaim_protect_active):
 * systemd neither sets nor writes their files, so memctl writes them in
 * the unit's cgroup itself where the host has the file; elsewhere a note.
 */
static int unit_files(struct unit_build *b)
{
	for (int k = 0; k < K; k++) {
		const char *file = b->caps->file[k];
		char s1[24];
		int r;

		if (!b->w.set[k] || mc_knob_unit_property(k))
			continue;
		if (!file || !b->st->cgroup || !b->st->raw_valid[k]) {
			r = unit_step(b, MC_STEP_NOTE, k, NULL,
				      mc_asprintf("%s %s on unit '%s': not applied: %s",
						  mc_knob_info(k)->name, plan_fmt_size(b->w.v[k], s1),
						  b->spec->name,
						  !file ? (k == MC_KNOB_SOFT && b->st->dec ?
							   "no file for it on this host; the policies "
							   "emulate it with MemoryLow and reclaim the unit first" :
							   "no file for it on this host and no unit property") :
						  !b->st->cgroup ? "the unit has no cgroup now (not running)" :
						  "its file in the unit's cgroup cannot be read"));
			if (r < 0)
				return r;
			continue;
		}
		if (b->w.v[k] == b->st->raw[k])
			continue;
		r = unit_step(b, MC_STEP_UNIT_FILE, k, file,
			      b->w.policy_why[k] ? mc_asprintf("policy: %s", b->w.policy_why[k]) :
			      mc_asprintf("profile: %s %s (no unit property; systemd does not write %s)",
					  mc_knob_info(k)->name, plan_fmt_size(b->w.v[k], s1), file));
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * protect: and thp: steer memctl run's policies, which act on the
 * profile's groups: on a unit they are shown as not carried out.
 */
static int unit_policy_notes(struct unit_build *b)
{
	const char *why = b->st->no_policy ? b->st->no_policy : "the policies did not run";
	int r = 0;

	if (b->st->dec)
		return 0;
	if (b->spec->protect != MC_PROTECT_UNSET)
		r = unit_step(b, MC_STEP_NOTE, K, "protect",
			      mc_asprintf("protect on unit '%s': not carried out: %s", b->spec->name,
					  why));
	if (r == 0 && b->spec->thp >= 0)
		r = unit_step(b, MC_STEP_NOTE, K, "thp",
			      mc_asprintf("thp on unit '%s': not carried out: %s", b->spec->name, why));
	return r;
}

/* One policy reclaim of the unit: in its cgroup on v2, a note on v1. */
static int unit_reclaim(struct unit_build *b, const struct mc_reclaim *rc)
{
	char s1[24];

	if (b->caps->ver != MC_CGV2 || !b->st->cgroup)
		return unit_step(b, MC_STEP_NOTE, K, "reclaim",
				 mc_asprintf("reclaim %s from unit '%s': not carried out: on cgroup v1 "
					     "memctl reclaims by lowering the limit, which systemd "
					     "owns for a unit", plan_fmt_size(rc->bytes, s1),
					     b->spec->name));
	return plan_reclaim_add(b->plan, rc, (struct plan_target){ b->spec->name, b->st->cgroup });
}

/* The policies' reclaims of the unit, after its settings. */
static int unit_reclaims(struct unit_build *b)
{
	const struct mc_decisions *d = b->st->dec;
	int r = 0;

	for (size_t i = 0; d && b->st->group && i < d->n_reclaim && r == 0; i++)
		if (strcmp(d->reclaim[i].group, b->st->group) == 0)
			r = unit_reclaim(b, &d->reclaim[i]);
	return r;
}

/* A changing knob k's step. */
static int unit_write(struct unit_build *b, enum mc_knob k)
{
	if (!b->w.set[k] || b->w.v[k] == b->st->prop[k])
		return 0;
	return unit_step(b, MC_STEP_UNIT, k, mc_knob_unit_property(k),
			 plan_want_why(&b->w, k, &b->spec->knob[k]));
}

/* The steps of one unit, in an order that keeps the chain valid. */
static int unit_steps(struct unit_build *b)
{
	int r = 0;

	for (size_t i = 0; i < N_UNIT_CHAIN && r == 0; i++)
		if (b->w.v[unit_chain[i]] < b->st->prop[unit_chain[i]])
			r = unit_write(b, unit_chain[i]);
	for (size_t i = N_UNIT_CHAIN; i-- > 0 && r == 0;)
		if (b->w.v[unit_chain[i]] > b->st->prop[unit_chain[i]])
			r = unit_write(b, unit_chain[i]);
	if (r == 0)
		r = unit_write(b, MC_KNOB_SWAP);
	if (r == 0)
		r = unit_files(b);
	if (r == 0)
		r = unit_policy_notes(b);
	return r < 0 ? r : unit_reclaims(b);
}

int mc_plan_units(const struct mc_profile *p, const struct mc_unit_state *units,
		  const struct mc_caps *caps, struct mc_plan *plan, struct mc_diags *diags)
{
	int errors = 0, r = 0;

	for (size_t i = 0; i < p->n_units && r == 0; i++) {
		struct unit_build b = { .caps = caps, .p = p, .spec = &p->units[i], .st = &units[i],
					.plan = plan, .diags = diags };

		r = unit_resolve(&b, caps);
		if (r == 0 && b.errors == 0)
			r = unit_check_order(&b);
		if (r == 0 && b.errors == 0)
			r = unit_steps(&b);
		errors += b.errors;
	}
	if (r < 0)
		return r;
	return errors ? -EINVAL : 0;
}
