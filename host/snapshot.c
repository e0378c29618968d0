/*
 * Snapshots: mc_host_snapshot (host.h) reads every part of every group
 * below a parent through the subtree reader (subtree.h) into a struct
 * mc_snapshot, the engine's view of the tree, for plan, apply, run, get and
 * export.
 *
 * A snapshot is taken every interval by `memctl run` and every second by
 * top's decision column, so the readers outlive it: the host keeps one per
 * parent (HOST_TREES of them, the least recently used replaced), with its
 * listings, watches and open descriptors, and a warm snapshot is a scan
 * that finds nothing changed plus one pread per file.
 *
 * What the snapshot adds to the reader's rules: a group gone between scan
 * and read is opened once more under its name (removed and made again) and
 * otherwise kept with present=false; a group with files that did not parse
 * gets a note naming them; the parent gone is -ENOENT.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "host-internal.h"
#include "proc-read.h"
#include "subtree.h"

/* The reader of parent the host keeps (its slot), or HOST_TREES. */
static size_t tree_slot(const struct mc_host *h, const char *parent)
{
	size_t i = 0;

	while (i < HOST_TREES && !(h->trees[i] && strcmp(mc_subtree_parent(h->trees[i]), parent) == 0))
		i++;
	return i;
}

/* Readers kept per parent between snapshots; the least recently used goes. */
static int host_tree(struct mc_host *h, const char *parent, struct mc_subtree **ret)
{
	size_t lru = 0, i = tree_slot(h, parent);
	int r;

	h->tree_clock++;
	if (i < HOST_TREES) {
		h->tree_used[i] = h->tree_clock;
		*ret = h->trees[i];
		return 0;
	}
	for (i = 0; i < HOST_TREES; i++)
		if (h->tree_used[i] < h->tree_used[lru])
			lru = i;
	mc_subtree_free(h->trees[lru]);
	h->trees[lru] = NULL;
	r = mc_subtree_new(h, parent, &h->trees[lru]);
	if (r < 0)
		return r;
	h->tree_used[lru] = h->tree_clock;
	*ret = h->trees[lru];
	return 0;
}

void host_trees_free(struct mc_host *h)
{
	for (size_t i = 0; i < HOST_TREES; i++) {
		mc_subtree_free(h->trees[i]);
		h->trees[i] = NULL;
		h->tree_used[i] = 0;
	}
}

/*
 * Reads every part of entry i into gs. A group gone (or replaced) since the
 * scan is opened once more under its name; gone for good, it stays in the
 * snapshot with present=false and nothing else.
 */
static int snap_group(struct mc_subtree *t, size_t i, struct mc_group_snap *gs, bool *kept)
{
	int r = mc_subtree_read(t, i, MC_READ_ALL, gs, kept);
	char *path;

	if (r == -ENODEV) {
		r = mc_subtree_reopen(t, i);
		if (r == 0)
			r = mc_subtree_read(t, i, MC_READ_ALL, gs, kept);
	}
	if (r != -ENODEV)
		return r;
	path = gs->path;
	gs->path = NULL;
	mc_group_snap_free(gs);
	memset(gs, 0, sizeof(*gs));
	gs->path = path;
	return 0;
}

/* A note naming the files of gs that did not parse. */
static int snap_note_bad(struct mc_host *h, struct mc_snapshot *s, const struct mc_group_snap *gs)
{
	char *files = NULL, *note = NULL;
	int r = mc_host_bad_files(h, gs->bad, &files);

	if (r == 0 && asprintf(&note, "'%s%s%s': %s did not parse; taken as unknown", s->parent,
			       *gs->path && strcmp(s->parent, "/") != 0 ? "/" : "", gs->path,
			       files) < 0)
		r = -ENOMEM;
	free(files);
	if (r < 0)
		return r;
	if (mc_array_reserve(&s->notes, &s->cap_notes, s->n_notes + 1, sizeof(*s->notes)) < 0) {
		free(note);
		return -ENOMEM;
	}
	s->notes[s->n_notes++] = note;
	return 0;
}

int mc_host_snapshot(struct mc_host *h, const char *parent, struct mc_snapshot *ret)
{
	struct mc_snapshot s = { 0 };
	struct mc_subtree *t = NULL;
	size_t n;
	int r;

	if (h->slow_snapshot_ms) {	/* test-only (MEMCTL_SLOW_SNAPSHOT) */
		struct timespec d = { h->slow_snapshot_ms / 1000,
				      (h->slow_snapshot_ms % 1000) * 1000000L };

		while (nanosleep(&d, &d) < 0 && errno == EINTR)
			;
	}
	r = mc_path_join(parent, "", &s.parent);
	if (r == 0)
		r = host_tree(h, s.parent, &t);
	if (r == 0)
		r = mc_subtree_scan(t, false);
	if (r < 0)
		goto fail;
	n = mc_subtree_count(t);
	s.groups = calloc(n ? n : 1, sizeof(*s.groups));
	if (!s.groups) {
		r = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < n; i++) {
		struct mc_group_snap *gs = &s.groups[i];
		bool kept = true;

		gs->path = strdup(mc_subtree_entry(t, i)->path);
		if (!gs->path) {
			r = -ENOMEM;
			goto fail;
		}
		s.n++;
		r = snap_group(t, i, gs, &kept);
		if (r == 0 && gs->bad)
			r = snap_note_bad(h, &s, gs);
		if (r < 0)
			goto fail;
		s.uncached += !kept;
	}
	if (s.n == 0 || !s.groups[0].present) {
		r = -ENOENT;
		goto fail;
	}
	s.parent_limit = mc_subtree_limit(t);
	s.fd_budget = mc_host_fd_budget(h);
	if (mc_host_sysctl_read(h, "vm.max_reclaimers_per_node", &s.kernel_per_node) < 0)
		s.kernel_per_node = -1;
	s.cpus_per_node = h->st.cpus_per_node;
	*ret = s;
	return 0;
fail:
	mc_snapshot_free(&s);
	return r;
}

int mc_host_snapshot_tasks(struct mc_host *h, const struct mc_snapshot *snap, size_t i,
			   uint64_t *ret)
{
	size_t k = tree_slot(h, snap->parent), n;
	struct mc_subtree *t = k < HOST_TREES ? h->trees[k] : NULL;
	char *abs;
	int r;

	if (t && i < mc_subtree_count(t) && strcmp(mc_subtree_entry(t, i)->path,
						   snap->groups[i].path) == 0)
		return mc_subtree_tasks(t, i, ret);
	/* the reader was scanned again or let go since the snapshot: by path */
	if ((r = mc_path_join(snap->parent, snap->groups[i].path, &abs)) < 0)
		return r;
	r = mc_host_group_nprocs(h, abs, &n);
	free(abs);
	if (r == 0)
		*ret = n;
	return r;
}
