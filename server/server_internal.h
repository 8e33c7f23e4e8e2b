/* SPDX-License-Identifier: MIT */
/*
 * server_internal.h - shared inside server/ only.  The files, each calling
 * only those below it:
 *   server.c   the listeners and the service loop (rq_server_run)
 *   run.c      a job file checked and parsed, the run on its own thread, ETA
 *   replies.c  the fio protocol's replies: PROBE, JOBLINE, START, the results
 *   policy.c   what a client may do: the allow-list, the caps, includes
 *   conn.c     a connection: sending, receiving and their timeouts, the
 *              refusal, lingering, busy answers to a second client
 *   fio_ts.c   the result packets of a run; fio_proto.c the wire format
 */
#ifndef RQ_SERVER_INTERNAL_H
#define RQ_SERVER_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/un.h>
#include <time.h>

#include "jobfile/job.h"
#include "results/results.h"
#include "server/fio_proto.h"
#include "server/server.h"

/* Where result packets go: @fn sends one command (fragmenting it); 0 or -errno. */
struct rq_fio_emit {
	int (*fn)(struct rq_fio_emit *em, uint16_t opcode, const void *pdu, size_t len);
};

/*
 * The thread_stats fio would report for @jobs (fio's stat_outputs, told
 * to the client in START before the run), and the clones (START's jobs).
 */
unsigned int rq_fio_nr_ts(const struct rq_job_list *jobs, unsigned int *nr_clones);

/*
 * Send @r as fio's JOB_OPT, TS and GS packets.  @desc_prefix goes in front
 * of each thread_stat's description (rqlock's facts; NULL for none).
 * JOB_OPT packets for thread_stats at index >= @max_opt_ts are not sent
 * (the client indexes an array sized by START's job count with them).
 */
int rq_fio_send_results(const struct rq_run_report *r, const char *desc_prefix,
			unsigned int max_opt_ts, struct rq_fio_emit *em);

/* The server: its configuration and the one connection it serves. */
struct server {
	struct rq_server_config cfg;	/* as given; cfg.name filled in when it was "" */
	char addr_desc[PATH_MAX + 32];
	char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];	/* "" for IP */
	int listen_fd;
	/* the connection being served, for a second client's busy answer */
	pthread_mutex_t busy_lock;
	bool busy;			/* under busy_lock */
	char busy_peer[96];		/* under busy_lock */
	time_t busy_since;		/* under busy_lock */
	unsigned int busy_answers;	/* under busy_lock: answer_busy() threads alive */
};

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

/* A connection handed to a thread: served (serve_thread) or answered busy (busy_thread). */
struct serve_arg {
	struct server *s;
	int fd;
	char peer[96];
};

/* conn.c: a connection */
extern atomic_int srv_quit;	/* set by the signal handler, read by every connection thread (lock-free, so signal-safe) */
void srv_log(const struct conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
uint64_t srv_now_ns(void);
/* One command, in fragments of at most 1024 bytes; 0, or -EPIPE (and the connection is dead) */
int srv_send_cmd(struct conn *c, uint16_t op, uint64_t tag, const void *pdu, size_t len);
int srv_send_text(struct conn *c, uint32_t level, const char *text, size_t len);
int srv_send_textf(struct conn *c, uint32_t level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void srv_send_stop_quit(struct conn *c, int error, int sig);
/* Refuse what the client asked: a message it prints, an error it reports, the end. */
void srv_refuse(struct conn *c, int error, const char *msg);
enum { RECV_CMD = 1, RECV_NONE = 0, RECV_GONE = -1 };
int srv_recv_cmd(struct conn *c, int wait_ms, struct rq_fio_cmd *cmd);
void srv_linger_close(int fd, unsigned int ms);
/* A second client while one is served: told who holds the server, on a thread of its own */
void srv_busy_answer(struct server *s, int fd, const char *peer);
void srv_busy_answers_wait(struct server *s);

/* policy.c: what a client may do; each fills @msg (a refusal's text) and returns -errno */
#define SRV_MSG_MAX (2 * PATH_MAX)
int srv_check_includes(const struct rq_server_config *cfg, const char *text, size_t len, char *msg,
		       size_t msg_len);
int srv_check_limits(const struct rq_server_config *cfg, const struct rq_job_list *jobs, char *msg,
		     size_t len);
int srv_check_paths(const struct rq_server_config *cfg, const struct rq_job_list *jobs, char *msg,
		    size_t len);

/* replies.c: the fio protocol's replies */
void srv_on_probe(struct conn *c, const struct rq_fio_cmd *cmd);
void srv_on_jobline(struct conn *c, const struct rq_fio_cmd *cmd);
int srv_send_start(struct conn *c, uint32_t jobs, uint32_t stat_outputs);
/* A run's results, then STOP and QUIT (@run_ret: the engine's return) */
void srv_send_results(struct conn *c, const struct rq_run_report *rep, int run_ret);

/* run.c: the run */
void srv_on_job(struct conn *c, const struct rq_fio_cmd *cmd);
void srv_on_run(struct conn *c);
void srv_send_eta(struct conn *c, uint64_t tag);

#endif
