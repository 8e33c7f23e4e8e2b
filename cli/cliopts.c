// SPDX-License-Identifier: MIT
/*
 * cliopts.c - rqlock's command-line options, one table for every
 * command that runs jobs, and `rqlock --list`.
 *
 * `rqlock run` and `rqlock server` both build a struct rq_engine_opts
 * from --lock, --lock-type, --workers and the rest; each adds its own
 * options (output files, sockets) in its own table.  The engine's rows,
 * their checks and their messages live here once, so the two commands
 * cannot drift apart in what they accept or how they refuse it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cliopts.h"
#include "devices/device.h"
#include "engine/engine.h"
#include "locks/lock.h"
#include "queues/queue.h"
#include "results/results.h"

#define BOTH (RQ_CMD_RUN | RQ_CMD_SERVER)
#define RUN RQ_CMD_RUN
#define SERVER RQ_CMD_SERVER

const struct rq_cli_opt rq_cli_opts[] = {
	/* the engine's, for every command that runs jobs */
	{ "lock", RQ_CLI_LOCK, BOTH, "MODE",
	  "lock mode, one of the modes listed below (default: global)" },
	{ "lock-type", RQ_CLI_LOCK_TYPE, BOTH, "TYPE",
	  "lock primitive, one of those listed below (default: ttas)" },
	{ "hw-queues", RQ_CLI_HW_QUEUES, BOTH, "N",
	  "mq: hardware queues per device, at most one per worker (default: the device's: one per worker for null/ram, else 1)" },
	{ "cluster-size", RQ_CLI_CLUSTER_SIZE, BOTH, "K",
	  "cluster: workers per partition, 1..1024 (default: one partition per LLC domain, from sysfs: $RQLOCK_SYSFS or /sys)" },
	{ "lockstat", RQ_CLI_LOCKSTAT, BOTH, "on|off",
	  "lock statistics per lock class, as /proc/lock_stat (default: on)" },
	{ "lockdep", RQ_CLI_LOCKDEP, BOTH, NULL,
	  "validate lock ordering; a cycle fails the run (default: off)" },
	{ "workers", RQ_CLI_WORKERS, BOTH, "N",
	  "worker threads acting as CPUs (default: online CPUs)" },
	{ "stall-timeout", RQ_CLI_STALL, BOTH, "SECONDS",
	  "a request in flight this long ends the run with status 1 (default: 300)" },
	{ "no-pin", RQ_CLI_NO_PIN, BOTH, NULL,
	  "do not pin workers to CPUs (default: pin where allowed)" },
	/* rqlock run's */
	{ "timeline", RQ_CLI_TIMELINE, RUN, "FILE",
	  "write each I/O's due/start/issue/done times as CSV to FILE after the run (default: none)" },
	{ "output-format", RQ_CLI_FORMAT, RUN, "F",
	  "normal, json, json+, terse, or a comma list (default: normal)" },
	{ "minimal", RQ_CLI_MINIMAL, RUN, NULL,
	  "terse output (fio's --minimal), as --output-format=terse" },
	{ "output", RQ_CLI_OUTPUT, RUN, "FILE",
	  "write results to FILE instead of stdout (default: stdout)" },
	{ "eta", RQ_CLI_ETA, RUN, "WHEN",
	  "fio's status line on stderr once a second: always, never, or auto: when stderr is a terminal "
	  "and the report does not go to a pipe or file through stdout (default: auto)" },
	{ "eta-newline", RQ_CLI_ETA_NEWLINE, RUN, "TIME",
	  "start a new status line every TIME, seconds unless suffixed ms/s/m/h (default: never)" },
	{ "status-interval", RQ_CLI_STATUS_INTERVAL, RUN, "TIME",
	  "print the normal report so far every TIME: to stdout when the report goes there in normal "
	  "format, else to stderr (default: never)" },
	{ "write-lock-log", RQ_CLI_LOCK_LOG, RUN, "PREFIX",
	  "per lock class, the mean lock wait and hold of each interval in fio's log format: "
	  "PREFIX_<class>_lockwait.log and PREFIX_<class>_lockhold.log (default: none)" },
	{ "lock-log-msec", RQ_CLI_LOCK_LOG_MSEC, RUN, "MS",
	  "the lock logs' interval, 10..3600000 ms (default: 500)" },
	{ "device", RQ_CLI_DEVICE, RUN, "NAME=SPEC",
	  "a job's filename NAME opens SPEC, e.g. disk0=@null0,delay_us=10 (repeatable; default: none)" },
	{ "grace-period", RQ_CLI_GRACE, RUN, "SECONDS",
	  "after SIGINT/SIGTERM, in-flight I/O drains this long, 0..3600; then (or on a second signal) "
	  "what never came back is abandoned and listed in rqlock.stuck (default: 5)" },
	{ "allow-mounted-write", RQ_CLI_ALLOW_MOUNTED, RUN, NULL,
	  "allow writes to mounted or formatted block devices (default: refuse)" },
	{ "parse-only", RQ_CLI_PARSE_ONLY, RUN, NULL,
	  "check the job files and exit: 0 when they are good, 2 and one line when not" },
	{ "showcmd", RQ_CLI_SHOWCMD, RUN, NULL,
	  "print the jobs as one fio command line, every option resolved, and exit" },
	{ "section", RQ_CLI_SECTION, RUN, "NAME",
	  "run only job section NAME, [global] still applies; repeatable (default: all)" },
	/* fio's own, that rqlock run takes as fio does */
	{ "max-jobs", RQ_CLI_ACCEPT, RUN, "N", "accepted, as fio 3.33 accepts and ignores it (default: none)" },
	{ "debug", RQ_CLI_ACCEPT, RUN, "WHAT", "accepted; rqlock has no fio debug traces (default: none)" },
	{ "alloc-size", RQ_CLI_ACCEPT, RUN, "KB",
	  "accepted; it sizes fio's shared-memory pool, which rqlock has not (default: none)" },
	{ "eta-interval", RQ_CLI_ACCEPT, RUN, "TIME",
	  "accepted; the status line is redrawn once a second (default: 1s)" },
	{ "readonly", RQ_CLI_READONLY, RUN, NULL,
	  "refuse (exit 2) any job that writes or trims, as fio's --readonly does (default: off)" },
	{ "bandwidth-log", RQ_CLI_BW_LOG, RUN | RQ_CLI_OPTIONAL, "NAME",
	  "fio's aggregate bandwidth logs NAME-read_bw.log, NAME-write_bw.log, NAME-trim_bw.log: all jobs' "
	  "KiB/s every 500 ms (default: none; NAME agg when not given)" },
	{ "append-terse", RQ_CLI_APPEND_TERSE, RUN, NULL,
	  "terse output after the normal output (default: off)" },
	{ "terse-version", RQ_CLI_TERSE_VERSION, RUN, "V",
	  "terse format version: 3, the one rqlock writes (default: 3)" },
	{ "warnings-fatal", RQ_CLI_WARNINGS_FATAL, RUN, NULL,
	  "a warning fio prints too (e.g. time_based without runtime) fails the parse (default: off)" },
	{ "inflate-log", RQ_CLI_INFLATE_LOG, RUN, "FILE",
	  "print a log_store_compressed log (NAME.log.fz) as text lines, as fio does, and exit (default: none)" },
	{ "cmdhelp", RQ_CLI_CMDHELP, RUN | RQ_CLI_OPTIONAL, "OPTION",
	  "a job option's help, or all of them (default: all)" },
	{ "enghelp", RQ_CLI_ENGHELP, RUN | RQ_CLI_OPTIONAL, "ENGINE",
	  "the ioengines rqlock takes, or one's options (default: the list)" },
	{ "server", RQ_CLI_SERVER, RUN | RQ_CLI_OPTIONAL, "ADDR",
	  "serve fio --client as `rqlock server ADDR` does, with --lock, --lock-type and --workers "
	  "(default: rqlock server's address)" },
	{ "daemonize", RQ_CLI_DAEMONIZE, RUN, "PIDFILE",
	  "with --server: detach, and write the server's pid to PIDFILE (default: stay in the foreground)" },
	{ "client", RQ_CLI_REFUSE, RUN, "HOST", "refused: drive rqlock hosts with fio --client (default: none)" },
	{ "remote-config", RQ_CLI_REFUSE, RUN, "FILE", "refused: a fio client's option (default: none)" },
	{ "latency-log", RQ_CLI_REFUSE, RUN, "FILE",
	  "refused, as fio 3.33 refuses it: use write_lat_log (default: none)" },
	{ "profile", RQ_CLI_REFUSE, RUN, "NAME", "refused: rqlock has no fio profiles (default: none)" },
	{ "idle-prof", RQ_CLI_REFUSE, RUN, "OPT", "refused: rqlock does not profile idle CPUs (default: none)" },
	{ "trigger-file", RQ_CLI_REFUSE, RUN, "FILE", "refused: rqlock has no triggers (default: none)" },
	{ "trigger-timeout", RQ_CLI_REFUSE, RUN, "TIME", "refused: rqlock has no triggers (default: none)" },
	{ "trigger", RQ_CLI_REFUSE, RUN, "CMD", "refused: rqlock has no triggers (default: none)" },
	{ "trigger-remote", RQ_CLI_REFUSE, RUN, "CMD", "refused: rqlock has no triggers (default: none)" },
	{ "aux-path", RQ_CLI_AUX_PATH, RUN, "DIR",
	  "the directory verify_state_save's files go to and verify_state_load's are read from "
	  "(default: the current directory)" },
	{ "merge-blktrace-only", RQ_CLI_MERGE_ONLY, RUN, NULL,
	  "merge each job's read_iolog blktraces into its merge_blktrace_file and stop, as fio (default: off)" },
	{ "cpuclock-test", RQ_CLI_REFUSE, RUN, NULL, "refused: fio's own clock test" },
	{ "crctest", RQ_CLI_REFUSE, RUN | RQ_CLI_OPTIONAL, "TYPE",
	  "refused: fio's own checksum benchmark (default: none)" },
	{ "memcpytest", RQ_CLI_REFUSE, RUN | RQ_CLI_OPTIONAL, "TYPE",
	  "refused: fio's own memcpy benchmark (default: none)" },
	/* rqlock server's */
	{ "allow", RQ_CLI_ALLOW, SERVER, "PATH|@builtin|@none",
	  "what a client's job may open: an absolute file or directory (PATH/ and below), "
	  "the built-in devices, or none of them (repeatable; default: @builtin only); every path a job "
	  "makes the engine open, create or delete is judged, after symlinks and '..'" },
	{ "allow-nonlocal", RQ_CLI_NONLOCAL, SERVER, NULL, "bind a non-loopback address (default: refuse)" },
	{ "read-timeout", RQ_CLI_READ_TIMEOUT, SERVER, "MS", "a started packet must complete within MS (default: 5000)" },
	{ "idle-timeout", RQ_CLI_IDLE_TIMEOUT, SERVER, "MS", "drop a client that sends nothing but ETA requests for MS outside a run (default: 30000)" },
	{ "max-connections", RQ_CLI_MAX_CONNS, SERVER, "N", "exit after N connections (default: serve forever)" },
	{ "max-memory", RQ_CLI_MAX_MEMORY, SERVER, "SIZE",
	  "the memory a run's built-in devices may hold data in (@ram, models without file=) and its "
	  "I/O buffers, e.g. 4g; 0 = no cap (default: half of RAM)" },
	{ "max-numjobs", RQ_CLI_MAX_NUMJOBS, SERVER, "N", "clones a job file may ask for, summed over its jobs (default: 256)" },
	{ "max-files", RQ_CLI_MAX_FILES, SERVER, "N", "data files a job file may name, summed over its clones (default: 1024)" },
	{ "max-iodepth", RQ_CLI_MAX_IODEPTH, SERVER, "N", "the largest iodepth a job may ask for (default: 1024)" },
	{ "max-runtime", RQ_CLI_MAX_RUNTIME, SERVER, "SECONDS",
	  "stop a run after SECONDS of wall time and send what it measured (default: 3600)" },
	{ "name", RQ_CLI_NAME, SERVER, "NAME",
	  "the host name clients see and print (default: this host's name and the address, HOST@ADDR)" },
	{ "help", RQ_CLI_HELP, BOTH, NULL, "this help" },
	{ "version", RQ_CLI_VERSION, RUN, NULL, "print the version" },
};

const unsigned int rq_cli_nr_opts = sizeof(rq_cli_opts) / sizeof(rq_cli_opts[0]);
_Static_assert(sizeof(rq_cli_opts) / sizeof(rq_cli_opts[0]) <= RQ_CLI_MAX_OPTS, "raise RQ_CLI_MAX_OPTS");

#undef BOTH
#undef RUN
#undef SERVER

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

void rq_cli_longopts(struct option *lo, enum rq_cli_cmd cmd)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < rq_cli_nr_opts; i++) {
		const struct rq_cli_opt *c = &rq_cli_opts[i];

		if (c->cmds & cmd)
			lo[n++] = (struct option){ .name = c->name, .val = c->key,
						   .has_arg = !c->arg ? no_argument :
							      (c->cmds & RQ_CLI_OPTIONAL) ? optional_argument : required_argument };
	}
	lo[n] = (struct option){ 0 };
}

void rq_cli_help(FILE *f, enum rq_cli_cmd cmd)
{
	for (unsigned int i = 0; i < rq_cli_nr_opts; i++) {
		const struct rq_cli_opt *o = &rq_cli_opts[i];
		char left[64];

		if (!(o->cmds & cmd))
			continue;
		/* --name=[ARG]: a value that may be left out, given only after '=' */
		snprintf(left, sizeof(left), "--%s%s%s%s%s", o->name, o->arg ? "=" : "",
			 (o->cmds & RQ_CLI_OPTIONAL) ? "[" : "", o->arg ? o->arg : "",
			 (o->cmds & RQ_CLI_OPTIONAL) ? "]" : "");
		fprintf(f, "  %-28s %s\n", left, o->help);
	}
}

const char *rq_cli_opt_help(const char *name)
{
	for (unsigned int i = 0; i < rq_cli_nr_opts; i++)
		if (!strcmp(rq_cli_opts[i].name, name))
			return rq_cli_opts[i].help;
	return "";
}

int rq_engine_cli_env(struct rq_engine_opts *o, const char *prog)
{
	static const struct { const char *var; int key; } vars[] = {
		{ "RQLOCK_LOCK", RQ_CLI_LOCK }, { "RQLOCK_LOCK_TYPE", RQ_CLI_LOCK_TYPE },
		{ "RQLOCK_WORKERS", RQ_CLI_WORKERS }, { "RQLOCK_HW_QUEUES", RQ_CLI_HW_QUEUES },
		{ "RQLOCK_CLUSTER_SIZE", RQ_CLI_CLUSTER_SIZE }, { "RQLOCK_LOCKSTAT", RQ_CLI_LOCKSTAT },
	};

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i].var);
		char who[64];

		if (!v || !*v)
			continue;
		/* "rqlock: RQLOCK_LOCK: --lock=x: unknown lock mode (...)" */
		snprintf(who, sizeof(who), "%s: %s", prog, vars[i].var);
		if (rq_engine_cli_apply(o, vars[i].key, v, who))
			return -EINVAL;
	}
	return 0;
}

void rq_engine_cli_lists(FILE *f)
{
	/* the registries' own names and help: a new mode or primitive shows up here */
	fprintf(f, "\nLock modes (--lock):\n");
	for (unsigned int i = 0; rq_queue_mode_at(i); i++) {
		const struct rq_queue_mode_ops *m = rq_queue_mode_at(i);

		fprintf(f, "  %-28s %s", m->name, m->help);
		for (const char *const *o = m->options; o && *o; o++)
			fprintf(f, "%s--%s", o == m->options ? "; reads " : ", ", *o);
		fputc('\n', f);
	}
	fprintf(f, "\nLock primitives (--lock-type): %s\n", rq_lock_type_names());
}

int rq_list_cmd(int argc, char **argv)
{
	const struct rq_registry *r;
	bool json = false;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json")) {
			fprintf(stderr, "rqlock: --list: unknown argument '%s' (only --json)\n", argv[i]);
			return 2;
		}
		json = true;
	}
	if (!json) {
		rq_engine_cli_lists(stdout);
		printf("\nDevices (filename=@KIND,... or a path of the job's ioengine):\n");
		rq_dev_help(stdout, NULL);
		return ferror(stdout) ? 1 : 0;
	}
	r = rq_registry_get();
	if (!r) {
		fprintf(stderr, "rqlock: --list: out of memory\n");
		return 1;
	}
	return rq_registry_json_write(stdout, r) ? 1 : 0;
}
