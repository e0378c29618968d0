#ifndef MEMCTL_FILE_H
#define MEMCTL_FILE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Files whose names come from the operator but whose folders may belong to
 * others: profiles, scripts, cgconfig.conf files to import, and the output
 * files memctl replaces (import PROFILE, export --file, run --export).
 * Nothing here prints; reasons for a refusal come back as text.
 */

/* (negated) what these functions return for a path that is not a regular file */
#define MC_ENOTREG EMEDIUMTYPE

struct mc_read_opts {
	size_t max;       /* bytes; a larger file is -EFBIG */
	bool nofollow;    /* a symbolic link as the last component is -ELOOP */
	bool trust;       /* run mc_file_trust on what was opened */
	uid_t uid;        /* with trust: the invoking user, trusted besides root */
};

/*
 * Reads the regular file at path whole into *ret_buf (NUL-terminated, the
 * caller frees it) and its length into *ret_len. The file is opened with
 * O_NONBLOCK, so a FIFO or a device never blocks, and checked with fstat
 * before anything is read: anything but a regular file is -MC_ENOTREG, and
 * so is a file of /proc, /sys or cgroupfs (made up when read).
 *
 * The read is consistent: when the file's size, mtime or ctime change while
 * it is read, or path names another file afterwards (rewritten in place or
 * replaced), it is read again, a few times with a short pause; a file that
 * keeps changing is -EAGAIN. Every successful result is a state the file
 * really had.
 *
 * With o->trust, a file someone other than root or o->uid could have changed
 * is -EKEYREJECTED and *ret_why (allocated, the caller frees it) says why
 * (mc_file_trust). *ret_why is written only for -EKEYREJECTED. Other errors
 * are -errno; nothing is written on failure.
 */
int mc_file_read(const char *path, const struct mc_read_opts *o, char **ret_buf, size_t *ret_len,
		 char **ret_why);

/*
 * Reads fd to its end (a pipe or terminal is fine: this is for "-", stdin)
 * into *ret_buf (NUL-terminated, allocated) and *ret_len. More than max bytes
 * is -EFBIG. -errno; nothing is written on failure.
 */
int mc_file_read_fd(int fd, size_t max, char **ret_buf, size_t *ret_len);

/*
 * The trust check for a file that decides what root does (a profile, a
 * script), as sshd does for authorized_keys and sudo for sudoers: fd is the
 * file opened from path. path is resolved component by component from / (a
 * relative path from the working directory), following symbolic links
 * (at most 40), and trusted when
 *   - every folder on the way, and the folders the links lead through, is
 *     owned by root or uid and not writable by group or others, except a
 *     sticky folder (like /tmp): there only the entry's owner can replace
 *     an entry, so the entry taken from it must be owned by root or uid;
 *   - the file is owned by root or uid and not writable by group or others;
 *   - what the path leads to now is the file fd has open.
 * Returns 0, -EKEYREJECTED with *ret_why (allocated, e.g. "folder '/srv'
 * is writable by others (mode 0777)"), or -errno (then *ret_why is not
 * written).
 */
int mc_file_trust(const char *path, int fd, uid_t uid, char **ret_why);

/* Writes all of buf to fd (retrying short writes and EINTR). 0 or -errno. */
int mc_file_write_all(int fd, const char *buf, size_t len);

/*
 * Replaces the file at path with len bytes of buf, created with mode:
 * written to a temporary file ".NAME.XXXXXX" made with O_EXCL in the same
 * folder, fsynced, renamed over path, and the folder fsynced, so readers see
 * the old or the new file, never a part. Only a regular file is replaced, or
 * a new one created: a symbolic link, FIFO, device, socket or folder at path
 * is -MC_ENOTREG and is left alone. On failure path is untouched and the
 * temporary file removed. -errno.
 */
int mc_file_replace(const char *path, const char *buf, size_t len, mode_t mode);

#endif
