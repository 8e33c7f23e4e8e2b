/* SPDX-License-Identifier: MIT */
/*
 * cliopts.h - rqlock's command-line options (cli/cliopts.c), one table for
 * every command (`rqlock run`, `rqlock server`): getopt's table, --help
 * and the man page are made from it.  The engine's own options (--lock,
 * --workers, ...) are applied there once, into struct rq_engine_opts; each
 * command handles the keys it owns.  The engine knows nothing of a
 * command line: it takes a struct rq_engine_opts.
 */
#ifndef RQ_CLI_CLIOPTS_H
#define RQ_CLI_CLIOPTS_H

#include <stdio.h>

#include "engine/engine.h"

enum rq_cli_cmd { RQ_CMD_RUN = 1 << 0, RQ_CMD_SERVER = 1 << 1 };

struct rq_cli_opt {
	const char *name;
	int key;			/* what getopt_long returns for it */
	unsigned int cmds;		/* enum rq_cli_cmd: the commands that take it */
	const char *arg;		/* the value's name in --help; NULL: takes none */
	const char *help;		/* states the default */
};

/* in rq_cli_opt.cmds: the value only as --name=VALUE (getopt's optional_argument) */
#define RQ_CLI_OPTIONAL (1u << 8)

enum rq_cli_key {
	RQ_CLI_LOCK = 'l', RQ_CLI_WORKERS = 'w', RQ_CLI_OUTPUT = 'o', RQ_CLI_HELP = 'h',
	/* the engine's: rq_engine_cli_apply() */
	RQ_CLI_LOCK_TYPE = 256, RQ_CLI_HW_QUEUES, RQ_CLI_CLUSTER_SIZE, RQ_CLI_LOCKSTAT,
	RQ_CLI_LOCKDEP, RQ_CLI_NO_PIN, RQ_CLI_STALL,
	/* run's */
	RQ_CLI_FORMAT, RQ_CLI_ALLOW_MOUNTED, RQ_CLI_VERSION, RQ_CLI_DEVICE, RQ_CLI_GRACE,
	RQ_CLI_PARSE_ONLY, RQ_CLI_SHOWCMD, RQ_CLI_SECTION, RQ_CLI_MINIMAL, RQ_CLI_TIMELINE, RQ_CLI_AUX_PATH,
	RQ_CLI_ETA, RQ_CLI_ETA_NEWLINE, RQ_CLI_STATUS_INTERVAL, RQ_CLI_LOCK_LOG, RQ_CLI_LOCK_LOG_MSEC,
	/* run's, fio's own: accepted as fio accepts them, or refused with one line */
	RQ_CLI_ACCEPT, RQ_CLI_READONLY, RQ_CLI_BW_LOG, RQ_CLI_APPEND_TERSE, RQ_CLI_TERSE_VERSION,
	RQ_CLI_WARNINGS_FATAL, RQ_CLI_INFLATE_LOG, RQ_CLI_CMDHELP, RQ_CLI_ENGHELP, RQ_CLI_SERVER,
	RQ_CLI_DAEMONIZE, RQ_CLI_REFUSE, RQ_CLI_MERGE_ONLY,
	RQ_CLI_JOB,			/* a job option on the command line (fio's --name=X ...) */
	/* server's */
	RQ_CLI_ALLOW, RQ_CLI_NONLOCAL, RQ_CLI_READ_TIMEOUT, RQ_CLI_IDLE_TIMEOUT, RQ_CLI_MAX_CONNS,
	RQ_CLI_MAX_MEMORY, RQ_CLI_MAX_NUMJOBS, RQ_CLI_MAX_FILES, RQ_CLI_MAX_IODEPTH, RQ_CLI_MAX_RUNTIME,
	RQ_CLI_NAME,
};

#define RQ_CLI_MAX_OPTS 96		/* getopt tables are this + 1 long */
extern const struct rq_cli_opt rq_cli_opts[];
extern const unsigned int rq_cli_nr_opts;

/*
 * Apply the engine option @key with @arg to @o.  Returns 0 when applied,
 * 1 when @key is not an engine option, -EINVAL after one line on stderr
 * ("@prog: --NAME=ARG: expected ...").
 */
int rq_engine_cli_apply(struct rq_engine_opts *o, int key, const char *arg, const char *prog);
/*
 * The engine options from the environment, before any flag: RQLOCK_LOCK,
 * RQLOCK_LOCK_TYPE, RQLOCK_WORKERS, RQLOCK_HW_QUEUES, RQLOCK_CLUSTER_SIZE,
 * RQLOCK_LOCKSTAT, so that a tool that drives fio sweeps lock modes
 * unchanged.  Returns 0, or -EINVAL after one line naming the variable.
 */
int rq_engine_cli_env(struct rq_engine_opts *o, const char *prog);
/* The help text of option @name of the table, "" when there is none. */
const char *rq_cli_opt_help(const char *name);
/* The lock modes and primitives --lock and --lock-type take, from their registries. */
void rq_engine_cli_lists(FILE *f);

/* `rqlock --list [--json]` (argv[0] is "--list"): the registry as text or JSON; exit status. */
int rq_list_cmd(int argc, char **argv);

/* A decimal in 0..@max; -EINVAL otherwise. */
int rq_cli_uint(const char *s, unsigned int max, unsigned int *v);
/* getopt_long's table of @cmd's options, zero-terminated; @lo holds RQ_CLI_MAX_OPTS + 1. */
struct option;
void rq_cli_longopts(struct option *lo, enum rq_cli_cmd cmd);
/* One --help line per option of @cmd: "--name=ARG" then its help. */
void rq_cli_help(FILE *f, enum rq_cli_cmd cmd);

#endif
