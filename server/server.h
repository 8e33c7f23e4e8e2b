/* SPDX-License-Identifier: MIT */
/*
 * server.h - `rqlock server`: fio 3.33's client/server protocol in front of
 * rqlock's engine (docs/SERVER.md).  The command line (cli/server_cmd.c)
 * fills a struct rq_server_config from its arguments and calls
 * rq_server_run(); nothing here reads argv.
 */
#ifndef RQ_SERVER_H
#define RQ_SERVER_H

#include <limits.h>
#include <stdbool.h>

#include "engine/engine.h"

#define RQ_SERVER_MAX_ALLOW 64		/* --allow entries */

/* One allow-list entry (rq_server_allow_path() fills it). */
struct rq_server_allow {
	char path[PATH_MAX];		/* canonical, absolute */
	bool dir;			/* everything under path/ */
};

/* Where to listen, fio's --server syntax as the command line read it. */
struct rq_server_listen {
	const char *sock;		/* sock:PATH: the path (the caller's, until rq_server_run() returns); NULL: IP */
	char host[256];			/* IP: a name or a numeric address */
	int port;
	bool v6;			/* ip6: */
};

struct rq_server_config {
	struct rq_engine_opts eo;	/* every run's engine options (--lock, --workers, ...) */
	struct rq_server_listen listen;
	bool allow_nonlocal;		/* bind an address that is not loopback */
	bool allow_builtin;		/* jobs may open built-in devices (@null0, ...) */
	struct rq_server_allow allow[RQ_SERVER_MAX_ALLOW];	/* paths jobs may open */
	unsigned int nr_allow;
	int read_timeout_ms;		/* a started packet must be complete within this */
	int idle_timeout_ms;		/* a connected client must say something within this */
	unsigned int max_conns;		/* 0 = serve forever */
	unsigned int max_numjobs, max_files, max_iodepth;
	unsigned int max_runtime_s;	/* a run is stopped after this much wall time */
	char name[64];			/* the host name clients see (PROBE's); "": HOST@ADDRESS */
};

/*
 * The defaults: the engine's, no verify state files (they would be at a
 * client's path), built-in devices allowed and no path, loopback only,
 * timeouts 5 s (read) and 30 s (idle), at most 256 clones, 1024 files,
 * iodepth 1024 and 3600 s a run, half the machine's memory.  @cfg->listen
 * is left empty: the caller sets it.
 */
void rq_server_config_init(struct rq_server_config *cfg);

/*
 * @path (absolute) as an allow-list entry, in the form the server compares
 * a job's paths in: canonical, its last component need not exist; a
 * directory, or a path written with a trailing '/', allows everything under
 * it.  0, or -errno when its directory does not exist (or is a dangling
 * symlink).
 */
int rq_server_allow_path(struct rq_server_allow *a, const char *path);

/*
 * Binds @cfg->listen and serves until SIGINT or SIGTERM (or max_conns
 * connections).  Returns 0, 1 out of memory, or 2 after one line on stderr
 * for an address it will not bind.
 */
int rq_server_run(const struct rq_server_config *cfg);

#endif
