/*
 * The apply transaction: lock, journal, ordered execution, rollback.
 *
 * Journal format (text, one record per line, the path last so that it may
 * contain spaces; group names cannot contain newlines):
 *
 *   memctl-journal 1
 *   pid 1234
 *   mkdir /abs/group
 *   write KNOB OLD NEW /abs/group        (OLD/NEW decimal or "max")
 *   end
 *
 * The journal is written to a temporary file, fsynced, renamed into place
 * and the directory fsynced, all before the first write to the host. A
 * journal without "end" was never complete, so nothing was written after it
 * and it can be dropped. Rollback replays it backwards and skips every file
 * that already holds its old value, so it is correct wherever the apply was
 * interrupted, and can be run again if it is itself interrupted.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "txn.h"

#define JOURNAL "journal"
#define RECLAIM_JOURNAL_PREFIX "reclaim."
#define LOCKFILE "lock"

struct mc_lock {
	int fd;
	int dirfd;
};

static int ensure_dir(const char *dir)
{
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int mc_lock_take(const char *state_dir, bool wait, struct mc_lock **ret, int *ret_holder)
{
	struct mc_lock *l;
	char pidbuf[32];
	int fd, dirfd, r;

	if (ret_holder)
		*ret_holder = 0;
	if ((r = ensure_dir(state_dir)) < 0)
		return r;
	dirfd = open(state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -errno;
	fd = openat(dirfd, LOCKFILE, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		r = -errno;
		close(dirfd);
		return r;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		ssize_t n;

		r = -errno;
		if (r != -EWOULDBLOCK)
			goto fail;
		n = pread(fd, pidbuf, sizeof(pidbuf) - 1, 0);
		if (n > 0 && ret_holder) {
			pidbuf[n] = '\0';
			*ret_holder = atoi(pidbuf);
		}
		if (!wait)
			goto fail;
		/* The kernel releases a dead holder's flock: no stale-lock guessing. */
		while (flock(fd, LOCK_EX) < 0)
			if (errno != EINTR) {
				r = -errno;
				goto fail;
			}
	}
	snprintf(pidbuf, sizeof(pidbuf), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, pidbuf, strlen(pidbuf), 0) < 0) {
		r = -errno;
		goto fail;
	}
	l = malloc(sizeof(*l));
	if (!l) {
		r = -ENOMEM;
		goto fail;
	}
	l->fd = fd;
	l->dirfd = dirfd;
	*ret = l;
	return 0;
fail:
	close(fd);
	close(dirfd);
	return r;
}

void mc_lock_release(struct mc_lock *l)
{
	if (!l)
		return;
	if (ftruncate(l->fd, 0) < 0) {
		/* Only the PID hint is stale then; the flock below is what counts. */
	}
	close(l->fd);
	close(l->dirfd);
	free(l);
}

/* Whether name is a journal: the apply's, or a v1 reclaim slot's. */
static bool is_journal_name(const char *name)
{
	return strcmp(name, JOURNAL) == 0 ||
	       (strncmp(name, RECLAIM_JOURNAL_PREFIX, strlen(RECLAIM_JOURNAL_PREFIX)) == 0 &&
		!strstr(name, ".tmp"));
}

bool mc_journal_exists(const char *state_dir)
{
	struct dirent *de;
	bool found = false;
	DIR *d = opendir(state_dir);

	if (!d)
		return false;
	while (!found && (de = readdir(d)))
		found = is_journal_name(de->d_name);
	closedir(d);
	return found;
}

static void fmt_raw(uint64_t v, char buf[static 24])
{
	if (v == MC_SIZE_MAX)
		strcpy(buf, "max");
	else
		snprintf(buf, 24, "%" PRIu64, v);
}

static int parse_raw(const char *s, uint64_t *ret)
{
	char *end;

	if (strcmp(s, "max") == 0) {
		*ret = MC_SIZE_MAX;
		return 0;
	}
	errno = 0;
	*ret = strtoull(s, &end, 10);
	return errno || end == s || *end ? -EINVAL : 0;
}

static int journal_write(struct mc_lock *l, const char *name, const struct mc_plan *plan)
{
	char old[24], new[24], tmp[64];
	FILE *f;
	int fd, r = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp", name);
	fd = openat(l->dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		r = -errno;
		close(fd);
		return r;
	}
	fprintf(f, "memctl-journal 1\npid %ld\n", (long)getpid());
	for (size_t i = 0; i < plan->n; i++) {
		const struct mc_step *s = &plan->steps[i];
		char *abs;

		if (!mc_step_changes(s))
			continue;
		if ((r = mc_path_join(plan->parent, s->group, &abs)) < 0)
			break;
		if (s->kind == MC_STEP_MKDIR) {
			fprintf(f, "mkdir %s\n", abs);
		} else if (s->kind == MC_STEP_ENABLE) {
			fprintf(f, "enable memory %s\n", abs);
		} else if (s->kind == MC_STEP_SYSCTL) {
			fprintf(f, "sysctl %s %" PRIu64 " %" PRIu64 "\n", s->file, s->old_raw,
				s->new_raw);
		} else {
			fmt_raw(s->old_raw, old);
			fmt_raw(s->new_raw, new);
			fprintf(f, "write %s %s %s %s\n", mc_knob_info(s->knob)->name,
				s->old_valid ? old : "-", new, abs);
		}
		free(abs);
	}
	fprintf(f, "end\n");
	if (fflush(f) != 0 || fsync(fileno(f)) < 0)
		r = r ? r : -errno;
	if (fclose(f) != 0)
		r = r ? r : -errno;
	if (r == 0 && renameat(l->dirfd, tmp, l->dirfd, name) < 0)
		r = -errno;
	if (r == 0 && fsync(l->dirfd) < 0)
		r = -errno;
	if (r < 0)
		unlinkat(l->dirfd, tmp, 0);
	return r;
}

static int journal_remove(struct mc_lock *l, const char *name)
{
	if (unlinkat(l->dirfd, name, 0) < 0 && errno != ENOENT)
		return -errno;
	return fsync(l->dirfd) < 0 ? -errno : 0;
}

static void note_rollback_error(struct mc_txn_result *res, int err, const char *what,
				const char *group)
{
	if (res->rollback_err)
		return;
	res->rollback_err = err;
	if (asprintf(&res->rollback_what, "%s of '%s'", what, group) < 0)
		res->rollback_what = NULL;
}

/* Undoes steps [0, upto) of plan in reverse. */
static void undo(struct mc_host *h, const struct mc_plan *plan, size_t upto,
		 struct mc_txn_result *res)
{
	for (size_t i = upto; i-- > 0;) {
		const struct mc_step *s = &plan->steps[i];
		char *abs;
		int r;

		if (!mc_step_changes(s))
			continue;
		if (mc_path_join(plan->parent, s->group, &abs) < 0) {
			note_rollback_error(res, -ENOMEM, "undo", s->group);
			continue;
		}
		if (s->kind == MC_STEP_MKDIR) {
			r = mc_host_rmdir(h, abs);
			if (r < 0 && r != -ENOENT)
				note_rollback_error(res, r, "removing the new group", abs);
		} else if (s->kind == MC_STEP_ENABLE) {
			r = mc_host_delegate_memory(h, abs, false);
			if (r < 0 && r != -ENOENT)
				note_rollback_error(res, r, "cgroup.subtree_control", abs);
		} else if (s->kind == MC_STEP_SYSCTL) {
			r = mc_host_sysctl_write(h, s->file, (long)s->old_raw);
			if (r < 0)
				note_rollback_error(res, r, "sysctl", s->file);
		} else if (s->old_valid) {
			r = mc_host_write_knob(h, abs, s->knob, s->old_raw, NULL);
			if (r < 0)
				note_rollback_error(res, r, mc_knob_info(s->knob)->name, abs);
		}
		free(abs);
	}
	res->rolled_back = res->rollback_err == 0;
}

int mc_txn_apply(struct mc_host *h, struct mc_lock *l, const char *state_dir,
		 const struct mc_plan *plan, struct mc_txn_result *res)
{
	int r;

	memset(res, 0, sizeof(*res));
	if (mc_plan_n_changes(plan) == 0)
		return 0;
	if (mc_journal_exists(state_dir))
		return -EALREADY;
	if ((r = journal_write(l, JOURNAL, plan)) < 0)
		return r;

	for (size_t i = 0; i < plan->n; i++) {
		const struct mc_step *s = &plan->steps[i];
		char *abs;

		if (!mc_step_changes(s))
			continue;
		if ((r = mc_path_join(plan->parent, s->group, &abs)) < 0)
			goto failed;
		if (s->kind == MC_STEP_MKDIR)
			r = mc_host_mkdir(h, abs);
		else if (s->kind == MC_STEP_ENABLE)
			r = mc_host_delegate_memory(h, abs, true);
		else if (s->kind == MC_STEP_SYSCTL)
			r = mc_host_sysctl_write(h, s->file, (long)s->new_raw);
		else
			r = mc_host_write_knob(h, abs, s->knob, s->new_raw, &res->readback);
		free(abs);
		if (r < 0) {
failed:
			res->failed_step = i;
			res->failed_err = r;
			/* A write that read back differently did change the file: undo it too. */
			undo(h, plan, r == -EIO ? i + 1 : i, res);
			if (res->rolled_back)
				journal_remove(l, JOURNAL);
			return r;
		}
		res->done++;
	}
	return journal_remove(l, JOURNAL);
}

struct jrec {
	bool mkdir;
	bool enable;
	bool sysctl;       /* path is the sysctl's name */
	enum mc_knob knob;
	bool old_valid;
	uint64_t old;
	char *path;
};

static void jrecs_free(struct jrec *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}

static int journal_read(struct mc_lock *l, const char *name, struct jrec **ret, size_t *ret_n,
			bool *ret_complete)
{
	struct jrec *v = NULL;
	size_t n = 0;
	char *line = NULL;
	size_t cap = 0;
	bool complete = false;
	FILE *f;
	int fd, r = 0, lineno = 0;

	fd = openat(l->dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	while (getline(&line, &cap, f) > 0) {
		char kn[32], old[24], new[24];
		struct jrec rec = { 0 };
		int off = 0;

		lineno++;
		line[strcspn(line, "\n")] = '\0';
		if (lineno == 1) {
			if (strcmp(line, "memctl-journal 1") != 0) {
				r = -EBADMSG;
				break;
			}
			continue;
		}
		if (strncmp(line, "pid ", 4) == 0)
			continue;
		if (strcmp(line, "end") == 0) {
			complete = true;
			break;
		}
		if (strncmp(line, "mkdir /", 7) == 0) {
			rec.mkdir = true;
			rec.path = strdup(line + 6);
		} else if (strncmp(line, "enable memory /", 15) == 0) {
			rec.enable = true;
			rec.path = strdup(line + 14);
		} else if (sscanf(line, "sysctl %31s %23s %23s", kn, old, new) == 3) {
			rec.sysctl = true;
			rec.old_valid = true;
			if (parse_raw(old, &rec.old) < 0) {
				r = -EBADMSG;
				break;
			}
			rec.path = strdup(kn);
		} else if (sscanf(line, "write %31s %23s %23s %n", kn, old, new, &off) == 3 && off &&
			   line[off] == '/') {
			if (mc_knob_lookup(kn, &rec.knob) < 0) {
				r = -EBADMSG;
				break;
			}
			rec.old_valid = strcmp(old, "-") != 0;
			if (rec.old_valid && parse_raw(old, &rec.old) < 0) {
				r = -EBADMSG;
				break;
			}
			rec.path = strdup(line + off);
		} else {
			r = -EBADMSG;
			break;
		}
		if (!rec.path) {
			r = -ENOMEM;
			break;
		}
		{
			struct jrec *nv = realloc(v, (n + 1) * sizeof(*nv));

			if (!nv) {
				free(rec.path);
				r = -ENOMEM;
				break;
			}
			v = nv;
			v[n++] = rec;
		}
	}
	free(line);
	fclose(f);
	if (r < 0) {
		jrecs_free(v, n);
		return r;
	}
	*ret = v;
	*ret_n = n;
	*ret_complete = complete;
	return 0;
}

/* Replays one journal backwards. Returns 0 (journal removed) or -errno. */
static int rollback_one(struct mc_host *h, struct mc_lock *l, const char *name,
			size_t *restored, struct mc_txn_result *res)
{
	struct jrec *v = NULL;
	size_t n = 0;
	bool complete = false;
	int r;

	r = journal_read(l, name, &v, &n, &complete);
	if (r < 0)
		return r;
	if (!complete) {
		/* It was being written when memctl died: no host write had started. */
		jrecs_free(v, n);
		return journal_remove(l, name);
	}
	for (size_t i = n; i-- > 0;) {
		struct jrec *j = &v[i];
		uint64_t cur;

		if (j->mkdir) {
			if (!mc_host_group_exists(h, j->path))
				continue;
			r = mc_host_rmdir(h, j->path);
			if (r < 0 && r != -ENOENT)
				note_rollback_error(res, r, "removing the group created", j->path);
			else
				(*restored)++;
			continue;
		}
		if (j->sysctl) {
			long cur_v;

			r = mc_host_sysctl_read(h, j->path, &cur_v);
			if (r == 0 && (uint64_t)cur_v == j->old)
				continue;
			if (r == 0)
				r = mc_host_sysctl_write(h, j->path, (long)j->old);
			if (r < 0)
				note_rollback_error(res, r, "sysctl", j->path);
			else
				(*restored)++;
			continue;
		}
		if (j->enable) {
			/* Only groups memctl created get this; their removal follows. */
			r = mc_host_delegate_memory(h, j->path, false);
			if (r < 0 && r != -ENOENT)
				note_rollback_error(res, r, "cgroup.subtree_control", j->path);
			continue;
		}
		if (!j->old_valid)
			continue;
		r = mc_host_read_knob(h, j->path, j->knob, &cur);
		if (r == 0 && cur == j->old)
			continue;
		if (r == 0)
			r = mc_host_write_knob(h, j->path, j->knob, j->old, NULL);
		if (r < 0)
			note_rollback_error(res, r, mc_knob_info(j->knob)->name, j->path);
		else
			(*restored)++;
	}
	jrecs_free(v, n);
	if (res->rollback_err)
		return res->rollback_err;
	return journal_remove(l, name);
}

int mc_txn_rollback(struct mc_host *h, struct mc_lock *l, const char *state_dir,
		    bool *ret_found, size_t *ret_restored, struct mc_txn_result *res)
{
	size_t restored = 0;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0;
	DIR *d;
	int r = 0;

	memset(res, 0, sizeof(*res));
	*ret_found = false;
	*ret_restored = 0;
	d = opendir(state_dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		char **nv;

		if (!is_journal_name(de->d_name))
			continue;
		nv = realloc(names, (n + 1) * sizeof(*nv));
		if (!nv || !(nv[n] = strdup(de->d_name))) {
			names = nv ? nv : names;
			r = -ENOMEM;
			break;
		}
		names = nv;
		n++;
	}
	closedir(d);
	/* The apply's journal and v1 reclaim slots touch different files: any order. */
	for (size_t i = 0; i < n && r == 0; i++) {
		*ret_found = true;
		r = rollback_one(h, l, names[i], &restored, res);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	*ret_restored = restored;
	res->rolled_back = r == 0;
	return r;
}

int mc_txn_reclaim_v1(struct mc_host *h, struct mc_lock *l, unsigned slot, const char *group,
		      uint64_t bytes, uint64_t *ret_reclaimed)
{
	struct mc_step step = { .kind = MC_STEP_WRITE, .knob = MC_KNOB_MAX, .old_valid = true };
	struct mc_plan plan = { .parent = (char *)"/", .steps = &step, .n = 1 };
	uint64_t usage, after, page = mc_host_caps(h)->page_size;
	char name[32];
	int r, r2;

	*ret_reclaimed = 0;
	r = mc_host_read_usage(h, group, &usage);
	if (r == 0)
		r = mc_host_read_value(h, group, mc_host_caps(h)->file[MC_KNOB_MAX], &step.old_raw);
	if (r < 0)
		return r;
	if (bytes >= usage)
		bytes = usage;
	step.new_raw = usage - bytes;
	step.new_raw -= step.new_raw % (page ? page : 4096);
	if (step.new_raw >= step.old_raw)
		return 0;	/* already below the limit the reclaim would set */
	step.group = (char *)group;
	snprintf(name, sizeof(name), RECLAIM_JOURNAL_PREFIX "%u", slot);
	if ((r = journal_write(l, name, &plan)) < 0)
		return r;
	/*
	 * The kernel reclaims down to the new limit, or gives up with EBUSY
	 * rather than OOM-killing: either way the old limit goes back.
	 */
	r = mc_host_write_knob_ts(h, group, MC_KNOB_MAX, step.new_raw);
	r2 = mc_host_write_knob_ts(h, group, MC_KNOB_MAX, step.old_raw);
	if (r2 < 0)
		return r2;	/* the journal stays: memctl rollback restores it */
	if (mc_host_read_usage(h, group, &after) == 0 && after < usage)
		*ret_reclaimed = usage - after;
	journal_remove(l, name);
	return r;
}

void mc_txn_result_release(struct mc_txn_result *res)
{
	free(res->rollback_what);
	res->rollback_what = NULL;
}
