#ifndef MEMCTL_EXPORT_H
#define MEMCTL_EXPORT_H

#include <stddef.h>

#include "host.h"
#include "policy.h"

/*
 * Metrics of every group below a parent, for `memctl export` and
 * `memctl run --export`: what top's model reads (the same groups as
 * `memctl top -b`), with the engine's working-set estimates and decisions
 * when a profile runs, rendered as Prometheus text exposition or JSON.
 * Functions return 0 or -errno; problems with one group (a name that
 * cannot be a label) are reported through the warn callback and the group
 * left out.
 */

enum mc_export_format {
	MC_EXPORT_PROM,
	MC_EXPORT_JSON,
};

struct mc_export;

/*
 * An exporter of the groups below parent (absolute cgroup path). warn gets
 * warn_arg and each warning about a group (a name that cannot be a label),
 * every render; its text is escaped for a terminal. -ENOMEM.
 */
int mc_export_new(struct mc_host *h, const char *parent,
		  void (*warn)(void *warn_arg, const char *msg), void *warn_arg,
		  struct mc_export **ret);
void mc_export_free(struct mc_export *e);

/*
 * Moves the exporter to another parent (memctl run after a reload); nothing
 * happens when it is the same. -ENOMEM.
 */
int mc_export_set_parent(struct mc_export *e, const char *parent);

/*
 * Includes the engine's view: working-set estimates from pol (kept by the
 * caller; NULL: none) for the groups of a profile whose parent is
 * profile_parent (absolute). -ENOMEM.
 */
int mc_export_set_engine(struct mc_export *e, const struct mc_policy *pol,
			 const char *profile_parent);

/*
 * Copies the decisions of one interval (settings and reclaims, groups
 * relative to the profile's parent). Replaces earlier ones. -ENOMEM.
 */
int mc_export_take_decisions(struct mc_export *e, const struct mc_decisions *dec);
/* Forgets the decisions (an interval that decided nothing exports none). */
void mc_export_clear_decisions(struct mc_export *e);

/*
 * Includes the figures of the memctl run daemons whose profile's parent is
 * the exporter's parent, above or below it: their published state in
 * state_dir (host/runstate.h), read at every refresh. -ENOMEM.
 */
int mc_export_set_state_dir(struct mc_export *e, const char *state_dir);

/* memctl run: intervals run so far (exported as a counter); 0: not a run. */
void mc_export_set_intervals(struct mc_export *e, unsigned long n);

/* Reads every group now. -ENOENT: the parent is gone; -ENOMEM, -errno. */
int mc_export_refresh(struct mc_export *e);

/*
 * Formats the last refresh. *ret points into a buffer the exporter keeps
 * and reuses (valid until the next render or free). -ENOMEM.
 */
int mc_export_render(struct mc_export *e, enum mc_export_format f, const char **ret,
		     size_t *ret_len);

/*
 * The mode of exported files (mc_file_replace): node_exporter runs as its
 * own user, so others must be able to read them. The temporary name
 * (".NAME.XXXXXX") does not end in .prom, so its textfile collector never
 * reads a file being written.
 */
#define MC_EXPORT_FILE_MODE 0644

#endif
