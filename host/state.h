#ifndef MEMCTL_STATE_H
#define MEMCTL_STATE_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>

#include "created.h"
#include "host.h"
#include "journal.h"

/*
 * The state directory (default /run/memctl): its lock and its journals.
 *
 * memctl runs as root and acts on what it reads back from here, so nothing
 * in it is trusted on sight. The directory must be a real directory (not a
 * symlink), and it and every entry in it owned by root or the invoking user
 * and writable by nobody else; every file must be a regular file with one
 * link. Files are opened with O_NOFOLLOW|O_NONBLOCK and checked with fstat
 * before use, so a symlink, a hard link to another file, or a FIFO (which
 * would block a reader forever) is refused instead of followed. A refusal
 * is -EPERM with the reason in text.
 *
 * The lock is a flock on STATE_DIR/lock: the kernel drops it when its holder
 * dies, so a killed memctl's lock is taken over without guessing. Nothing is
 * written into the lock file (the holder's PID comes from /proc/locks), so
 * taking it needs no space: rollback works on a full file system.
 */

struct mc_lock;

struct mc_lock_info {
	long holder;      /* PID holding a busy lock, 0 when not known */
	char *why;        /* allocated: why the state directory was refused, or NULL */
};

/*
 * Takes the lock in state_dir (created 0700 if missing). wait: block until
 * it is free; otherwise -EWOULDBLOCK. Returns 0, -EWOULDBLOCK, -EPERM when
 * the directory is refused (info->why says why), or the -errno of creating
 * or opening it. info is filled in every case; free it with
 * mc_lock_info_free.
 */
int mc_lock_take(const char *state_dir, bool wait, struct mc_lock **ret, struct mc_lock_info *info);
void mc_lock_release(struct mc_lock *l);
void mc_lock_info_free(struct mc_lock_info *info);

/*
 * Takes, in addition, the host-wide lock on the subtree at parent (an
 * absolute cgroup path): flock LOCK_EX on the parent's own directory in
 * cgroupfs and LOCK_SH on each of its ancestors. Two memctl processes whose
 * subtrees overlap (one parent at or below the other) therefore exclude each
 * other whatever state directories they use, and disjoint subtrees do not
 * wait for each other. timeout_ms bounds the wait (0: do not wait,
 * -EWOULDBLOCK); *ret_holder gets the PID of a holder that made us wait or
 * fail (0 if unknown). Released with the lock. A parent that does not exist
 * is locked at its nearest existing ancestor.
 */
int mc_lock_subtree(struct mc_lock *l, struct mc_host *h, const char *parent, long timeout_ms,
		    long *ret_holder);

/*
 * The unit locks' directory. Fixed, whatever the state directory: two
 * memctl processes with different state directories (memctl@A and
 * memctl@B, or -s) that name the same unit must meet on the same file.
 * It lies below /run/memctl (the RuntimeDirectory of memctl.service, also
 * writable in its sandbox) because /run is root's alone: a user cannot
 * plant a file or a link there ahead of memctl, as one could in /run/lock.
 */
#define MC_UNIT_LOCK_DIR "/run/memctl/units"

/*
 * Takes, in addition, the host-wide lock of each systemd unit in units (n
 * unit names, the units' own names, not aliases; repeats allowed):
 * flock LOCK_EX on MC_UNIT_LOCK_DIR/NAME, which is made when missing and
 * checked by the trust rule below (as are the directory and /run/memctl),
 * taken in sorted order. Two memctl processes that set properties of one
 * unit therefore exclude each other whatever their state directories.
 * timeout_ms bounds the wait on each (0: do not wait, -EWOULDBLOCK);
 * *ret_busy (one of units, or NULL) and *ret_holder (its PID, 0 if
 * unknown) say which one made us wait or fail. Released with the lock, or
 * by the next call. Returns 0, -EWOULDBLOCK, -EINVAL for a name that is
 * not a unit name, -EPERM for a refused file (mc_lock_why says why), or
 * another -errno.
 */
int mc_lock_units(struct mc_lock *l, const char *const *units, size_t n, long timeout_ms,
		  const char **ret_busy, long *ret_holder);

/*
 * The journal files of the locked state dir ("journal", "reclaim.N"), each
 * checked as above. write: to NAME.tmp (created anew, O_EXCL), fsynced,
 * renamed over NAME, the directory fsynced. read: parses it (see
 * mc_journal_parse; -EBADMSG with the line). list: the names present, sorted.
 * All return 0 or -errno; -EPERM for a refused file, with the reason in
 * mc_lock_why().
 */
int mc_state_journal_write(struct mc_lock *l, const char *name, const struct mc_journal *j);
int mc_state_journal_read(struct mc_lock *l, const char *name, struct mc_journal *ret,
			  unsigned *ret_line);
int mc_state_journal_remove(struct mc_lock *l, const char *name);
int mc_state_journals(struct mc_lock *l, char ***ret, size_t *ret_n);
void mc_state_names_free(char **names, size_t n);

/*
 * The record of the groups memctl created (created.h), STATE_DIR/created,
 * checked like every file there and then parsed.
 *   read: the record, empty when there is none. -EBADMSG for a damaged one
 *     and -EPERM for a refused file, the reason in mc_lock_why().
 *   write: replaces it (as the journal), or removes it when c is empty.
 *   check: reads it when journal j creates or removes groups (0 otherwise),
 *     so that a transaction refuses a damaged record before its first write.
 *   sync: brings it in step with j once j's steps are done (done) or undone:
 *     groups j made, or made again on undoing their removal when memctl had
 *     created them, are recorded with their identity; entries whose group is
 *     gone or is another group now are dropped. Written only when it changed.
 * All return 0 or -errno.
 */
int mc_state_created_read(struct mc_lock *l, struct mc_created *ret);
int mc_state_created_write(struct mc_lock *l, const struct mc_created *c);
int mc_state_created_check(struct mc_lock *l, const struct mc_journal *j);
int mc_state_created_sync(struct mc_lock *l, struct mc_host *h, const struct mc_journal *j,
			  bool done);

/* Why the last operation on l refused a file, or NULL. */
const char *mc_lock_why(const struct mc_lock *l);

/* What a pending journal says, for memctl status. */
enum mc_pending_kind {
	MC_PENDING_NONE = 0,
	MC_PENDING_RUNNING,      /* its memctl still holds the lock */
	MC_PENDING_INTERRUPTED,  /* killed or crashed while applying */
	MC_PENDING_FAILED,       /* the apply failed and could not undo it all */
	MC_PENDING_UNREADABLE,   /* refused or damaged: text says why */
};

struct mc_pending {
	enum mc_pending_kind kind;
	bool reclaim;            /* a v1 reclaim's journal, not an apply's */
	long pid;
	char *text;              /* FAILED: what could not be undone; UNREADABLE: why */
};

/*
 * Looks at state_dir without taking its lock or writing anything: the most
 * pressing journal there (failed over interrupted over running). Returns 0
 * (kind NONE when there is none, or no state dir at all) or -ENOMEM.
 */
int mc_journal_pending(const char *state_dir, struct mc_pending *ret);
void mc_pending_free(struct mc_pending *p);

/* True when state_dir holds a journal (of any kind, also one that is refused). */
bool mc_journal_exists(const char *state_dir);

/*
 * The trust rule of the state directory, for other directories memctl
 * keeps (the history store): st, of what is at dir/name (name NULL: dir
 * itself), must be a directory (name NULL) or a regular file with one
 * link, owned by root or the caller, writable by no one else. 0, or
 * -EPERM with the reason in *why when why is not NULL (allocated; an
 * earlier one is freed).
 */
struct stat;
int mc_state_trust_stat(const struct stat *st, const char *dir, const char *name, char **why);

/*
 * Opens the directory dir without following a symbolic link, making it
 * (mode 0700) when create and it is not there, and checks it by that rule.
 * The descriptor, or -errno; -EPERM when it is not to be trusted (a
 * symbolic link, not a directory, the owner, the mode), with the reason in
 * *why when why is not NULL (allocated; an earlier one is freed).
 */
int mc_state_open_dir(const char *dir, bool create, char **why);

/*
 * A directory stream over a duplicate of dirfd (a directory of the state or
 * of a store), read from its start, into *ret for closedir(); dirfd stays
 * open and the caller's. 0 or -errno.
 */
int mc_state_dir_stream(int dirfd, DIR **ret);

/*
 * Opens dirfd's entry name (dir: its directory's name, for messages) with
 * flags plus O_NOFOLLOW, O_NONBLOCK and O_CLOEXEC (mode 0600 when it makes
 * the file), then checks what it opened (fstat) by that rule; its stat
 * into *ret_st when not NULL. The descriptor, or -errno; -EPERM, with *why
 * as above, for a file not to be trusted (a symbolic link included).
 */
int mc_state_open_file(int dirfd, const char *dir, const char *name, int flags,
		       struct stat *ret_st, char **why);

#endif
