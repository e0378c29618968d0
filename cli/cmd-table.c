/*
 * The command table (tmux style) and the lookup by name, alias or unique
 * prefix. Kept apart from the dispatcher in memctl.c so that the option
 * parser, which names commands in its errors, and the dispatcher, which
 * calls the option parser, do not call each other.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"

const struct mc_cmd *const mc_cmd_table[] = {
	&cmd_check_entry,
	&cmd_plan_entry,
	&cmd_apply_entry,
	&cmd_get_entry,
	&cmd_set_entry,
	&cmd_status_entry,
	&cmd_rollback_entry,
	&cmd_run_entry,
	&cmd_top_entry,
	&cmd_shell_entry,
	&cmd_import_entry,
	&cmd_completion_entry,
	&cmd_export_entry,
	&cmd_exec_entry,
	&cmd_rm_entry,
	&cmd_record_entry,
	&cmd_dump_entry,
	NULL,
};

const struct mc_cmd *mc_cmd_find(const char *prog, const char *name)
{
	const struct mc_cmd *found = NULL;
	size_t len = strlen(name);
	int matches = 0;

	for (const struct mc_cmd *const *c = mc_cmd_table; *c; c++) {
		if (strcmp((*c)->name, name) == 0 || ((*c)->alias && strcmp((*c)->alias, name) == 0))
			return *c;
		if (strncmp((*c)->name, name, len) == 0) {
			found = *c;
			matches++;
		}
	}
	if (matches == 1)
		return found;
	if (matches == 0) {
		fprintf(stderr, "%s: unknown command '%s' (see '%s --help')\n", prog, name, prog);
		return NULL;
	}
	fprintf(stderr, "%s: ambiguous command: %s, could be:", prog, name);
	for (const struct mc_cmd *const *c = mc_cmd_table; *c; c++)
		if (strncmp((*c)->name, name, len) == 0)
			fprintf(stderr, " %s", (*c)->name);
	fputc('\n', stderr);
	return NULL;
}
