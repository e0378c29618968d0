#include <errno.h>
#include <string.h>

#include "knob.h"

/*
 * The knob table. memory.soft_limit is the v2 file of memctl's kernel patch;
 * a stock v2 kernel has no soft limit file (the policy engine emulates it with
 * memory.low). v1 has no high, low or min. reclaim_protect_active is the
 * patch's 0/1 switch for active-set protection; the policy engine sets it
 * from `protect: active`.
 */
static const struct mc_knob_info knobs[MC_KNOB__COUNT] = {
	[MC_KNOB_MAX] = { "max", "memory.limit_in_bytes", "memory.max", NULL,
			  "hard limit: usage above it is reclaimed, or the group is OOM-killed" },
	[MC_KNOB_HIGH] = { "high", NULL, "memory.high", NULL,
			   "throttle limit: usage above it is reclaimed and the group slowed" },
	[MC_KNOB_LOW] = { "low", NULL, "memory.low", NULL,
			  "best-effort protection: reclaimed only when nothing else is left" },
	[MC_KNOB_MIN] = { "min", NULL, "memory.min", NULL,
			  "hard protection: never reclaimed" },
	[MC_KNOB_SOFT] = { "soft_limit", "memory.soft_limit_in_bytes", NULL, "memory.soft_limit",
			   "under pressure, groups above it are reclaimed first" },
	[MC_KNOB_SWAP] = { "swap_max", "memory.memsw.limit_in_bytes", "memory.swap.max", NULL,
			   "swap the group may use (v1: enforced as memory+swap)" },
	[MC_KNOB_PROTECT_ACTIVE] = { "reclaim_protect_active", NULL, NULL,
				     "memory.reclaim_protect_active",
				     "1: reclaim rooted here takes inactive pages first (kernel patch)",
				     true },
};

const struct mc_knob_info *mc_knob_info(enum mc_knob k)
{
	return &knobs[k];
}

const char *mc_knob_unit_property(enum mc_knob k)
{
	static const char *const props[MC_KNOB__COUNT] = {
		[MC_KNOB_MAX] = "MemoryMax",
		[MC_KNOB_HIGH] = "MemoryHigh",
		[MC_KNOB_LOW] = "MemoryLow",
		[MC_KNOB_MIN] = "MemoryMin",
		[MC_KNOB_SWAP] = "MemorySwapMax",
	};
	return k < MC_KNOB__COUNT ? props[k] : NULL;
}

int mc_knob_lookup(const char *name, enum mc_knob *ret)
{
	for (int k = 0; k < MC_KNOB__COUNT; k++) {
		const struct mc_knob_info *i = &knobs[k];

		if (strcmp(name, i->name) == 0 ||
		    (i->v1_file && strcmp(name, i->v1_file) == 0) ||
		    (i->v2_file && strcmp(name, i->v2_file) == 0) ||
		    (i->patched_file && strcmp(name, i->patched_file) == 0)) {
			*ret = (enum mc_knob)k;
			return 0;
		}
	}
	return -ENOENT;
}

/* Levenshtein distance, bounded to short names (knob and key names). */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t row[64];

	if (la >= 63 || lb >= 63)
		return (size_t)-1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);

			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

const char *mc_suggest(const char *name, const char *const *candidates, size_t n)
{
	const char *best = NULL;
	size_t best_d = (size_t)-1;
	size_t limit = strlen(name) / 3 + 1;

	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(name), clen = strlen(candidates[i]), d;

		/*
		 * The distance is at least the difference in length: a name that
		 * much longer than the candidate cannot be within the limit, and
		 * the edit distance would cost its length times the candidate's.
		 */
		if (len > clen && len - clen > limit)
			continue;
		d = edit_distance(name, candidates[i]);

		/* A truncated name ("swap" for "swap_max") is closer than any typo. */
		if (strlen(name) >= 3 && strncmp(candidates[i], name, strlen(name)) == 0)
			d = 1;

		if (d < best_d) {
			best_d = d;
			best = candidates[i];
		}
	}
	return best_d <= limit ? best : NULL;
}

const char *mc_knob_suggest(const char *name)
{
	const char *names[MC_KNOB__COUNT];

	for (int k = 0; k < MC_KNOB__COUNT; k++)
		names[k] = knobs[k].name;
	return mc_suggest(name, names, MC_KNOB__COUNT);
}
