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
 * This file: the listeners and the service loop; server_internal.h names
 * the other files (the connection, the policy, the run, the replies).
 *
 * Threads: the accept thread (rq_server_run) hands each connection to a
 * service thread, which reads the socket and answers; while jobs run, one
 * run thread sits in rq_engine_run() and the engine's workers do the I/O.
 * The service thread keeps answering SEND_ETA during the run and notices a
 * vanished client (EOF, error, a slow partial packet), stops the run
 * (in-flight I/O drains), joins the run thread and frees the engine before
 * the next connection is served: nothing outlives a connection.
 *
 * Security: a peer makes this process do I/O.  Non-loopback addresses are
 * refused unless --allow-nonlocal; a job may open only what --allow names
 * (built-in devices by default), checked before anything is opened, so a
 * refused job creates nothing (policy.c); the engine's write-safety checks
 * apply as in `rqlock run` (no --allow-mounted-write here).  Every protocol
 * failure is one line on stderr and the end of that connection only.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
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
#include "server/fio_proto.h"
#include "server/server.h"
#include "server/server_internal.h"

enum { EXIT_BAD_INPUT = 2 };

#define DEF_READ_TIMEOUT_MS 5000	/* a started packet must be complete within this */
#define DEF_IDLE_TIMEOUT_MS 30000	/* a connected client must say something within this */
#define SEND_TIMEOUT_S 10		/* a client that stops reading is a vanished one */
#define DEF_MAX_NUMJOBS 256
#define DEF_MAX_FILES 1024
#define DEF_MAX_IODEPTH 1024
#define DEF_MAX_RUNTIME_S 3600

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

/* ------------------------------------------------------------- service */

static void on_signal(int sig)
{
	srv_quit = sig;
	rq_engine_stop(sig);
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

	c->last_cmd_ns = srv_now_ns();
	while (!c->dead && !srv_quit) {
		struct rq_fio_cmd cmd;
		/* SEND_ETA does not count as activity: a client that only pings goes at the idle timeout */
		int64_t left = (int64_t)s->cfg.idle_timeout_ms - (int64_t)((srv_now_ns() - c->last_cmd_ns) / 1000000);
		int got;

		if (left <= 0) {
			srv_log(c, "dropped: idle for %d ms (ETA requests do not count)", s->cfg.idle_timeout_ms);
			break;
		}
		got = srv_recv_cmd(c, left < 500 ? (int)left : 500, &cmd);	/* slices: a quit is seen */
		if (got == RECV_GONE)
			break;
		if (got != RECV_CMD)
			continue;
		if (cmd.opcode != FIO_NET_CMD_SEND_ETA)
			c->last_cmd_ns = srv_now_ns();
		switch (cmd.opcode) {
		case FIO_NET_CMD_PROBE:
			srv_on_probe(c, &cmd);
			break;
		case FIO_NET_CMD_JOBLINE:
			srv_on_jobline(c, &cmd);
			break;
		case FIO_NET_CMD_JOB:
			srv_on_job(c, &cmd);
			break;
		case FIO_NET_CMD_LOAD_FILE: {
			char name[FIO_NET_NAME_MAX], msg[FIO_NET_NAME_MAX + 96];

			if (rq_fio_load_file_name(&cmd, name, sizeof(name)))
				snprintf(name, sizeof(name), "(malformed)");
			snprintf(msg, sizeof(msg), "remote job files are not read (--remote-config %s): send the job file",
				 name);
			srv_refuse(c, EACCES, msg);
			break;
		}
		case FIO_NET_CMD_RUN:
			srv_on_run(c);
			c->last_cmd_ns = srv_now_ns();	/* the idle time starts when the run is over */
			break;
		case FIO_NET_CMD_SEND_ETA:
			srv_send_eta(c, cmd.tag);
			break;
		case FIO_NET_CMD_QUIT:
		case FIO_NET_CMD_EXIT:
			c->dead = true;
			break;
		default:
			srv_log(c, "dropped: %s is not a command a client sends", rq_fio_op_name(cmd.opcode));
			c->dead = true;
			break;
		}
	}
	srv_linger_close(fd, 2000);
	if (c->have_jobs)
		rq_jobs_free(&c->jobs);
	rq_fio_rx_free(&c->rx);
	free(c);
}

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


/* The peer's name for the log and the busy answer: ADDR:PORT, [ADDR6]:PORT or sock#N. */
static void peer_name(const struct sockaddr_storage *ss, unsigned int *nr_sock, char *peer, size_t len)
{
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *a = (const void *)ss;
		char n[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, &a->sin_addr, n, sizeof(n));
		snprintf(peer, len, "%s:%u", n, ntohs(a->sin_port));
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const void *)ss;
		char n[INET6_ADDRSTRLEN];

		inet_ntop(AF_INET6, &a->sin6_addr, n, sizeof(n));
		snprintf(peer, len, "[%s]:%u", n, ntohs(a->sin6_port));
	} else {
		snprintf(peer, len, "sock#%u", ++*nr_sock);
	}
}

/*
 * Connections one at a time, each on a service thread, a second client
 * answered busy, until a signal (or max_conns served); returns how many
 * were served.
 */
static unsigned int accept_loop(struct server *s)
{
	unsigned int conns = 0, nr_sock = 0;
	pthread_t th;
	bool have_th = false;

	while (!srv_quit) {
		struct pollfd pfd = { .fd = s->listen_fd, .events = POLLIN };
		struct serve_arg *arg;
		bool busy;

		pthread_mutex_lock(&s->busy_lock);
		busy = s->busy;
		pthread_mutex_unlock(&s->busy_lock);
		if (!busy && s->cfg.max_conns && conns >= s->cfg.max_conns)
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
		peer_name(&ss, &nr_sock, peer, sizeof(peer));
		pthread_mutex_lock(&s->busy_lock);
		busy = s->busy;
		if (!busy && (!s->cfg.max_conns || conns < s->cfg.max_conns)) {
			s->busy = true;
			s->busy_since = time(NULL);
			snprintf(s->busy_peer, sizeof(s->busy_peer), "%s", peer);
		}
		pthread_mutex_unlock(&s->busy_lock);
		if (busy || (s->cfg.max_conns && conns >= s->cfg.max_conns)) {
			srv_busy_answer(s, fd, peer);
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
			srv_log(NULL, "cannot start a thread for %s", peer);
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
	srv_busy_answers_wait(s);
	return conns;
}

void rq_server_config_init(struct rq_server_config *cfg)
{
	struct sysinfo si;

	memset(cfg, 0, sizeof(*cfg));
	rq_engine_opts_init(&cfg->eo);
	cfg->eo.no_verify_state = true;	/* state files would be at a client's path */
	cfg->allow_builtin = true;
	cfg->read_timeout_ms = DEF_READ_TIMEOUT_MS;
	cfg->idle_timeout_ms = DEF_IDLE_TIMEOUT_MS;
	cfg->max_numjobs = DEF_MAX_NUMJOBS;
	cfg->max_files = DEF_MAX_FILES;
	cfg->max_iodepth = DEF_MAX_IODEPTH;
	cfg->max_runtime_s = DEF_MAX_RUNTIME_S;
	if (!sysinfo(&si))
		cfg->eo.max_mem_bytes = (uint64_t)si.totalram * si.mem_unit / 2;
}

int rq_server_run(const struct rq_server_config *cfg)
{
	struct server *s = calloc(1, sizeof(*s));
	const struct rq_server_listen *l = &cfg->listen;
	unsigned int conns;
	int ret = EXIT_BAD_INPUT;

	if (!s)
		return 1;
	s->cfg = *cfg;
	s->listen_fd = -1;
	pthread_mutex_init(&s->busy_lock, NULL);
	if (l->sock ? listen_unix(s, l->sock) : listen_ip(s, l->host, l->port, l->v6, cfg->allow_nonlocal))
		goto out;
	if (!s->cfg.name[0]) {
		char host[64] = "";

		gethostname(host, sizeof(host) - 1);
		snprintf(s->cfg.name, sizeof(s->cfg.name), "%.30s@%.32s", host,
			 strchr(s->addr_desc, ':') ? strchr(s->addr_desc, ':') + 1 : s->addr_desc);
	}

	rq_set_stop_signals(on_signal);
	signal(SIGPIPE, SIG_IGN);
	fprintf(stderr, "rqlock server: %s listening on %s (lock=%s lock-type=%s%s)\n", s->cfg.name, s->addr_desc,
		s->cfg.eo.lock_mode, s->cfg.eo.lock_type, s->cfg.eo.lockdep ? " lockdep" : "");
	conns = accept_loop(s);
	fprintf(stderr, "rqlock server: exiting after %u connection(s)\n", conns);
	ret = 0;
out:
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	if (s->sock_path[0])
		unlink(s->sock_path);
	free(s);
	return ret;
}
