/*
 * libFuzzer target: the reader of the state memctl run publishes, which top
 * and export run (as root, or as another user) on what they find in the
 * state directory. Whatever parses must keep the parser's promises (a pid,
 * absolute paths, a histogram that sums to its count) and survive a format
 * and parse round trip unchanged.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runstate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct mc_runstate *s)
{
	uint64_t sum = 0;

	if (s->pid < 1 || !s->parent || s->parent[0] != '/')
		__builtin_trap();
	for (size_t i = 0; i < MC_RUN_HIST_N; i++)
		sum += s->hist[i];
	if (sum != s->hist_count)
		__builtin_trap();
	for (size_t i = 0; i < s->n_dec; i++)
		if (s->dec[i].group[0] != '/' || !s->dec[i].policy[0])
			__builtin_trap();
	for (size_t i = 0; i < s->n_groups; i++)
		if (s->groups[i].group[0] != '/')
			__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mc_runstate s, again;
	char *buf = NULL, *buf2 = NULL;
	size_t cap = 0, cap2 = 0, len = 0, len2 = 0, line = 0;

	if (mc_runstate_parse((const char *)data, size, &s, &line) < 0)
		return 0;
	check(&s);
	if (mc_runstate_format(&s, &buf, &cap, &len) < 0)
		__builtin_trap();
	if (mc_runstate_parse(buf, len, &again, &line) < 0)
		__builtin_trap();   /* what the writer writes, the reader reads */
	if (mc_runstate_format(&again, &buf2, &cap2, &len2) < 0 || len != len2 ||
	    memcmp(buf, buf2, len) != 0)
		__builtin_trap();   /* and the second round changes nothing */
	if (again.n_dec != s.n_dec || again.n_groups != s.n_groups || again.pid != s.pid)
		__builtin_trap();
	mc_runstate_release(&again);
	mc_runstate_release(&s);
	free(buf);
	free(buf2);
	return 0;
}
