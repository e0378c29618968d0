#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host-internal.h"

/*
 * memctl run in a small protected group of its own (cgroup v2). The order
 * matters because of v2's rule that a group with controllers enabled for
 * its children holds no processes: create SELF/NAME, move there, and only
 * then enable memory in SELF, which now has no process of ours.
 */

static int write_pid(struct mc_host *h, const char *group)
{
	char pid[24];

	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	return mc_host_write_text(h, group, "cgroup.procs", pid);
}

int mc_host_self_group_enter(struct mc_host *h, const char *name, uint64_t protect,
			     struct mc_self_group *ret, const char **ret_what)
{
	const struct mc_host_status *st = &h->st;
	struct mc_self_group g = { 0 };
	bool created = false, moved = false;
	int r;

	memset(ret, 0, sizeof(*ret));
	*ret_what = "";
	if (h->caps.ver != MC_CGV2 || !h->caps.file[MC_KNOB_MIN])
		return -EOPNOTSUPP;
	if (!st->self_path)
		return -ENOENT;
	protect -= protect % h->caps.page_size;
	g.protect = protect;
	g.self = strdup(st->self_path);
	if (!g.self || mc_path_join(st->self_path, name, &g.group) < 0) {
		r = -ENOMEM;
		goto fail;
	}
	*ret_what = "creating the group";
	r = mc_host_mkdir(h, g.group);
	if (r < 0 && r != -EEXIST)
		goto fail;
	created = r == 0;
	*ret_what = "moving memctl into it (cgroup.procs)";
	if ((r = write_pid(h, g.group)) < 0)
		goto fail;
	moved = true;
	*ret_what = "enabling the memory controller in memctl's cgroup (other processes there?)";
	{
		size_t len;
		int fd;

		r = cgfs_open_group(h, g.self, O_PATH, &fd);
		if (r == 0) {
			r = cgfs_read_at(&h->buf, fd, "cgroup.subtree_control", &len);
			close(fd);
		}
		if (r == 0 && !host_has_word(h->buf.p, "memory"))
			r = mc_host_delegate_memory(h, g.self, true);
		if (r < 0)
			goto fail;
	}
	*ret_what = "writing memory.min";
	if ((r = mc_host_write_knob(h, g.group, MC_KNOB_MIN, protect, NULL)) < 0)
		goto fail;
	*ret_what = "writing memory.low";
	if (h->caps.file[MC_KNOB_LOW] &&
	    (r = mc_host_write_knob(h, g.group, MC_KNOB_LOW, protect, NULL)) < 0)
		goto fail;
	*ret = g;
	return 0;
fail:
	/* Back where it was (allowed: memory was not enabled there, or failing
	 * that, the process simply stays), and the group it made removed. */
	if (moved && write_pid(h, g.self) == 0)
		moved = false;
	if (created && !moved)
		mc_host_rmdir(h, g.group);
	mc_self_group_free(&g);
	return r;
}

void mc_self_group_free(struct mc_self_group *g)
{
	free(g->self);
	free(g->group);
	memset(g, 0, sizeof(*g));
}
