/* SPDX-License-Identifier: MIT */
/*
 * device.h - device drivers behind one ops table.
 *
 * A device is opened from a spec: a path (a regular file or a block
 * device) or rqlock's own syntax for built-in devices, "@KIND[N][,opt=val]..."
 * (e.g. "@null0", "@null1,delay_us=20").  The '@' keeps such names apart
 * from paths; fio job files reach them through ${VAR} so that the same file
 * runs under real fio with real paths.
 *
 * The kinds (one ops table each, registry in device.c):
 *   null      @null: no data (null.c)          ram     @ram: memcpy (ram.c)
 *   floppy    @floppy: 1.44 MB drive model     hdd     @hdd: disk model (model.c)
 *   file      regular file, io_uring (uring.c) blkdev  block device, io_uring (uring.c)
 *   aio       file or block device, libaio (aio.c: ioengine=libaio)
 *   posixaio  file or block device, POSIX AIO (posixaio.c: ioengine=posixaio)
 *   nvme-pt   /dev/ngXnY, io_uring uring_cmd (nvme.c: ioengine=io_uring_cmd)
 * Write safety, sysfs facts and the shared open paths: blk.c; backing
 * stores: store.c; `rqlock devices`: discover.c.
 *
 * This header is the registry's (open, prepare, close, help); the driver interface itself (struct rq_dev, struct
 * rq_dev_ops, filters, option tables) is declared by the block layer in
 * queues/driver.h, as include/linux/blk-mq.h declares blk_mq_ops.
 */
#ifndef RQ_DEVICE_H
#define RQ_DEVICE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/uio.h>

#include "queues/driver.h"

/* Registry: find the ops for @spec and open it. */
int rq_dev_open(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err);
int rq_dev_prepare(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err);
/*
 * Setup failed or was interrupted after prepare: remove the file prepare
 * created (nothing it did not create).  Returns 1 if one was removed.
 */
int rq_dev_discard_layout(struct rq_dev *dev);
/*
 * SIGINT/SIGTERM arrived: a layout in progress stops at its next chunk,
 * removes what it created and fails with -EINTR.  Async-signal-safe.
 */
void rq_devs_interrupt(void);
bool rq_devs_interrupted(void);
void rq_dev_close(struct rq_dev *dev);
int rq_devs_check(char *msg, size_t len);
const char *rq_dev_kind(const struct rq_dev *dev);
/* "@null, @ram, ...": the registry's built-in kinds, for messages and help */
const char *rq_dev_builtin_names(void);
/*
 * The registry's kinds and filters with their help and options, for
 * --help: every one, or only the one named @name ("null", "@null",
 * "libaio"; NULL = all).  Returns the number printed.
 */
unsigned int rq_dev_help(FILE *f, const char *name);
/* The registry's @i-th kind / filter, NULL past the last (`rqlock --list`). */
const struct rq_dev_ops *rq_dev_kind_at(unsigned int i);
const struct rq_dev_filter_ops *rq_dev_filter_at(unsigned int i);

/* What dev->registered says, for reports: "none", "files", "files+buffers", ... */
const char *rq_dev_registered_name(const struct rq_dev *dev);

/*
 * `rqlock devices [--json]`: block devices from sysfs and NVMe
 * namespaces from `nvme list -o json` (devices/discover.c).  Returns the
 * process exit status.
 */
int rq_devices_cmd(int argc, char **argv);

/* The type's name, for help and JSON: "int", "time_us", "str". */
const char *rq_dev_opt_type_name(enum rq_dev_opt_type t);
/*
 * Set every option of @tab in @base to its default, then parse @opts
 * (",key=val" pairs after the kind, NULL or "" for none) into it.  0, or
 * -errno after one line on @err naming @spec and the option.
 */
int rq_dev_opts_parse(const struct rq_dev_option *tab, void *base, const char *spec, const char *opts,
		      FILE *err);

#endif /* RQ_DEVICE_H */
