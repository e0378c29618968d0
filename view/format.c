/* Values as memctl shows them: see format.h. */
#include <inttypes.h>
#include <stdio.h>

#include "format.h"
#include "size.h"

const char *mc_fmt_size(uint64_t v, char buf[static 24])
{
	if (mc_size_format(v, buf, 24) < 0)
		snprintf(buf, 24, "%" PRIu64, v);
	return buf;
}

const char *mc_fmt_size_short(uint64_t v, char *buf, size_t len)
{
	static const char units[] = "KMGTPE";
	double x = (double)v;
	int u = -1;

	if (v == MC_SIZE_MAX) {
		snprintf(buf, len, "max");
		return buf;
	}
	while (x >= 1024 && u < 5) {
		x /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%" PRIu64, v);
	else if (x < 9.95 && x != (double)(uint64_t)x)
		snprintf(buf, len, "%.1f%c", x, units[u]);
	else
		snprintf(buf, len, "%.0f%c", x, units[u]);
	return buf;
}

void mc_fmt_json_size(struct mc_buf *b, uint64_t v)
{
	if (v == MC_SIZE_MAX)
		mc_buf_adds(b, "\"max\"");
	else
		mc_buf_printf(b, "%" PRIu64, v);
}

uint64_t mc_abstract_value(const struct mc_caps *caps, enum mc_knob k,
			   const uint64_t raw[MC_KNOB__COUNT])
{
	if (k != MC_KNOB_SWAP || caps->ver != MC_CGV1)
		return raw[k];
	if (raw[MC_KNOB_SWAP] == MC_SIZE_MAX || raw[MC_KNOB_MAX] == MC_SIZE_MAX)
		return MC_SIZE_MAX;
	return raw[MC_KNOB_SWAP] - raw[MC_KNOB_MAX];
}
