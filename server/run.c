// SPDX-License-Identifier: MIT
/*
 * run.c - a client's job file and its run (docs/SERVER.md): the job file
 * checked against the policy (its includes before it is parsed, then the
 * caps and every path), the run on a thread of its own in rq_engine_run()
 * while the service thread answers SEND_ETA, stops the run at
 * --max-runtime, a QUIT, a signal or a vanished client (in-flight I/O
 * drains), and forwards the engine's text; then the results (replies.c).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "server/fio_proto.h"
#include "server/server_internal.h"

void srv_on_job(struct conn *c, const struct rq_fio_cmd *cmd)
{
	const struct rq_server_config *cfg = &c->srv->cfg;
	const char *text;
	char *copy, *err_buf = NULL, msg[SRV_MSG_MAX];
	size_t len, err_len = 0;
	FILE *err;
	int ret;

	if (rq_fio_job_text(cmd, &text, &len)) {
		srv_log(c, "dropped: malformed JOB payload");
		c->dead = true;
		return;
	}
	if (c->have_jobs) {
		srv_refuse(c, EINVAL, "one job file per run: give the server one file (or run again)");
		return;
	}
	if (srv_check_includes(cfg, text, len, msg, sizeof(msg))) {
		srv_refuse(c, EACCES, msg);
		return;
	}
	copy = strndup(text, len);
	err = open_memstream(&err_buf, &err_len);
	if (!copy || !err) {
		free(copy);
		if (err)
			fclose(err);
		free(err_buf);
		srv_refuse(c, ENOMEM, "out of memory");
		return;
	}
	ret = rq_jobs_parse_buf("job file", copy, &c->jobs, err);
	fclose(err);
	free(copy);
	if (ret) {
		err_buf[strcspn(err_buf, "\n")] = '\0';
		srv_refuse(c, EINVAL, err_len ? err_buf : "the job file does not parse");
		free(err_buf);
		return;
	}
	free(err_buf);
	c->have_jobs = true;
	if (srv_check_limits(cfg, &c->jobs, msg, sizeof(msg))) {
		srv_refuse(c, E2BIG, msg);
		return;
	}
	if (srv_check_paths(cfg, &c->jobs, msg, sizeof(msg))) {
		srv_refuse(c, EACCES, msg);
		return;
	}
	c->nr_ts = rq_fio_nr_ts(&c->jobs, &c->nr_clones);
	if (c->normal_out) {
		srv_send_textf(c, FIO_LOG_INFO, "rqlock server %s (%s): lock=%s lock-type=%s workers=%u lockdep=%s\n",
			       RQ_VERSION, cfg->name, cfg->eo.lock_mode, cfg->eo.lock_type, cfg->eo.workers,
			       cfg->eo.lockdep ? "on" : "off");
		for (unsigned int i = 0; i < c->jobs.nr; i++) {
			const struct rq_job *j = &c->jobs.jobs[i];

			srv_send_textf(c, FIO_LOG_INFO, "%s: (g=%d): rw=%s, bs=(R) %uB, (W) %uB, (T) %uB, iodepth=%u, "
				       "filename=%s\n", j->name, j->groupid, rq_rw_name(j->rw), j->bs[0], j->bs[1],
				       j->bs[2], j->iodepth,
				       j->filename[0] ? j->filename : "(none)");
		}
	}
	srv_send_start(c, c->nr_clones, c->nr_ts);
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

void srv_send_eta(struct conn *c, uint64_t tag)
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
		elapsed = (srv_now_ns() - c->run_start_ns) / 1000000000ULL;
	total = running && c->have_jobs ? eta_total_sec(&c->jobs) : 0;
	e.p.nr_running = htole32(running);
	e.p.nr_threads = htole32(nr);
	e.p.elapsed_sec = htole64(elapsed);
	e.p.eta_sec = htole64(total > elapsed ? total - elapsed : 0);
	e.p.unit_base = htole32(4);
	e.p.sig_figs = htole32(4);
	memset(e.run_str, 'R', nr);
	srv_send_cmd(c, FIO_NET_CMD_ETA, tag, &e, sizeof(e.p) + nr + 1);
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
		srv_log(c, "%s", line);
	}
	if (level == FIO_LOG_ERR || c->normal_out)
		srv_send_text(c, level, buf, len);
}

/*
 * While the run thread runs: SEND_ETA answered; the run stopped past
 * --max-runtime (what it measured is still sent), at a QUIT or EXIT, a
 * signal, or a vanished client.  True when the client vanished.
 */
static bool run_wait(struct conn *c, struct run_ctx *r)
{
	const struct rq_server_config *cfg = &c->srv->cfg;
	bool vanished = false, over = false;

	while (!atomic_load(&r->done)) {
		struct rq_fio_cmd cmd;
		int got = srv_recv_cmd(c, 100, &cmd);

		if (!over && cfg->max_runtime_s &&
		    srv_now_ns() - c->run_start_ns >= (uint64_t)cfg->max_runtime_s * 1000000000ULL) {
			over = true;
			srv_log(c, "the run passed --max-runtime=%u s: stopping it", cfg->max_runtime_s);
			srv_send_textf(c, FIO_LOG_ERR, "rqlock server: the run passed the server's --max-runtime=%u s: "
				       "stopped, sending what it measured\n", cfg->max_runtime_s);
			rq_engine_stop(SIGTERM);
		}

		if (got == RECV_GONE) {
			if (!vanished)
				srv_log(c, "client vanished mid-run: stopping the run");
			vanished = true;
			c->dead = true;
			rq_engine_stop(SIGTERM);
			break;
		}
		if (srv_quit)
			rq_engine_stop(SIGTERM);
		if (got != RECV_CMD)
			continue;
		if (cmd.opcode == FIO_NET_CMD_SEND_ETA)
			srv_send_eta(c, cmd.tag);
		else if (cmd.opcode == FIO_NET_CMD_QUIT || cmd.opcode == FIO_NET_CMD_EXIT) {
			srv_log(c, "client asked to stop the run");
			rq_engine_stop(SIGTERM);
		}
	}
	return vanished;
}

void srv_on_run(struct conn *c)
{
	struct run_ctx r = { 0 };
	char *err_buf = NULL;
	size_t err_len = 0;
	pthread_t th;
	bool vanished;
	int ret;

	if (!c->have_jobs) {
		srv_refuse(c, EINVAL, "RUN before a job file");
		return;
	}
	r.err = open_memstream(&err_buf, &err_len);
	if (!r.err) {
		srv_refuse(c, ENOMEM, "out of memory");
		return;
	}
	ret = rq_engine_setup(&r.e, &c->srv->cfg.eo, &c->jobs, r.err);
	if (ret) {
		fclose(r.err);
		err_buf[strcspn(err_buf, "\n")] = '\0';
		srv_refuse(c, -ret, err_len ? err_buf : "the engine cannot set up these jobs");
		free(err_buf);
		return;
	}
	srv_send_cmd(c, FIO_NET_CMD_SERVER_START, 0, NULL, 0);
	c->run_start_ns = srv_now_ns();
	atomic_store(&c->running, c->nr_clones);
	srv_log(c, "running %u job(s), %u clone(s)", c->jobs.nr, c->nr_clones);
	if (pthread_create(&th, NULL, run_thread, &r)) {
		rq_engine_free(r.e);
		fclose(r.err);
		free(err_buf);
		srv_refuse(c, EAGAIN, "cannot start the run thread");
		return;
	}
	vanished = run_wait(c, &r);
	pthread_join(th, NULL);
	atomic_store(&c->running, 0);
	fclose(r.err);
	if (vanished) {
		rq_engine_free(r.e);
		free(err_buf);
		if (!srv_quit)
			rq_engine_stop_reset();	/* the stop was for that run only: the next one runs */
		return;
	}
	forward_text(c, r.ret ? FIO_LOG_ERR : FIO_LOG_INFO, err_buf, err_len, r.ret != 0);
	free(err_buf);
	if (r.ret < 0 && r.ret != -EPROTO) {
		srv_send_textf(c, FIO_LOG_ERR, "rqlock server: the run failed: %s\n", strerror(-r.ret));
		srv_send_stop_quit(c, -r.ret, 0);
		rq_engine_free(r.e);
		c->dead = true;
		return;
	}
	srv_send_results(c, rq_engine_report(r.e), r.ret);
	rq_engine_free(r.e);
	if (rq_engine_stopped() && !srv_quit)
		rq_engine_stop_reset();
	c->dead = true;
}
