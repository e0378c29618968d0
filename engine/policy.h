#ifndef MEMCTL_POLICY_H
#define MEMCTL_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "caps.h"
#include "knob.h"
#include "profile.h"
#include "snapshot.h"

/*
 * The policy engine: the five reclaim policies (docs/ARCHITECTURE.md,
 * "The five policies") as pure computation. Each interval, mc_policy_decide() turns a profile plus a live
 * snapshot into
 *   - knob values derived by the policies (memory.low from a working-set
 *     estimate, a 2 MiB aligned high, a v1 sibling cap on limit_in_bytes...),
 *     which the planner merges with the profile's static values and orders
 *     like any other write; and
 *   - reclaim actions (group, bytes, per-node split), each with a reason.
 * State that must survive between intervals (smoothed working sets, last
 * refault counters, per-node deficits) lives in struct mc_policy.
 */

#define MC_THP_SIZE (2ULL * 1024 * 1024)

/*
 * Intervals in which a working-set estimate, once its hold is over, comes
 * down to what is seen in use: smoothed in the first ones, there in the
 * last, so a decision derived from it converges within this many writes.
 */
#define MC_WS_RELEASE 3U

/* Names of the five policies, as memctl status, top and export show them. */
#define MC_POLICY_SOFT_LIMIT "soft-limit"
#define MC_POLICY_ACTIVE_SET "active-set"
#define MC_POLICY_THP_HIGH "thp-high"
#define MC_POLICY_NUMA "numa"
#define MC_POLICY_CONCURRENCY "concurrency"

struct mc_policy_config {
	/* A group needs memory back when usage > limit - headroom. 0: default
	 * (the larger of 2% of the limit and 8 MiB). */
	uint64_t headroom;
	/* PSI memory "some" avg10 (percent) above which a group with PSI needs
	 * memory back even below its limit. 0: default 10. */
	double psi_some_threshold;
	/* Smoothing factor of the working-set estimate's release (how fast it
	 * follows the active size down once the hold is over, in the
	 * MC_WS_RELEASE intervals it takes), 0 < alpha <= 1. 0: default 0.3. */
	double ws_alpha;
	/* Intervals the estimate holds after the active size fell below it by
	 * more than the deadband: a job between two passes over its pages has
	 * not stopped using them. 0: default 10. */
	unsigned ws_hold;
	/* Minimum gap between high and max for THP groups; the gap is at
	 * least MC_THP_SIZE * cpus. */
	uint64_t thp_floor;
	unsigned cpus;          /* online CPUs (>= 1) */
	bool swap;              /* swap exists: inactive_anon counts in NUMA weights */
};

/* A knob value a policy derived; the planner treats it like a profile value. */
struct mc_setting {
	char *group;            /* relative to the profile's parent */
	enum mc_knob knob;
	uint64_t value;         /* abstract bytes, MC_SIZE_MAX = no limit */
	const char *policy;     /* which policy decided it (static): MC_POLICY_* */
	char *reason;
	/* the unit (shift: 0 bytes, 10 K, 20 M, 30 G, 40 T) the reason's sizes are
	 * in, which also divides value and the live value: a line showing old ->
	 * new beside the reason writes them in it */
	unsigned reason_unit;
};

struct mc_reclaim {
	char *group;            /* relative to the profile's parent */
	uint64_t bytes;         /* total; a multiple of MC_THP_SIZE for THP groups */
	uint64_t *node_bytes;   /* per NUMA node, summing to bytes; NULL = no split */
	size_t n_nodes;
	const char *policy;     /* which policy decided it (static): MC_POLICY_* */
	char *reason;
	unsigned reason_unit;   /* as mc_setting's, dividing bytes */
};

/*
 * A derived setting that stopped moving: this interval the policy's value
 * of knob in group is its live value, after `intervals` intervals in a row
 * in which it was not (each one a write). It says how many intervals a
 * decision took to converge after a workload change (memctl run logs it).
 */
struct mc_settled {
	char *group;            /* relative to the profile's parent; unit: the unit's name */
	bool unit;              /* a unit of the profile's units: (the host's pipeline adds
	                           those from the policies' run on the unit's slice) */
	enum mc_knob knob;
	uint64_t value;
	unsigned intervals;
	const char *policy;     /* MC_POLICY_* (static) */
};

struct mc_decisions {
	struct mc_setting *set;
	size_t n_set;
	struct mc_reclaim *reclaim;
	size_t n_reclaim;
	/* Things decided but not enforceable on this host, one line each
	 * ("NUMA split computed but memory.reclaim has no nodes= here"). */
	char **notes;
	size_t n_notes;
	struct mc_settled *settled;
	size_t n_settled;
	size_t cap_set, cap_reclaim, cap_notes, cap_settled;  /* allocated lengths */
};

struct mc_policy;

/* Creates engine state. Returns 0, -EINVAL (bad config), -ENOMEM. */
int mc_policy_new(const struct mc_policy_config *cfg, struct mc_policy **ret);
void mc_policy_free(struct mc_policy *pol);

/*
 * The policy state kept under key (created with pol's configuration on
 * first use, freed with pol): for decisions on another parent than the
 * profile's, such as the slice of a systemd unit, whose groups' state must
 * not be dropped by pol's own interval. Returns 0 or -ENOMEM.
 */
int mc_policy_child(struct mc_policy *pol, const char *key, struct mc_policy **ret);

/*
 * One interval: decides settings and reclaims for profile p on snapshot s
 * (a snapshot of p's parent, as for mc_plan_build). Updates the state
 * (working-set estimates, refault counters, NUMA deficits), so call it once
 * per interval. Each derived setting is compared with its live value, and
 * one that stopped moving is reported in ret->settled. Problems that make a
 * decision impossible are appended to
 * diags but do not fail the call. Returns 0 or -ENOMEM; *ret is not written
 * on failure.
 */
int mc_policy_decide(struct mc_policy *pol, const struct mc_profile *p,
		     const struct mc_snapshot *s, const struct mc_caps *caps,
		     struct mc_decisions *ret, struct mc_diags *diags);

/*
 * Checks a profile against the policies without a host (memctl check): a
 * `thp: true` group whose absolute high and max are closer than the THP gap
 * (see mc_thp_high) is an error at the high key. Returns the number of
 * problems appended to diags, or -ENOMEM.
 */
int mc_policy_check(const struct mc_profile *p, const struct mc_policy_config *cfg,
		    struct mc_diags *diags);

/* Current working-set estimate of a group (bytes), or -ENOENT. */
int mc_policy_working_set(const struct mc_policy *pol, const char *group, uint64_t *ret);

void mc_decisions_free(struct mc_decisions *d);

/* Appends a note (taking ownership of it) to d. 0 or -ENOMEM (note freed). */
int mc_decisions_add_note(struct mc_decisions *d, char *note);

/* ---- Building blocks, exposed for table-driven tests. All pure. ---- */

/*
 * Soft-limit ordering: splits demand bytes over n children. First pass:
 * children above their soft limit give in proportion to their excess
 * (usage - soft), never more than it. Only what is left is taken from all
 * children in proportion to their usage (never more than a child's usage
 * minus what it already gives, and never below protect[i] when given).
 * Protection bounds the first pass too: the excess counts from
 * max(soft[i], protect[i]). soft[i] == MC_SIZE_MAX: no soft limit.
 * Shares are exact (they sum to the total returned).
 * Writes ret_take[i]; returns the total assigned (< demand when the
 * children cannot give that much). protect may be NULL.
 */
uint64_t mc_softlimit_split(uint64_t demand, const uint64_t *usage, const uint64_t *soft,
			    const uint64_t *protect, size_t n, uint64_t *ret_take);

/*
 * Working-set estimate for the next interval: an exponentially weighted
 * average of active (active_anon + active_file) with factor alpha, raised by
 * refault_bytes (pages that were reclaimed and needed again since the last
 * interval were part of the working set), capped at max. prev == 0 means no
 * history: the estimate starts at active.
 */
uint64_t mc_ws_estimate(uint64_t prev, uint64_t active, uint64_t refault_bytes, uint64_t max,
			double alpha);

/*
 * The working-set estimate of one group, kept between intervals: the
 * estimate (0 = no history) and how many intervals in a row the active size
 * has been below it by more than the deadband.
 */
struct mc_ws_state {
	uint64_t est;
	unsigned below;
	unsigned loss;    /* intervals left in which a usage drop is reclaim, not freeing */
};

/*
 * What one interval shows of a group's use of its pages, for mc_ws_update.
 * touched: bytes seen coming back into use since the last interval besides
 * refaults: pages activated (v2's pgactivate), or where the host counts no
 * activations (v1) the growth of the active lists.
 */
struct mc_ws_sample {
	uint64_t active;        /* active_anon + active_file */
	uint64_t refault;       /* bytes refaulted since the last interval */
	uint64_t touched;
	uint64_t usage;         /* MC_SIZE_MAX: unknown */
	uint64_t reactivated;   /* of refault, bytes the kernel activated (on the active list) */
	uint64_t stolen;        /* bytes reclaim took since the last interval, MC_SIZE_MAX unknown */
};

/*
 * One interval of the working-set estimate (protect: active). raw = active
 * + the refaults not activated (pages that came back were part of the
 * working set; activated ones are on the active list already), seen = raw
 * + touched (pages in use this interval, though not all on the active list
 * when it was read).
 *   - It rises at once to raw: a job that grows is protected in the same
 *     interval.
 *   - It holds while seen stays within the deadband below it (mc_deadband),
 *     and while the job refaults a deadband's worth or more: the kernel
 *     moves a job's pages to the inactive list while the job reads them,
 *     and the job brings them back (activations, refaults), so while that
 *     evidence covers the estimate it does not decay, however long the
 *     active size stays down; a job that refaults that much is losing its
 *     working set to reclaim, and a smaller estimate would let its
 *     neighbours take more of it.
 *   - Without that evidence it holds `hold` more intervals (a job between
 *     two passes over its pages has not stopped using them; on v1 nothing
 *     counts activations), then follows seen down by mc_ws_estimate's
 *     smoothing, and is at it in the MC_WS_RELEASE-th interval after the
 *     hold.
 *   - It never exceeds usage + refault (memory the job freed is not its
 *     working set any more: a job that shrinks is followed at once) -
 *     unless reclaim took pages from it (stolen, or refaults of a deadband)
 *     in this interval or the `hold` before: then the usage dropped because
 *     the kernel took the pages, and following it would hand them to the
 *     neighbours that pressed them out. Nor does it exceed max; it is
 *     rounded up to page.
 * Updates *st and returns the estimate.
 */
uint64_t mc_ws_update(struct mc_ws_state *st, const struct mc_ws_sample *in, uint64_t max,
		      double alpha, unsigned hold, uint64_t page);

/*
 * The deadband of a derived limit or protection near v: max(1% of v,
 * 1 MiB), rounded up to page (0: 4096). A change smaller than this is not
 * worth a write: limits the policies derive move a little every interval
 * with the sizes they are computed from.
 */
uint64_t mc_deadband(uint64_t v, uint64_t page);

/*
 * What to write for a derived value whose live value is live: live itself
 * (no write) when want is within mc_deadband(live) of it and not urgent,
 * else want. live MC_SIZE_MAX (no limit yet) or !live_valid: want.
 */
uint64_t mc_deadband_hold(uint64_t live, bool live_valid, uint64_t want, bool urgent,
			  uint64_t page);

/*
 * THP-aware high: rounds high down to a 2 MiB boundary and lowers it further
 * when needed so that max - high >= gap, where gap = max(floor, 2 MiB *
 * cpus). Returns 0 and *ret, or -ERANGE when max itself is smaller than the
 * gap (no valid high exists).
 */
int mc_thp_high(uint64_t high, uint64_t max, unsigned cpus, uint64_t floor, uint64_t *ret);

/* Rounds bytes up to a multiple of 2 MiB (saturating). */
uint64_t mc_thp_round_up(uint64_t bytes);

/*
 * A node's inactive file cache as a reclaim of amount bytes will find it.
 * Of inactive bytes, mapped ones are kept when in use (reclaim finds them
 * referenced), so only inactive - mapped can be taken; and as reclaim
 * starts at the list's oldest pages, which the mapped ones may all be, a
 * reclaim of amount from the node may scan up to amount + mapped. Returns
 * the cheap bytes scaled by the least share of the scan that is not
 * wasted: (inactive - mapped) x amount / (amount + mapped); with nothing
 * mapped, all of it.
 */
uint64_t mc_numa_cheap(uint64_t inactive, uint64_t mapped, uint64_t amount);

/*
 * The weight of a node for `numa: weighted`: its reclaimable (inactive)
 * bytes less those that would come back within `hold` intervals at the
 * rate the group refaulted on the node in the last one (refault bytes x
 * hold, saturating). A node whose cache is never needed again keeps its
 * whole size; one whose reclaimed pages come back is reclaiming the
 * working set and weighs less, down to 0.
 */
uint64_t mc_numa_weight(uint64_t inactive, uint64_t refault, unsigned hold);

/*
 * Levels the nodes' weights from the top: ret[i] is what node i holds
 * above the highest level L at which the nodes together still hold amount
 * above it (ret[i] = max(0, weight[i] - L)). A node is taken from only
 * once every larger one is down to its size, so a node much smaller than
 * another is left alone. When amount is at least the sum of the weights,
 * L is 0 and ret is the weights. The shares are weights for mc_numa_split.
 */
void mc_numa_level(const uint64_t *weight, size_t n, uint64_t amount, uint64_t *ret);

/*
 * NUMA weighting with deficit round-robin: splits amount over n nodes in
 * units of unit bytes, so that over many calls each node's share of the
 * total follows its share of the weights (proportionally fair), not
 * round-robin. deficit[] is the state kept between calls (start zeroed).
 * Nodes with weight 0 get nothing. Writes ret[] (sums to amount rounded
 * down to unit, the remainder to the heaviest node).
 */
void mc_numa_split(int64_t *deficit, const uint64_t *weight, size_t n, uint64_t amount,
		   uint64_t unit, uint64_t *ret);

/*
 * mc_softlimit_split with streaming children: in the second pass, children
 * with streaming[i] set give first (in proportion to their usage, never
 * below protect[i]); the others give only what the streamers cannot.
 * Protection also bounds the first pass: a child's excess counts from
 * max(soft[i], protect[i]). streaming and protect may be NULL.
 * mc_softlimit_split(...) is this with streaming NULL.
 */
uint64_t mc_softlimit_split_stream(uint64_t demand, const uint64_t *usage, const uint64_t *soft,
				   const uint64_t *protect, const bool *streaming, size_t n,
				   uint64_t *ret_take);

/*
 * Plain round-robin for `numa: round-robin`: whole units go to the nodes in
 * turn, starting at *next (state kept between calls, start 0), skipping
 * nodes with weight 0 (nothing to reclaim there) unless all are 0. The
 * remainder below a unit goes to the node whose turn is next. Writes ret[]
 * (sums to amount) and advances *next.
 */
void mc_numa_round_robin(size_t *next, const uint64_t *weight, size_t n, uint64_t amount,
			 uint64_t unit, uint64_t *ret);

/*
 * Headroom below a limit: cfg_headroom when non-zero, else the larger of 2%
 * of limit and 8 MiB; rounded up to page (0: 4096). An unlimited limit has
 * the 8 MiB default.
 */
uint64_t mc_policy_headroom(uint64_t limit, uint64_t cfg_headroom, uint64_t page);

/*
 * cgroup v1 sibling cap (v1 has no memory.low): the limit_in_bytes of an
 * unprotected child of a parent with limit `limit` whose protected children
 * need `protected_bytes`, so the parent's limit reclaim leaves them room:
 * limit - protected_bytes - headroom, never below max(2 * headroom, 16 MiB),
 * never above limit or own_max (the child's own max, MC_SIZE_MAX when
 * unset), aligned down to page.
 */
uint64_t mc_sibling_cap(uint64_t limit, uint64_t protected_bytes, uint64_t headroom,
			uint64_t own_max, uint64_t page);

/*
 * Stock cgroup v2 soft limits as memory.low: the lows of the children of
 * one parent, whose protections together may claim at most room (the
 * parent's limit). need[i] is what child i claims (its soft limit, bounded
 * by room and its own high and max; or its other protection), have[i] what
 * it holds of that now (usage below the soft limit; values above need[i]
 * count as need[i]). When the needs fit room, ret[i] = need[i] and the
 * result is true. Otherwise ret[i] = have[i] plus a share of what room
 * leaves beyond the haves, in proportion to need[i] - have[i], the share
 * rounded down to page (0: 4096), so sum(ret) <= room; when the haves alone
 * exceed room, ret[i] = have[i]. Returns false then. Writes ret[0..n).
 */
bool mc_soft_low_split(uint64_t room, const uint64_t *need, const uint64_t *have, size_t n,
		       uint64_t page, uint64_t *ret);

#endif
