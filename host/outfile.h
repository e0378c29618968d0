#ifndef MEMCTL_OUTFILE_H
#define MEMCTL_OUTFILE_H

#include <stddef.h>

/*
 * Output files memctl replaces as a whole (`export --file`, `run --export`):
 * readers see the old or the new file, never a part. The handle keeps the
 * target's and the temporary file's names, so rewriting the same file every
 * interval allocates nothing after the first time.
 */
struct mc_outfile {
	char *file;           /* the file last written */
	char *tmpl;           /* its temporary name, as a mkostemp template */
	char *tmp;            /* working copy of tmpl */
	char *dir;            /* the directory, fsynced after the rename */
};

/*
 * Replaces the file at path with buf atomically: a temporary file in the
 * same directory (mode 0644), written, fsynced, renamed over path, and the
 * directory fsynced. On failure the temporary file is removed and path is
 * untouched. 0 or -errno (-EISDIR: path names a directory).
 */
int mc_outfile_write(struct mc_outfile *f, const char *path, const char *buf, size_t len);

/* Frees the names; f can be used again. */
void mc_outfile_release(struct mc_outfile *f);

#endif
