/* The knob table: every name and file name maps back to its knob, v1 and v2
 * file names are the kernel's, and near-misses get a suggestion. */
#include <string.h>

#include "knob.h"
#include "tap.h"

static const struct {
	const char *name;
	int knob; /* -1: unknown */
} lookups[] = {
	{ "max", MC_KNOB_MAX },
	{ "memory.max", MC_KNOB_MAX },
	{ "memory.limit_in_bytes", MC_KNOB_MAX },
	{ "high", MC_KNOB_HIGH },
	{ "memory.high", MC_KNOB_HIGH },
	{ "low", MC_KNOB_LOW },
	{ "memory.low", MC_KNOB_LOW },
	{ "min", MC_KNOB_MIN },
	{ "memory.min", MC_KNOB_MIN },
	{ "soft_limit", MC_KNOB_SOFT },
	{ "memory.soft_limit_in_bytes", MC_KNOB_SOFT },
	{ "memory.soft_limit", MC_KNOB_SOFT },
	{ "swap_max", MC_KNOB_SWAP },
	{ "memory.swap.max", MC_KNOB_SWAP },
	{ "memory.memsw.limit_in_bytes", MC_KNOB_SWAP },
	{ "Max", -1 },
	{ "memory.current", -1 },
	{ "", -1 },
};

static const struct {
	const char *typo;
	const char *want; /* NULL: nothing close enough */
} suggestions[] = {
	{ "maxx", "max" },
	{ "hgih", "high" },
	{ "softlimit", "soft_limit" },
	{ "swap", "swap_max" },
	{ "mn", "min" },
	{ "frobnicate", NULL },
};

int main(void)
{
	for (size_t i = 0; i < sizeof(lookups) / sizeof(lookups[0]); i++) {
		enum mc_knob k;
		int r = mc_knob_lookup(lookups[i].name, &k);

		if (lookups[i].knob < 0)
			tap_eq_int(r, -2 /* -ENOENT */, "'%s' is not a knob", lookups[i].name);
		else
			tap_check(r == 0 && (int)k == lookups[i].knob, "'%s' is knob %s", lookups[i].name,
				  mc_knob_info(lookups[i].knob)->name);
	}
	for (size_t i = 0; i < sizeof(suggestions) / sizeof(suggestions[0]); i++)
		tap_eq_str(mc_knob_suggest(suggestions[i].typo), suggestions[i].want,
			   "suggestion for '%s'", suggestions[i].typo);

	/* v1 has no high/low/min; every knob has a v2 file except the soft limit,
	 * which only the memctl kernel patch provides. */
	tap_check(!mc_knob_info(MC_KNOB_HIGH)->v1_file && !mc_knob_info(MC_KNOB_LOW)->v1_file &&
		  !mc_knob_info(MC_KNOB_MIN)->v1_file, "v1 has no high, low, min files");
	tap_check(!mc_knob_info(MC_KNOB_SOFT)->v2_file &&
		  strcmp(mc_knob_info(MC_KNOB_SOFT)->patched_file, "memory.soft_limit") == 0,
		  "v2 soft limit only through the kernel patch");
	for (int k = 0; k < MC_KNOB__COUNT; k++)
		tap_check(mc_knob_info(k)->name && mc_knob_info(k)->help && *mc_knob_info(k)->help,
			  "knob %d has a name and help", k);
	return tap_done();
}
