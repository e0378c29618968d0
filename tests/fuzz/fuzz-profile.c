/* libFuzzer target: the profile parser on arbitrary bytes. Valid or not,
 * it must return cleanly, bound its time and memory, and free everything. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mc_diags d = { 0 };
	struct mc_profile p;

	if (mc_profile_parse("fuzz.yaml", (const char *)data, size, &p, &d) == 0) {
		/* A profile the parser accepts must be internally consistent. */
		if (p.version != 1 || !p.parent)
			__builtin_trap();
		mc_profile_free(&p);
	} else if (d.n == 0) {
		/* Every refusal names at least one problem (or ran out of memory). */
		__builtin_trap();
	}
	for (size_t i = 0; i < d.n; i++) {
		char *s;

		if (mc_diag_format(&d.v[i], &s) == 0)
			free(s);
	}
	mc_diags_free(&d);
	return 0;
}
