/* libFuzzer target: the cgconfig.conf converter on arbitrary bytes. It must
 * return cleanly and free everything; what it accepts must be a profile the
 * profile parser accepts, and every refusal must name a problem. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgconfig.h"
#include "profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mc_diags skipped = { 0 }, errors = { 0 }, d = { 0 };
	struct mc_cgconfig_result res;
	int r = mc_cgconfig_convert("fuzz.conf", (const char *)data, size, "/", &res, &skipped,
				    &errors);

	if (r == 0) {
		struct mc_profile p;

		if (mc_profile_parse("out.yaml", res.yaml, strlen(res.yaml), &p, &d) != 0)
			__builtin_trap();
		mc_profile_free(&p);
		mc_cgconfig_result_free(&res);
	} else if (r == -EINVAL && errors.n == 0) {
		__builtin_trap();
	}
	mc_diags_free(&d);
	mc_diags_free(&skipped);
	mc_diags_free(&errors);
	return 0;
}
