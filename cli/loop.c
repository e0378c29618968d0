/* The daemons' loop helpers (loop.h). */
#include <errno.h>
#include <stdarg.h>
#include <poll.h>
#include <stdio.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "buf.h"
#include "escape.h"
#include "loop.h"

void mc_loop_block_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	sigprocmask(SIG_BLOCK, set, NULL);
}

void mc_deadline_add(struct timespec *t, uint64_t ms)
{
	t->tv_sec += (time_t)(ms / 1000);
	t->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (t->tv_nsec >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	}
}

void mc_deadline_next(struct timespec *t, uint64_t ms)
{
	struct timespec now, late;

	mc_deadline_add(t, ms);
	clock_gettime(CLOCK_MONOTONIC, &now);
	late = *t;
	mc_deadline_add(&late, ms);
	if (now.tv_sec > late.tv_sec || (now.tv_sec == late.tv_sec && now.tv_nsec > late.tv_nsec))
		*t = now;
}

bool mc_ts_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* What is left from now until deadline (0 when it is past). */
static struct timespec time_left(const struct timespec *deadline)
{
	struct timespec now, left;

	clock_gettime(CLOCK_MONOTONIC, &now);
	left.tv_sec = deadline->tv_sec - now.tv_sec;
	left.tv_nsec = deadline->tv_nsec - now.tv_nsec;
	if (left.tv_nsec < 0) {
		left.tv_sec--;
		left.tv_nsec += 1000000000L;
	}
	if (left.tv_sec < 0)
		left.tv_sec = left.tv_nsec = 0;
	return left;
}

int mc_wait_signal(const sigset_t *set, const struct timespec *deadline)
{
	for (;;) {
		struct timespec left = time_left(deadline);
		int sig = sigtimedwait(set, NULL, &left);

		if (sig > 0)
			return sig;
		if (errno == EAGAIN)
			return 0;
	}
}

int mc_loop_signalfd(const sigset_t *set)
{
	int fd = signalfd(-1, set, SFD_NONBLOCK | SFD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int mc_wait_signal_fd(int sigfd, const struct timespec *deadline, int fd, bool *ret_fd)
{
	*ret_fd = false;
	for (;;) {
		struct pollfd p[2] = { { .fd = sigfd, .events = POLLIN }, { .fd = fd, .events = POLLIN } };
		struct timespec left = time_left(deadline);
		struct signalfd_siginfo si;
		int n = ppoll(p, 2, &left, NULL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		/* a signal first: SIGTERM ends the loop even while the fd is busy */
		if ((p[0].revents & POLLIN) && read(sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
			return (int)si.ssi_signo;
		*ret_fd = p[1].revents != 0;
		if (*ret_fd || n == 0)
			return 0;
	}
}

void mc_loop_log(bool journal, const char *who, int prio, const char *fmt, ...)
{
	struct mc_buf b = { 0 };
	va_list ap;

	va_start(ap, fmt);
	mc_esc_controls_fmt(&b, fmt, ap);
	va_end(ap);
	if (journal)
		fprintf(stderr, "<%d>", prio);
	else
		fprintf(stderr, "memctl %s: ", who);
	fprintf(stderr, "%s\n", mc_buf_error(&b) < 0 ? "out of memory" : mc_buf_str(&b));
	mc_buf_release(&b);
}
