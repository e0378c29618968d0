/*
 * The policies' arithmetic: the building blocks of policy.c, pure functions
 * of numbers, exposed in policy.h so tests can check them table by table.
 *
 * Proportional splitting ("in proportion to X, never more than C") is
 * water-filling: find the level t such that sum(min(C[i], t * X[i])) is the
 * amount, give every member min(C[i], t * X[i]). It is computed without
 * scratch memory (the split functions cannot fail): the set of capped
 * members only grows as the level rises, so iterating "level from the
 * uncapped members, recount the capped ones" reaches the exact level in at
 * most n rounds of O(n). Products use 128-bit arithmetic; weights are
 * scaled down first when their sum would not fit 63 bits, which only
 * happens for values no machine has.
 *
 * Rounding: floors are taken and the bytes left over (fewer than the number
 * of members) go one each to the first members whose exact share had a
 * fraction. Such a member's exact share is below its cap, so +1 never
 * exceeds it, and the totals are exact.
 *
 * NUMA weighting is deficit round-robin: every call credits each node its
 * weight share of the amount (exactly, by the same rounding), then hands
 * out whole units to the node owed the most. Credits and debits both sum
 * to the amount, so the deficits stay within a few units of zero and every
 * node's cumulative share converges to its weight share - unlike
 * round-robin, which converges to 1/n whatever the weights.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "policy.h"

typedef unsigned __int128 u128;

#define MIB (1024ULL * 1024)

/* The passes of the soft-limit split, and which children take part. */
enum pass {
	PASS_EXCESS,  /* above the soft limit: weight and cap are the excess */
	PASS_STREAM,  /* streaming children: weight usage, cap what is left */
	PASS_REST,    /* everyone else (everyone when there is no streaming) */
};

struct split_in {
	const uint64_t *usage;
	const uint64_t *soft;
	const uint64_t *protect;
	const bool *streaming;
};

static uint64_t prot_of(const struct split_in *in, size_t i)
{
	return in->protect ? in->protect[i] : 0;
}

/* usage above max(soft, protect): what the first pass may take. */
static uint64_t excess_of(const struct split_in *in, size_t i)
{
	uint64_t floor = in->soft[i];

	if (floor == MC_SIZE_MAX)
		return 0;
	if (prot_of(in, i) > floor)
		floor = prot_of(in, i);
	return in->usage[i] > floor ? in->usage[i] - floor : 0;
}

static bool is_member(const struct split_in *in, enum pass p, size_t i)
{
	switch (p) {
	case PASS_EXCESS:
		return true;
	case PASS_STREAM:
		return in->streaming && in->streaming[i];
	case PASS_REST:
		return !in->streaming || !in->streaming[i];
	}
	return false;
}

static uint64_t weight_of(const struct split_in *in, enum pass p, size_t i)
{
	return p == PASS_EXCESS ? excess_of(in, i) : in->usage[i];
}

/* What child i can still give in pass p, given what it gives already. */
static uint64_t cap_of(const struct split_in *in, enum pass p, size_t i, const uint64_t *take)
{
	uint64_t avail;

	if (p == PASS_EXCESS)
		return excess_of(in, i) - take[i];
	avail = in->usage[i] > prot_of(in, i) ? in->usage[i] - prot_of(in, i) : 0;
	return avail > take[i] ? avail - take[i] : 0;
}

/*
 * The water level R / W of fill (weights shifted right by shift): members
 * whose cap is below level * weight give their cap, the others share the R
 * bytes left in proportion to their weight, W in all (0 when every member
 * is capped).
 */
static void water_level(const struct split_in *in, enum pass p, size_t n, uint64_t amount,
			unsigned shift, const uint64_t *take, u128 *ret_r, u128 *ret_w)
{
	u128 R = amount, W = 0;

	for (size_t i = 0; i < n; i++)
		if (is_member(in, p, i) && cap_of(in, p, i, take))
			W += weight_of(in, p, i) >> shift;
	for (;;) {
		u128 nR = amount, nW = 0;

		for (size_t i = 0; i < n; i++) {
			uint64_t c = cap_of(in, p, i, take), w = weight_of(in, p, i) >> shift;

			if (!is_member(in, p, i) || !c)
				continue;
			if ((u128)c * W < R * w)
				nR -= c;
			else
				nW += w;
		}
		if (nR == R && nW == W)
			break;
		R = nR;
		W = nW;
		if (W == 0)
			break;
	}
	*ret_r = R;
	*ret_w = W;
}

/*
 * Adds to take[] up to amount bytes from the members of pass p, in
 * proportion to their weight, never more than their cap. Returns the
 * amount assigned.
 */
static uint64_t fill(const struct split_in *in, enum pass p, size_t n, uint64_t amount,
		     uint64_t *take)
{
	u128 wsum = 0, capsum = 0, R, W;
	unsigned shift = 0;
	uint64_t left;

	if (amount == 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (!is_member(in, p, i) || !cap_of(in, p, i, take))
			continue;
		wsum += weight_of(in, p, i);
		capsum += cap_of(in, p, i, take);
	}
	if (capsum <= amount) {
		/* Everyone gives all it can (also when no weight is left). */
		uint64_t got = 0;

		for (size_t i = 0; i < n; i++) {
			uint64_t c;

			if (!is_member(in, p, i))
				continue;
			c = cap_of(in, p, i, take);
			take[i] += c;
			got += c;
		}
		return got;
	}
	while ((wsum >> shift) >= ((u128)1 << 63))
		shift++;

	water_level(in, p, n, amount, shift, take, &R, &W);

	/* Leftover bytes of the floors, handed out one each below. */
	left = (uint64_t)R;
	for (size_t i = 0; i < n; i++) {
		uint64_t c = cap_of(in, p, i, take), w = weight_of(in, p, i) >> shift;

		if (!is_member(in, p, i) || !c || W == 0 || (u128)c * W < R * w)
			continue;
		left -= (uint64_t)(R * w / W);
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t c = cap_of(in, p, i, take), w = weight_of(in, p, i) >> shift;
		uint64_t give;

		if (!is_member(in, p, i) || !c)
			continue;
		if (W == 0 || (u128)c * W < R * w) {
			give = c;
		} else {
			give = (uint64_t)(R * w / W);
			if (left && (R * w) % W) {
				give++;
				left--;
			}
		}
		take[i] += give;
	}
	return amount;
}

static uint64_t split(uint64_t demand, const struct split_in *in, size_t n, uint64_t *ret_take)
{
	uint64_t got;

	for (size_t i = 0; i < n; i++)
		ret_take[i] = 0;
	got = fill(in, PASS_EXCESS, n, demand, ret_take);
	if (got < demand && in->streaming)
		got += fill(in, PASS_STREAM, n, demand - got, ret_take);
	if (got < demand)
		got += fill(in, PASS_REST, n, demand - got, ret_take);
	return got;
}

uint64_t mc_softlimit_split_stream(uint64_t demand, const uint64_t *usage, const uint64_t *soft,
				   const uint64_t *protect, const bool *streaming, size_t n,
				   uint64_t *ret_take)
{
	struct split_in in = { usage, soft, protect, streaming };

	return split(demand, &in, n, ret_take);
}

uint64_t mc_softlimit_split(uint64_t demand, const uint64_t *usage, const uint64_t *soft,
			    const uint64_t *protect, size_t n, uint64_t *ret_take)
{
	return mc_softlimit_split_stream(demand, usage, soft, protect, NULL, n, ret_take);
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

uint64_t mc_ws_estimate(uint64_t prev, uint64_t active, uint64_t refault_bytes, uint64_t max,
			double alpha)
{
	uint64_t base;

	if (!(alpha > 0.0 && alpha <= 1.0))  /* also NaN */
		alpha = 0.3;
	if (prev == 0) {
		base = active;
	} else {
		double d = (double)prev + alpha * ((double)active - (double)prev) + 0.5;

		base = d >= 18446744073709551615.0 ? UINT64_MAX : d <= 0.0 ? 0 : (uint64_t)d;
	}
	base = sat_add(base, refault_bytes);
	return base < max ? base : max;
}

uint64_t mc_deadband(uint64_t v, uint64_t page)
{
	uint64_t d = v == MC_SIZE_MAX ? MIB : v / 100;

	if (!page)
		page = 4096;
	if (d < MIB)
		d = MIB;
	if (d % page)
		d = sat_add(d, page - d % page);
	return d;
}

uint64_t mc_deadband_hold(uint64_t live, bool live_valid, uint64_t want, bool urgent,
			  uint64_t page)
{
	uint64_t diff;

	if (!live_valid || live == MC_SIZE_MAX || want == MC_SIZE_MAX || urgent)
		return want;
	diff = want > live ? want - live : live - want;
	return diff < mc_deadband(live, page) ? live : want;
}

uint64_t mc_ws_update(struct mc_ws_state *st, const struct mc_ws_sample *in, uint64_t max,
		      double alpha, unsigned hold, uint64_t page)
{
	uint64_t again = in->reactivated < in->refault ? in->reactivated : in->refault;
	uint64_t raw = sat_add(in->active, in->refault - again), est = st->est;
	uint64_t seen = sat_add(raw, in->touched);
	bool refaulting, lost;

	if (!page)
		page = 4096;
	refaulting = in->refault >= mc_deadband(est, page);
	lost = refaulting || (in->stolen != MC_SIZE_MAX && in->stolen > 0);
	if (lost)
		st->loss = hold + 1;
	else if (st->loss)
		st->loss--;
	if (est == 0 || raw >= est) {
		est = raw;
		st->below = 0;
	} else if (refaulting || seen >= est || est - seen < mc_deadband(est, page)) {
		st->below = 0;
	} else if (++st->below >= hold + MC_WS_RELEASE) {
		est = seen;
	} else if (st->below > hold) {
		est = mc_ws_estimate(est, seen, 0, MC_SIZE_MAX, alpha);
	}
	if (!st->loss && in->usage != MC_SIZE_MAX && est > sat_add(in->usage, in->refault))
		est = sat_add(in->usage, in->refault);
	if (est > max)
		est = max;
	if (est % page && est <= UINT64_MAX - page)
		est += page - est % page;
	if (est > max)
		est = max - max % page;
	st->est = est;
	return est;
}

uint64_t mc_thp_round_up(uint64_t bytes)
{
	if (bytes > UINT64_MAX - (MC_THP_SIZE - 1))
		return UINT64_MAX & ~(MC_THP_SIZE - 1);
	return (bytes + MC_THP_SIZE - 1) & ~(MC_THP_SIZE - 1);
}

int mc_thp_high(uint64_t high, uint64_t max, unsigned cpus, uint64_t floor, uint64_t *ret)
{
	/* unsigned times 2 MiB fits 64 bits */
	uint64_t gap = MC_THP_SIZE * (cpus ? cpus : 1);

	if (floor > gap)
		gap = floor;
	if (high == MC_SIZE_MAX) {
		/* No high: nothing to align. */
		*ret = high;
		return 0;
	}
	if (max != MC_SIZE_MAX) {
		if (max < gap)
			return -ERANGE;
		if (high > max - gap)
			high = max - gap;
	}
	*ret = high & ~(MC_THP_SIZE - 1);
	return 0;
}

uint64_t mc_policy_headroom(uint64_t limit, uint64_t cfg_headroom, uint64_t page)
{
	uint64_t h = cfg_headroom;

	if (!page)
		page = 4096;
	if (!h) {
		h = 8 * MIB;
		if (limit != MC_SIZE_MAX && limit / 50 > h)
			h = limit / 50;
	}
	if (h % page)
		h = sat_add(h, page - h % page);
	return h;
}

uint64_t mc_sibling_cap(uint64_t limit, uint64_t protected_bytes, uint64_t headroom,
			uint64_t own_max, uint64_t page)
{
	uint64_t floor = headroom > UINT64_MAX / 2 ? UINT64_MAX : 2 * headroom;
	uint64_t cap = 0;

	if (!page)
		page = 4096;
	if (floor < 16 * MIB)
		floor = 16 * MIB;
	if (limit > protected_bytes && limit - protected_bytes > headroom)
		cap = limit - protected_bytes - headroom;
	if (cap < floor)
		cap = floor;
	/* A child's max may not exceed its parent's, even at the floor. */
	if (cap > limit)
		cap = limit;
	if (cap > own_max)
		cap = own_max;
	return cap - cap % page;
}

/*
 * Credits each node its share of amount: floor(amount * w / W), the bytes
 * left over one each to the first nodes with a fraction. all_zero: every
 * weight is 0 and the nodes count as equal.
 */
static void numa_credit(int64_t *deficit, const uint64_t *weight, size_t n, uint64_t amount,
			bool all_zero)
{
	u128 W = 0;
	uint64_t left = amount;

	for (size_t i = 0; i < n; i++)
		W += all_zero ? 1 : weight[i];
	for (size_t i = 0; i < n; i++)
		left -= (uint64_t)((u128)amount * (all_zero ? 1 : weight[i]) / W);
	for (size_t i = 0; i < n; i++) {
		u128 num = (u128)amount * (all_zero ? 1 : weight[i]);
		uint64_t c = (uint64_t)(num / W);

		if (left && num % W) {
			c++;
			left--;
		}
		if (c > (uint64_t)INT64_MAX || __builtin_add_overflow(deficit[i], (int64_t)c, &deficit[i]))
			deficit[i] = INT64_MAX;
	}
}

static bool numa_eligible(const uint64_t *weight, size_t i, bool all_zero)
{
	return all_zero || weight[i] > 0;
}

/* Zeroes ret; true when every weight is 0 (then every node is eligible). */
static bool numa_start(const uint64_t *weight, size_t n, uint64_t *ret)
{
	bool all_zero = true;

	for (size_t i = 0; i < n; i++) {
		ret[i] = 0;
		if (weight[i])
			all_zero = false;
	}
	return all_zero;
}

static void numa_give(int64_t *deficit, uint64_t *ret, size_t i, uint64_t bytes)
{
	ret[i] += bytes;
	if (bytes > (uint64_t)INT64_MAX ||
	    __builtin_sub_overflow(deficit[i], (int64_t)bytes, &deficit[i]))
		deficit[i] = INT64_MIN;
}

uint64_t mc_numa_cheap(uint64_t inactive, uint64_t mapped, uint64_t amount)
{
	uint64_t cheap = inactive > mapped ? inactive - mapped : 0;

	if (!mapped)
		return cheap;
	return (uint64_t)((u128)cheap * amount / ((u128)amount + mapped));
}

uint64_t mc_numa_weight(uint64_t inactive, uint64_t refault, unsigned hold)
{
	uint64_t back = hold && refault > UINT64_MAX / hold ? UINT64_MAX : refault * hold;

	return inactive > back ? inactive - back : 0;
}

static u128 numa_above(const uint64_t *weight, size_t n, uint64_t level)
{
	u128 sum = 0;

	for (size_t i = 0; i < n; i++)
		if (weight[i] > level)
			sum += weight[i] - level;
	return sum;
}

void mc_numa_level(const uint64_t *weight, size_t n, uint64_t amount, uint64_t *ret)
{
	uint64_t lo = 0, hi = 0;

	for (size_t i = 0; i < n; i++)
		if (weight[i] > hi)
			hi = weight[i];
	/* The highest level whose excess still covers amount: binary search, as the excess falls with it. */
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2 + ((hi - lo) & 1);

		if (numa_above(weight, n, mid) >= amount)
			lo = mid;
		else
			hi = mid - 1;
	}
	for (size_t i = 0; i < n; i++)
		ret[i] = weight[i] > lo ? weight[i] - lo : 0;
}

void mc_numa_split(int64_t *deficit, const uint64_t *weight, size_t n, uint64_t amount,
		   uint64_t unit, uint64_t *ret)
{
	bool all_zero;
	uint64_t units, rem, k_sum = 0;
	size_t heavy = 0;

	if (n == 0)
		return;
	if (unit == 0)
		unit = 1;
	all_zero = numa_start(weight, n, ret);
	for (size_t i = 0; i < n; i++)
		if (weight[i] > weight[heavy])
			heavy = i;
	numa_credit(deficit, weight, n, amount, all_zero);
	units = amount / unit;
	rem = amount % unit;

	/*
	 * Nodes owed whole units get them at once; with deficits that started
	 * at zero, at most n units are left for the one-by-one loop. When the
	 * owed units exceed what there is (weights changed a lot), they are
	 * scaled to fit first.
	 */
	for (size_t i = 0; i < n; i++)
		if (numa_eligible(weight, i, all_zero) && deficit[i] > 0)
			k_sum += (uint64_t)deficit[i] / unit;
	if (k_sum) {
		uint64_t given = 0;

		for (size_t i = 0; i < n; i++) {
			uint64_t k;

			if (!numa_eligible(weight, i, all_zero) || deficit[i] <= 0)
				continue;
			k = (uint64_t)deficit[i] / unit;
			if (k_sum > units)
				k = (uint64_t)((u128)units * k / k_sum);
			numa_give(deficit, ret, i, k * unit);
			given += k;
		}
		units -= given;
	}
	while (units--) {
		size_t best = n;

		for (size_t i = 0; i < n; i++)
			if (numa_eligible(weight, i, all_zero) &&
			    (best == n || deficit[i] > deficit[best]))
				best = i;
		numa_give(deficit, ret, best, unit);
	}
	if (rem)
		numa_give(deficit, ret, heavy, rem);
}

void mc_numa_round_robin(size_t *next, const uint64_t *weight, size_t n, uint64_t amount,
			 uint64_t unit, uint64_t *ret)
{
	bool all_zero;
	size_t m = 0, pos;
	uint64_t units, per, extra;

	if (n == 0)
		return;
	if (unit == 0)
		unit = 1;
	all_zero = numa_start(weight, n, ret);
	for (size_t i = 0; i < n; i++)
		m += numa_eligible(weight, i, all_zero);
	units = amount / unit;
	per = units / m;
	extra = units % m;
	/* Whole rounds give every eligible node the same; the extra units go in turn. */
	for (size_t i = 0; i < n; i++)
		if (numa_eligible(weight, i, all_zero))
			ret[i] = per * unit;
	pos = *next % n;
	for (;;) {
		while (!numa_eligible(weight, pos, all_zero))
			pos = (pos + 1) % n;
		if (!extra)
			break;
		ret[pos] += unit;
		extra--;
		pos = (pos + 1) % n;
	}
	ret[pos] += amount % unit;
	*next = pos;
}

bool mc_soft_low_split(uint64_t room, const uint64_t *need, const uint64_t *have, size_t n,
		       uint64_t page, uint64_t *ret)
{
	uint64_t sum_need = 0, sum_have = 0, spare;
	u128 gap = 0;

	if (!page)
		page = 4096;
	for (size_t i = 0; i < n; i++) {
		uint64_t h = have[i] < need[i] ? have[i] : need[i];

		sum_need = sat_add(sum_need, need[i]);
		sum_have = sat_add(sum_have, h);
		gap += need[i] - h;
	}
	if (sum_need <= room) {
		for (size_t i = 0; i < n; i++)
			ret[i] = need[i];
		return true;
	}
	spare = sum_have < room ? room - sum_have : 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t h = have[i] < need[i] ? have[i] : need[i];
		/* gap 0: every child holds all it claims, and the haves exceed room */
		uint64_t share = gap ? (uint64_t)((u128)spare * (need[i] - h) / gap) : 0;

		ret[i] = h + (share - share % page);
	}
	return false;
}
