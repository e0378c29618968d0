/*
 * The state `memctl run` publishes every interval (format in runstate.h).
 *
 * Writer: the daemon keeps one struct mc_runstate and one output buffer
 * for its whole life; each interval clears the per-interval records (their
 * arrays keep their memory), fills them, formats into the kept buffer and
 * replaces the file with write(2) and rename(2). After the first intervals
 * this takes no new memory, which matters to a loop that locks its pages.
 *
 * Reader: the file is input from another process and is treated as
 * hostile. It is opened relative to the state directory with O_NOFOLLOW
 * and O_NONBLOCK (a FIFO planted there cannot block the reader), must be a
 * regular file owned by root or by the reader, writable by no one else,
 * and small; every record is checked for its field count and the syntax
 * of each field before anything is used.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "file.h"
#include "runstate.h"
#include "size.h"

const double mc_run_hist_le[MC_RUN_HIST_N - 1] = {
	0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
};

#define STATE_PREFIX "run."
#define STATE_SUFFIX ".state"
#define MAX_FIELDS 16

/* --- memory --- */

static void decision_free(struct mc_run_decision *d)
{
	free(d->group);
	free(d->policy);
	free(d->knob);
	free(d->reason);
}

static void strv_clear(char **v, size_t *n)
{
	for (size_t i = 0; i < *n; i++)
		free(v[i]);
	*n = 0;
}

void mc_runstate_clear_interval(struct mc_runstate *s)
{
	for (size_t i = 0; i < s->n_groups; i++)
		free(s->groups[i].group);
	s->n_groups = 0;
	for (size_t i = 0; i < s->n_dec; i++)
		decision_free(&s->dec[i]);
	s->n_dec = 0;
	strv_clear(s->notes, &s->n_notes);
	strv_clear(s->errors, &s->n_errors);
}

void mc_runstate_release(struct mc_runstate *s)
{
	mc_runstate_clear_interval(s);
	free(s->groups);
	free(s->dec);
	free(s->notes);
	free(s->errors);
	free(s->profile);
	free(s->parent);
	memset(s, 0, sizeof(*s));
}

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

int mc_runstate_add_group(struct mc_runstate *s, const char *group, bool ws_valid, uint64_t ws,
			  bool cap_valid, uint64_t cap)
{
	struct mc_run_group g = { .ws_valid = ws_valid, .ws = ws, .cap_valid = cap_valid,
				  .cap = cap };

	if (mc_array_reserve(&s->groups, &s->cap_groups, s->n_groups + 1, sizeof(g)) < 0 ||
	    !(g.group = dup_or_empty(group)))
		return -ENOMEM;
	s->groups[s->n_groups++] = g;
	return 0;
}

int mc_runstate_add_decision(struct mc_runstate *s, const struct mc_run_decision *d)
{
	struct mc_run_decision c = *d;

	if (mc_array_reserve(&s->dec, &s->cap_dec, s->n_dec + 1, sizeof(c)) < 0)
		return -ENOMEM;
	c.group = dup_or_empty(d->group);
	c.policy = dup_or_empty(d->policy);
	c.knob = dup_or_empty(d->knob);
	c.reason = dup_or_empty(d->reason);
	if (!c.group || !c.policy || !c.knob || !c.reason) {
		decision_free(&c);
		return -ENOMEM;
	}
	s->dec[s->n_dec++] = c;
	return 0;
}

static int strv_add(char ***v, size_t *n, size_t *cap, const char *text)
{
	char *t;

	if (mc_array_reserve(v, cap, *n + 1, sizeof(**v)) < 0 || !(t = dup_or_empty(text)))
		return -ENOMEM;
	(*v)[(*n)++] = t;
	return 0;
}

int mc_runstate_add_note(struct mc_runstate *s, const char *text)
{
	return strv_add(&s->notes, &s->n_notes, &s->cap_notes, text);
}

int mc_runstate_add_error(struct mc_runstate *s, const char *text)
{
	return strv_add(&s->errors, &s->n_errors, &s->cap_errors, text);
}

void mc_runstate_observe(struct mc_runstate *s, double seconds)
{
	size_t b = 0;

	while (b < MC_RUN_HIST_N - 1 && seconds > mc_run_hist_le[b])
		b++;
	s->hist[b]++;
	s->hist_count++;
	s->hist_sum += seconds;
}

/* --- formatting --- */

/* A tab, then the field with \\ \t \n \r escaped. */
static void add_field(struct mc_buf *b, const char *s)
{
	mc_buf_addc(b, '\t');
	for (; *s; s++) {
		char e = *s == '\\' ? '\\' : *s == '\t' ? 't' : *s == '\n' ? 'n' : *s == '\r' ? 'r' : 0;
		char esc[2] = { '\\', e };

		if (e)
			mc_buf_add(b, esc, 2);
		else
			mc_buf_addc(b, *s);
	}
}

static void add_size(struct mc_buf *b, uint64_t v)
{
	if (v == MC_SIZE_MAX)
		mc_buf_printf(b, "\tmax");
	else
		mc_buf_printf(b, "\t%" PRIu64, v);
}

static const char *const kind_names[] = {
	[MC_RUN_SET] = "set",
	[MC_RUN_WRITE] = "write",
	[MC_RUN_RECLAIM] = "reclaim",
};

static void format_decision(struct mc_buf *b, const struct mc_run_decision *d)
{
	mc_buf_printf(b, "%s", kind_names[d->kind]);
	add_field(b, d->group);
	add_field(b, d->policy);
	if (d->kind != MC_RUN_RECLAIM)
		add_field(b, d->knob);
	if (d->kind == MC_RUN_WRITE) {
		if (d->old_valid)
			add_size(b, d->old);
		else
			mc_buf_printf(b, "\t-");
	}
	add_size(b, d->value);
	if (d->kind == MC_RUN_RECLAIM)
		mc_buf_printf(b, "\t%" PRIu64 "\t%d", d->got, d->err < 0 ? -d->err : 0);
	add_field(b, d->reason);
	mc_buf_printf(b, "\n");
}

int mc_runstate_format(const struct mc_runstate *s, char **buf, size_t *cap, size_t *ret_len)
{
	struct mc_buf b = { .p = *buf, .cap = *buf ? *cap : 0 };

	mc_buf_printf(&b, "memctl-run-state\t%d\npid\t%ld\nstarted\t%.3f\nprofile", MC_RUNSTATE_VERSION,
		  s->pid, s->started);
	add_field(&b, s->profile ? s->profile : "");
	mc_buf_printf(&b, "\nparent");
	add_field(&b, s->parent ? s->parent : "/");
	mc_buf_printf(&b, "\nperiod_ms\t%" PRIu64 "\ndry_run\t%d\ninterval\t%lu\t%.3f\t%.6f\t%d\n", s->period_ms,
		  s->dry_run, s->interval, s->time, s->duration, s->exit_code);
	mc_buf_printf(&b, "totals\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n",
		  s->reclaimed_bytes, s->reclaim_requests, s->reclaim_failures, s->intervals_failed);
	mc_buf_printf(&b, "duration_hist\t%" PRIu64 "\t%.6f", s->hist_count, s->hist_sum);
	for (size_t i = 0; i < MC_RUN_HIST_N; i++)
		mc_buf_printf(&b, "\t%" PRIu64, s->hist[i]);
	mc_buf_printf(&b, "\n");
	for (size_t i = 0; i < s->n_groups; i++) {
		const struct mc_run_group *g = &s->groups[i];

		mc_buf_printf(&b, "group");
		add_field(&b, g->group);
		if (g->ws_valid)
			add_size(&b, g->ws);
		else
			mc_buf_printf(&b, "\t-");
		if (g->cap_valid)
			add_size(&b, g->cap);
		else
			mc_buf_printf(&b, "\t-");
		mc_buf_printf(&b, "\n");
	}
	for (size_t i = 0; i < s->n_dec; i++)
		format_decision(&b, &s->dec[i]);
	for (size_t i = 0; i < s->n_notes; i++) {
		mc_buf_printf(&b, "note");
		add_field(&b, s->notes[i]);
		mc_buf_printf(&b, "\n");
	}
	for (size_t i = 0; i < s->n_errors; i++) {
		mc_buf_printf(&b, "error");
		add_field(&b, s->errors[i]);
		mc_buf_printf(&b, "\n");
	}
	mc_buf_printf(&b, "end\n");
	/* the buffer stays the caller's, grown or not */
	*buf = b.p;
	*cap = b.cap;
	if (mc_buf_error(&b) < 0)
		return -ENOMEM;
	*ret_len = b.len;
	return 0;
}

/* --- parsing --- */

/* Unescapes field f in place (NUL-terminated). -EINVAL on a bad escape or a control byte. */
static int unescape(char *f)
{
	char *w = f;

	for (char *r = f; *r; r++) {
		if ((unsigned char)*r < 0x20 || *r == 0x7f)
			return -EINVAL;
		if (*r != '\\') {
			*w++ = *r;
			continue;
		}
		r++;
		if (*r == '\\')
			*w++ = '\\';
		else if (*r == 't')
			*w++ = '\t';
		else if (*r == 'n')
			*w++ = '\n';
		else if (*r == 'r')
			*w++ = '\r';
		else
			return -EINVAL;
	}
	*w = '\0';
	return 0;
}

/* A decimal without sign or blanks, fitting in 64 bits. */
static int parse_u64(const char *f, uint64_t *ret)
{
	uint64_t v = 0;

	if (!*f)
		return -EINVAL;
	for (; *f; f++) {
		if (*f < '0' || *f > '9' || v > (UINT64_MAX - (uint64_t)(*f - '0')) / 10)
			return -EINVAL;
		v = v * 10 + (uint64_t)(*f - '0');
	}
	*ret = v;
	return 0;
}

/* A byte count or "max". */
static int parse_size(const char *f, uint64_t *ret)
{
	if (strcmp(f, "max") == 0) {
		*ret = MC_SIZE_MAX;
		return 0;
	}
	return parse_u64(f, ret);
}

/* "-" (not valid) or a size. */
static int parse_opt_size(const char *f, bool *ret_valid, uint64_t *ret)
{
	*ret_valid = strcmp(f, "-") != 0;
	*ret = 0;
	return *ret_valid ? parse_size(f, ret) : 0;
}

/*
 * Seconds (times since the epoch, durations) are at most 1e11, about 3000
 * years: the writer prints them with "%.3f" or "%.6f", and every value up
 * to this bound prints in at most 19 characters that read back below it.
 * A larger number would parse here but print in a form the reader refuses.
 */
#define SECONDS_MAX 1e11

/* A non-negative decimal with an optional fraction ("12", "12.345"), at most SECONDS_MAX. */
static int parse_seconds(const char *f, double *ret)
{
	const char *p = f;
	char *end;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return -EINVAL;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p || p - f > 32)
		return -EINVAL;
	*ret = strtod(f, &end);
	return end == p && *ret <= SECONDS_MAX ? 0 : -EINVAL;
}

static int parse_int(const char *f, long max, long *ret)
{
	uint64_t v;

	if (parse_u64(f, &v) < 0 || v > (uint64_t)max)
		return -EINVAL;
	*ret = (long)v;
	return 0;
}

/* An absolute cgroup path: "/", or "/" components without "." or "..". */
static bool abs_path_ok(const char *p)
{
	if (p[0] != '/')
		return false;
	for (const char *c = p + 1; *c;) {
		size_t n = strcspn(c, "/");

		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		c += n;
		if (*c == '/' && !*++c)
			return false;   /* trailing slash */
	}
	return true;
}

/* A knob or file name: [a-z0-9_.]+ (or "" for a reclaim). */
static bool name_ok(const char *k)
{
	if (!*k || strlen(k) > 64)
		return false;
	for (; *k; k++)
		if (!((*k >= 'a' && *k <= 'z') || (*k >= '0' && *k <= '9') || *k == '_' ||
		      *k == '.' || *k == '-'))
			return false;
	return true;
}

static int parse_decision(enum mc_run_kind kind, char **f, size_t nf, struct mc_runstate *s)
{
	struct mc_run_decision d = { .kind = kind };
	size_t want = kind == MC_RUN_SET ? 6 : 7;
	uint64_t err = 0;
	size_t i = 1;

	if (nf != want || !abs_path_ok(f[1]) || !name_ok(f[2]))
		return -EINVAL;
	d.group = f[i++];
	d.policy = f[i++];
	if (kind != MC_RUN_RECLAIM) {
		if (!name_ok(f[i]))
			return -EINVAL;
		d.knob = f[i++];
	}
	if (kind == MC_RUN_WRITE && parse_opt_size(f[i++], &d.old_valid, &d.old) < 0)
		return -EINVAL;
	if (parse_size(f[i++], &d.value) < 0)
		return -EINVAL;
	if (kind == MC_RUN_RECLAIM &&
	    (parse_u64(f[i++], &d.got) < 0 || parse_u64(f[i++], &err) < 0 || err > 4095))
		return -EINVAL;
	d.err = -(int)err;
	d.reason = f[i];
	return mc_runstate_add_decision(s, &d);
}

static int parse_group(char **f, size_t nf, struct mc_runstate *s)
{
	bool wv, cv;
	uint64_t ws, cap;

	if (nf != 4 || !abs_path_ok(f[1]) || parse_opt_size(f[2], &wv, &ws) < 0 ||
	    parse_opt_size(f[3], &cv, &cap) < 0)
		return -EINVAL;
	return mc_runstate_add_group(s, f[1], wv, ws, cv, cap);
}

static int parse_hist(char **f, size_t nf, struct mc_runstate *s)
{
	uint64_t sum = 0;

	if (nf != 3 + MC_RUN_HIST_N || parse_u64(f[1], &s->hist_count) < 0 ||
	    parse_seconds(f[2], &s->hist_sum) < 0)
		return -EINVAL;
	for (size_t i = 0; i < MC_RUN_HIST_N; i++) {
		if (parse_u64(f[3 + i], &s->hist[i]) < 0 || s->hist[i] > s->hist_count)
			return -EINVAL;
		sum += s->hist[i];
	}
	return sum == s->hist_count ? 0 : -EINVAL;
}

static int set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = strdup(v);
	return *dst ? 0 : -ENOMEM;
}

/* One record (fields already split and unescaped). 1: it was "end". */
static int parse_record(char **f, size_t nf, struct mc_runstate *s)
{
	const char *k = f[0];
	long l, code;

	if (strcmp(k, "end") == 0)
		return nf == 1 ? 1 : -EINVAL;
	if (strcmp(k, "pid") == 0) {
		if (nf != 2 || parse_int(f[1], 1L << 30, &s->pid) < 0 || s->pid < 1)
			return -EINVAL;
	} else if (strcmp(k, "started") == 0) {
		return nf == 2 ? parse_seconds(f[1], &s->started) : -EINVAL;
	} else if (strcmp(k, "profile") == 0) {
		return nf == 2 ? set_str(&s->profile, f[1]) : -EINVAL;
	} else if (strcmp(k, "parent") == 0) {
		return nf == 2 && abs_path_ok(f[1]) ? set_str(&s->parent, f[1]) : -EINVAL;
	} else if (strcmp(k, "period_ms") == 0) {
		return nf == 2 ? parse_u64(f[1], &s->period_ms) : -EINVAL;
	} else if (strcmp(k, "dry_run") == 0) {
		if (nf != 2 || (strcmp(f[1], "0") != 0 && strcmp(f[1], "1") != 0))
			return -EINVAL;
		s->dry_run = f[1][0] == '1';
	} else if (strcmp(k, "interval") == 0) {
		if (nf != 5 || parse_int(f[1], 1L << 62, &l) < 0 || parse_seconds(f[2], &s->time) < 0 ||
		    parse_seconds(f[3], &s->duration) < 0 ||
		    parse_int(f[4], 255, &code) < 0)
			return -EINVAL;
		s->interval = (unsigned long)l;
		s->exit_code = (int)code;
	} else if (strcmp(k, "totals") == 0) {
		if (nf != 5 || parse_u64(f[1], &s->reclaimed_bytes) < 0 ||
		    parse_u64(f[2], &s->reclaim_requests) < 0 ||
		    parse_u64(f[3], &s->reclaim_failures) < 0 ||
		    parse_u64(f[4], &s->intervals_failed) < 0)
			return -EINVAL;
	} else if (strcmp(k, "duration_hist") == 0) {
		return parse_hist(f, nf, s);
	} else if (strcmp(k, "group") == 0) {
		return parse_group(f, nf, s);
	} else if (strcmp(k, "set") == 0) {
		return parse_decision(MC_RUN_SET, f, nf, s);
	} else if (strcmp(k, "write") == 0) {
		return parse_decision(MC_RUN_WRITE, f, nf, s);
	} else if (strcmp(k, "reclaim") == 0) {
		return parse_decision(MC_RUN_RECLAIM, f, nf, s);
	} else if (strcmp(k, "note") == 0) {
		return nf == 2 ? mc_runstate_add_note(s, f[1]) : -EINVAL;
	} else if (strcmp(k, "error") == 0) {
		return nf == 2 ? mc_runstate_add_error(s, f[1]) : -EINVAL;
	}
	/* an unknown record: a newer memctl's; its fields were checked for escapes */
	return 0;
}

/* Splits line (NUL-terminated, modified) at tabs and unescapes. Fields or -EINVAL. */
static int split(char *line, char **f)
{
	size_t n = 0;

	for (char *p = line;;) {
		char *tab = strchr(p, '\t');

		if (n == MAX_FIELDS)
			return -EINVAL;
		f[n++] = p;
		if (tab)
			*tab = '\0';
		if (unescape(f[n - 1]) < 0)
			return -EINVAL;
		if (!tab)
			break;
		p = tab + 1;
	}
	return (int)n;
}

/* Checks the first line and the copy's end; the rest goes to parse_record. */
static int parse_lines(char *copy, struct mc_runstate *s, size_t *ret_line)
{
	char *f[MAX_FIELDS], *line = copy, *nl;
	bool ended = false;
	size_t ln = 0;
	int n, r;

	while (*line) {
		ln++;
		*ret_line = ln;
		nl = strchr(line, '\n');
		if (!nl || ended)
			return -EINVAL;   /* a last line without newline, or text after "end" */
		*nl = '\0';
		if ((n = split(line, f)) < 0)
			return n;
		if (ln == 1) {
			if (n != 2 || strcmp(f[0], "memctl-run-state") != 0 || strcmp(f[1], "1") != 0)
				return -EINVAL;
		} else if ((r = parse_record(f, (size_t)n, s)) < 0) {
			return r;
		} else if (r == 1) {
			ended = true;
		}
		line = nl + 1;
	}
	*ret_line = ln + 1;
	return ended && s->pid > 0 && s->parent ? 0 : -EINVAL;
}

int mc_runstate_parse(const char *text, size_t len, struct mc_runstate *ret, size_t *ret_line)
{
	struct mc_runstate s = { 0 };
	size_t line = 0;
	char *copy;
	int r;

	if (len > MC_RUNSTATE_MAX_BYTES)
		return -EFBIG;
	if (memchr(text, '\0', len)) {
		if (ret_line) {
			*ret_line = 1;
			for (const char *p = text; *p; p++)
				*ret_line += *p == '\n';
		}
		return -EINVAL;
	}
	copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, text, len);
	copy[len] = '\0';
	r = parse_lines(copy, &s, &line);
	free(copy);
	if (r < 0) {
		mc_runstate_release(&s);
		if (ret_line)
			*ret_line = line;
		return r;
	}
	*ret = s;
	return 0;
}

/* --- files --- */

static int state_name(long pid, char *buf, size_t len)
{
	int n = snprintf(buf, len, STATE_PREFIX "%ld" STATE_SUFFIX, pid);

	return n > 0 && (size_t)n < len ? 0 : -ENAMETOOLONG;
}

int mc_runstate_publish(const char *state_dir, const struct mc_runstate *s, char **buf,
			size_t *cap)
{
	char name[64], tmp[80];
	size_t len;
	int dirfd, fd, r;

	if ((r = mc_runstate_format(s, buf, cap, &len)) < 0)
		return r;
	if ((r = state_name(s->pid, name, sizeof(name))) < 0)
		return r;
	snprintf(tmp, sizeof(tmp), ".%s.tmp", name);
	dirfd = open(state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -errno;
	/* a leftover of a killed run with our PID is ours to replace */
	if (unlinkat(dirfd, tmp, 0) < 0 && errno != ENOENT) {
		r = -errno;
		close(dirfd);
		return r;
	}
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		r = -errno;
		close(dirfd);
		return r;
	}
	/* the unit's UMask=0077 would make it 0600: the directory decides who reads it */
	r = fchmod(fd, 0644) < 0 ? -errno : 0;
	if (r == 0)
		r = mc_file_write_all(fd, *buf, len);
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && renameat(dirfd, tmp, dirfd, name) < 0)
		r = -errno;
	if (r < 0)
		unlinkat(dirfd, tmp, 0);
	close(dirfd);
	return r;
}

int mc_runstate_unpublish(const char *state_dir, long pid)
{
	char name[64];
	int dirfd, r;

	if ((r = state_name(pid, name, sizeof(name))) < 0)
		return r;
	dirfd = open(state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -errno;
	r = unlinkat(dirfd, name, 0) < 0 && errno != ENOENT ? -errno : 0;
	close(dirfd);
	return r;
}

int mc_runstate_read(const char *state_dir, const char *name, struct mc_runstate *ret,
		     size_t *ret_line)
{
	struct stat st;
	char *text = NULL;
	size_t len = 0;
	int dirfd, fd, r;

	if (strchr(name, '/'))
		return -EINVAL;
	dirfd = open(state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -errno;
	/* the state directory is memctl's: others must not be able to put files there */
	if (fstat(dirfd, &st) < 0 || (st.st_uid != 0 && st.st_uid != geteuid()) ||
	    (st.st_mode & 022)) {
		close(dirfd);
		return -EPERM;
	}
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	r = fd < 0 ? -errno : 0;
	close(dirfd);
	if (r < 0)
		return r;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (!S_ISREG(st.st_mode))
		r = -EINVAL;
	else if ((st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & 022) ||
		 st.st_nlink != 1)
		r = -EPERM;   /* a hard link could be another file of root's */
	else if ((uint64_t)st.st_size > MC_RUNSTATE_MAX_BYTES)
		r = -EFBIG;
	if (r == 0)
		r = mc_file_read_fd(fd, MC_RUNSTATE_MAX_BYTES, &text, &len);
	close(fd);
	if (r == 0) {
		r = mc_runstate_parse(text, len, ret, ret_line);
		free(text);
	}
	return r;
}

/* Whether process pid exists (a zombie or another user's counts). */
static bool pid_alive(long pid)
{
	return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

static const char *problem_of(int r)
{
	switch (r) {
	case -ELOOP:
		return "a state file is a symbolic link";
	case -EPERM:
		return "a state file or its directory is owned by another user or writable by others";
	case -EFBIG:
		return "a state file is too big";
	case -EINVAL:
		return "a state file is malformed or not a regular file";
	case -EACCES:
		return "a state file cannot be read (permission denied)";
	default:
		return "a state file cannot be read";
	}
}

/* "run.N.state" -> N, or 0 when name is not a state file's. */
static long state_pid(const char *name)
{
	size_t pl = strlen(STATE_PREFIX), sl = strlen(STATE_SUFFIX), n = strlen(name);
	long pid = 0;

	if (n <= pl + sl || strncmp(name, STATE_PREFIX, pl) != 0 ||
	    strcmp(name + n - sl, STATE_SUFFIX) != 0)
		return 0;
	for (size_t i = pl; i < n - sl; i++) {
		if (name[i] < '0' || name[i] > '9' || pid > (1L << 30))
			return 0;
		pid = pid * 10 + (name[i] - '0');
	}
	return pid;
}

int mc_runstate_list(const char *state_dir, struct mc_runstate **ret, size_t *ret_n,
		     size_t *ret_refused, const char **ret_problem)
{
	struct mc_runstate *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d = opendir(state_dir);

	*ret = NULL;
	*ret_n = 0;
	*ret_refused = 0;
	*ret_problem = NULL;
	if (!d)
		return errno == ENOMEM ? -ENOMEM : 0;
	while ((de = readdir(d))) {
		struct mc_runstate s;
		size_t line = 0;
		long pid = state_pid(de->d_name);
		int r;

		if (!pid || !pid_alive(pid))
			continue;
		r = mc_runstate_read(state_dir, de->d_name, &s, &line);
		if (r == -ENOENT)
			continue;   /* the daemon stopped meanwhile */
		if (r == 0 && s.pid != pid) {
			mc_runstate_release(&s);
			r = -EINVAL;
		}
		if (r == -ENOMEM || (r == 0 && mc_array_reserve(&v, &cap, n + 1, sizeof(*v)) < 0)) {
			if (r == 0)
				mc_runstate_release(&s);
			for (size_t i = 0; i < n; i++)
				mc_runstate_release(&v[i]);
			free(v);
			closedir(d);
			return -ENOMEM;
		}
		if (r < 0) {
			(*ret_refused)++;
			*ret_problem = problem_of(r);
			continue;
		}
		v[n++] = s;
	}
	closedir(d);
	*ret = v;
	*ret_n = n;
	return 0;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h;
}

/*
 * Listing the state directory (an open, a getdents, an fstatat per file,
 * a close) every second is most of what `memctl top` spends on the
 * daemons. The names, inodes, sizes and modification times change only
 * through the directory: a file made, removed or renamed in it, written or
 * its times set, each an inotify event of a watch on the directory. So a
 * watched directory is listed again only after an event (or a lost watch,
 * or an overflowed queue); each signature still asks every process listed
 * whether it lives, which no event says. The directory itself is looked
 * up at every call (one fstatat): removed, replaced or moved away, its
 * path names another directory (or none), which is then watched anew.
 */
#define WATCH_MASK (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_MODIFY | IN_ATTRIB | \
		    IN_CLOSE_WRITE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

void mc_runstate_watch_init(struct mc_runstate_watch *w, bool inotify)
{
	memset(w, 0, sizeof(*w));
	w->fd = inotify ? inotify_init1(IN_NONBLOCK | IN_CLOEXEC) : -1;
	w->wd = -1;
}

void mc_runstate_watch_release(struct mc_runstate_watch *w)
{
	if (w->fd >= 0)
		close(w->fd);
	free(w->v);
	memset(w, 0, sizeof(*w));
	w->fd = w->wd = -1;
}

/* Reads the queued events: false when there were none (the listing still holds). */
static bool watch_drain(struct mc_runstate_watch *w)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool any = false;
	ssize_t len;

	while ((len = read(w->fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + len;) {
			const struct inotify_event *e = (const struct inotify_event *)p;

			if (e->mask & IN_IGNORED && e->wd == w->wd)
				w->wd = -1;   /* the directory went: watched anew */
			p += sizeof(*e) + e->len;
		}
		any = true;
	}
	return any;
}

/* Lists state_dir into w's entries (pid and what the signature takes of each file). */
static int watch_list(struct mc_runstate_watch *w, const char *state_dir)
{
	struct dirent *de;
	DIR *d = opendir(state_dir);

	w->n = 0;
	w->listings++;
	if (!d)
		return errno == ENOMEM ? -ENOMEM : 0;
	while ((de = readdir(d))) {
		long pid = state_pid(de->d_name);
		struct stat st;

		if (!pid || fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (mc_array_reserve(&w->v, &w->cap, w->n + 1, sizeof(*w->v)) < 0) {
			closedir(d);
			w->n = 0;
			return -ENOMEM;
		}
		w->v[w->n].pid = pid;
		w->v[w->n++].part = mix(mix(mix((uint64_t)pid, (uint64_t)st.st_ino), (uint64_t)st.st_size),
					(uint64_t)st.st_mtim.tv_sec * 1000000000ULL +
						(uint64_t)st.st_mtim.tv_nsec);
	}
	closedir(d);
	return 0;
}

/* Whether w's listing of state_dir still holds: watched, the same directory, no event since. */
static bool watch_holds(struct mc_runstate_watch *w, const char *state_dir)
{
	struct stat st;
	bool events;

	if (w->fd < 0)
		return false;
	events = watch_drain(w);
	if (stat(state_dir, &st) < 0) {
		w->listed = false;
		return false;
	}
	if (w->wd >= 0 && (st.st_dev != w->dev || st.st_ino != w->ino)) {
		inotify_rm_watch(w->fd, w->wd);
		w->wd = -1;
	}
	if (w->wd < 0) {
		struct stat again;

		w->listed = false;
		w->wd = inotify_add_watch(w->fd, state_dir, WATCH_MASK);
		/* the directory watched is the one looked up, not one put there meanwhile */
		if (w->wd >= 0 && (stat(state_dir, &again) < 0 || again.st_dev != st.st_dev ||
				   again.st_ino != st.st_ino)) {
			inotify_rm_watch(w->fd, w->wd);
			w->wd = -1;
		}
		w->dev = st.st_dev;
		w->ino = st.st_ino;
		return false;
	}
	if (events)
		w->listed = false;
	return w->listed;
}

int mc_runstate_dir_sig_watched(struct mc_runstate_watch *w, const char *state_dir, uint64_t *ret)
{
	uint64_t h = 0;

	*ret = 0;
	if (!watch_holds(w, state_dir)) {
		int r = watch_list(w, state_dir);

		if (r < 0)
			return r;
		w->listed = w->wd >= 0;
	}
	/* order-independent: readdir's order may change */
	for (size_t i = 0; i < w->n; i++)
		h += mix(w->v[i].part, pid_alive(w->v[i].pid));
	*ret = w->n ? (h ? h : 1) : 0;
	return 0;
}

int mc_runstate_dir_sig(const char *state_dir, uint64_t *ret)
{
	struct mc_runstate_watch w;
	int r;

	mc_runstate_watch_init(&w, false);
	r = mc_runstate_dir_sig_watched(&w, state_dir, ret);
	mc_runstate_watch_release(&w);
	return r;
}

/* Whether anc is path or an ancestor of it (both absolute). */
static bool covers(const char *anc, const char *path)
{
	size_t n = strlen(anc);

	if (strcmp(anc, "/") == 0)
		return true;
	return strncmp(anc, path, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

int mc_runstate_owner(const struct mc_runstate *v, size_t n, const char *group)
{
	size_t best_len = 0;
	int best = -1;

	for (size_t i = 0; i < n; i++)
		if (v[i].parent && covers(v[i].parent, group) &&
		    (best < 0 || strlen(v[i].parent) > best_len)) {
			best = (int)i;
			best_len = strlen(v[i].parent);
		}
	return best;
}

const struct mc_run_decision *mc_runstate_next(const struct mc_runstate *s, const char *group,
					       size_t *pos)
{
	for (; *pos < s->n_dec; (*pos)++)
		if (strcmp(s->dec[*pos].group, group) == 0)
			return &s->dec[(*pos)++];
	return NULL;
}

const struct mc_run_group *mc_runstate_group(const struct mc_runstate *s, const char *group)
{
	for (size_t i = 0; i < s->n_groups; i++)
		if (strcmp(s->groups[i].group, group) == 0)
			return &s->groups[i];
	return NULL;
}
