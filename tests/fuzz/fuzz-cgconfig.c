/* libFuzzer target: the cgconfig.conf converter on arbitrary bytes. It must
 * return cleanly and free everything; what it accepts must be a profile the
 * profile parser accepts, holding exactly the groups and settings the
 * converter reported (the round trip, counted here on its own), and every
 * refusal must name a problem. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgconfig.h"
#include "profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Groups (all levels) and knob values of a parsed profile. */
static void count(const struct mc_group_spec *g, size_t n, size_t *groups, size_t *settings)
{
	for (size_t i = 0; i < n; i++) {
		(*groups)++;
		for (int k = 0; k < MC_KNOB__COUNT; k++)
			*settings += g[i].knob[k].kind != MC_SIZE_UNSET;
		count(g[i].children, g[i].n_children, groups, settings);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mc_diags skipped = { 0 }, errors = { 0 }, d = { 0 };
	struct mc_cgconfig_result res;
	int r = mc_cgconfig_convert("fuzz.conf", (const char *)data, size, "/", &res, &skipped,
				    &errors);

	if (r == 0) {
		struct mc_profile p;

		size_t groups = 0, settings = 0;

		if (strlen(res.yaml) > MC_PROFILE_MAX_BYTES ||
		    mc_profile_parse("out.yaml", res.yaml, strlen(res.yaml), &p, &d) != 0)
			__builtin_trap();
		count(p.groups, p.n_groups, &groups, &settings);
		if (groups != res.groups || settings != res.settings)
			__builtin_trap();
		mc_profile_free(&p);
		mc_cgconfig_result_free(&res);
	} else if (r == -EINVAL && errors.n == 0) {
		__builtin_trap();
	} else if (r == -EINVAL) {
		/* the converter's own read-back check must never be what refuses */
		for (size_t i = 0; i < errors.n; i++)
			if (strncmp(errors.v[i].msg, "the converted profile does not ", 31) == 0)
				__builtin_trap();
	}
	mc_diags_free(&d);
	mc_diags_free(&skipped);
	mc_diags_free(&errors);
	return 0;
}
