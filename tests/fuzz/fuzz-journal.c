/*
 * libFuzzer target: the journal reader, which rollback runs as root on what
 * it finds in the state directory. Whatever parses must keep the parser's
 * promises and survive a format and parse round trip unchanged. The
 * promises: every group a clean path inside the parent; a unit's knob file
 * (unitfile, in a cgroup systemd made, outside the parent) a clean path
 * and a soft limit or the protect switch; a unit's property a unit's name.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "journal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether path is absolute, without empty, "." or ".." components. */
static int clean(const char *path)
{
	size_t n = strlen(path);

	return path[0] == '/' && !strstr(path, "/../") && !strstr(path, "/./") && !strstr(path, "//") &&
	       !(n >= 3 && strcmp(path + n - 3, "/..") == 0) &&
	       !(n >= 2 && strcmp(path + n - 2, "/.") == 0);
}

/* Whether path is parent or below it, as the parser promises. */
static int inside(const char *path, const char *parent)
{
	size_t pl = strlen(parent);

	if (!clean(path))
		return 0;
	if (pl == 1 || strcmp(path, parent) == 0)
		return 1;
	return strncmp(path, parent, pl) == 0 && path[pl] == '/';
}

/* Whether step s keeps the parser's promise for its kind (see above). */
static int kept(const struct mc_jrec *s, const char *parent)
{
	switch (s->kind) {
	case MC_STEP_SYSCTL:
		return 1;
	case MC_STEP_UNIT:
		return strchr(s->path, '/') == NULL;
	case MC_STEP_UNIT_FILE:
		return clean(s->path) && (s->knob == MC_KNOB_SOFT || s->knob == MC_KNOB_PROTECT_ACTIVE);
	default:
		return inside(s->path, parent);
	}
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
		if (!kept(&j.v[i], j.parent))
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
