/*
 * The interactive screen of `memctl top` (ncurses).
 *
 * Each frame is drawn into stdscr and shown with one refresh(): ncurses
 * sends only what changed, once. Before drawing, the screen asks the model
 * for the columns of the rows it is about to show (top_model_fill), so a
 * refresh reads the sort key of every group and the rest only for what is
 * on screen.
 *
 * Most rows look the same from one second to the next, and ncurses finds
 * that out at a cost: erase() blanks every cell of stdscr, each row drawn
 * again marks its line changed, and refresh() compares all of them with
 * the terminal's, cell by cell (about a sixth of a refresh at 1000 groups,
 * with the memory out of the caches after a second of sleep). So the
 * table's rows, its header, the title, the host's line and the status line
 * are composed as cells of their own and compared with what the line got
 * last frame, and ncurses is handed only the lines that differ (its text
 * path, waddnstr, costs more a character than composing a cell: the title
 * and host lines drawn through it were two fifths of a frame's drawing). A
 * frame draws over the last one without erase() only when both show the
 * table at the same size (the other lines, panes and prompts, are drawn
 * whole every frame); any other frame starts from erase() and forgets what
 * the lines held. A line that is not plain ASCII is drawn through ncurses
 * and forgotten too.
 *
 * The terminal is never left broken: endwin() runs on every way out
 * (return, exit through atexit, SIGINT/SIGTERM/SIGHUP which end the loop,
 * and the crash signals, which restore the terminal before dying).
 */
#include <ctype.h>
#include <curses.h>
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "escape.h"
#include "top.h"
#include "when.h"

enum prompt {
	PROMPT_NONE,
	PROMPT_SEARCH,
	PROMPT_FILTER,
	PROMPT_EDIT,
	PROMPT_DELAY,
	PROMPT_JUMP,          /* replay: a time to go to */
};

enum {
	PAIR_TITLE = 1,
	PAIR_HEADER,
	PAIR_HOT,        /* usage near the effective limit */
	PAIR_DECISION,
	PAIR_ERROR,
};

struct screen {
	struct top_model *m;
	const struct top_screen_opts *o;
	double delay;
	double next;          /* time of the next refresh */
	bool paused;
	bool help;
	size_t help_off;      /* first wrapped line of the help shown */
	bool detail;
	size_t detail_off;    /* first wrapped line of the detail pane shown */
	char *detail_path;    /* its group: another group starts at the top */
	bool color;
	size_t sel;           /* index in m->order */
	size_t top;           /* first index of m->order on screen */
	size_t hcol;          /* first column (after the tree) on screen */
	char *sel_path;       /* the selection follows its group across refreshes */
	char *status;
	bool status_err;
	enum prompt prompt;
	char input[256];
	size_t input_len;
	char *search;
	long refreshes;
	int *cols;            /* columns shown, in order (the group column first) */
	size_t n_cols;
	char *conf;           /* top.conf's path, or NULL */
	bool chooser;         /* the column chooser is open */
	int *ch_cols;         /* its list: every column, the shown ones first */
	bool *ch_on;
	size_t ch_sel;
	const char **hidden_why;  /* per column: why it is not shown by default, or NULL */
	bool replay_bad;      /* the last replay step met a record that could not be read */
	char *reason;         /* the selected group's decisions in full, this frame */
	int reason_h;         /* lines the reason pane takes */
	/* the rows' cells as drawn (see the top of the file); NULL: none kept */
	chtype *lines;        /* lines_n lines of lines_cols cells */
	chtype *row_cells;    /* a row being composed */
	bool *line_kept;      /* line y of stdscr holds lines[y] */
	bool *line_now;       /* line y was composed in this frame */
	int lines_n, lines_cols;
	bool table_shown;     /* the last frame showed the table (no pane, help or chooser) */
	double psi_avg[6];    /* the host's pressure averages psi_text shows */
	char psi_text[512];   /* "PSI some ... full ...", "": not made yet (as long as the line) */
};

/* The status message wraps over at most this many lines (an error's hint included). */
#define STATUS_MAX_LINES 3
/* The reason pane shows at most this many lines; the detail pane (i) shows all. */
#define REASON_MAX_LINES 5

static volatile sig_atomic_t stop_signal;
static bool curses_on;
static bool atexit_done;

static void on_stop(int sig)
{
	stop_signal = sig;
}

static void restore_terminal(void)
{
	if (curses_on && !isendwin())
		endwin();
	curses_on = false;
}

static void on_crash(int sig)
{
	restore_terminal();
	signal(sig, SIG_DFL);
	raise(sig);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void set_status(struct screen *s, bool err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void set_status(struct screen *s, bool err, const char *fmt, ...)
{
	va_list ap;

	free(s->status);
	va_start(ap, fmt);
	if (vasprintf(&s->status, fmt, ap) < 0)
		s->status = NULL;
	va_end(ap);
	s->status_err = err;
}

static struct top_row *sel_row(struct screen *s)
{
	struct top_model *m = s->m;

	return s->sel < m->n_order ? &m->rows[m->order[s->sel]] : NULL;
}

static void remember_sel(struct screen *s)
{
	struct top_row *r = sel_row(s);

	if (!r || (s->sel_path && strcmp(s->sel_path, r->path) == 0))
		return;
	free(s->sel_path);
	s->sel_path = strdup(r->path);
}

/* Finds the remembered group in the new order (or keeps the position). */
static void restore_sel(struct screen *s)
{
	struct top_model *m = s->m;

	/* a path names one row: the group still where it was (most refreshes) is found there */
	if (s->sel_path && s->sel < m->n_order &&
	    strcmp(m->rows[m->order[s->sel]].path, s->sel_path) == 0)
		return;
	if (s->sel_path)
		for (size_t k = 0; k < m->n_order; k++)
			if (strcmp(m->rows[m->order[k]].path, s->sel_path) == 0) {
				s->sel = k;
				return;
			}
	if (s->sel >= m->n_order)
		s->sel = m->n_order ? m->n_order - 1 : 0;
}

static int do_refresh(struct screen *s)
{
	int r;

	remember_sel(s);
	r = top_model_refresh(s->m, now_s());
	restore_sel(s);
	s->refreshes++;
	return r;
}

static void reorder(struct screen *s)
{
	remember_sel(s);
	top_model_order(s->m);
	restore_sel(s);
}

/* --- drawing --- */

static int status_height(const struct screen *s);

/*
 * Splits text into lines of at most width columns, at blanks where it can
 * (a word longer than a line is cut into pieces, never dropped), and at
 * newlines. Fills starts/lens up to max lines; returns how many lines the
 * whole text needs (which may be more than max).
 */
static size_t wrap_text(const char *text, int width, const char **starts, int *lens, size_t max)
{
	size_t n = 0;
	const char *p = text;

	if (width < 1)
		width = 1;
	while (*p) {
		const char *end = p, *brk = NULL;

		while (*end && *end != '\n' && end - p < width) {
			if (*end == ' ')
				brk = end;
			end++;
		}
		if (*end && *end != '\n' && *end != ' ' && brk && brk > p)
			end = brk;   /* break at the last blank instead of inside a word */
		if (n < max) {
			starts[n] = p;
			lens[n] = (int)(end - p);
		}
		n++;
		p = end;
		if (*p == '\n' || *p == ' ')
			p++;
	}
	return n;
}

/*
 * The selected group's decisions in full, one per line: every decision of
 * the daemon managing it (what it did this interval, then what it holds),
 * else top's simulated one. NULL when there is none.
 */
static char *reason_text(const struct screen *s)
{
	const struct top_row *r = sel_row((struct screen *)s);
	const struct mc_runstate *d = r ? top_row_daemon(s->m, r) : NULL;
	const struct mc_run_decision *dec;
	char *text = NULL;
	size_t len = 0, pos = 0;
	bool first = true;
	FILE *f;

	if (!r || (!d && !r->decision_label))
		return NULL;
	if (!d)
		return strdup(r->decision_label);
	f = open_memstream(&text, &len);
	if (!f)
		return NULL;
	while ((dec = mc_runstate_next(d, r->abs, &pos))) {
		/* the state file is another process's: its text is escaped for the screen */
		char *t = top_decision_text(dec), *e = t ? mc_esc_text_dup(t) : NULL;

		if (e)
			fprintf(f, "%s%s", first ? "" : "\n", e);
		first = first && !e;
		free(e);
		free(t);
	}
	fclose(f);
	if (text && !*text) {
		free(text);
		text = NULL;
	}
	return text;
}

/* Lines the reason pane needs for s->reason at this width (at most REASON_MAX_LINES). */
static int reason_height(const struct screen *s)
{
	const char *st[1];
	int ln[1];
	size_t n;

	if (!s->reason || s->help || s->detail || LINES < 12)
		return 0;
	n = wrap_text(s->reason, COLS - 1, st, ln, 0);
	return n > REASON_MAX_LINES ? REASON_MAX_LINES : (int)n;
}

/* The reason pane above the status line: the selected group's decisions, wrapped. */
static void draw_reason(struct screen *s)
{
	const char *starts[REASON_MAX_LINES];
	int lens[REASON_MAX_LINES], y0 = LINES - status_height(s) - s->reason_h;
	size_t n;

	if (s->reason_h <= 0)
		return;
	n = wrap_text(s->reason, COLS - 1, starts, lens, REASON_MAX_LINES);
	if (s->color)
		attron(COLOR_PAIR(PAIR_DECISION));
	for (int i = 0; i < s->reason_h; i++) {
		mvhline(y0 + i, 0, ' ', COLS);
		if (i == s->reason_h - 1 && n > (size_t)s->reason_h)
			mvprintw(y0 + i, 0, "%.*s", COLS - 1, "... more in the detail pane (i)");
		else
			mvaddnstr(y0 + i, 0, starts[i], lens[i]);
	}
	if (s->color)
		attroff(COLOR_PAIR(PAIR_DECISION));
}

static int rows_height(const struct screen *s)
{
	/* title, host line, header, reasons, status */
	int h = LINES - 3 - s->reason_h - status_height(s);

	if (s->detail)
		h = LINES >= 20 ? (LINES - 4) / 2 : 0;
	return h > 0 ? h : 0;
}

/*
 * The GROUP column's width: the widest of every row in the display order,
 * not only those on screen, so it does not jump as the rows scroll.
 */
static int name_width(const struct screen *s, size_t first, int h)
{
	/* the tree's mark ("- ", "+ ") after the indentation; the model keeps the widest */
	size_t need = s->m->label_max + 2;
	int w = need > (size_t)COLS ? COLS : (int)need;

	(void)first;
	(void)h;
	if (w < 12)
		w = 12;
	return w > COLS / 3 ? COLS / 3 : w;
}

/*
 * A number too wide for its cell, in units (k M G T P E, of 1000 for counts
 * and rates, of 1024 for sizes) with as many decimals as the width allows,
 * so a cell never shows a number with digits cut off. "#" fills a cell too
 * narrow for even that.
 */
static const char *fit_number(const struct top_model *m, const struct top_row *r,
			      const struct top_col *c, int w, char *buf, size_t len)
{
	static const char units[] = "kMGTPE";
	struct top_val v = { 0 };
	double x, base = c->kind == TOP_SIZE ? 1024 : 1000;
	int u = -1;

	c->get(m, r, &v);
	x = c->kind == TOP_SIZE || c->kind == TOP_COUNT ? (double)v.u : v.d;
	while (u < 5) {
		x /= base;
		u++;
		for (int d = w - 3; d >= 0; d--) {   /* "1.23k": digits, point, unit */
			int n = snprintf(buf, len, "%.*f%c", d, x,
					 c->kind == TOP_SIZE ? "KMGTPE"[u] : units[u]);

			if (n <= w)
				return buf;
		}
	}
	snprintf(buf, len, "%.*s", w, "##########");
	return buf;
}

/* Widest cell put_clipped composes itself; wider ones go through ncurses' text path. */
#define CELL_MAX 256

/*
 * Cell t of n bytes, printable ASCII, padded to w (right: aligned right) or
 * cut at w, as cells of the current attributes: what waddnstr makes of
 * those bytes, without its per-byte multibyte and control-character work
 * (most of the cost of drawing a frame). false when t is not that simple.
 */
static chtype cell_attrs(void)
{
	attr_t a;
	short pair;

	attr_get(&a, &pair, NULL);
	return (a & ~A_COLOR) | COLOR_PAIR(pair);
}

/* Composes t (n bytes) into the w cells at cells; false when t is not printable ASCII. */
static bool ascii_cells(chtype *cells, const char *t, int n, int w, bool right)
{
	chtype base;
	int pad = n < w ? w - n : 0;

	for (int i = 0; i < n && i < w; i++)
		if (t[i] < 0x20 || t[i] > 0x7e)
			return false;
	base = cell_attrs();
	for (int i = 0; i < w; i++) {
		int c = right ? i - pad : i;

		cells[i] = base | (chtype)(c >= 0 && c < n ? (unsigned char)t[c] : ' ');
	}
	return true;
}

static bool put_ascii(int y, int x, const char *t, int n, int w, bool right)
{
	chtype cells[CELL_MAX];

	if (w > CELL_MAX || !ascii_cells(cells, t, n, w, right))
		return false;
	mvaddchnstr(y, x, cells, w);
	return true;
}

static void put_clipped(int y, int x, const char *t, int w, bool right)
{
	int len = (int)strlen(t);

	if (w <= 0)
		return;
	if (put_ascii(y, x, t, len, w, right))
		return;
	if (len > w) {
		mvaddnstr(y, x, t, w);
		return;
	}
	mvprintw(y, x, right ? "%*s" : "%-*s", w, t);
}

/* Line y gets the composed cells s->row_cells, through ncurses only when it held others. */
static void show_cells(struct screen *s, int y)
{
	chtype *kept = s->lines + (size_t)y * (size_t)s->lines_cols;

	s->line_now[y] = true;
	if (s->line_kept[y] && memcmp(kept, s->row_cells, (size_t)COLS * sizeof(*kept)) == 0)
		return;
	mvaddchnstr(y, 0, s->row_cells, COLS);
	memcpy(kept, s->row_cells, (size_t)COLS * sizeof(*kept));
}

/* Every cell of line a blank of the current attributes. */
static void blank_cells(chtype *line)
{
	chtype blank = cell_attrs() | ' ';

	for (int i = 0; i < COLS; i++)
		line[i] = blank;
}

/*
 * Line y: text t (its first n bytes, cut at the screen's width) in the
 * current attributes and extra, then blanks in the current attributes to
 * the end of the line; what mvhline and mvaddnstr draw. Composed and
 * handed to ncurses only when the line held something else (show_cells),
 * unless t is not plain ASCII or no lines are kept: drawn then.
 */
static void put_line(struct screen *s, int y, const char *t, int n, attr_t extra)
{
	bool ok;

	n = n < COLS ? n : COLS;
	if (s->lines) {
		blank_cells(s->row_cells);
		attron(extra);
		ok = ascii_cells(s->row_cells, t, n, n, false);
		attroff(extra);
		if (ok) {
			show_cells(s, y);
			return;
		}
	}
	mvhline(y, 0, ' ', COLS);
	attron(extra);
	mvaddnstr(y, 0, t, n);
	attroff(extra);
}

/* Where the decisions come from: "run 1234: #42 0.4s ago, 1.2ms" (pid, interval, age, duration). */
static void daemon_text(const struct screen *s, char *buf, size_t len)
{
	const struct top_daemons *d = &s->m->daemons;
	bool replay = s->m->src->replay;
	double age;

	if (d->n == 0) {
		snprintf(buf, len, "%s%s%s", replay ? "no memctl run recorded then"
					     : s->m->policy.pol ? "no memctl run: simulated"
								: "no memctl run",
			 d->refused ? "; " : "", d->refused ? d->problem : "");
		return;
	}
	/*
	 * live: the interval ended that long before the refresh; replay: the
	 * interval that recorded the sample ended after it (run records the
	 * tree it read at the interval's start)
	 */
	age = s->m->wall - d->v[0].time;
	snprintf(buf, len, "run %ld%s: #%lu %.1fs %s, %.1fms%s%s", d->v[0].pid,
		 d->v[0].dry_run ? " (dry run)" : "", d->v[0].interval, age < 0 ? -age : age,
		 !replay ? "ago" : age < 0 ? "after" : "before", d->v[0].duration * 1000,
		 d->n > 1 ? " (+ others)" : "", d->v[0].n_errors ? ", errors" : "");
}

/*
 * The host's pressure averages as the second line shows them, formatted
 * again only when one changed (the kernel moves them every 2 s; six
 * floating-point conversions are most of that line's cost).
 */
static const char *psi_text(struct screen *s)
{
	const struct mc_psi *p = &s->m->host_psi;
	const double v[6] = { p->some_avg10, p->some_avg60, p->some_avg300,
			      p->full_avg10, p->full_avg60, p->full_avg300 };

	/* the same bits print the same text */
	if (!s->psi_text[0] || memcmp(v, s->psi_avg, sizeof(v)) != 0) {
		memcpy(s->psi_avg, v, sizeof(v));
		snprintf(s->psi_text, sizeof(s->psi_text), "PSI some %.2f %.2f %.2f full %.2f %.2f %.2f",
			 v[0], v[1], v[2], v[3], v[4], v[5]);
	}
	return s->psi_text;
}

/* The second line: host memory pressure (every host with PSI, v1 too), then the daemon. */
static void draw_host_line(struct screen *s, int y)
{
	const struct top_model *m = s->m;
	char line[512], dt[256];

	daemon_text(s, dt, sizeof(dt));
	if (!m->host_psi_valid)
		snprintf(line, sizeof(line), "PSI: none (no /proc/pressure/memory) | %s", dt);
	else if (snprintf(line, sizeof(line), "%s | %s", psi_text(s), dt) < 0)
		line[0] = '\0';   /* an output error (none with these formats) */
	put_line(s, y, line, (int)strlen(line), A_NORMAL);
}

static void draw_title(struct screen *s)
{
	struct top_model *m = s->m;
	char line[512], when[64] = "", t[32];

	if (m->src->replay)
		snprintf(when, sizeof(when), "  REPLAY %s%s",
			 mc_when_format((int64_t)(m->wall * 1e9), t, sizeof(t)),
			 s->paused ? "" : " [playing]");
	snprintf(line, sizeof(line), "memctl top%s  %zu groups  sort %s%s  every %.2gs%s%s%s  %s",
		 when, m->n, top_cols[m->sort_col].name, m->reverse ? " (rev)" : "", s->delay,
		 s->paused && !m->src->replay ? "  [paused]" : "", m->filter ? "  filter: " : "",
		 m->filter ? m->filter : "", m->parent);
	if (s->color)
		attron(COLOR_PAIR(PAIR_TITLE));
	attron(A_BOLD);
	put_line(s, 0, line, (int)strlen(line), A_NORMAL);
	attroff(A_BOLD);
	if (s->color)
		attroff(COLOR_PAIR(PAIR_TITLE));
	draw_host_line(s, 1);
}

/* Width of shown column k (the last text column takes the rest of the line). */
static int col_width(const struct screen *s, size_t k, size_t x)
{
	const struct top_col *c = &top_cols[s->cols[k]];

	return c->kind == TOP_TEXT && k + 1 == s->n_cols ? COLS - (int)x - 1 : c->width;
}

/*
 * Whether shown column k fits whole at x: a column cut at the right edge
 * is not drawn (and so not read: memory.stat costs more than the rest of
 * a row together).
 */
static bool col_fits(const struct screen *s, size_t k, size_t x)
{
	int w;

	if (k >= s->n_cols)
		return false;
	w = col_width(s, k, x);
	return w >= 4 && (int)x + 1 + w <= COLS;
}

/* Parts the columns that fit on screen need: only those are read. */
static unsigned visible_parts(const struct screen *s, int nw)
{
	unsigned parts = 0;

	for (size_t k = 1 + s->hcol, x = (size_t)nw; col_fits(s, k, x); k++) {
		parts |= top_cols[s->cols[k]].parts;
		x += (size_t)col_width(s, k, x) + 1;
	}
	return parts;
}

/*
 * A cell of a row: composed into the row's cells (line, COLS of them), or
 * drawn on line y when line is NULL. false when it cannot be composed.
 */
static bool put_cell(chtype *line, int y, int x, const char *t, int w, bool right)
{
	if (!line) {
		put_clipped(y, x, t, w, right);
		return true;
	}
	return w <= 0 || ascii_cells(line + x, t, (int)strlen(t), w, right);
}

/*
 * The column titles for line y0 (the name column nw wide), the sort
 * column's in bold and underlined: composed into line, or drawn when line
 * is NULL. false when they cannot be composed (not plain ASCII).
 */
static bool header_cells(struct screen *s, chtype *line, int y0, int nw)
{
	const struct top_model *m = s->m;
	bool ok;

	if (s->color)
		attron(COLOR_PAIR(PAIR_HEADER));
	else
		attron(A_REVERSE);
	if (line)
		blank_cells(line);
	else
		mvhline(y0, 0, ' ', COLS);
	ok = put_cell(line, y0, 0, top_cols[s->cols[0]].title, nw, false);
	for (size_t k = 1 + s->hcol, x = (size_t)nw; col_fits(s, k, x); k++) {
		const struct top_col *c = &top_cols[s->cols[k]];
		int w = col_width(s, k, x);

		if (s->cols[k] == m->sort_col)
			attron(A_BOLD | A_UNDERLINE);
		ok &= put_cell(line, y0, (int)x + 1, c->title,
			       w > COLS - (int)x - 1 ? COLS - (int)x - 1 : w, c->kind != TOP_TEXT);
		if (s->cols[k] == m->sort_col)
			attroff(A_BOLD | A_UNDERLINE);
		x += (size_t)w + 1;
	}
	if (s->color)
		attroff(COLOR_PAIR(PAIR_HEADER));
	else
		attroff(A_REVERSE);
	return ok;
}

/* The column titles on line y0: composed and compared like a row (show_cells), else drawn. */
static void draw_header(struct screen *s, int y0, int nw)
{
	if (s->lines && header_cells(s, s->row_cells, y0, nw))
		show_cells(s, y0);
	else
		header_cells(s, NULL, y0, nw);
}

/*
 * The GROUP cell of r: its indentation, the tree's mark and its label, cut
 * at len - 1 bytes (as snprintf would cut them; without its format work,
 * once per row and frame).
 */
static void name_cell(const struct top_row *r, char *buf, size_t len)
{
	const char *mark = !r->has_children ? "  " : r->collapsed ? "+ " : "- ";
	size_t n = (size_t)r->depth * 2 < len - 1 ? (size_t)r->depth * 2 : len - 1;
	size_t k;

	memset(buf, ' ', n);
	k = len - 1 - n < 2 ? len - 1 - n : 2;
	memcpy(buf + n, mark, k);
	n += k;
	k = len - 1 - n < r->label_len ? len - 1 - n : r->label_len;
	memcpy(buf + n, r->label, k);
	buf[n + k] = '\0';
}

/*
 * Row k of the display order on line y (the name column nw wide): composed
 * into line, or drawn when line is NULL. false when it cannot be composed
 * (a cell not plain ASCII): the caller draws it then.
 */
static bool draw_row(struct screen *s, chtype *line, int y, size_t k, int nw)
{
	struct top_model *m = s->m;
	const struct top_row *r = &m->rows[m->order[k]];
	int dec_col = top_col_lookup("decision");
	struct top_val pct = { 0 };
	char buf[256], name[300];
	bool ok = true;
	size_t x;

	top_cols[top_col_lookup("pct")].get(m, r, &pct);
	if (k == s->sel)
		attron(A_REVERSE);
	else if (r->gone)
		attron(A_DIM);
	else if (s->color && pct.valid && pct.d >= 90)
		attron(COLOR_PAIR(PAIR_HOT));
	if (line)
		blank_cells(line);
	else
		mvhline(y, 0, ' ', COLS);
	name_cell(r, name, sizeof(name));
	ok &= put_cell(line, y, 0, name, nw, false);
	x = (size_t)nw;
	for (size_t c = 1 + s->hcol; col_fits(s, c, x); c++) {
		const struct top_col *col = &top_cols[s->cols[c]];
		int w = col_width(s, c, x);
		const char *t = top_cell(m, r, col, buf, sizeof(buf));

		if (w > COLS - (int)x - 1)
			w = COLS - (int)x - 1;
		if (col->kind != TOP_TEXT && (int)strlen(t) > w)
			t = fit_number(m, r, col, w, buf, sizeof(buf));
		if (s->color && k != s->sel && s->cols[c] == dec_col && r->decision)
			attron(COLOR_PAIR(PAIR_DECISION));
		ok &= put_cell(line, y, (int)x + 1, t, w, col->kind != TOP_TEXT);
		if (s->color && k != s->sel && s->cols[c] == dec_col)
			attroff(COLOR_PAIR(PAIR_DECISION));
		x += (size_t)w + 1;
	}
	attrset(A_NORMAL);
	return ok;
}

/* Draws the header and the rows (h lines below it, blank past the last row). */
static void draw_table(struct screen *s, int y0, int h)
{
	struct top_model *m = s->m;
	int nw = name_width(s, s->top, h);

	draw_header(s, y0, nw);
	for (int i = 0; i < h; i++) {
		size_t k = s->top + (size_t)i;
		int y = y0 + 1 + i;

		if (!s->lines) {
			if (k < m->n_order)
				draw_row(s, NULL, y, k, nw);
			continue;
		}
		if (k >= m->n_order) {
			for (int c = 0; c < COLS; c++)
				s->row_cells[c] = ' ';
			show_cells(s, y);
		} else if (draw_row(s, s->row_cells, y, k, nw)) {
			show_cells(s, y);
		} else {
			draw_row(s, NULL, y, k, nw);
		}
	}
}

/* The detail pane's decisions: the daemon's, in full, with where they come from. */
static void detail_decisions(struct screen *s, const struct top_row *r, FILE *f)
{
	const struct mc_runstate *d = top_row_daemon(s->m, r);
	const struct mc_run_decision *dec;
	size_t pos = 0;
	char *prof;

	if (!d) {
		if (r->decision_label)
			fprintf(f, "-- decision (no memctl run manages it)\n%s\n", r->decision_label);
		return;
	}
	prof = mc_esc_text_dup(d->profile ? d->profile : "?");
	fprintf(f, "-- decisions of memctl run %ld%s (%s), interval %lu\n", d->pid,
		d->dry_run ? ", dry run" : "", prof ? prof : "?", d->interval);
	free(prof);
	while ((dec = mc_runstate_next(d, r->abs, &pos))) {
		char *t = top_decision_text(dec), *e = t ? mc_esc_text_dup(t) : NULL;

		fprintf(f, "%s\n", e ? e : "(out of memory)");
		free(e);
		free(t);
	}
	for (size_t i = 0; i < d->n_errors; i++) {
		char *e = mc_esc_text_dup(d->errors[i]);

		fprintf(f, "error: %s\n", e ? e : "(out of memory)");
		free(e);
	}
}

/* The processes in the group itself: PID, command, RSS and swap (like below's cgroup view). */
static void detail_procs(struct screen *s, const struct top_row *r, FILE *f)
{
	struct mc_proc *v = NULL;
	size_t n = 0;
	int e = mc_host_group_procs(s->m->h, r->abs, &v, &n);
	char a[24], b[24];

	if (e < 0) {
		fprintf(f, "-- processes: cannot read cgroup.procs: %s\n", strerror(-e));
		return;
	}
	fprintf(f, "-- processes (%zu in the group itself)\n", n);
	if (n)
		fprintf(f, "%8s %-16s %10s %10s\n", "PID", "COMMAND", "RSS", "SWAP");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%8ld %-16s %10s %10s\n", v[i].pid, v[i].comm,
			v[i].mem_valid ? mc_fmt_size(v[i].rss, a) : "-",
			v[i].mem_valid ? mc_fmt_size(v[i].swap, b) : "-");
	free(v);
}

/*
 * The group's statistics files as the kernel wrote them, every line:
 * nothing is renamed, rounded or left out (v1 keys stay v1's).
 */
static void detail_files(struct screen *s, const struct top_row *r, FILE *f)
{
	static const char *const v2[] = { "memory.stat", "memory.numa_stat", "memory.events",
					  "memory.pressure", NULL };
	static const char *const v1[] = { "memory.stat", "memory.numa_stat", "memory.failcnt",
					  "memory.oom_control", NULL };
	bool is_v1 = s->m->caps->ver == MC_CGV1;

	for (const char *const *fn = is_v1 ? v1 : v2; *fn; fn++) {
		char *text = NULL, *e;
		size_t len = 0;
		int rc = mc_host_group_file(s->m->h, r->abs, *fn, &text, &len);

		fprintf(f, "-- %s\n", *fn);
		if (rc < 0) {
			fprintf(f, "(%s)\n", rc == -ENOENT ? "no such file here" : strerror(-rc));
			continue;
		}
		/* line by line, each escaped (a kernel file has no control byte, but a screen is no place to trust one) */
		for (char *l = text, *nl; l && *l; l = nl ? nl + 1 : NULL) {
			nl = strchr(l, '\n');
			if (nl)
				*nl = '\0';
			e = mc_esc_text_dup(l);
			fprintf(f, "%s\n", e ? e : "(out of memory)");
			free(e);
		}
		free(text);
	}
	if (is_v1)
		fputs("-- pressure\ncgroup v1 has no per-group pressure (the host's is on the second "
		      "line)\n", f);
}

/* One recorded key=value list of the detail pane ("-- memory.stat (recorded)"). */
static void detail_kvs(FILE *f, const char *title, const struct mc_kvs *kv)
{
	fprintf(f, "-- %s (recorded)\n", title);
	if (!kv->n)
		fputs("(not recorded)\n", f);
	for (size_t i = 0; i < kv->n; i++) {
		/* the store is input: its key names are escaped for the screen */
		char *k = mc_esc_text_dup(kv->v[i].key);

		fprintf(f, "%s %llu\n", k ? k : "?", (unsigned long long)kv->v[i].val);
		free(k);
	}
}

/*
 * What a replay has of a group instead of the kernel's files and the
 * processes: the values recorded, under the names the reader gives them
 * (v2's on every host), and the task count.
 */
static void detail_recorded(struct screen *s, const struct top_row *r, FILE *f)
{
	const struct mc_group_snap *g = &r->g;
	const struct mc_psi *p = &g->psi;

	if (r->tasks_valid)
		fprintf(f, "-- processes: %zu in the group itself then (their names are not recorded)\n",
			r->tasks);
	else
		fputs("-- processes: not recorded\n", f);
	detail_kvs(f, "memory.stat", &g->stat);
	detail_kvs(f, "events", &g->events);
	for (size_t n = 0; n < g->n_numa; n++) {
		char title[32];

		snprintf(title, sizeof(title), "numa_stat N%zu", n);
		detail_kvs(f, title, &g->numa[n]);
	}
	fputs("-- pressure (recorded)\n", f);
	if (p->valid)
		fprintf(f, "some avg10=%.2f avg60=%.2f avg300=%.2f total=%llu\n"
			   "full avg10=%.2f avg60=%.2f avg300=%.2f total=%llu\n",
			p->some_avg10, p->some_avg60, p->some_avg300, (unsigned long long)p->some_total,
			p->full_avg10, p->full_avg60, p->full_avg300, (unsigned long long)p->full_total);
	else
		fputs(s->m->caps->ver == MC_CGV1 ? "cgroup v1 has no per-group pressure\n"
						 : "(not recorded)\n", f);
}

/* Lines of the detail pane for row r, appended to a memstream. */
static void detail_text(struct screen *s, const struct top_row *r, FILE *f)
{
	const struct mc_group_snap *g = &r->g;
	char a[24];
	char *abs = mc_esc_text_dup(r->abs);

	fprintf(f, "%s%s\n", abs ? abs : "(out of memory)", r->gone ? " (gone)" : "");
	free(abs);
	for (int k = 0; k < MC_KNOB__COUNT; k++)
		if (g->raw_valid[k])
			fprintf(f, "%s=%s  ", mc_knob_info(k)->name,
				mc_fmt_size(mc_abstract_value(s->m->caps, k, g->raw), a));
	fprintf(f, "usage=%s", g->usage_valid ? mc_fmt_size(g->usage, a) : "-");
	fprintf(f, "  effective limit=%s\n", mc_fmt_size(r->eff_limit, a));
	detail_decisions(s, r, f);
	if (s->m->src->replay) {
		detail_recorded(s, r, f);
		return;
	}
	detail_procs(s, r, f);
	detail_files(s, r, f);
}

/*
 * A scrollable view of text: every line in full, wrapped at the width
 * (never cut), from wrapped line *off on, h lines from y0. *off is clamped
 * to the text. The last line of the view says where it is when the text
 * does not fit. Lines starting with "--" are headings (bold).
 */
static void draw_text_view(const char *text, int y0, int h, int width, size_t *off)
{
	size_t total = wrap_text(text, width, NULL, NULL, 0), n;
	const char **starts;
	int *lens, body = h;

	if (h <= 0)
		return;
	if (total > (size_t)h)
		body = h - 1;   /* room for the position line */
	if (body <= 0)
		return;
	if (*off + (size_t)body > total)
		*off = total > (size_t)body ? total - (size_t)body : 0;
	starts = calloc(total ? total : 1, sizeof(*starts));
	lens = calloc(total ? total : 1, sizeof(*lens));
	if (!starts || !lens) {
		free(starts);
		free(lens);
		return;
	}
	n = wrap_text(text, width, starts, lens, total);
	for (int i = 0; i < body && *off + (size_t)i < n; i++) {
		const char *l = starts[*off + (size_t)i];
		bool head = lens[*off + (size_t)i] >= 2 && l[0] == '-' && l[1] == '-';

		if (head)
			attron(A_BOLD);
		mvaddnstr(y0 + i, 0, l, lens[*off + (size_t)i]);
		if (head)
			attroff(A_BOLD);
	}
	if (body < h) {
		attron(A_DIM);
		mvprintw(y0 + body, 0, "-- lines %zu-%zu of %zu (PgUp/PgDn scroll)", *off + 1,
			 *off + (size_t)body, total);
		attroff(A_DIM);
	}
	free(starts);
	free(lens);
}

/* The detail pane: every line of the selected group's files, scrollable. */
static void draw_detail(struct screen *s, int y0, int h)
{
	const struct top_row *r = sel_row(s);
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (!r || h <= 1)
		return;
	if (!s->detail_path || strcmp(s->detail_path, r->path) != 0) {
		free(s->detail_path);
		s->detail_path = strdup(r->path);
		s->detail_off = 0;
	}
	f = open_memstream(&text, &len);
	if (!f)
		return;
	detail_text(s, r, f);
	fclose(f);
	attron(A_BOLD);
	mvhline(y0, 0, ACS_HLINE, COLS);
	attroff(A_BOLD);
	draw_text_view(text ? text : "", y0 + 1, h - 1, COLS - 1, &s->detail_off);
	free(text);
}

static const char *const help_keys[] = {
	"Up/Down j/k PgUp/PgDn Home/End   move the selection (PgUp/PgDn: scroll the detail pane)",
	"Left/Right                       scroll the columns",
	"Enter, space                     collapse / expand the selected group",
	"+ / -   * / _                    expand / collapse; all groups",
	"< / >                            sort by the previous / next column",
	"r                                reverse the sort order",
	"/  n                             search a group by name; next match",
	"f                                filter groups by name (empty: all)",
	"i                                detail pane: decisions, processes, memory.stat, numa_stat, events, pressure",
	"e                                edit: knob=value for the selected group (as memctl set)",
	"d                                refresh interval in seconds",
	"p  space(paused)                 pause / resume;  R  refresh now",
	"[ / ]                            replay: the previous / next sample",
	"t                                replay: go to a time: -10m, +1h, 2026-12-01 03:00, @SECONDS",
	"p                                replay: play (the next sample every interval) / stop",
	"c  F2                            column chooser: show, hide, reorder (saved in top.conf)",
	"1 2 3 4 5                        presets: memory, reclaim, pressure, NUMA, events",
	"?                                this help;  q  quit",
	NULL,
};

/* Why the columns left out of the default are left out (none when --columns chose them). */
static void help_hidden(const struct screen *s, FILE *f)
{
	bool any = false;

	for (size_t c = 1; c < top_n_cols; c++) {
		const char *why = s->hidden_why ? s->hidden_why[c] : NULL;

		if (!why)
			continue;
		if (!any)
			fputs("-- hidden by default: this host cannot fill them (c adds them back)\n", f);
		any = true;
		fprintf(f, "%-14s %s\n", top_cols[c].name, why);
	}
}

/* The help: keys, then the columns (and why a hidden one is hidden), scrollable. */
static void draw_help(struct screen *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return;
	fputs("-- memctl top: keys (Up/Down/PgUp/PgDn scroll this help, any other key closes it)\n",
	      f);
	for (int i = 0; help_keys[i]; i++)
		fprintf(f, "%s\n", help_keys[i]);
	fputs("-- columns (--columns, --sort; c: choose)\n", f);
	for (size_t c = 0; c < top_n_cols; c++)
		fprintf(f, "%-14s %-8s %s\n", top_cols[c].name, top_cols[c].title, top_cols[c].help);
	help_hidden(s, f);
	fclose(f);
	draw_text_view(text ? text : "", 0, LINES - 1, COLS - 1, &s->help_off);
	free(text);
}

/* --- the column chooser (c) and presets (1-5) --- */

static void set_cols(struct screen *s, int *cols, size_t n)
{
	free(s->cols);
	s->cols = cols;
	s->n_cols = n;
	s->hcol = 0;
}

static void chooser_open(struct screen *s)
{
	size_t k = 0;

	free(s->ch_cols);
	free(s->ch_on);
	s->ch_cols = calloc(top_n_cols, sizeof(*s->ch_cols));
	s->ch_on = calloc(top_n_cols, sizeof(*s->ch_on));
	if (!s->ch_cols || !s->ch_on) {
		set_status(s, true, "out of memory");
		return;
	}
	for (size_t i = 0; i < s->n_cols; i++) {
		s->ch_cols[k] = s->cols[i];
		s->ch_on[k++] = true;
	}
	for (size_t c = 0; c < top_n_cols; c++) {
		bool shown = false;

		for (size_t i = 0; i < s->n_cols; i++)
			shown |= s->cols[i] == (int)c;
		if (!shown)
			s->ch_cols[k++] = (int)c;
	}
	s->ch_sel = 1;
	s->chooser = true;
}

/* Applies the chooser's list and saves it in top.conf. */
static void chooser_apply(struct screen *s)
{
	int *v = calloc(top_n_cols, sizeof(*v));
	size_t n = 0;
	int r;

	s->chooser = false;
	if (!v) {
		set_status(s, true, "out of memory");
		return;
	}
	for (size_t i = 0; i < top_n_cols; i++)
		if (s->ch_on[i])
			v[n++] = s->ch_cols[i];
	set_cols(s, v, n);
	if (!s->conf) {
		set_status(s, true, "columns not saved: neither XDG_CONFIG_HOME nor HOME is set");
		return;
	}
	r = top_conf_save(s->conf, s->cols, s->n_cols);
	if (r < 0)
		set_status(s, true, "cannot save the columns in '%s': %s", s->conf, strerror(-r));
	else
		set_status(s, false, "columns saved in %s", s->conf);
}

static void chooser_key(struct screen *s, int ch)
{
	size_t i = s->ch_sel;

	if (ch == KEY_UP || ch == 'k') {
		s->ch_sel -= s->ch_sel > 1;
	} else if (ch == KEY_DOWN || ch == 'j') {
		s->ch_sel += s->ch_sel + 1 < top_n_cols;
	} else if (ch == ' ') {
		s->ch_on[i] = !s->ch_on[i];
	} else if ((ch == '[' && i > 1) || (ch == ']' && i + 1 < top_n_cols)) {
		size_t j = ch == '[' ? i - 1 : i + 1;
		int c = s->ch_cols[i];
		bool on = s->ch_on[i];

		s->ch_cols[i] = s->ch_cols[j];
		s->ch_on[i] = s->ch_on[j];
		s->ch_cols[j] = c;
		s->ch_on[j] = on;
		s->ch_sel = j;
	} else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
		chooser_apply(s);
	} else if (ch == 27 || ch == 'q') {
		s->chooser = false;
	}
}

static void draw_chooser(struct screen *s)
{
	int h = LINES - 2, first;

	attron(A_BOLD);
	mvaddnstr(0, 0, "columns: Up/Down select, space show/hide, [ ] move, Enter save, Esc cancel",
		  COLS - 1);
	attroff(A_BOLD);
	first = (int)s->ch_sel >= h ? (int)s->ch_sel - h + 1 : 0;
	for (int y = 0; y < h && (size_t)(first + y) < top_n_cols; y++) {
		size_t i = (size_t)(first + y);
		const struct top_col *c = &top_cols[s->ch_cols[i]];
		const char *why = top_col_unavailable(s->m, s->ch_cols[i]);
		char line[512];

		snprintf(line, sizeof(line), "[%c] %-14s %-8s %s%s%s", i == 0 ? '=' : s->ch_on[i] ? 'x' : ' ',
			 c->name, c->title, why ? "(not on this host: " : c->help, why ? why : "",
			 why ? ")" : "");
		if (i == s->ch_sel)
			attron(A_REVERSE);
		mvhline(1 + y, 0, ' ', COLS);
		mvaddnstr(1 + y, 0, line, COLS - 1);
		if (i == s->ch_sel)
			attroff(A_REVERSE);
	}
}

static void apply_preset(struct screen *s, int preset)
{
	int *v = NULL;
	size_t n = 0;

	if (top_preset(s->m, preset, &v, &n) < 0) {
		set_status(s, true, "out of memory");
		return;
	}
	set_cols(s, v, n);
	set_status(s, false, "preset %d: %s columns (c to choose, saved only from there)", preset,
		   top_preset_name(preset));
}

/*
 * The columns at start: --columns as given; else top.conf's; else every
 * column this host can fill. hidden_why says why the others are left out.
 */
static int init_cols(struct screen *s)
{
	const struct top_screen_opts *o = s->o;
	char *msg = NULL;
	int *v;
	size_t n = 0;
	int r;

	s->hidden_why = calloc(top_n_cols, sizeof(*s->hidden_why));
	if (!s->hidden_why)
		return -ENOMEM;
	for (size_t c = 1; c < top_n_cols; c++)
		s->hidden_why[c] = top_col_unavailable(s->m, (int)c);
	s->conf = top_conf_path();
	if (!o->cols_given && s->conf) {
		r = top_conf_load(s->conf, &v, &n, &msg);
		if (r == 0) {
			set_cols(s, v, n);
			return 0;
		}
		if (r != -ENOENT)
			set_status(s, true, "%s: ignored (%s)", s->conf,
				   msg ? msg : strerror(-r));
		free(msg);
	}
	v = calloc(o->n_cols ? o->n_cols : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < o->n_cols; i++)
		if (i == 0 || o->cols_given || !s->hidden_why[o->cols[i]])
			v[n++] = o->cols[i];
	set_cols(s, v, n);
	return 0;
}

/* Lines the status message needs (wrapped, at most STATUS_MAX_LINES). */
static int status_height(const struct screen *s)
{
	size_t n;

	if (s->prompt != PROMPT_NONE || !s->status || s->help || s->chooser)
		return 1;
	n = wrap_text(s->status, COLS - 1, NULL, NULL, 0);
	return n < 1 ? 1 : n > STATUS_MAX_LINES ? STATUS_MAX_LINES : (int)n;
}

/*
 * A prompt with its input: when it is wider than the screen, the end of the
 * input is shown (where the cursor is), with "<" marking the cut.
 */
static void draw_prompt(int y, const char *label, const char *input)
{
	int ll = (int)strlen(label), il = (int)strlen(input), room = COLS - 1 - ll;

	if (room < 8) {   /* a label that does not fit leaves the line to the input */
		label = "";
		ll = 0;
		room = COLS - 1;
	}
	if (il <= room)
		mvprintw(LINES - 1, 0, "%s%s", label, input);
	else
		mvprintw(LINES - 1, 0, "%s<%s", label, input + il - room + 1);
	curs_set(1);
}

static void draw_status(struct screen *s)
{
	static const char *const label[] = {
		[PROMPT_SEARCH] = "search: ",
		[PROMPT_FILTER] = "filter: ",
		[PROMPT_EDIT] = "",
		[PROMPT_DELAY] = "delay (seconds): ",
		[PROMPT_JUMP] = "go to (-10m, +1h, 2026-12-01 03:00, @SECONDS): ",
	};
	int y = LINES - 1, h = status_height(s);

	if (s->prompt == PROMPT_EDIT) {
		const struct top_row *r = sel_row(s);
		char *l = NULL;

		if (asprintf(&l, "set %s (knob=value): ", r ? r->path[0] ? r->path : r->abs : "?") < 0)
			l = NULL;
		mvhline(y, 0, ' ', COLS);
		draw_prompt(y, l ? l : "set: ", s->input);
		free(l);
		return;
	}
	if (s->prompt != PROMPT_NONE) {
		mvhline(y, 0, ' ', COLS);
		draw_prompt(y, label[s->prompt], s->input);
		return;
	}
	curs_set(0);
	if (s->status) {
		const char *starts[STATUS_MAX_LINES];
		int lens[STATUS_MAX_LINES];
		size_t n = wrap_text(s->status, COLS - 1, starts, lens, STATUS_MAX_LINES);
		attr_t a = !s->status_err ? A_NORMAL : s->color ? COLOR_PAIR(PAIR_ERROR) | A_BOLD
								 : A_BOLD;

		for (int i = 0; i < h; i++)
			put_line(s, y - h + 1 + i, (size_t)i < n ? starts[i] : "",
				 (size_t)i < n ? lens[i] : 0, a);
	} else {
		const char *keys = s->m->src->replay
			? "? help  q quit  [ ] sample  t jump  p play  / search  "
			  "f filter  < > sort  r reverse  i detail  c columns"
			: "? help  q quit  e edit  / search  f filter  < > sort  "
			  "r reverse  i detail  c columns  p pause";
		int n = (int)strlen(keys);

		put_line(s, y, keys, n < COLS - 1 ? n : COLS - 1, A_DIM);
	}
}

/* Forgets the kept lines: the next frame draws every line. */
static void lines_drop(struct screen *s)
{
	free(s->lines);
	free(s->row_cells);
	free(s->line_kept);
	free(s->line_now);
	s->lines = s->row_cells = NULL;
	s->line_kept = s->line_now = NULL;
	s->lines_n = 0;
}

/* Room to keep the lines of a LINES x COLS screen: false when there is none (nothing kept). */
static bool lines_fit(struct screen *s)
{
	size_t cells = (size_t)LINES * (size_t)COLS;

	if (s->lines && s->lines_n == LINES && s->lines_cols == COLS)
		return true;
	lines_drop(s);
	s->lines = calloc(cells, sizeof(*s->lines));
	s->row_cells = calloc((size_t)COLS, sizeof(*s->row_cells));
	s->line_kept = calloc((size_t)LINES, sizeof(*s->line_kept));
	s->line_now = calloc((size_t)LINES, sizeof(*s->line_now));
	if (!s->lines || !s->row_cells || !s->line_kept || !s->line_now) {
		lines_drop(s);
		return false;
	}
	s->lines_n = LINES;
	s->lines_cols = COLS;
	return true;
}

/* The frame shows the table alone: no chooser, help or detail pane over it. */
static bool table_only(const struct screen *s)
{
	return !s->chooser && !s->help && !s->detail;
}

/*
 * A frame draws over the last one when both show the table at the same
 * size (the rows compared, every other line drawn whole); else it starts
 * from a blank screen, with nothing kept.
 */
static void frame_start(struct screen *s)
{
	bool same = s->lines && s->lines_n == LINES && s->lines_cols == COLS;

	if (!lines_fit(s) || !table_only(s) || !same || !s->table_shown) {
		erase();
		if (s->lines)
			memset(s->line_kept, 0, (size_t)s->lines_n * sizeof(*s->line_kept));
	}
	if (s->lines)
		memset(s->line_now, 0, (size_t)s->lines_n * sizeof(*s->line_now));
}

/*
 * What the lines hold now: those composed in this frame; the others were
 * drawn by ncurses alone. The kept arrays have lines_n entries, which LINES
 * need not be any more: refresh() takes in a SIGWINCH that came during the
 * frame and resizes the screen, LINES included (the next frame_start then
 * finds another size and starts from blank).
 */
static void frame_end(struct screen *s)
{
	s->table_shown = table_only(s);
	if (s->lines)
		memcpy(s->line_kept, s->line_now, (size_t)s->lines_n * sizeof(*s->line_kept));
}

static int draw(struct screen *s)
{
	struct top_model *m = s->m;
	int h = rows_height(s), r;
	unsigned parts;

	if (LINES < 6 || COLS < 30) {
		erase();
		mvaddstr(0, 0, "terminal too small");
		refresh();
		s->table_shown = false;
		return 0;
	}
	free(s->reason);
	s->reason = reason_text(s);
	s->reason_h = reason_height(s);
	h = rows_height(s);
	if (s->sel < s->top)
		s->top = s->sel;
	if (h > 0 && s->sel >= s->top + (size_t)h)
		s->top = s->sel - (size_t)h + 1;
	if (s->top + (size_t)h > m->n_order)
		s->top = m->n_order > (size_t)h ? m->n_order - (size_t)h : 0;
	parts = visible_parts(s, name_width(s, s->top, h));
	r = top_model_fill(m, s->top, (size_t)h, s->detail && sel_row(s) ? m->order[s->sel]
									  : (size_t)-1, parts);
	frame_start(s);
	if (s->chooser) {
		draw_chooser(s);
	} else if (s->help) {
		draw_help(s);
	} else {
		draw_title(s);
		draw_table(s, 2, h);
		if (s->detail)
			draw_detail(s, 2 + h + 1, LINES - 1 - (h + 3));
		draw_reason(s);
	}
	draw_status(s);
	/*
	 * A frame whose every line was kept (most frames of an idle tree)
	 * leaves stdscr as the last refresh() sent it: that refresh would only
	 * look at each line and block and unblock SIGTSTP around it (two
	 * syscalls). getch() resizes after a SIGWINCH all the same.
	 */
	if (is_wintouched(stdscr))
		refresh();
	frame_end(s);
	return r;
}

/* --- keys --- */

static void search_from(struct screen *s, size_t from)
{
	struct top_model *m = s->m;
	const char *q = s->prompt == PROMPT_SEARCH ? s->input : s->search;

	if (!q || !*q)
		return;
	for (size_t i = 0; i < m->n_order; i++) {
		size_t k = (from + i) % m->n_order;

		if (strcasestr(m->rows[m->order[k]].name, q)) {
			s->sel = k;
			return;
		}
	}
	set_status(s, true, "no group matches '%s'", q);
}

static void set_collapsed(struct screen *s, struct top_row *r, int how)
{
	if (!r || !r->has_children)
		return;
	r->collapsed = how < 0 ? !r->collapsed : how > 0;
	reorder(s);
}

static void set_all(struct screen *s, bool collapsed)
{
	for (size_t i = 1; i < s->m->n; i++)
		if (s->m->rows[i].has_children)
			s->m->rows[i].collapsed = collapsed;
	reorder(s);
}

static void sort_step(struct screen *s, int dir)
{
	size_t k = 0;

	for (size_t i = 0; i < s->n_cols; i++)
		if (s->cols[i] == s->m->sort_col)
			k = i;
	k = (k + s->n_cols + (size_t)(dir > 0 ? 1 : s->n_cols - 1)) % s->n_cols;
	remember_sel(s);
	top_model_sort_by(s->m, s->cols[k], s->m->reverse);
	restore_sel(s);
}

/* Whether any group's name matches the filter (the parent row is shown anyway). */
static bool filter_matches_any(const struct top_model *m)
{
	for (size_t i = 0; i < m->n; i++)
		if (strcasestr(m->rows[i].name, m->filter))
			return true;
	return false;
}

/* The sample time shown, as local time, into buf (32 bytes). */
static const char *shown_time(const struct screen *s, char *buf)
{
	return mc_when_format((int64_t)(s->m->wall * 1e9), buf, 32);
}

/*
 * Replay: moves delta samples on (or to time t when delta is 0) and reads
 * the sample there. An end of the history or a bad record is said in the
 * status line; returns what the refresh returned (the screen stops on a
 * failure to read the model).
 */
static int replay_move(struct screen *s, long delta, double t)
{
	struct top_source *src = s->m->src;
	int r = delta ? src->ops->step(src, delta) : src->ops->seek(src, t);
	char when[32];

	if (r == -ENODATA && delta > 0 && s->replay_bad) {
		/* past a corrupt record the deltas that follow it cannot be decoded either */
		set_status(s, true, "no sample after the record that could not be read can be read");
		s->paused = true;
		return 0;
	}
	if (r == -ENODATA) {
		set_status(s, false, "%s recorded sample (%s)", delta > 0 ? "the last" : "the first",
			   shown_time(s, when));
		s->paused = true;
		return 0;
	}
	s->replay_bad = r == -EBADMSG;
	if (r < 0) {
		set_status(s, true, "cannot read the store: %s",
			   src->ops->problem(src) ? src->ops->problem(src) : strerror(-r));
		s->paused = true;
	}
	/* also after an error: the source may have moved part of the way */
	return do_refresh(s);
}

/* Replay's jump prompt: a time, or -10m / +1h from the sample shown. */
static int replay_jump(struct screen *s, const char *text)
{
	struct mc_when_error e = { 0 };
	int64_t t;
	double first = 0, last = 0;
	char when[32];
	int r;

	if (mc_when_parse(text, mc_when_now(), (int64_t)(s->m->wall * 1e9), &t, &e) < 0) {
		set_status(s, true, "invalid time '%s': %s (at '%s')", text, e.why, text + e.at);
		return 0;
	}
	/* a time as memctl prints it (to the millisecond) names its sample */
	r = replay_move(s, 0, (double)t / 1e9 + TOP_REPLAY_SLACK);
	if (r < 0 || s->status)
		return r;
	s->m->src->ops->range(s->m->src, &first, &last);
	if ((double)t / 1e9 + TOP_REPLAY_SLACK < first)
		set_status(s, false, "before the first sample: showing the first (%s)",
			   shown_time(s, when));
	else if ((double)t / 1e9 > last)
		set_status(s, false, "after the last sample: showing the last (%s)", shown_time(s, when));
	else
		set_status(s, false, "the sample recorded at %s (the last one not after the time asked)",
			   shown_time(s, when));
	return r;
}

static void prompt_done(struct screen *s, bool accept)
{
	enum prompt p = s->prompt;
	struct top_row *r = sel_row(s);

	s->prompt = PROMPT_NONE;
	if (!accept) {
		free(s->status);
		s->status = NULL;
		return;
	}
	switch (p) {
	case PROMPT_SEARCH:
		free(s->search);
		s->search = strdup(s->input);
		break;
	case PROMPT_FILTER:
		free(s->m->filter);
		s->m->filter = s->input_len ? strdup(s->input) : NULL;
		reorder(s);
		if (s->m->filter && !filter_matches_any(s->m))
			set_status(s, true, "no group matches the filter '%s' (f, then Enter alone, "
				   "shows all)", s->m->filter);
		break;
	case PROMPT_DELAY: {
		char *end;
		double d = strtod(s->input, &end);

		if (end == s->input || *end || !(d >= 0.01) || d > 86400) {
			set_status(s, true, "invalid delay '%s' (seconds, 0.01 to 86400)", s->input);
		} else {
			s->delay = d;
			s->next = now_s() + d;
			set_status(s, false, "refresh every %.2g s", d);
		}
		break;
	}
	case PROMPT_EDIT: {
		char *msg = NULL;
		int rc;

		if (!r || !s->input_len)
			break;
		rc = s->o->edit(s->o->edit_arg, r->abs, s->input, &msg);
		set_status(s, rc != 0, "%s", msg ? msg : rc ? "set failed" : "done");
		free(msg);
		do_refresh(s);
		break;
	}
	case PROMPT_JUMP:
		if (s->input_len)
			replay_jump(s, s->input);
		break;
	case PROMPT_NONE:
		break;
	}
}

static void prompt_key(struct screen *s, int ch)
{
	if (ch == 27) {
		prompt_done(s, false);
	} else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
		prompt_done(s, true);
	} else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
		if (s->input_len)
			s->input[--s->input_len] = '\0';
	} else if (ch >= 32 && ch < 127 && s->input_len + 1 >= sizeof(s->input)) {
		beep();   /* the prompt is full: refuse the key rather than cut the value */
	} else if (ch >= 32 && ch < 127) {
		s->input[s->input_len++] = (char)ch;
		s->input[s->input_len] = '\0';
	}
	if (s->prompt == PROMPT_SEARCH)
		search_from(s, s->sel);   /* incremental */
}

static void start_prompt(struct screen *s, enum prompt p, const char *initial)
{
	s->prompt = p;
	snprintf(s->input, sizeof(s->input), "%s", initial ? initial : "");
	s->input_len = strlen(s->input);
}

/* Lines a PgUp/PgDn scrolls the detail pane by. */
static size_t detail_page(const struct screen *s)
{
	int h = LINES - 1 - (rows_height(s) + 3) - 3;

	return h > 1 ? (size_t)h : 1;
}

/*
 * Handles a key while the help is shown: the motion keys scroll it, any
 * other key closes it. Returns false to quit ('q').
 */
static bool help_key(struct screen *s, int ch)
{
	if (ch == KEY_DOWN || ch == 'j')
		s->help_off++;
	else if (ch == KEY_UP || ch == 'k')
		s->help_off -= s->help_off > 0;
	else if (ch == KEY_NPAGE || ch == ' ')
		s->help_off += (size_t)(LINES > 4 ? LINES - 3 : 1);
	else if (ch == KEY_PPAGE)
		s->help_off = s->help_off > (size_t)(LINES - 3) ? s->help_off - (size_t)(LINES - 3) : 0;
	else if (ch != KEY_RESIZE)
		s->help = false;
	return !(ch == 'q' && !s->help);
}

/*
 * Handles a key; returns false to quit.
 * It is long because it is the key-dispatch switch: one short case per key
 * of the help screen, each calling the action it names.
 */
static bool key(struct screen *s, int ch)
{
	struct top_model *m = s->m;
	size_t page = (size_t)(rows_height(s) > 1 ? rows_height(s) - 1 : 1);

	if (s->prompt != PROMPT_NONE) {
		prompt_key(s, ch);
		return true;
	}
	if (s->chooser) {
		chooser_key(s, ch);
		return true;
	}
	if (s->help)
		return help_key(s, ch);
	if (ch != KEY_RESIZE) {
		free(s->status);
		s->status = NULL;
	}
	switch (ch) {
	case 'q':
	case KEY_F(10):
		return false;
	case KEY_UP:
	case 'k':
		if (s->sel)
			s->sel--;
		break;
	case KEY_DOWN:
	case 'j':
		if (s->sel + 1 < m->n_order)
			s->sel++;
		break;
	case KEY_PPAGE:
		if (s->detail)   /* the pane scrolls; the arrows still move the selection */
			s->detail_off = s->detail_off > detail_page(s) ? s->detail_off - detail_page(s) : 0;
		else
			s->sel = s->sel > page ? s->sel - page : 0;
		break;
	case KEY_NPAGE:
		if (s->detail)
			s->detail_off += detail_page(s);   /* clamped when drawn */
		else
			s->sel = s->sel + page < m->n_order ? s->sel + page
							    : m->n_order ? m->n_order - 1 : 0;
		break;
	case KEY_HOME:
	case 'g':
		s->sel = 0;
		break;
	case KEY_END:
	case 'G':
		s->sel = m->n_order ? m->n_order - 1 : 0;
		break;
	case KEY_LEFT:
		if (s->hcol)
			s->hcol--;
		break;
	case KEY_RIGHT:
		if (s->hcol + 2 < s->n_cols)
			s->hcol++;
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
		set_collapsed(s, sel_row(s), -1);
		break;
	case ' ':
		if (s->paused)
			s->paused = false;
		else
			set_collapsed(s, sel_row(s), -1);
		break;
	case '+':
		set_collapsed(s, sel_row(s), 0);
		break;
	case '-':
		set_collapsed(s, sel_row(s), 1);
		break;
	case '*':
		set_all(s, false);
		break;
	case '_':
		set_all(s, true);
		break;
	case '<':
		sort_step(s, -1);
		break;
	case '>':
		sort_step(s, 1);
		break;
	case 'r':
		remember_sel(s);
		top_model_sort_by(m, m->sort_col, !m->reverse);
		restore_sel(s);
		break;
	case '/':
		start_prompt(s, PROMPT_SEARCH, NULL);
		break;
	case 'n':
		search_from(s, s->sel + 1);
		break;
	case 'f':
		start_prompt(s, PROMPT_FILTER, NULL);   /* a new filter replaces the old one */
		break;
	case 'e':
		if (m->src->replay)
			set_status(s, true, "a replay shows recorded values: there is nothing to edit");
		else if (sel_row(s))
			start_prompt(s, PROMPT_EDIT, NULL);
		break;
	case '[':
	case ']':
		if (m->src->replay)
			replay_move(s, ch == ']' ? 1 : -1, 0);
		else
			set_status(s, true, "[ and ] step through a recorded history (--replay DIR)");
		break;
	case 't':
		if (m->src->replay)
			start_prompt(s, PROMPT_JUMP, NULL);
		else
			set_status(s, true, "t goes to a time of a recorded history (--replay DIR)");
		break;
	case 'd':
		start_prompt(s, PROMPT_DELAY, NULL);
		break;
	case 'i':
		s->detail = !s->detail;
		break;
	case 'p':
		s->paused = !s->paused;
		if (!s->paused)
			s->next = now_s();
		break;
	case 'R':
		s->next = now_s();
		break;
	case 'c':
	case KEY_F(2):
		chooser_open(s);
		break;
	case '1':
	case '2':
	case '3':
	case '4':
	case '5':
		apply_preset(s, ch - '0');
		break;
	case '?':
	case KEY_F(1):
		s->help = true;
		s->help_off = 0;
		break;
	default:
		break;
	}
	return true;
}

static void init_colors(struct screen *s)
{
	const char *nc = getenv("NO_COLOR");

	s->color = has_colors() && !(nc && *nc);
	if (!s->color)
		return;
	start_color();
	use_default_colors();
	init_pair(PAIR_TITLE, COLOR_WHITE, COLOR_BLUE);
	init_pair(PAIR_HEADER, COLOR_BLACK, COLOR_CYAN);
	init_pair(PAIR_HOT, COLOR_RED, -1);
	init_pair(PAIR_DECISION, COLOR_YELLOW, -1);
	init_pair(PAIR_ERROR, COLOR_RED, -1);
}

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
#define N_STOP (sizeof(stop_signals) / sizeof(stop_signals[0]))
#define N_CRASH (sizeof(crash_signals) / sizeof(crash_signals[0]))

/* The handlers before the screen started (top may run inside the shell). */
struct saved_signals {
	struct sigaction stop[N_STOP];
	struct sigaction crash[N_CRASH];
};

static void install_signals(struct saved_signals *old)
{
	struct sigaction sa = { .sa_handler = on_stop };

	stop_signal = 0;
	/* no SA_RESTART: getch returns and the loop sees the signal */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < N_STOP; i++)
		sigaction(stop_signals[i], &sa, &old->stop[i]);
	sa.sa_handler = on_crash;
	sa.sa_flags = SA_RESETHAND;
	/* (under the sanitizers their own handler must stay: it reports the crash) */
	for (size_t i = 0; i < N_CRASH; i++)
#if !defined(__SANITIZE_ADDRESS__)
		sigaction(crash_signals[i], &sa, &old->crash[i]);
#else
		sigaction(crash_signals[i], NULL, &old->crash[i]);
#endif
}

static void restore_signals(const struct saved_signals *old)
{
	for (size_t i = 0; i < N_STOP; i++)
		sigaction(stop_signals[i], &old->stop[i], NULL);
	for (size_t i = 0; i < N_CRASH; i++)
		sigaction(crash_signals[i], &old->crash[i], NULL);
}

/*
 * Starts curses on the terminal for s: raw keys, no cursor, the colours,
 * and the signal handlers that give the terminal back (the old ones saved
 * in old). Returns 0, or -ENOTTY when there is no terminal to start on.
 */
static int curses_start(struct screen *s, struct saved_signals *old)
{
	setlocale(LC_ALL, "");
	if (!initscr())
		return -ENOTTY;
	curses_on = true;
	if (!atexit_done) {
		atexit(restore_terminal);
		atexit_done = true;
	}
	install_signals(old);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	/*
	 * No look for typeahead while a frame goes out: it costs two polls of
	 * the terminal a frame, and a frame is a screenful of short lines that
	 * is better shown whole than cut short by a key.
	 */
	typeahead(-1);
	curs_set(0);
	init_colors(s);
	return 0;
}

/* Frees what the screen s holds (not its model). */
static void screen_free(struct screen *s)
{
	free(s->sel_path);
	free(s->detail_path);
	free(s->cols);
	free(s->ch_cols);
	free(s->ch_on);
	free(s->conf);
	free(s->hidden_why);
	free(s->reason);
	free(s->status);
	free(s->search);
	lines_drop(s);
}

/*
 * At most this many sort keys per refresh: with 1000 groups each key is at
 * most 16 refreshes old off screen (the rows on screen are read fresh), and
 * the sort keys cost about a quarter of a refresh (see the cost note in
 * memctl(8)). Sorted by usage, largest first, a parent's usage on screen
 * shows its children's growth (the model's watch_growth): 16 keys a
 * refresh then, each at most 63 refreshes old with 1000 groups, and a
 * group that grows read at once. A row on screen reads its memory.stat
 * again when its usage moved, otherwise every other refresh (stat_lazy).
 * A recorded sample costs no reads: a replay reads everything.
 */
static void read_budgets(struct top_model *m)
{
	m->key_budget = m->src->replay ? 0 : 64;
	m->key_budget_watched = m->src->replay ? 0 : 16;
	m->stat_lazy = !m->src->replay;
}

int top_screen_run(struct top_model *m, const struct top_screen_opts *o)
{
	struct screen s = { .m = m, .o = o, .delay = o->delay };
	struct saved_signals old;
	int r;

	read_budgets(m);
	r = top_model_refresh(m, now_s());
	if (r == 0)
		r = init_cols(&s);
	if (r == 0)
		r = curses_start(&s, &old);
	if (r < 0) {
		screen_free(&s);
		return r;
	}
	s.refreshes = 1;
	s.next = now_s() + s.delay;
	s.paused = m->src->replay;   /* a replay stays on its sample until told to move */
	while (!stop_signal) {
		double left;
		int ch;

		r = draw(&s);
		if (r < 0)
			break;
		left = s.next - now_s();
		timeout(s.paused ? -1 : left <= 0 ? 0 : (int)(left * 1000) + 1);
		ch = getch();
		if (ch != ERR) {
			if (!key(&s, ch))
				break;
			continue;
		}
		if (s.paused || now_s() < s.next)
			continue;
		if (o->iterations && s.refreshes >= o->iterations)
			break;
		/* a replay that plays steps on; the live screen reads again */
		r = m->src->replay ? replay_move(&s, 1, 0) : do_refresh(&s);
		if (r < 0)
			break;
		s.next += s.delay;
		if (s.next < now_s())
			s.next = now_s() + s.delay;
	}
	restore_terminal();
	restore_signals(&old);
	screen_free(&s);
	return r < 0 ? r : 0;
}
