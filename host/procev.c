/*
 * The proc connector (see procev.h): a netlink socket bound to the
 * connector's process-event group, after one PROC_CN_MCAST_LISTEN request.
 * The kernel acknowledges the request by an event of its own while the
 * request is being sent, so by the time send() returns the acknowledgement
 * is queued, or the kernel ignored the request (a listener outside the
 * initial namespaces). Events are queued on the socket as the tasks fork
 * and exit, before the forking or exiting task goes on; a queue that
 * overflows makes the next receive fail with ENOBUFS, which says that some
 * were lost. Only datagrams from the kernel (port 0) are taken.
 */
#include <errno.h>
#include <stdbool.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "buf.h"
#include "procev.h"

struct mc_procev {
	int fd;
};

/* Room for the kernel's queue of events between two drains: about 5000. */
#define PROCEV_RCVBUF (4 << 20)
#define PROCEV_BATCH 64
#define PROCEV_MSG 256

static int mcast_op(int fd, enum proc_cn_mcast_op op)
{
	struct {
		struct nlmsghdr nh;
		struct cn_msg cn;
		enum proc_cn_mcast_op op;
	} __attribute__((packed)) req;

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = sizeof(req);
	req.nh.nlmsg_type = NLMSG_DONE;
	req.cn.id.idx = CN_IDX_PROC;
	req.cn.id.val = CN_VAL_PROC;
	req.cn.len = sizeof(req.op);
	req.op = op;
	return send(fd, &req, sizeof(req), 0) < 0 ? -errno : 0;
}

/*
 * The process event in one datagram of len bytes from port, copied into
 * *ev: the kernel puts it right after the 20-byte connector header, at an
 * offset its 64-bit timestamp may not be aligned at. false: not one.
 */
static bool event_of(const char *buf, size_t len, const struct sockaddr_nl *from,
		     struct proc_event *ev)
{
	const struct nlmsghdr *nh = (const void *)buf;
	const struct cn_msg *cn;

	if (from->nl_pid != 0 || len < NLMSG_LENGTH(sizeof(*cn)) || nh->nlmsg_len > len ||
	    nh->nlmsg_len < NLMSG_LENGTH(sizeof(*cn)))
		return false;
	cn = NLMSG_DATA(nh);
	if (cn->id.idx != CN_IDX_PROC || cn->id.val != CN_VAL_PROC ||
	    cn->len < sizeof(*ev) || cn->len > nh->nlmsg_len - NLMSG_LENGTH(sizeof(*cn)))
		return false;
	memcpy(ev, cn->data, sizeof(*ev));
	return true;
}

/*
 * Receives what is queued; each event goes to fn. 1: events were lost;
 * 0; -errno.
 */
static int receive(int fd, int (*fn)(void *, const struct proc_event *), void *arg)
{
	char bufs[PROCEV_BATCH][PROCEV_MSG] __attribute__((aligned(8)));
	struct sockaddr_nl from[PROCEV_BATCH];
	struct mmsghdr mm[PROCEV_BATCH];
	struct iovec iov[PROCEV_BATCH];
	int lost = 0;

	for (;;) {
		int got;

		for (int k = 0; k < PROCEV_BATCH; k++) {
			iov[k] = (struct iovec){ .iov_base = bufs[k], .iov_len = PROCEV_MSG };
			mm[k].msg_hdr = (struct msghdr){ .msg_name = &from[k],
							 .msg_namelen = sizeof(from[k]),
							 .msg_iov = &iov[k], .msg_iovlen = 1 };
		}
		got = recvmmsg(fd, mm, PROCEV_BATCH, MSG_DONTWAIT, NULL);
		if (got < 0) {
			if (errno == ENOBUFS) {
				lost = 1;
				continue;
			}
			if (errno == EINTR)
				continue;
			return errno == EAGAIN || errno == EWOULDBLOCK ? lost : -errno;
		}
		for (int k = 0; k < got; k++) {
			struct proc_event ev;
			int r;

			if (mm[k].msg_hdr.msg_flags & MSG_TRUNC ||
			    !event_of(bufs[k], mm[k].msg_len, &from[k], &ev))
				continue;
			if ((r = fn(arg, &ev)) != 0)
				return r;
		}
		if (got < PROCEV_BATCH)
			return lost;
	}
}

/* The acknowledgement of the listen request: 1 (found, stop), 0 (go on). */
static int is_ack(void *arg, const struct proc_event *ev)
{
	int *err = arg;

	if (ev->what != PROC_EVENT_NONE)
		return 0;
	*err = -(int)ev->event_data.ack.err;
	return 1;
}

int mc_procev_open(struct mc_procev **ret)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	int size = PROCEV_RCVBUF, err = 0, r;
	struct mc_procev *p;
	int fd;

	*ret = NULL;
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_CONNECTOR);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || (r = mcast_op(fd, PROC_CN_MCAST_LISTEN)) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	r = receive(fd, is_ack, &err);
	if (r != 1 || err < 0) {
		(void)mcast_op(fd, PROC_CN_MCAST_IGNORE);
		close(fd);
		return r < 0 ? r : err < 0 ? err : -EOPNOTSUPP;
	}
	p = malloc(sizeof(*p));
	if (!p) {
		(void)mcast_op(fd, PROC_CN_MCAST_IGNORE);
		close(fd);
		return -ENOMEM;
	}
	p->fd = fd;
	*ret = p;
	return 0;
}

void mc_procev_close(struct mc_procev *p)
{
	if (!p)
		return;
	/* the kernel counts listeners and sends nothing when none is left */
	(void)mcast_op(p->fd, PROC_CN_MCAST_IGNORE);
	close(p->fd);
	free(p);
}

struct drain_to {
	pid_t **v;
	size_t *n, *cap;
};

static int add_tgid(void *arg, const struct proc_event *ev)
{
	struct drain_to *d = arg;
	pid_t tgid;

	if (ev->what == PROC_EVENT_FORK) {
		if (ev->event_data.fork.child_tgid == ev->event_data.fork.parent_tgid)
			return 0;   /* a thread: no new process */
		tgid = ev->event_data.fork.parent_tgid;
	} else if (ev->what == PROC_EVENT_EXIT) {
		tgid = ev->event_data.exit.process_tgid;
	} else {
		return 0;
	}
	if (mc_array_reserve(d->v, d->cap, *d->n + 1, sizeof(**d->v)) < 0)
		return -ENOMEM;
	(*d->v)[(*d->n)++] = tgid;
	return 0;
}

int mc_procev_drain(struct mc_procev *p, pid_t **tgids, size_t *n, size_t *cap)
{
	struct drain_to d = { tgids, n, cap };

	return receive(p->fd, add_tgid, &d);
}
