#ifndef MEMCTL_TOP_H
#define MEMCTL_TOP_H

#include <stdbool.h>
#include <stddef.h>

#include "columns.h"
#include "format.h"
#include "model.h"

/*
 * The interactive screen of `memctl top` (ncurses). The model, the column
 * table and batch output are the read model's (view/); the screen only
 * draws the model and turns keys into model calls.
 */

/* What the screen needs from the program around it. */
struct top_screen_opts {
	double delay;         /* seconds between refreshes */
	const int *cols;      /* columns shown, in order (the name column first) */
	size_t n_cols;
	bool cols_given;      /* --columns: shown as given; else the saved choice
	                         (top.conf) or the columns this host can fill */
	/*
	 * Runs `set GROUP ASSIGNMENT` through the command table; returns its
	 * exit status and a message for the status line (caller frees).
	 */
	int (*edit)(void *arg, const char *group_abs, const char *assignment, char **ret_msg);
	void *edit_arg;
	long iterations;      /* stop after this many refreshes; 0: until q */
};

/* --- top-cols.c: the screen's choice of columns --- */

/*
 * Why this host cannot fill column c (static text), or NULL when it can:
 * a knob without a file here, per-group pressure on v1, the kernel patch's
 * counters, v2-only events, and the engine's columns when neither a
 * memctl run nor --profile provides them.
 */
const char *top_col_unavailable(const struct top_model *m, int c);

/*
 * The columns a preset shows (1 memory, 2 reclaim, 3 pressure, 4 NUMA,
 * 5 events), those the host cannot fill left out: *ret (allocated, the
 * group column first) and *ret_n. 0, -EINVAL (no such preset), -ENOMEM.
 */
int top_preset(const struct top_model *m, int preset, int **ret, size_t *ret_n);
/* The name of preset n, or NULL. */
const char *top_preset_name(int preset);

/*
 * Where the column choice is kept: $XDG_CONFIG_HOME/memctl/top.conf, else
 * $HOME/.config/memctl/top.conf (allocated), or NULL when neither is set.
 */
char *top_conf_path(void);

/*
 * Loads the saved choice from path: a line "columns=NAME,NAME..." (blank
 * lines and # comments allowed, at most 64 KiB). Unknown names and other
 * problems are refused with *ret_msg (allocated, "top.conf:3: unknown
 * column 'x'"). 0 with *ret / *ret_n, -ENOENT (no file), -EINVAL, -errno.
 */
int top_conf_load(const char *path, int **ret, size_t *ret_n, char **ret_msg);

/* Saves the choice (creating the folder, 0755): replaced atomically. 0 or -errno. */
int top_conf_save(const char *path, const int *cols, size_t n);

/* Runs the interactive screen until q (or a signal). 0, or -errno. */
int top_screen_run(struct top_model *m, const struct top_screen_opts *o);

#endif
