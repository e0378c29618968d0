#ifndef MEMCTL_DUMP_H
#define MEMCTL_DUMP_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "store.h"

/*
 * `memctl dump`: recorded samples (history/store.h) as CSV, JSON or
 * OpenMetrics text with timestamps. It formats into buffers and never
 * prints.
 *
 *   csv          one row per value: time,group,metric,value,text
 *   json         one array of samples, each an object
 *   openmetrics  one family after the other (the format wants each family's
 *                lines together), every sample with its timestamp, "# EOF"
 *                last; `promtool tsdb create-blocks-from openmetrics` loads it
 *
 * OpenMetrics comes in parts, one per family: the caller writes part i of
 * every sample to a place of its own (a temporary file) and puts the parts
 * one after the other at the end. CSV and JSON have one part.
 */

enum mc_dump_format {
	MC_DUMP_CSV,
	MC_DUMP_JSON,
	MC_DUMP_OPENMETRICS,
};

struct mc_dump;

/*
 * A dump in format f of the groups whose path matches glob (fnmatch, '*'
 * matching '/' too): a glob beginning with '/' is matched against the
 * absolute cgroup path, any other against the path below the recorded
 * parent ("." for the parent itself); NULL: every group. The host's values
 * are always dumped. warn gets each warning (a group name that cannot be a
 * label) once. -ENOMEM.
 */
int mc_dump_new(enum mc_dump_format f, const char *glob,
		void (*warn)(void *arg, const char *msg), void *warn_arg, struct mc_dump **ret);
void mc_dump_free(struct mc_dump *d);

/* Parts of the output (1, or one per OpenMetrics family). */
size_t mc_dump_parts(const struct mc_dump *d);

/*
 * The text of part i so far: the caller writes it out and empties it
 * (mc_buf_reset) when it likes; mc_buf_error on it says whether an append
 * was lost.
 */
struct mc_buf *mc_dump_part(struct mc_dump *d, size_t i);

/*
 * Appends sample s. OpenMetrics leaves out a sample no later than the one
 * before (a clock that stepped back): the format wants time to increase.
 */
void mc_dump_sample(struct mc_dump *d, const struct mc_hist_sample *s);

/* Appends what ends the output (the CSV header comes first by itself). */
void mc_dump_end(struct mc_dump *d);

#endif
