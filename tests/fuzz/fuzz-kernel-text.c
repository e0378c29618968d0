/* libFuzzer target: the parsers of the kernel's text files (memory.stat,
 * memory.events, numa_stat v1 and v2, pressure, single knob values). The
 * first byte picks the parser; a hostile or corrupted cgroupfs must not
 * crash memctl. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data + 1;
	struct mc_kvs kv = { 0 }, *nodes = NULL;
	struct mc_psi psi;
	size_t n = 0;
	uint64_t v;

	if (size < 1)
		return 0;
	size--;
	switch (data[0] % 5) {
	case 0:
		mc_parse_flat_keyed(buf, size, &kv);
		mc_kvs_free(&kv);
		break;
	case 1:
		mc_parse_psi(buf, size, &psi);
		break;
	case 2:
	case 3:
		if (mc_parse_numa_stat(buf, size, 4096, data[0] % 5 == 2, &nodes, &n) == 0) {
			for (size_t i = 0; i < n; i++)
				mc_kvs_free(&nodes[i]);
			free(nodes);
		}
		break;
	default:
		mc_parse_knob_value(buf, size, &v);
		break;
	}
	return 0;
}
