// SPDX-License-Identifier: MIT
/*
 * replies.c - the fio 3.33 protocol's replies of `rqlock server`
 * (docs/SERVER.md): PROBE (who we are), JOBLINE (fio's command line: only
 * display options are taken), START, and a run's results as fio's packets
 * (fio_ts.c) with rqlock's facts in their description, then STOP and QUIT.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/engine.h"
#include "server/fio_proto.h"
#include "server/server_internal.h"

static int emit_fn(struct rq_fio_emit *em, uint16_t op, const void *pdu, size_t len)
{
	struct conn *c = (struct conn *)((char *)em - offsetof(struct conn, em));

	return srv_send_cmd(c, op, 0, pdu, len);
}

int srv_send_start(struct conn *c, uint32_t jobs, uint32_t stat_outputs)
{
	struct fio_start_pdu p = { htole32(jobs), htole32(stat_outputs) };

	return srv_send_cmd(c, FIO_NET_CMD_START, 0, &p, sizeof(p));
}

void srv_on_probe(struct conn *c, const struct rq_fio_cmd *cmd)
{
	struct fio_probe_reply_pdu r;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	memset(&r, 0, sizeof(r));
	snprintf((char *)r.hostname, sizeof(r.hostname), "%s", c->srv->cfg.name);
	snprintf((char *)r.fio_version, sizeof(r.fio_version), "%s", RQ_VERSION);
	r.bigendian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	r.os = FIO_OS_LINUX;
	r.arch = FIO_ARCH_HOST;
	r.bpp = sizeof(void *);
	r.cpus = htole32(cpus > 0 ? (uint32_t)cpus : 1);
	r.flags = 0;			/* no zlib: iologs are not sent anyway */
	srv_send_cmd(c, FIO_NET_CMD_PROBE, cmd->tag, &r, sizeof(r));
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

void srv_on_jobline(struct conn *c, const struct rq_fio_cmd *cmd)
{
	struct jobline_ctx x = { .c = c };
	int ret = rq_fio_jobline_each(cmd, jobline_arg, &x);
	char msg[512];

	if (ret == -EINVAL && x.bad[0]) {
		snprintf(msg, sizeof(msg),
			 "fio option '%s' is not supported by rqlock server: put the jobs in a job file", x.bad);
		srv_refuse(c, EINVAL, msg);
		return;
	}
	if (ret < 0) {
		srv_log(c, "dropped: malformed JOBLINE payload");
		c->dead = true;
		return;
	}
	srv_send_start(c, 0, 0);		/* as fio: no jobs from a bare command line */
}

/* rqlock's facts in a thread_stat's description: what JSON readers see of them. */
static void facts(const struct server *s, const struct rq_run_report *r, char *out, size_t len)
{
	size_t n = (size_t)snprintf(out, len, "rqlock lock=%s lock-type=%s workers=%u lockdep=%s lockstat=%s",
				    r->lock_mode, r->lock_type, r->workers, s->cfg.eo.lockdep ? "on" : "off",
				    s->cfg.eo.lockstat ? "on" : "off");

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

void srv_send_results(struct conn *c, const struct rq_run_report *rep, int run_ret)
{
	char *txt = NULL;
	size_t txt_len = 0;
	char desc[256];
	FILE *f;
	int ret;

	facts(c->srv, rep, desc, sizeof(desc));
	c->em.fn = emit_fn;
	ret = rq_fio_send_results(rep, desc, c->nr_clones, &c->em);
	if (!ret && c->normal_out) {
		f = open_memstream(&txt, &txt_len);
		if (f) {
			fprintf(f, "rqlock: lock=%s lock-type=%s workers=%u lockdep=%s clock=%s\n", rep->lock_mode,
				rep->lock_type, rep->workers, c->srv->cfg.eo.lockdep ? "on" : "off", rep->clock);
			rq_lockstat_text(f, rep);
			if (!fclose(f))
				srv_send_text(c, FIO_LOG_INFO, txt, txt_len);
			free(txt);
		}
	}
	if (ret) {
		srv_log(c, "client vanished while results were sent");
	} else {
		srv_send_stop_quit(c, run_ret ? 1 : 0, rep->interrupted);
		srv_log(c, "run done, results sent (%u thread_stat(s))", c->nr_ts);
	}
}
