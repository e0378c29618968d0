/*
 * libFuzzer target: the journal reader, which rollback runs as root on what
 * it finds in the state directory. Whatever parses must keep the parser's
 * promises (every group a clean path inside the parent) and survive a
 * format and parse round trip unchanged.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "journal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether path is parent or below it, as the parser promises. */
static int inside(const char *path, const char *parent)
{
	size_t pl = strlen(parent);

	if (strstr(path, "/../") || strstr(path, "/./") || strstr(path, "//") || path[0] != '/')
		return 0;
	if (pl == 1 || strcmp(path, parent) == 0)
		return 1;
	return strncmp(path, parent, pl) == 0 && path[pl] == '/';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mc_journal j, again;
	unsigned line = 0;
	char *text;
	size_t len;

	if (mc_journal_parse((const char *)data, size, &j, &line) < 0)
		return 0;
	for (size_t i = 0; i < j.n; i++)
		if (j.v[i].kind != MC_STEP_SYSCTL && !inside(j.v[i].path, j.parent))
			__builtin_trap();
	/* An incomplete journal is dropped by rollback, never written back. */
	if (j.complete && mc_journal_format(&j, &text, &len) == 0) {
		if (mc_journal_parse(text, len, &again, &line) < 0 || again.n != j.n ||
		    !again.complete || strcmp(again.parent, j.parent) != 0)
			__builtin_trap();
		for (size_t i = 0; i < j.n; i++)
			if (again.v[i].kind != j.v[i].kind || again.v[i].knob != j.v[i].knob ||
			    again.v[i].old_valid != j.v[i].old_valid ||
			    (j.v[i].old_valid && again.v[i].old_raw != j.v[i].old_raw) ||
			    again.v[i].new_raw != j.v[i].new_raw ||
			    strcmp(again.v[i].path, j.v[i].path) != 0)
				__builtin_trap();
		mc_journal_free(&again);
		free(text);
	}
	mc_journal_free(&j);
	return 0;
}
