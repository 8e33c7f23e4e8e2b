/* SPDX-License-Identifier: MIT */
/*
 * zbd.h - zonemode=zbd (zbd.c): zones emulated on a file or on a block
 * device that is not zoned, as fio 3.33's zbd.c emulates them there
 * (init_zone_info(): every zone empty and sequential-write-required, its
 * capacity zonecapacity).  A write goes to its zone's write pointer; a
 * read stays below it unless read_beyond_wp; open zones are limited by
 * max_open_zones and job_max_open_zones; a full zone is reset before it
 * is written again (or skipped, with verify), and zone_reset_threshold /
 * zone_reset_frequency reset zones early.  Included by runner.h (the
 * clone's and the file's zone state), clone.c, account.c and setup.c.
 */
#ifndef RQ_ENGINE_ZBD_H
#define RQ_ENGINE_ZBD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "jobfile/job.h"

struct rq_engine;
struct clone;
struct clone_file;
struct rq_bio;
struct rq_dev;
struct rq_zbd;		/* a device's zones, shared by every clone that uses it (zbd.c) */

/* eng_zbd_adjust()'s verdicts on an I/O drawn for a zbd clone */
enum rq_zbd_verdict {
	RQ_ZBD_ACCEPT = 0,	/* go, at the (maybe moved and shortened) offset and length */
	RQ_ZBD_EOF = 1,		/* no zone takes it: the file is done (fio's io_u_eof) */
	RQ_ZBD_WAIT = 2,	/* no zone now, I/Os in flight may close some: the same I/O later */
};

/* A zbd clone's own state (struct clone's zbd); set up by eng_zbd_setup(). */
struct rq_zbd_clone {
	bool on;			/* the job is zonemode=zbd */
	unsigned int open;		/* zones it opened (fio's td->num_open_zones) */
	uint32_t min_bs[3];		/* fio's min_bs per direction */
	uint64_t pass_ios;		/* time_based: I/Os when the current pass started */
	/* an I/O held back by RQ_ZBD_WAIT, retried as drawn */
	bool held;
	int held_op;
	struct clone_file *held_f;
	uint64_t held_off;
	uint32_t held_bs;
};

/*
 * setup.c, before anything is written: whether @job's region
 * [@off, @off + @size) of device @name takes zones: one line on @err and
 * -EINVAL if not (a device smaller than a zone, a region less than one, a
 * block size fio refuses with zones, a device whose own zones rqlock does
 * not read).
 */
int eng_zbd_check(const struct rq_job *job, const char *name, const struct rq_dev *dev, uint64_t off,
		  uint64_t size, FILE *err);
/*
 * The region as fio's zbd_zone_align_file_sizes() leaves it: a writing
 * (or random) job's start rounded up to a zone, its end down to one.
 * False when less than a zone is left (eng_zbd_check() said so).
 */
bool eng_zbd_align(const struct rq_job *job, uint64_t dev_size, uint64_t *off, uint64_t *size);
/* After the clones: each device's zones, every zbd clone's files on them; -errno after one line. */
int eng_zbd_setup(struct rq_engine *e, FILE *err);
void eng_zbd_free(struct rq_engine *e);
/* A zbd clone starts a pass: fio's zbd_file_reset() on each of its files. */
void eng_zbd_pass(struct clone *c);
/* fio's zbd_adjust_ddir(): a mixed job's read becomes a write while no zone holds data. */
int eng_zbd_ddir(const struct clone *c, int op);
/* fio's setup_zbd_zone_mode(): a sequential job's position past a zone's capacity, and zoneskip. */
void eng_zbd_seq_pos(struct clone *c, struct clone_file *f, int op);
/*
 * fio's zbd_adjust_block() and zbd_queue_io() on the I/O drawn for @f:
 * *@off and *@bs moved into a zone and shortened to what it takes, the
 * write pointer advanced, a zone opened or reset.  An enum rq_zbd_verdict,
 * or -errno (the clone's error; one line said why).
 */
int eng_zbd_adjust(struct clone *c, struct clone_file *f, int op, uint64_t *off, uint32_t *bs);
/* An I/O eng_zbd_adjust() accepted came back (fio's zbd_put_io()). */
void eng_zbd_done(struct clone *c, struct clone_file *f, const struct rq_bio *bio);
/* ... or never went: the queue refused it. */
void eng_zbd_unissue(struct clone *c, struct clone_file *f, int op, uint64_t off, uint32_t bs);

#endif
