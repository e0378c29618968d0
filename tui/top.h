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
	/*
	 * Runs `set GROUP ASSIGNMENT` through the command table; returns its
	 * exit status and a message for the status line (caller frees).
	 */
	int (*edit)(void *arg, const char *group_abs, const char *assignment, char **ret_msg);
	void *edit_arg;
	long iterations;      /* stop after this many refreshes; 0: until q */
};

/* Runs the interactive screen until q (or a signal). 0, or -errno. */
int top_screen_run(struct top_model *m, const struct top_screen_opts *o);

#endif
