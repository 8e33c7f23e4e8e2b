// SPDX-License-Identifier: MIT
/*
 * cliopts.c - the engine's command-line options, one table for every
 * command that runs jobs.
 *
 * `rqlock run` and `rqlock server` both build a struct rq_engine_opts
 * from --lock, --lock-type, --workers and the rest; each adds its own
 * options (output files, sockets) in its own table.  The engine's rows,
 * their checks and their messages live here once, so the two commands
 * cannot drift apart in what they accept or how they refuse it.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/engine.h"
#include "locks/lock.h"
#include "queues/queue.h"

/* its size must match engine.h's RQ_ENGINE_NR_CLI_OPTS, or the types conflict */
const struct rq_cli_opt rq_engine_cli_opts[] = {
	{ "lock", required_argument, RQ_CLI_LOCK, "MODE",
	  "lock mode, one of the modes listed below (default: global)" },
	{ "lock-type", required_argument, RQ_CLI_LOCK_TYPE, "TYPE",
	  "lock primitive, one of those listed below (default: ttas)" },
	{ "hw-queues", required_argument, RQ_CLI_HW_QUEUES, "N",
	  "mq: hardware queues per device, at most one per worker (default: the device's: one per worker for null/ram, else 1)" },
	{ "cluster-size", required_argument, RQ_CLI_CLUSTER_SIZE, "K",
	  "cluster: workers per partition, 1..1024 (default: one partition per LLC domain, from sysfs: $RQLOCK_SYSFS or /sys)" },
	{ "lockstat", required_argument, RQ_CLI_LOCKSTAT, "on|off",
	  "lock statistics per lock class, as /proc/lock_stat (default: on)" },
	{ "lockdep", no_argument, RQ_CLI_LOCKDEP, NULL,
	  "validate lock ordering; a cycle fails the run (default: off)" },
	{ "workers", required_argument, RQ_CLI_WORKERS, "N",
	  "worker threads acting as CPUs (default: online CPUs)" },
	{ "stall-timeout", required_argument, RQ_CLI_STALL, "SECONDS",
	  "a request in flight this long ends the run with status 1 (default: 300)" },
	{ "no-pin", no_argument, RQ_CLI_NO_PIN, NULL,
	  "do not pin workers to CPUs (default: pin where allowed)" },
};


void rq_engine_opts_init(struct rq_engine_opts *o)
{
	*o = (struct rq_engine_opts){ .lock_mode = "global", .lock_type = "ttas", .pin = true,
				      .lockstat = true };
}

int rq_cli_uint(const char *s, unsigned int max, unsigned int *v)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(s, &end, 10);
	if (errno || *end || end == s || x > max)
		return -EINVAL;
	*v = (unsigned int)x;
	return 0;
}

/* 1..1024, the bound of --workers, --hw-queues and --cluster-size */
static int count_opt(const char *prog, const char *name, const char *arg, unsigned int *v)
{
	if (rq_cli_uint(arg, 1024, v) || !*v) {
		fprintf(stderr, "%s: --%s=%s: expected 1..1024\n", prog, name, arg);
		return -EINVAL;
	}
	return 0;
}

int rq_engine_cli_apply(struct rq_engine_opts *o, int key, const char *arg, const char *prog)
{
	enum rq_lock_type lt;
	unsigned int secs;

	switch (key) {
	case RQ_CLI_LOCK:
		if (!rq_queue_mode_find(arg)) {
			fprintf(stderr, "%s: --lock=%s: unknown lock mode (%s)\n", prog, arg,
				rq_queue_mode_names());
			return -EINVAL;
		}
		o->lock_mode = arg;
		return 0;
	case RQ_CLI_LOCK_TYPE:
		if (rq_lock_type_parse(arg, &lt)) {
			fprintf(stderr, "%s: --lock-type=%s: unknown lock type (%s)\n", prog, arg,
				rq_lock_type_names());
			return -EINVAL;
		}
		o->lock_type = arg;
		return 0;
	case RQ_CLI_WORKERS:
		return count_opt(prog, "workers", arg, &o->workers);
	case RQ_CLI_HW_QUEUES:
		return count_opt(prog, "hw-queues", arg, &o->hw_queues);
	case RQ_CLI_CLUSTER_SIZE:
		return count_opt(prog, "cluster-size", arg, &o->cluster_size);
	case RQ_CLI_LOCKSTAT:
		if (strcmp(arg, "on") && strcmp(arg, "off")) {
			fprintf(stderr, "%s: --lockstat=%s: expected on or off\n", prog, arg);
			return -EINVAL;
		}
		o->lockstat = !strcmp(arg, "on");
		return 0;
	case RQ_CLI_LOCKDEP:
		o->lockdep = true;
		return 0;
	case RQ_CLI_NO_PIN:
		o->pin = false;
		return 0;
	case RQ_CLI_STALL:
		if (rq_cli_uint(arg, 86400, &secs) || !secs) {
			fprintf(stderr, "%s: --stall-timeout=%s: expected 1..86400 seconds\n", prog, arg);
			return -EINVAL;
		}
		o->stall_timeout_ns = (uint64_t)secs * 1000000000ULL;
		return 0;
	default:
		return 1;
	}
}

void rq_cli_longopts(struct option *lo, const struct rq_cli_opt *a, size_t na,
		     const struct rq_cli_opt *b, size_t nb)
{
	for (size_t i = 0; i < na + nb; i++) {
		const struct rq_cli_opt *c = i < na ? &a[i] : &b[i - na];

		lo[i] = (struct option){ .name = c->name, .has_arg = c->has_arg, .val = c->key };
	}
	lo[na + nb] = (struct option){ 0 };
}

void rq_cli_help(FILE *f, const struct rq_cli_opt *o, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char left[64];

		snprintf(left, sizeof(left), "--%s%s%s", o[i].name, o[i].arg ? "=" : "",
			 o[i].arg ? o[i].arg : "");
		fprintf(f, "  %-28s %s\n", left, o[i].help);
	}
}

void rq_engine_cli_lists(FILE *f)
{
	/* the registries' own names and help: a new mode or primitive shows up here */
	fprintf(f, "\nLock modes (--lock):\n");
	for (unsigned int i = 0; rq_queue_mode_at(i); i++)
		fprintf(f, "  %-28s %s\n", rq_queue_mode_at(i)->name, rq_queue_mode_at(i)->help);
	fprintf(f, "\nLock primitives (--lock-type): %s\n", rq_lock_type_names());
}

void rq_set_stop_signals(void (*handler)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int rq_dir_writable(const char *path)
{
	char *dup = strdup(path);
	const char *dir;
	struct stat st;
	int ret = 0;

	if (!dup)
		return -ENOMEM;
	dir = dirname(dup);
	if (stat(dir, &st) || !S_ISDIR(st.st_mode) || access(dir, W_OK | X_OK))
		ret = -EACCES;
	free(dup);
	return ret;
}
