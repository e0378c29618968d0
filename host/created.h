#ifndef MEMCTL_CREATED_H
#define MEMCTL_CREATED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The record of the groups memctl created (STATE_DIR/created), which
 * apply --prune removes when the profile no longer names them. Each group
 * is kept with the identity of its directory (mc_host_group_id), so that a
 * group someone else made later under the same name is not taken for
 * memctl's. The text, one group a line, the path last:
 *
 *   memctl-created 1
 *   group ID /abs/path
 *
 * It is read back from the state directory, so the parser trusts nothing:
 * the header, every line's syntax, a clean absolute path below the root,
 * each path once. state.h reads, writes and keeps it in step with the
 * transaction.
 */

struct mc_created_group {
	char *path;       /* absolute cgroup path, not "/" */
	uint64_t id;      /* its directory's identity when memctl made it */
};

struct mc_created {
	struct mc_created_group *v;   /* sorted by path */
	size_t n;
	size_t cap;
};

/*
 * Parses record text (len bytes). Returns 0, or -EBADMSG with the 1-based
 * line in *ret_line and a static reason in *ret_why, or -ENOMEM. *ret is
 * not written on failure.
 */
int mc_created_parse(const char *buf, size_t len, struct mc_created *ret, unsigned *ret_line,
		     const char **ret_why);

/* The record as text, newly allocated. 0 or -ENOMEM. */
int mc_created_format(const struct mc_created *c, char **ret, size_t *ret_len);

/* The entry for path, or NULL. */
struct mc_created_group *mc_created_find(const struct mc_created *c, const char *path);

/* Records path with id, replacing an entry for path. 0 or -ENOMEM. */
int mc_created_set(struct mc_created *c, const char *path, uint64_t id);

/* Drops entry i. */
void mc_created_drop(struct mc_created *c, size_t i);

void mc_created_free(struct mc_created *c);

#endif
