/* SPDX-License-Identifier: MIT */
/*
 * server_internal.h - shared inside server/ only: the result packets of a
 * run (fio_ts.c) for the service loop (server.c).
 */
#ifndef RQ_SERVER_INTERNAL_H
#define RQ_SERVER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "jobfile/job.h"
#include "results/results.h"

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

#endif
