// SPDX-License-Identifier: MIT
/*
 * server.c - `rqlock server`: fio 3.33's --server, backed by rqlock's engine.
 *
 * A fio client (`fio --client=HOST job.fio`) connects, probes, sends its
 * job file and says RUN; the server runs the jobs through rqlock's block
 * layer with the lock options given on the server's command line, and
 * answers with the packets a fio server sends (docs/SERVER.md has the
 * exchange).  One connection is served at a time, then the next: a run
 * owns the machine's workers anyway, and rq_engine_stop() is process-wide.
 *
 * Threads: the service thread (this file) reads the socket and answers;
 * while jobs run, one run thread sits in rq_engine_run() and the engine's
 * workers do the I/O.  The service thread keeps answering SEND_ETA during
 * the run and notices a vanished client (EOF, error, a slow partial packet),
 * stops the run (in-flight I/O drains), joins the run thread and frees the
 * engine before it accepts again: nothing outlives a connection.
 *
 * Security: a peer makes this process do I/O.  Non-loopback addresses are
 * refused unless --allow-nonlocal; a job may open only what --allow names
 * (built-in devices by default), checked before anything is opened, so a
 * refused job creates nothing; the engine's write-safety checks apply as in
 * `rqlock run` (no --allow-mounted-write here).  Every protocol failure is
 * one line on stderr and the end of that connection only.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "engine/engine.h"
#include "queues/queue.h"
#include "server/fio_proto.h"
#include "server/server.h"
#include "server/server_internal.h"

enum { EXIT_BAD_INPUT = 2 };

#define MAX_ALLOW 64
#define DEF_READ_TIMEOUT_MS 5000	/* a started packet must be complete within this */
#define DEF_IDLE_TIMEOUT_MS 30000	/* a connected client must say something within this */
#define SEND_TIMEOUT_S 10		/* a client that stops reading is a vanished one */
#define DEF_MAX_NUMJOBS 256
#define DEF_MAX_FILES 1024
#define DEF_MAX_IODEPTH 1024
#define DEF_MAX_RUNTIME_S 3600

struct allow_entry {
	char path[PATH_MAX];
	bool dir;			/* everything under path/ */
};

struct server {
	struct rq_engine_opts eo;
	char addr_desc[PATH_MAX + 32];
	char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];	/* "" for IP */
	int listen_fd;
	bool allow_builtin;
	struct allow_entry allow[MAX_ALLOW];
	unsigned int nr_allow;
	int read_timeout_ms, idle_timeout_ms;
	unsigned int max_conns;		/* 0 = serve forever */
	unsigned int max_numjobs, max_files, max_iodepth;
	unsigned int max_runtime_s;	/* a run is stopped after this much wall time */
	char name[64];			/* the host name clients see (PROBE's hostname) */
	/* the connection being served, for a second client's busy answer */
	pthread_mutex_t busy_lock;
	bool busy;			/* under busy_lock */
	char busy_peer[96];		/* under busy_lock */
	time_t busy_since;		/* under busy_lock */
	unsigned int busy_answers;	/* under busy_lock: answer_busy() threads alive */
};

/*
 * Busy answers waiting for their client to hang up, each on a thread of
 * its own for at most BUSY_LINGER_MS; past this many, the accept thread
 * answers and lingers 1 s.
 */
#define BUSY_ANSWERS_MAX 8
#define BUSY_LINGER_MS 30000

/* One connection's state. */
struct conn {
	struct server *srv;
	int fd;
	char peer[96];
	struct rq_fio_rx rx;
	uint8_t in[4096];
	size_t in_off, in_len;
	struct rq_fio_emit em;
	bool normal_out;		/* the client wants fio's normal output (TEXT makes sense) */
	bool have_jobs, dead;
	uint64_t last_cmd_ns;		/* the last command that was not SEND_ETA: the idle timeout's start */
	struct rq_job_list jobs;
	unsigned int nr_clones, nr_ts;
	uint64_t run_start_ns;
	atomic_uint running;		/* clones in the current run, for ETA */
};

static atomic_int g_quit;		/* set by the signal handler, read by every connection thread (lock-free, so signal-safe) */

static void slog(const struct conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One line on stderr, prefixed with the peer. */
static void slog(const struct conn *c, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "rqlock server: %s%s%s\n", c ? c->peer : "", c ? ": " : "", line);
}

static uint64_t now_ns(void)
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
static int send_cmd(struct conn *c, uint16_t op, uint64_t tag, const void *pdu, size_t len)
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

static int emit_fn(struct rq_fio_emit *em, uint16_t op, const void *pdu, size_t len)
{
	struct conn *c = (struct conn *)((char *)em - offsetof(struct conn, em));

	return send_cmd(c, op, 0, pdu, len);
}

static int send_text(struct conn *c, uint32_t level, const char *text, size_t len)
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
	ret = send_cmd(c, FIO_NET_CMD_TEXT, 0, p, sizeof(*p) + len);
	free(p);
	return ret;
}

static int send_textf(struct conn *c, uint32_t level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int send_textf(struct conn *c, uint32_t level, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	return send_text(c, level, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

static int send_start(struct conn *c, uint32_t jobs, uint32_t stat_outputs)
{
	struct fio_start_pdu p = { htole32(jobs), htole32(stat_outputs) };

	return send_cmd(c, FIO_NET_CMD_START, 0, &p, sizeof(p));
}

/* STOP then QUIT: the end of a run as the client expects it (fio folds the two too). */
static void send_stop_quit(struct conn *c, int error, int sig)
{
	struct fio_end_pdu p = { htole32((uint32_t)error), htole32((uint32_t)sig) };

	send_cmd(c, FIO_NET_CMD_STOP, 0, &p, sizeof(p));
	send_cmd(c, FIO_NET_CMD_QUIT, 0, NULL, 0);
}

/* Refuse what the client asked: a message it prints, an error it reports, the end. */
static void refuse(struct conn *c, int error, const char *msg)
{
	slog(c, "refused: %s", msg);
	send_textf(c, FIO_LOG_ERR, "rqlock server: %s\n", msg);
	send_stop_quit(c, error, 0);
	c->dead = true;
}

/* -------------------------------------------------------------- receiving */

enum { RECV_CMD = 1, RECV_NONE = 0, RECV_GONE = -1 };

/*
 * Wait up to @wait_ms for a whole command (-1: the connection's idle
 * timeout; 0: only what is already there).  A packet once started must
 * complete within the read timeout.  Returns RECV_CMD (in @cmd), RECV_NONE
 * (nothing yet), or RECV_GONE after one log line saying why.
 */
static int recv_cmd(struct conn *c, int wait_ms, struct rq_fio_cmd *cmd)
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
					slog(c, "dropped: protocol version %u, this server speaks %u (fio-3.33)",
					     c->rx.version, FIO_SERVER_VER);
				else
					slog(c, "dropped: %s (%s)", rq_fio_rx_strerror(ret),
					     rq_fio_op_name(c->rx.cur.opcode));
				return RECV_GONE;
			}
		}
		if (!rq_fio_rx_idle(&c->rx)) {
			if (!partial_since)
				partial_since = now_ns();
			timeout = c->srv->read_timeout_ms -
				  (int)((now_ns() - partial_since) / 1000000);
			if (timeout <= 0) {
				slog(c, "dropped: slow partial packet (incomplete after %d ms)",
				     c->srv->read_timeout_ms);
				return RECV_GONE;
			}
			if (wait_ms >= 0 && wait_ms < timeout && !c->rx.in_frag && !c->rx.hdr_have)
				timeout = wait_ms;
		} else {
			timeout = wait_ms < 0 ? c->srv->idle_timeout_ms : wait_ms;
		}
		ret = poll(&pfd, 1, timeout);
		if (ret < 0 && errno == EINTR) {
			if (g_quit)
				return RECV_NONE;
			continue;
		}
		if (ret == 0) {
			if (!rq_fio_rx_idle(&c->rx))
				continue;	/* the read timeout decides */
			if (wait_ms < 0) {
				slog(c, "dropped: idle for %d ms", c->srv->idle_timeout_ms);
				return RECV_GONE;
			}
			return RECV_NONE;
		}
		n = recv(c->fd, c->in, sizeof(c->in), 0);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			if (!rq_fio_rx_idle(&c->rx))
				slog(c, "dropped: connection closed inside a packet");
			return RECV_GONE;
		}
		c->in_off = 0;
		c->in_len = (size_t)n;
	}
}

/* ------------------------------------------------------------ allow-list */

/* Canonical absolute form of @path; the last component need not exist. */
static int canon(const char *path, char *out)
{
	char dir[PATH_MAX], real[PATH_MAX];
	struct stat st;
	const char *base;
	char *slash;

	if (strlen(path) >= PATH_MAX)
		return -ENAMETOOLONG;
	if (realpath(path, out))
		return 0;
	if (errno != ENOENT)
		return -errno;
	if (!lstat(path, &st))
		return -ELOOP;	/* a dangling symlink: opening it would create its target, wherever that is */
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash == dir) {
		base = path + 1;
		snprintf(dir, sizeof(dir), "/");
	} else if (slash) {
		*slash = '\0';
		base = path + (slash - dir) + 1;
	} else {
		base = path;
		snprintf(dir, sizeof(dir), ".");
	}
	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return -EINVAL;
	if (!realpath(dir, real))
		return -errno;
	if (snprintf(out, PATH_MAX, "%s/%s", strcmp(real, "/") ? real : "", base) >= PATH_MAX)
		return -ENAMETOOLONG;
	return 0;
}

static bool path_allowed(const struct server *s, const char *path)
{
	char c[PATH_MAX];

	if (canon(path, c))
		return false;
	for (unsigned int i = 0; i < s->nr_allow; i++) {
		const struct allow_entry *a = &s->allow[i];
		size_t l = strlen(a->path);

		if (!strcmp(c, a->path))
			return true;
		if (a->dir && !strncmp(c, a->path, l) && (c[l] == '/' || !strcmp(a->path, "/")))
			return true;
	}
	return false;
}

struct check_ctx {
	const struct server *srv;
	char msg[2 * PATH_MAX];
};

/*
 * A built-in spec ("@null0,...", "@fault,...,of=INNER", "@hdd0,file=PATH"):
 * allowed by @builtin, except the files it names (file=) and what it wraps
 * (of=, the rest of the spec), which are checked on their own.
 */
static int check_name(struct check_ctx *x, const char *name);

static int check_builtin(struct check_ctx *x, const char *spec)
{
	const char *p = spec;

	if (!x->srv->allow_builtin) {
		snprintf(x->msg, sizeof(x->msg), "'%s': built-in devices are not in the allow-list", spec);
		return -EACCES;
	}
	/* "@x/../y" (directory=@x): not a built-in's name, and a path if a directory '@x' exists */
	if (memchr(spec, '/', strcspn(spec, ","))) {
		snprintf(x->msg, sizeof(x->msg), "'%s': not a built-in device (its name has a '/')", spec);
		return -EACCES;
	}
	while ((p = strchr(p, ',')) != NULL) {
		p++;
		if (!strncmp(p, "of=", 3))
			return check_name(x, p + 3);
		if (!strncmp(p, "file=", 5)) {
			char path[PATH_MAX];
			size_t l = strcspn(p + 5, ",");

			if (l >= sizeof(path))
				return -ENAMETOOLONG;
			memcpy(path, p + 5, l);
			path[l] = '\0';
			if (!path_allowed(x->srv, path)) {
				snprintf(x->msg, sizeof(x->msg), "'%s' (file= of %s) is not in the allow-list",
					 path, spec);
				return -EACCES;
			}
		}
	}
	return 0;
}

static int check_name(struct check_ctx *x, const char *name)
{
	if (name[0] == '@')
		return check_builtin(x, name);
	if (!path_allowed(x->srv, name)) {
		snprintf(x->msg, sizeof(x->msg), "'%s' is not in the allow-list (rqlock server --allow PATH)",
			 name);
		return -EACCES;
	}
	return 0;
}

/*
 * One path the engine would touch (engine/paths.c names them: the engine
 * opens exactly these): data files must be in the allow-list, a built-in
 * spec is judged with its file= and of=, and logs are refused - they would
 * be written at a path the client chose.
 */
static int judge_path(const struct rq_path *p, void *arg)
{
	struct check_ctx *x = arg;
	int ret;

	switch (p->kind) {
	case RQ_PATH_NONE:		/* ioengine=null: a null device, nothing opened */
	case RQ_PATH_ALIAS:		/* the operator's own --device */
		return 0;
	case RQ_PATH_LOG:
		snprintf(x->msg, sizeof(x->msg), "job '%s': %s would write '%s': a server writes no logs at "
			 "a client's path (run the job with rqlock run, or drop %s)", p->job->name, p->option,
			 p->path, p->option);
		return -EACCES;
	case RQ_PATH_INPUT:
		snprintf(x->msg, sizeof(x->msg), "job '%s': %s would read '%s': a server reads no logs at a "
			 "client's path (run the job with rqlock run, or drop %s)", p->job->name, p->option,
			 p->path, p->option);
		return -EACCES;
	case RQ_PATH_BUILTIN:
	case RQ_PATH_FILE:
		break;
	}
	ret = check_name(x, p->path);
	if (ret) {
		char why[sizeof(x->msg)];

		snprintf(why, sizeof(why), "%s", x->msg);
		snprintf(x->msg, sizeof(x->msg), "job '%s': %s: %.4200s%s", p->job->name, p->option, why,
			 p->flags & RQ_PATH_UNLINK ? " (and unlink=1 would delete it)" : "");
	}
	return ret;
}

/* What the server caps before a run: clones, files, depth. */
struct count_ctx {
	unsigned long files;
};

static int count_file(const struct rq_path *p, void *arg)
{
	struct count_ctx *n = arg;

	n->files += p->kind != RQ_PATH_LOG && p->kind != RQ_PATH_INPUT;
	return 0;
}

static int check_limits(const struct server *s, const struct rq_job_list *jobs, char *msg, size_t len)
{
	struct count_ctx n = { 0 };
	unsigned long clones = 0;

	for (unsigned int i = 0; i < jobs->nr; i++) {
		const struct rq_job *j = &jobs->jobs[i];

		clones += j->numjobs;
		if (clones > s->max_numjobs) {
			snprintf(msg, len, "job '%s': numjobs=%u takes the job file to %lu clones, over the "
				 "server's --max-numjobs=%u", j->name, j->numjobs, clones, s->max_numjobs);
			return -E2BIG;
		}
		if (j->iodepth > s->max_iodepth) {
			snprintf(msg, len, "job '%s': iodepth=%u is over the server's --max-iodepth=%u", j->name,
				 j->iodepth, s->max_iodepth);
			return -E2BIG;
		}
		/* the files before they are named: nrfiles alone may be huge */
		if ((unsigned long)rq_job_nr_files(j) * (rq_job_files_per_clone(j) ? j->numjobs : 1) >
		    s->max_files) {
			snprintf(msg, len, "job '%s': %u file(s) per clone, %u clone(s): over the server's "
				 "--max-files=%u", j->name, rq_job_nr_files(j), j->numjobs, s->max_files);
			return -E2BIG;
		}
	}
	rq_jobs_paths(&s->eo, jobs, count_file, &n);
	if (n.files > s->max_files) {
		snprintf(msg, len, "the job file names %lu data files, over the server's --max-files=%u", n.files,
			 s->max_files);
		return -E2BIG;
	}
	return 0;
}

#define INCLUDE_DEPTH 16			/* the parser's own limit is lower */
#define INCLUDE_MAX (1 << 20)			/* an allowed included file read for its own includes */

/*
 * 'include FILE' lines make the parser open FILE: they need the allow-list
 * too, and so do the includes inside an included file (read here, so a file
 * a job laid out in an allowed directory cannot include one outside it).
 * FILE is taken as the parser takes it: as given if it exists, else next
 * to the file holding the include (@outer, NULL for the sent job file).
 */
static int check_includes(struct check_ctx *x, const char *text, size_t len, const char *outer, int depth)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *q = p;
		size_t l;

		if (!eol)
			eol = end;
		while (q < eol && (*q == ' ' || *q == '\t'))
			q++;
		if ((size_t)(eol - q) > 8 && !strncmp(q, "include", 7) && (q[7] == ' ' || q[7] == '\t')) {
			char path[PATH_MAX], arg[PATH_MAX];
			const char *slash = outer ? strrchr(outer, '/') : NULL;
			char *buf;
			FILE *f;
			size_t n;
			int ret;

			q += 8;
			while (q < eol && (*q == ' ' || *q == '\t'))
				q++;
			l = (size_t)(eol - q);
			while (l && (q[l - 1] == ' ' || q[l - 1] == '\t' || q[l - 1] == '\r'))
				l--;
			if (l >= sizeof(arg))
				l = sizeof(arg) - 1;
			memcpy(arg, q, l);
			arg[l] = '\0';
			if (access(arg, F_OK) && slash && arg[0] != '/')
				n = (size_t)snprintf(path, sizeof(path), "%.*s%s", (int)(slash - outer + 1), outer, arg);
			else
				n = (size_t)snprintf(path, sizeof(path), "%s", arg);
			if (n >= sizeof(path) || !path_allowed(x->srv, path)) {
				snprintf(x->msg, sizeof(x->msg), "include '%s' is not in the allow-list", path);
				return -EACCES;
			}
			if (depth >= INCLUDE_DEPTH) {
				snprintf(x->msg, sizeof(x->msg), "include '%s': nested more than %d deep", path,
					 INCLUDE_DEPTH);
				return -ELOOP;
			}
			f = fopen(path, "re");
			if (!f) {
				p = eol + 1;
				continue;	/* the parser says it cannot open it */
			}
			buf = malloc(INCLUDE_MAX);
			n = buf ? fread(buf, 1, INCLUDE_MAX, f) : 0;
			fclose(f);
			ret = buf ? check_includes(x, buf, n, path, depth + 1) : -ENOMEM;
			free(buf);
			if (ret == -ENOMEM)
				snprintf(x->msg, sizeof(x->msg), "out of memory");
			if (ret)
				return ret;
		}
		p = eol + 1;
	}
	return 0;
}

/* ------------------------------------------------------------- commands */

static void on_probe(struct conn *c, const struct rq_fio_cmd *cmd)
{
	struct fio_probe_reply_pdu r;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	memset(&r, 0, sizeof(r));
	snprintf((char *)r.hostname, sizeof(r.hostname), "%s", c->srv->name);
	snprintf((char *)r.fio_version, sizeof(r.fio_version), "%s", RQ_VERSION);
	r.bigendian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	r.os = FIO_OS_LINUX;
	r.arch = FIO_ARCH_HOST;
	r.bpp = sizeof(void *);
	r.cpus = htole32(cpus > 0 ? (uint32_t)cpus : 1);
	r.flags = 0;			/* no zlib: iologs are not sent anyway */
	send_cmd(c, FIO_NET_CMD_PROBE, cmd->tag, &r, sizeof(r));
}

struct jobline_ctx {
	struct conn *c;
	unsigned int n;
	char bad[256];
};

static int jobline_arg(const char *arg, void *priv)
{
	struct jobline_ctx *x = priv;

	if (x->n++ == 0)
		return 0;		/* argv[0], "fio" */
	if (!strncmp(arg, "--output-format=", 16)) {
		x->c->normal_out = strstr(arg + 16, "normal") != NULL;
		return 0;
	}
	if (!strcmp(arg, "--minimal")) {
		x->c->normal_out = false;
		return 0;
	}
	/* display-only options of the client's side */
	if (!strncmp(arg, "--eta", 5) || !strncmp(arg, "--terse-version", 15) ||
	    !strncmp(arg, "--status-interval", 17))
		return 0;
	snprintf(x->bad, sizeof(x->bad), "%s", arg);
	return -EINVAL;
}

static void on_jobline(struct conn *c, const struct rq_fio_cmd *cmd)
{
	struct jobline_ctx x = { .c = c };
	int ret = rq_fio_jobline_each(cmd, jobline_arg, &x);
	char msg[512];

	if (ret == -EINVAL && x.bad[0]) {
		snprintf(msg, sizeof(msg),
			 "fio option '%s' is not supported by rqlock server: put the jobs in a job file", x.bad);
		refuse(c, EINVAL, msg);
		return;
	}
	if (ret < 0) {
		slog(c, "dropped: malformed JOBLINE payload");
		c->dead = true;
		return;
	}
	send_start(c, 0, 0);		/* as fio: no jobs from a bare command line */
}

static void on_job(struct conn *c, const struct rq_fio_cmd *cmd)
{
	struct check_ctx x = { .srv = c->srv };
	const char *text;
	char *copy, *err_buf = NULL;
	size_t len, err_len = 0;
	FILE *err;
	int ret;

	if (rq_fio_job_text(cmd, &text, &len)) {
		slog(c, "dropped: malformed JOB payload");
		c->dead = true;
		return;
	}
	if (c->have_jobs) {
		refuse(c, EINVAL, "one job file per run: give the server one file (or run again)");
		return;
	}
	if (check_includes(&x, text, len, NULL, 0)) {
		refuse(c, EACCES, x.msg);
		return;
	}
	copy = strndup(text, len);
	err = open_memstream(&err_buf, &err_len);
	if (!copy || !err) {
		free(copy);
		if (err)
			fclose(err);
		free(err_buf);
		refuse(c, ENOMEM, "out of memory");
		return;
	}
	ret = rq_jobs_parse_buf("job file", copy, &c->jobs, err);
	fclose(err);
	free(copy);
	if (ret) {
		err_buf[strcspn(err_buf, "\n")] = '\0';
		refuse(c, EINVAL, err_len ? err_buf : "the job file does not parse");
		free(err_buf);
		return;
	}
	free(err_buf);
	c->have_jobs = true;
	if (check_limits(c->srv, &c->jobs, x.msg, sizeof(x.msg))) {
		refuse(c, E2BIG, x.msg);
		return;
	}
	/* every path the engine would open, create, truncate or delete, before any is */
	x.msg[0] = '\0';
	ret = rq_jobs_paths(&c->srv->eo, &c->jobs, judge_path, &x);
	if (ret < 0) {
		if (!x.msg[0])
			snprintf(x.msg, sizeof(x.msg), "the jobs' file names: %s", strerror(-ret));
		refuse(c, EACCES, x.msg);
		return;
	}
	c->nr_ts = rq_fio_nr_ts(&c->jobs, &c->nr_clones);
	if (c->normal_out) {
		send_textf(c, FIO_LOG_INFO, "rqlock server %s (%s): lock=%s lock-type=%s workers=%u lockdep=%s\n",
			   RQ_VERSION, c->srv->name, c->srv->eo.lock_mode, c->srv->eo.lock_type, c->srv->eo.workers,
			   c->srv->eo.lockdep ? "on" : "off");
		for (unsigned int i = 0; i < c->jobs.nr; i++) {
			const struct rq_job *j = &c->jobs.jobs[i];

			send_textf(c, FIO_LOG_INFO, "%s: (g=%d): rw=%s, bs=(R) %uB, (W) %uB, (T) %uB, iodepth=%u, "
				   "filename=%s\n", j->name, j->groupid, rq_rw_name(j->rw), j->bs[0], j->bs[1],
				   j->bs[2], j->iodepth,
				   j->filename[0] ? j->filename : "(none)");
		}
	}
	send_start(c, c->nr_clones, c->nr_ts);
}

struct run_ctx {
	struct rq_engine *e;
	FILE *err;
	int ret;
	atomic_bool done;
};

static void *run_thread(void *arg)
{
	struct run_ctx *r = arg;

	r->ret = rq_engine_run(r->e, r->err);
	atomic_store(&r->done, true);
	return NULL;
}

/*
 * The seconds left when every job is time_based: per group (stonewall), the
 * longest ramp + runtime, groups one after the other; 0 (unknown) otherwise.
 */
static uint64_t eta_total_sec(const struct rq_job_list *jobs)
{
	uint64_t total = 0, group = 0;
	int gid = -1;

	for (unsigned int i = 0; i < jobs->nr; i++) {
		const struct rq_job *j = &jobs->jobs[i];
		uint64_t t = (j->ramp_ns + j->runtime_ns) / 1000000000ULL;

		if (!j->time_based || !j->runtime_ns)
			return 0;
		if (j->groupid != gid) {
			total += group;
			group = 0;
			gid = j->groupid;
		}
		if (t > group)
			group = t;
	}
	return total + group;
}

static void send_eta(struct conn *c, uint64_t tag)
{
	unsigned int running = atomic_load(&c->running);
	unsigned int nr = running < 256 ? running : 256;
	/* run_str after the struct, NUL-terminated: the client strcpy()s it */
	struct {
		struct fio_eta_pdu p;
		char run_str[257];
	} __attribute__((packed)) e;
	uint64_t elapsed = 0, total;

	memset(&e, 0, sizeof(e));
	if (c->run_start_ns && running)
		elapsed = (now_ns() - c->run_start_ns) / 1000000000ULL;
	total = running && c->have_jobs ? eta_total_sec(&c->jobs) : 0;
	e.p.nr_running = htole32(running);
	e.p.nr_threads = htole32(nr);
	e.p.elapsed_sec = htole64(elapsed);
	e.p.eta_sec = htole64(total > elapsed ? total - elapsed : 0);
	e.p.unit_base = htole32(4);
	e.p.sig_figs = htole32(4);
	memset(e.run_str, 'R', nr);
	send_cmd(c, FIO_NET_CMD_ETA, tag, &e, sizeof(e.p) + nr + 1);
}

/* Send a memstream's text as TEXT (and log it when it is an error), line by line for the log. */
static void forward_text(struct conn *c, uint32_t level, const char *buf, size_t len, bool log)
{
	if (!len)
		return;
	if (log) {
		char line[512];

		snprintf(line, sizeof(line), "%.*s", (int)len, buf);
		line[strcspn(line, "\n")] = '\0';
		slog(c, "%s", line);
	}
	if (level == FIO_LOG_ERR || c->normal_out)
		send_text(c, level, buf, len);
}

/* rqlock's facts in a thread_stat's description: what JSON readers see of them. */
static void facts(const struct server *s, const struct rq_run_report *r, char *out, size_t len)
{
	size_t n = (size_t)snprintf(out, len, "rqlock lock=%s lock-type=%s workers=%u lockdep=%s lockstat=%s",
				    r->lock_mode, r->lock_type, r->workers, s->eo.lockdep ? "on" : "off",
				    s->eo.lockstat ? "on" : "off");

	for (unsigned int i = 0; i < r->lockstat.nr_classes && n < len; i++) {
		const struct rq_lockstat_class *k = &r->lockstat.classes[i];
		int w = snprintf(out + n, len - n, " %s:acq=%llu,con=%llu", k->name,
				 (unsigned long long)k->acquisitions, (unsigned long long)k->contentions);

		if (w < 0 || (size_t)w >= len - n) {
			out[n] = '\0';	/* whole classes only */
			break;
		}
		n += (size_t)w;
	}
}

static void on_run(struct conn *c)
{
	struct run_ctx r = { 0 };
	char *err_buf = NULL, *txt = NULL;
	size_t err_len = 0, txt_len = 0;
	pthread_t th;
	bool vanished = false, over = false;
	int ret;

	if (!c->have_jobs) {
		refuse(c, EINVAL, "RUN before a job file");
		return;
	}
	r.err = open_memstream(&err_buf, &err_len);
	if (!r.err) {
		refuse(c, ENOMEM, "out of memory");
		return;
	}
	ret = rq_engine_setup(&r.e, &c->srv->eo, &c->jobs, r.err);
	if (ret) {
		fclose(r.err);
		err_buf[strcspn(err_buf, "\n")] = '\0';
		refuse(c, -ret, err_len ? err_buf : "the engine cannot set up these jobs");
		free(err_buf);
		return;
	}
	send_cmd(c, FIO_NET_CMD_SERVER_START, 0, NULL, 0);
	c->run_start_ns = now_ns();
	atomic_store(&c->running, c->nr_clones);
	slog(c, "running %u job(s), %u clone(s)", c->jobs.nr, c->nr_clones);
	if (pthread_create(&th, NULL, run_thread, &r)) {
		rq_engine_free(r.e);
		fclose(r.err);
		free(err_buf);
		refuse(c, EAGAIN, "cannot start the run thread");
		return;
	}
	while (!atomic_load(&r.done)) {
		struct rq_fio_cmd cmd;
		int got = recv_cmd(c, 100, &cmd);

		if (!over && c->srv->max_runtime_s &&
		    now_ns() - c->run_start_ns >= (uint64_t)c->srv->max_runtime_s * 1000000000ULL) {
			over = true;
			slog(c, "the run passed --max-runtime=%u s: stopping it", c->srv->max_runtime_s);
			send_textf(c, FIO_LOG_ERR, "rqlock server: the run passed the server's --max-runtime=%u s: "
				   "stopped, sending what it measured\n", c->srv->max_runtime_s);
			rq_engine_stop(SIGTERM);
		}

		if (got == RECV_GONE) {
			if (!vanished)
				slog(c, "client vanished mid-run: stopping the run");
			vanished = true;
			c->dead = true;
			rq_engine_stop(SIGTERM);
			break;
		}
		if (g_quit)
			rq_engine_stop(SIGTERM);
		if (got != RECV_CMD)
			continue;
		if (cmd.opcode == FIO_NET_CMD_SEND_ETA)
			send_eta(c, cmd.tag);
		else if (cmd.opcode == FIO_NET_CMD_QUIT || cmd.opcode == FIO_NET_CMD_EXIT) {
			slog(c, "client asked to stop the run");
			rq_engine_stop(SIGTERM);
		}
	}
	pthread_join(th, NULL);
	atomic_store(&c->running, 0);
	fclose(r.err);
	if (vanished) {
		rq_engine_free(r.e);
		free(err_buf);
		if (!g_quit)
			rq_engine_stop_reset();	/* the stop was for that run only: the next one runs */
		return;
	}
	forward_text(c, r.ret ? FIO_LOG_ERR : FIO_LOG_INFO, err_buf, err_len, r.ret != 0);
	free(err_buf);
	if (r.ret < 0 && r.ret != -EPROTO) {
		send_textf(c, FIO_LOG_ERR, "rqlock server: the run failed: %s\n", strerror(-r.ret));
		send_stop_quit(c, -r.ret, 0);
		rq_engine_free(r.e);
		c->dead = true;
		return;
	} else {
		const struct rq_run_report *rep = rq_engine_report(r.e);
		char desc[256];
		FILE *f;

		facts(c->srv, rep, desc, sizeof(desc));
		c->em.fn = emit_fn;
		ret = rq_fio_send_results(rep, desc, c->nr_clones, &c->em);
		if (!ret && c->normal_out) {
			f = open_memstream(&txt, &txt_len);
			if (f) {
				fprintf(f, "rqlock: lock=%s lock-type=%s workers=%u lockdep=%s clock=%s\n", rep->lock_mode,
					rep->lock_type, rep->workers, c->srv->eo.lockdep ? "on" : "off", rep->clock);
				rq_lockstat_text(f, rep);
				if (!fclose(f))
					send_text(c, FIO_LOG_INFO, txt, txt_len);
				free(txt);
			}
		}
		if (ret) {
			slog(c, "client vanished while results were sent");
		} else {
			send_stop_quit(c, r.ret ? 1 : 0, rep->interrupted);
			slog(c, "run done, results sent (%u thread_stat(s))", c->nr_ts);
		}
		rq_engine_free(r.e);
		if (rq_engine_stopped() && !g_quit)
			rq_engine_stop_reset();
		c->dead = true;
	}
}

/*
 * After our QUIT the client closes: wait for that up to @ms, reading what
 * it still sends, so that it reads everything (closing with unread input
 * would reset the connection and lose our last packets).
 */
static void linger_close(int fd, unsigned int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint8_t sink[4096];
	uint64_t until = now_ns() + (uint64_t)ms * 1000000ULL;

	shutdown(fd, SHUT_WR);
	while (now_ns() < until && !g_quit && poll(&pfd, 1, 100) >= 0) {
		ssize_t n = recv(fd, sink, sizeof(sink), MSG_DONTWAIT);

		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			break;
	}
	close(fd);
}

static void serve_conn(struct server *s, int fd, const char *peer)
{
	struct conn *c = calloc(1, sizeof(*c));
	struct timeval tv = { .tv_sec = SEND_TIMEOUT_S };

	if (!c) {
		close(fd);
		return;
	}
	c->srv = s;
	c->fd = fd;
	c->normal_out = true;
	snprintf(c->peer, sizeof(c->peer), "%s", peer);
	rq_fio_rx_init(&c->rx);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));

	c->last_cmd_ns = now_ns();
	while (!c->dead && !g_quit) {
		struct rq_fio_cmd cmd;
		/* SEND_ETA does not count as activity: a client that only pings goes at the idle timeout */
		int64_t left = (int64_t)s->idle_timeout_ms - (int64_t)((now_ns() - c->last_cmd_ns) / 1000000);
		int got;

		if (left <= 0) {
			slog(c, "dropped: idle for %d ms (ETA requests do not count)", s->idle_timeout_ms);
			break;
		}
		got = recv_cmd(c, left < 500 ? (int)left : 500, &cmd);	/* slices: a quit is seen */
		if (got == RECV_GONE)
			break;
		if (got != RECV_CMD)
			continue;
		if (cmd.opcode != FIO_NET_CMD_SEND_ETA)
			c->last_cmd_ns = now_ns();
		switch (cmd.opcode) {
		case FIO_NET_CMD_PROBE:
			on_probe(c, &cmd);
			break;
		case FIO_NET_CMD_JOBLINE:
			on_jobline(c, &cmd);
			break;
		case FIO_NET_CMD_JOB:
			on_job(c, &cmd);
			break;
		case FIO_NET_CMD_LOAD_FILE: {
			char name[FIO_NET_NAME_MAX], msg[FIO_NET_NAME_MAX + 96];

			if (rq_fio_load_file_name(&cmd, name, sizeof(name)))
				snprintf(name, sizeof(name), "(malformed)");
			snprintf(msg, sizeof(msg), "remote job files are not read (--remote-config %s): send the job file",
				 name);
			refuse(c, EACCES, msg);
			break;
		}
		case FIO_NET_CMD_RUN:
			on_run(c);
			c->last_cmd_ns = now_ns();	/* the idle time starts when the run is over */
			break;
		case FIO_NET_CMD_SEND_ETA:
			send_eta(c, cmd.tag);
			break;
		case FIO_NET_CMD_QUIT:
		case FIO_NET_CMD_EXIT:
			c->dead = true;
			break;
		default:
			slog(c, "dropped: %s is not a command a client sends", rq_fio_op_name(cmd.opcode));
			c->dead = true;
			break;
		}
	}
	linger_close(fd, 2000);
	if (c->have_jobs)
		rq_jobs_free(&c->jobs);
	rq_fio_rx_free(&c->rx);
	free(c);
}

/* A connection handed to a thread: served (serve_thread) or answered busy (busy_thread). */
struct serve_arg {
	struct server *s;
	int fd;
	char peer[96];
};

static void *serve_thread(void *arg)
{
	struct serve_arg *a = arg;
	struct server *s = a->s;

	serve_conn(s, a->fd, a->peer);
	pthread_mutex_lock(&s->busy_lock);
	s->busy = false;
	pthread_mutex_unlock(&s->busy_lock);
	free(a);
	return NULL;
}

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
		 "when it is done", s->name, s->busy_peer, ts, (long long)(time(NULL) - since));
	pthread_mutex_unlock(&s->busy_lock);
	refuse(c, EBUSY, msg);
	linger_close(fd, linger_ms);
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
static void busy_answer(struct server *s, int fd, const char *peer)
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

/* At exit: the busy answers' threads are done with the server (g_quit or their clients' hang-up ends them). */
static void busy_answers_wait(struct server *s)
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

/* ------------------------------------------------------------- listening */

static bool v4_loopback(const struct in_addr *a)
{
	return (ntohl(a->s_addr) >> 24) == 127;
}

static bool v6_loopback(const struct in6_addr *a)
{
	if (IN6_IS_ADDR_LOOPBACK(a))
		return true;
	if (IN6_IS_ADDR_V4MAPPED(a)) {
		struct in_addr v4;

		memcpy(&v4, &a->s6_addr[12], 4);
		return v4_loopback(&v4);
	}
	return false;
}

/* A unix socket path: a stale socket is replaced, anything else refused. */
static int listen_unix(struct server *s, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int fd;

	if (!*path || strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "rqlock server: sock:%s: expected a path of 1..%zu bytes\n", path,
			sizeof(sa.sun_path) - 1);
		return -EINVAL;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (!lstat(path, &st)) {
		int probe;

		if (!S_ISSOCK(st.st_mode)) {
			fprintf(stderr, "rqlock server: sock:%s: exists and is not a socket\n", path);
			return -EEXIST;
		}
		probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (probe >= 0 && !connect(probe, (struct sockaddr *)&sa, sizeof(sa))) {
			close(probe);
			fprintf(stderr, "rqlock server: sock:%s: a server is listening there already\n", path);
			return -EADDRINUSE;
		}
		if (probe >= 0)
			close(probe);
		unlink(path);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		/* owner only (umask 077): connecting means doing I/O here, so only the owner (and root) may */
		mode_t old = umask(077);
		int b = bind(fd, (struct sockaddr *)&sa, sizeof(sa));

		umask(old);
		if (b)
			goto fail;
	}
	if (fd < 0 || listen(fd, 8)) {
fail:
		fprintf(stderr, "rqlock server: sock:%s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -EINVAL;
	}
	snprintf(s->sock_path, sizeof(s->sock_path), "%s", path);
	snprintf(s->addr_desc, sizeof(s->addr_desc), "sock:%s", path);
	s->listen_fd = fd;
	return 0;
}

static int listen_ip(struct server *s, const char *host, int port, bool v6, bool allow_nonlocal)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV };
	struct addrinfo *res = NULL;
	char portstr[16], name[INET6_ADDRSTRLEN];
	bool loop;
	int fd, one = 1, ret;

	hints.ai_family = v6 ? AF_INET6 : AF_INET;
	snprintf(portstr, sizeof(portstr), "%d", port);
	ret = getaddrinfo(host, portstr, &hints, &res);
	if (ret || !res) {
		fprintf(stderr, "rqlock server: %s: cannot resolve: %s\n", host, gai_strerror(ret));
		return -EINVAL;
	}
	if (res->ai_family == AF_INET) {
		const struct sockaddr_in *a = (const void *)res->ai_addr;

		loop = v4_loopback(&a->sin_addr);
		inet_ntop(AF_INET, &a->sin_addr, name, sizeof(name));
	} else {
		const struct sockaddr_in6 *a = (const void *)res->ai_addr;

		loop = v6_loopback(&a->sin6_addr);
		inet_ntop(AF_INET6, &a->sin6_addr, name, sizeof(name));
	}
	if (!loop && !allow_nonlocal) {
		fprintf(stderr, "rqlock server: %s (%s) is not a loopback address: a peer there could make this "
				"host do I/O; add --allow-nonlocal to bind it anyway\n", host, name);
		freeaddrinfo(res);
		return -EPERM;
	}
	fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (fd < 0 || bind(fd, res->ai_addr, res->ai_addrlen) || listen(fd, 8)) {
		fprintf(stderr, "rqlock server: %s,%d: %s\n", name, port, strerror(errno));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(res);
		return -EINVAL;
	}
	freeaddrinfo(res);
	snprintf(s->addr_desc, sizeof(s->addr_desc), "%s:%s,%d", v6 ? "ip6" : "ip", name, port);
	s->listen_fd = fd;
	return 0;
}

/*
 * fio's --server syntax: sock:PATH, ip:HOST[,PORT], ip4:..., ip6:HOST[,PORT],
 * HOST[,PORT], ,PORT or :PORT (fio's server.c fio_server_parse_string).
 */
static int parse_listen(struct server *s, const char *arg, bool allow_nonlocal)
{
	char host[256];
	const char *h = arg, *comma;
	bool v6 = false;
	long port = FIO_NET_PORT;

	if (!strncmp(arg, "sock:", 5))
		return listen_unix(s, arg + 5);
	if (!strncmp(h, "ip:", 3))
		h += 3;
	else if (!strncmp(h, "ip4:", 4))
		h += 4;
	else if (!strncmp(h, "ip6:", 4)) {
		h += 4;
		v6 = true;
	} else if (h[0] == ':') {
		h++;
		comma = h - 1;
		goto port;
	}
	comma = strchr(h, ',');
port:
	if (comma) {
		char *end;

		errno = 0;
		port = strtol(comma + 1, &end, 10);
		if (errno || *end || port < 1 || port > 65535) {
			fprintf(stderr, "rqlock server: %s: bad port (expected 1..65535)\n", arg);
			return -EINVAL;
		}
	}
	if (comma && comma > h && (size_t)(comma - h) >= sizeof(host))
		return -ENAMETOOLONG;
	if (comma && comma <= h)
		snprintf(host, sizeof(host), "%s", v6 ? "::1" : "127.0.0.1");
	else if (comma)
		snprintf(host, sizeof(host), "%.*s", (int)(comma - h), h);
	else if (*h)
		snprintf(host, sizeof(host), "%s", h);
	else
		snprintf(host, sizeof(host), "%s", v6 ? "::1" : "127.0.0.1");
	return listen_ip(s, host, (int)port, v6, allow_nonlocal);
}

static int add_allow(struct server *s, const char *arg)
{
	struct allow_entry *a;
	struct stat st;
	size_t l = strlen(arg);

	if (!strcmp(arg, "@builtin")) {
		s->allow_builtin = true;
		return 0;
	}
	if (!strcmp(arg, "@none")) {
		s->allow_builtin = false;
		return 0;
	}
	if (s->nr_allow == MAX_ALLOW) {
		fprintf(stderr, "rqlock server: --allow: at most %d paths\n", MAX_ALLOW);
		return -E2BIG;
	}
	if (arg[0] != '/') {
		fprintf(stderr, "rqlock server: --allow %s: expected an absolute path, @builtin or @none\n", arg);
		return -EINVAL;
	}
	a = &s->allow[s->nr_allow];
	if (canon(arg, a->path)) {
		fprintf(stderr, "rqlock server: --allow %s: its directory does not exist\n", arg);
		return -EINVAL;
	}
	a->dir = (l > 1 && arg[l - 1] == '/') || (!stat(a->path, &st) && S_ISDIR(st.st_mode));
	s->nr_allow++;
	return 0;
}

static void on_signal(int sig)
{
	g_quit = sig;
	rq_engine_stop(sig);
}


static void usage(FILE *f)
{
	fprintf(f, "usage: rqlock server [ADDR] [OPTIONS]\n\n"
		   "Serves fio 3.33's client/server protocol: `fio --client=ADDR job.fio` runs the job\n"
		   "file through rqlock with this command line's lock options and prints fio's output.\n"
		   "ADDR is fio's --server syntax: ip:HOST,PORT, ip6:HOST,PORT or sock:PATH\n"
		   "(default: ip:127.0.0.1,8765).  See docs/SERVER.md.\n\nOptions:\n");
	rq_cli_help(f, RQ_CMD_SERVER);
	rq_engine_cli_lists(f);
}

static int parse_num(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	return errno || *end || end == s || *v > max || !*v ? -EINVAL : 0;
}

/* A size as fio writes one: digits, then k, m, g or t (powers of 1024); 0 allowed. */
static int parse_size(const char *s, uint64_t *v)
{
	static const char units[] = "kmgt";
	const char *u;
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return -EINVAL;
	if (*end && (u = strchr(units, end[0] | 0x20)) != NULL) {
		unsigned int shift = 10 * (unsigned int)(u - units + 1);

		if (*v > (UINT64_MAX >> shift))
			return -ERANGE;
		*v <<= shift;
		end++;
		if ((*end | 0x20) == 'i' && (end[1] | 0x20) == 'b')
			end += 2;
		else if ((*end | 0x20) == 'b')
			end++;
	}
	return *end ? -EINVAL : 0;
}

int rq_server_cmd(int argc, char **argv)
{
	struct server *s = calloc(1, sizeof(*s));
	struct option lopts[RQ_CLI_MAX_OPTS + 1];
	const char *addr = "ip:127.0.0.1,8765";
	bool nonlocal = false;
	unsigned long v;
	unsigned int conns = 0, nr_sock = 0;
	pthread_t th;
	bool have_th = false;
	int c, ret = EXIT_BAD_INPUT;

	if (!s)
		return 1;
	rq_engine_opts_init(&s->eo);
	s->eo.no_verify_state = true;	/* state files would be at a client's path */
	s->allow_builtin = true;
	s->read_timeout_ms = DEF_READ_TIMEOUT_MS;
	s->idle_timeout_ms = DEF_IDLE_TIMEOUT_MS;
	s->listen_fd = -1;
	s->max_numjobs = DEF_MAX_NUMJOBS;
	s->max_files = DEF_MAX_FILES;
	s->max_iodepth = DEF_MAX_IODEPTH;
	s->max_runtime_s = DEF_MAX_RUNTIME_S;
	pthread_mutex_init(&s->busy_lock, NULL);
	{
		struct sysinfo si;

		if (!sysinfo(&si))
			s->eo.max_mem_bytes = (uint64_t)si.totalram * si.mem_unit / 2;
	}
	rq_cli_longopts(lopts, RQ_CMD_SERVER);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "l:w:h", lopts, NULL)) != -1) {
		/* the engine's options first: 0 applied, 1 not one of them */
		int r = rq_engine_cli_apply(&s->eo, c, optarg, "rqlock server");

		if (r < 0)
			goto out;
		if (!r)
			continue;
		switch (c) {
		case RQ_CLI_ALLOW:
			if (add_allow(s, optarg))
				goto out;
			break;
		case RQ_CLI_NONLOCAL:
			nonlocal = true;
			break;
		case RQ_CLI_READ_TIMEOUT:
		case RQ_CLI_IDLE_TIMEOUT:
			if (parse_num(optarg, 3600000, &v)) {
				fprintf(stderr, "rqlock server: --%s=%s: expected 1..3600000 ms\n",
					c == RQ_CLI_READ_TIMEOUT ? "read-timeout" : "idle-timeout", optarg);
				goto out;
			}
			*(c == RQ_CLI_READ_TIMEOUT ? &s->read_timeout_ms : &s->idle_timeout_ms) = (int)v;
			break;
		case RQ_CLI_MAX_CONNS:
			if (parse_num(optarg, 1000000, &v)) {
				fprintf(stderr, "rqlock server: --max-connections=%s: expected 1..1000000\n", optarg);
				goto out;
			}
			s->max_conns = (unsigned int)v;
			break;
		case RQ_CLI_MAX_MEMORY:
			if (parse_size(optarg, &s->eo.max_mem_bytes)) {
				fprintf(stderr, "rqlock server: --max-memory=%s: expected a size such as 512m or 4g, or 0\n",
					optarg);
				goto out;
			}
			break;
		case RQ_CLI_MAX_NUMJOBS:
		case RQ_CLI_MAX_FILES:
		case RQ_CLI_MAX_IODEPTH:
		case RQ_CLI_MAX_RUNTIME: {
			static const struct { int key; const char *name; size_t off; unsigned long max; } caps[] = {
				{ RQ_CLI_MAX_NUMJOBS, "max-numjobs", offsetof(struct server, max_numjobs), 1000000 },
				{ RQ_CLI_MAX_FILES, "max-files", offsetof(struct server, max_files), 10000000 },
				{ RQ_CLI_MAX_IODEPTH, "max-iodepth", offsetof(struct server, max_iodepth), 65536 },
				{ RQ_CLI_MAX_RUNTIME, "max-runtime", offsetof(struct server, max_runtime_s), 31536000 },
			};
			unsigned int k = 0;

			while (caps[k].key != c)
				k++;
			if (parse_num(optarg, caps[k].max, &v)) {
				fprintf(stderr, "rqlock server: --%s=%s: expected 1..%lu\n", caps[k].name, optarg,
					caps[k].max);
				goto out;
			}
			*(unsigned int *)((char *)s + caps[k].off) = (unsigned int)v;
			break;
		}
		case RQ_CLI_NAME:
			if (!*optarg || strlen(optarg) >= sizeof(s->name)) {
				fprintf(stderr, "rqlock server: --name=%s: expected 1..%zu bytes\n", optarg,
					sizeof(s->name) - 1);
				goto out;
			}
			snprintf(s->name, sizeof(s->name), "%s", optarg);
			break;
		case RQ_CLI_HELP:
			usage(stdout);
			ret = 0;
			goto out;
		default:
			fprintf(stderr, "rqlock server: unknown or incomplete option '%s' (see rqlock server --help)\n",
				argv[optind - 1]);
			goto out;
		}
	}
	if (optind < argc)
		addr = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "rqlock server: one address only ('%s' is extra)\n", argv[optind]);
		goto out;
	}
	if (parse_listen(s, addr, nonlocal))
		goto out;
	if (!s->name[0]) {
		char host[64] = "";

		gethostname(host, sizeof(host) - 1);
		snprintf(s->name, sizeof(s->name), "%.30s@%.32s", host,
			 strchr(s->addr_desc, ':') ? strchr(s->addr_desc, ':') + 1 : s->addr_desc);
	}

	rq_set_stop_signals(on_signal);
	signal(SIGPIPE, SIG_IGN);
	fprintf(stderr, "rqlock server: %s listening on %s (lock=%s lock-type=%s%s)\n", s->name, s->addr_desc,
		s->eo.lock_mode, s->eo.lock_type, s->eo.lockdep ? " lockdep" : "");
	ret = 0;
	while (!g_quit) {
		struct pollfd pfd = { .fd = s->listen_fd, .events = POLLIN };
		struct serve_arg *arg;
		bool busy;

		pthread_mutex_lock(&s->busy_lock);
		busy = s->busy;
		pthread_mutex_unlock(&s->busy_lock);
		if (!busy && s->max_conns && conns >= s->max_conns)
			break;
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		char peer[96];
		int fd;

		if (poll(&pfd, 1, 500) <= 0)
			continue;
		fd = accept4(s->listen_fd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		if (ss.ss_family == AF_INET) {
			const struct sockaddr_in *a = (const void *)&ss;
			char n[INET_ADDRSTRLEN];

			inet_ntop(AF_INET, &a->sin_addr, n, sizeof(n));
			snprintf(peer, sizeof(peer), "%s:%u", n, ntohs(a->sin_port));
		} else if (ss.ss_family == AF_INET6) {
			const struct sockaddr_in6 *a = (const void *)&ss;
			char n[INET6_ADDRSTRLEN];

			inet_ntop(AF_INET6, &a->sin6_addr, n, sizeof(n));
			snprintf(peer, sizeof(peer), "[%s]:%u", n, ntohs(a->sin6_port));
		} else {
			snprintf(peer, sizeof(peer), "sock#%u", ++nr_sock);
		}
		pthread_mutex_lock(&s->busy_lock);
		busy = s->busy;
		if (!busy && (!s->max_conns || conns < s->max_conns)) {
			s->busy = true;
			s->busy_since = time(NULL);
			snprintf(s->busy_peer, sizeof(s->busy_peer), "%s", peer);
		}
		pthread_mutex_unlock(&s->busy_lock);
		if (busy || (s->max_conns && conns >= s->max_conns)) {
			busy_answer(s, fd, peer);
			continue;
		}
		if (have_th)
			pthread_join(th, NULL);
		have_th = false;
		arg = calloc(1, sizeof(*arg));
		if (arg) {
			arg->s = s;
			arg->fd = fd;
			snprintf(arg->peer, sizeof(arg->peer), "%s", peer);
		}
		if (!arg || pthread_create(&th, NULL, serve_thread, arg)) {
			slog(NULL, "cannot start a thread for %s", peer);
			free(arg);
			close(fd);
			pthread_mutex_lock(&s->busy_lock);
			s->busy = false;
			pthread_mutex_unlock(&s->busy_lock);
			continue;
		}
		have_th = true;
		conns++;
	}
	if (have_th)
		pthread_join(th, NULL);
	busy_answers_wait(s);
	fprintf(stderr, "rqlock server: exiting after %u connection(s)\n", conns);
out:
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	if (s->sock_path[0])
		unlink(s->sock_path);
	free(s);
	return ret;
}
