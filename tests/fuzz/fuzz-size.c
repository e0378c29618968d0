/* libFuzzer target: size parsing, resolving and formatting round trip. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "size.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	struct mc_size sz, again;
	const char *why;
	char buf[24];
	uint64_t v;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (mc_size_parse(s, &sz, &why) == 0) {
		/* What parses formats, and the formatted text parses to the same size. */
		if (mc_size_format_spec(&sz, buf, sizeof(buf)) < 0)
			__builtin_trap();
		/* the kernel's "no limit" byte counts are "max", never bytes */
		if (sz.kind == MC_SIZE_BYTES && sz.bytes >= MC_SIZE_KERNEL_UNLIMITED)
			__builtin_trap();
		/* (2^64-1 bytes formats as "max": the same limit, another kind) */
		if ((sz.kind == MC_SIZE_BYTES && sz.bytes != MC_SIZE_MAX) ||
		    sz.kind == MC_SIZE_UNLIMITED) {
			if (mc_size_format(sz.kind == MC_SIZE_BYTES ? sz.bytes : MC_SIZE_MAX, buf,
					   sizeof(buf)) < 0 ||
			    mc_size_parse(buf, &again, &why) < 0 || again.kind != sz.kind ||
			    (sz.kind == MC_SIZE_BYTES && again.bytes != sz.bytes))
				__builtin_trap();
		}
		mc_size_resolve(&sz, 8ULL << 30, &v);
	}
	free(s);
	return 0;
}
