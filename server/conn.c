// SPDX-License-Identifier: MIT
/*
 * conn.c - a connection of `rqlock server` (docs/SERVER.md): commands sent
 * whole (fragmented as fio does) with a send timeout, commands received
 * with the read timeout (a started packet must complete) and the idle
 * timeout, the refusal that ends a connection, the linger after our QUIT,
 * and the busy answer a second client gets while one is served.  Calls
 * nothing else of server/ but the wire format (fio_proto.c).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "server/fio_proto.h"
#include "server/server_internal.h"

/*
 * Busy answers waiting for their client to hang up, each on a thread of
 * its own for at most BUSY_LINGER_MS; past this many, the accept thread
 * answers and lingers 1 s.
 */
#define BUSY_ANSWERS_MAX 8
#define BUSY_LINGER_MS 30000

atomic_int srv_quit;

/* One line on stderr, prefixed with the peer. */
void srv_log(const struct conn *c, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "rqlock server: %s%s%s\n", c ? c->peer : "", c ? ": " : "", line);
}

uint64_t srv_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ---------------------------------------------------------------- sending */

static int send_all(struct conn *c, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = send(c->fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* One command, in fragments of at most 1024 bytes, F_MORE on all but the last. */
int srv_send_cmd(struct conn *c, uint16_t op, uint64_t tag, const void *pdu, size_t len)
{
	const uint8_t *p = pdu;
	uint8_t hdr[FIO_NET_HDR_LEN];

	if (c->dead)
		return -EPIPE;
	do {
		size_t n = len > FIO_MAX_FRAGMENT_PDU ? FIO_MAX_FRAGMENT_PDU : len;

		rq_fio_hdr_encode(hdr, op, n < len ? FIO_NET_CMD_F_MORE : 0, tag, p, (uint32_t)n);
		if (send_all(c, hdr, sizeof(hdr)) || (n && send_all(c, p, n))) {
			c->dead = true;
			return -EPIPE;
		}
		p += n;
		len -= n;
	} while (len);
	return 0;
}

int srv_send_text(struct conn *c, uint32_t level, const char *text, size_t len)
{
	struct fio_text_pdu *p;
	struct timeval tv;
	int ret;

	if (!len)
		return 0;
	p = malloc(sizeof(*p) + len);
	if (!p)
		return -ENOMEM;
	gettimeofday(&tv, NULL);
	p->level = htole32(level);
	p->buf_len = htole32((uint32_t)len);
	p->log_sec = htole64((uint64_t)tv.tv_sec);
	p->log_usec = htole64((uint64_t)tv.tv_usec);
	memcpy(p->buf, text, len);
	ret = srv_send_cmd(c, FIO_NET_CMD_TEXT, 0, p, sizeof(*p) + len);
	free(p);
	return ret;
}

int srv_send_textf(struct conn *c, uint32_t level, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	return srv_send_text(c, level, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* STOP then QUIT: the end of a run as the client expects it (fio folds the two too). */
void srv_send_stop_quit(struct conn *c, int error, int sig)
{
	struct fio_end_pdu p = { htole32((uint32_t)error), htole32((uint32_t)sig) };

	srv_send_cmd(c, FIO_NET_CMD_STOP, 0, &p, sizeof(p));
	srv_send_cmd(c, FIO_NET_CMD_QUIT, 0, NULL, 0);
}

/* Refuse what the client asked: a message it prints, an error it reports, the end. */
void srv_refuse(struct conn *c, int error, const char *msg)
{
	srv_log(c, "refused: %s", msg);
	srv_send_textf(c, FIO_LOG_ERR, "rqlock server: %s\n", msg);
	srv_send_stop_quit(c, error, 0);
	c->dead = true;
}

/* -------------------------------------------------------------- receiving */

/*
 * Wait up to @wait_ms for a whole command (-1: the connection's idle
 * timeout; 0: only what is already there).  A packet once started must
 * complete within the read timeout.  Returns RECV_CMD (in @cmd), RECV_NONE
 * (nothing yet), or RECV_GONE after one log line saying why.
 */
int srv_recv_cmd(struct conn *c, int wait_ms, struct rq_fio_cmd *cmd)
{
	uint64_t partial_since = 0;

	for (;;) {
		struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
		size_t used;
		int ret, timeout;
		ssize_t n;

		if (c->in_off < c->in_len) {
			ret = rq_fio_rx_feed(&c->rx, c->in + c->in_off, c->in_len - c->in_off, &used);
			c->in_off += used;
			if (ret == RQ_FIO_RX_CMD) {
				rq_fio_rx_cmd(&c->rx, cmd);
				return RECV_CMD;
			}
			if (ret < 0) {
				if (ret == RQ_FIO_RX_BAD_VERSION)
					srv_log(c, "dropped: protocol version %u, this server speaks %u (fio-3.33)",
					     c->rx.version, FIO_SERVER_VER);
				else
					srv_log(c, "dropped: %s (%s)", rq_fio_rx_strerror(ret),
					     rq_fio_op_name(c->rx.cur.opcode));
				return RECV_GONE;
			}
		}
		if (!rq_fio_rx_idle(&c->rx)) {
			if (!partial_since)
				partial_since = srv_now_ns();
			timeout = c->srv->cfg.read_timeout_ms -
				  (int)((srv_now_ns() - partial_since) / 1000000);
			if (timeout <= 0) {
				srv_log(c, "dropped: slow partial packet (incomplete after %d ms)",
				     c->srv->cfg.read_timeout_ms);
				return RECV_GONE;
			}
			if (wait_ms >= 0 && wait_ms < timeout && !c->rx.in_frag && !c->rx.hdr_have)
				timeout = wait_ms;
		} else {
			timeout = wait_ms < 0 ? c->srv->cfg.idle_timeout_ms : wait_ms;
		}
		ret = poll(&pfd, 1, timeout);
		if (ret < 0 && errno == EINTR) {
			if (srv_quit)
				return RECV_NONE;
			continue;
		}
		if (ret == 0) {
			if (!rq_fio_rx_idle(&c->rx))
				continue;	/* the read timeout decides */
			if (wait_ms < 0) {
				srv_log(c, "dropped: idle for %d ms", c->srv->cfg.idle_timeout_ms);
				return RECV_GONE;
			}
			return RECV_NONE;
		}
		n = recv(c->fd, c->in, sizeof(c->in), 0);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			if (!rq_fio_rx_idle(&c->rx))
				srv_log(c, "dropped: connection closed inside a packet");
			return RECV_GONE;
		}
		c->in_off = 0;
		c->in_len = (size_t)n;
	}
}

/*
 * After our QUIT the client closes: wait for that up to @ms, reading what
 * it still sends, so that it reads everything (closing with unread input
 * would reset the connection and lose our last packets).
 */
void srv_linger_close(int fd, unsigned int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint8_t sink[4096];
	uint64_t until = srv_now_ns() + (uint64_t)ms * 1000000ULL;

	shutdown(fd, SHUT_WR);
	while (srv_now_ns() < until && !srv_quit && poll(&pfd, 1, 100) >= 0) {
		ssize_t n = recv(fd, sink, sizeof(sink), MSG_DONTWAIT);

		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			break;
	}
	close(fd);
}

/* ----------------------------------------------------------- busy answers */

/*
 * A second client while one is served: told at once who holds the server
 * and since when; the client prints the line and exits 1.  A run owns the
 * machine's workers, so runs are never served side by side.  The socket
 * stays open, its input drained, until the client hangs up (or @linger_ms):
 * fio sends its job after connecting, and a job written into a closed
 * socket kills the client with SIGPIPE before it reads the answer - on a
 * loaded machine the job can come seconds late.
 */
static void answer_busy(struct server *s, int fd, const char *peer, unsigned int linger_ms)
{
	struct conn *c = calloc(1, sizeof(*c));
	struct timeval tv = { .tv_sec = 1 };
	char msg[512], ts[32];
	struct tm tm;
	time_t since;

	if (!c) {
		close(fd);
		return;
	}
	c->srv = s;
	c->fd = fd;
	snprintf(c->peer, sizeof(c->peer), "%s", peer);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	pthread_mutex_lock(&s->busy_lock);
	since = s->busy_since;
	gmtime_r(&since, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%d %H:%M:%S UTC", &tm);
	snprintf(msg, sizeof(msg), "%s: busy, serving %s since %s (%lld s): one client at a time, try again "
		 "when it is done", s->cfg.name, s->busy_peer, ts, (long long)(time(NULL) - since));
	pthread_mutex_unlock(&s->busy_lock);
	srv_refuse(c, EBUSY, msg);
	srv_linger_close(fd, linger_ms);
	free(c);
}

static void *busy_thread(void *arg)
{
	struct serve_arg *a = arg;
	struct server *s = a->s;

	answer_busy(s, a->fd, a->peer, BUSY_LINGER_MS);
	free(a);
	pthread_mutex_lock(&s->busy_lock);
	s->busy_answers--;
	pthread_mutex_unlock(&s->busy_lock);
	return NULL;
}

/* answer_busy() on a thread of its own, so a slow client holds no one up; 1 s here past the cap. */
void srv_busy_answer(struct server *s, int fd, const char *peer)
{
	struct serve_arg *a = calloc(1, sizeof(*a));
	pthread_attr_t attr;
	pthread_t th;
	bool room;

	pthread_mutex_lock(&s->busy_lock);
	room = a && s->busy_answers < BUSY_ANSWERS_MAX;
	s->busy_answers += room;
	pthread_mutex_unlock(&s->busy_lock);
	if (room) {
		a->s = s;
		a->fd = fd;
		snprintf(a->peer, sizeof(a->peer), "%s", peer);
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		room = !pthread_create(&th, &attr, busy_thread, a);
		pthread_attr_destroy(&attr);
		if (room)
			return;
		pthread_mutex_lock(&s->busy_lock);
		s->busy_answers--;
		pthread_mutex_unlock(&s->busy_lock);
	}
	free(a);
	answer_busy(s, fd, peer, 1000);
}

/* At exit: the busy answers' threads are done with the server (srv_quit or their clients' hang-up ends them). */
void srv_busy_answers_wait(struct server *s)
{
	for (;;) {
		unsigned int n;

		pthread_mutex_lock(&s->busy_lock);
		n = s->busy_answers;
		pthread_mutex_unlock(&s->busy_lock);
		if (!n)
			return;
		usleep(10000);
	}
}
