// SPDX-License-Identifier: MIT
/*
 * main.c - the rqlock command line.
 *
 * Exit status: 0 success, 1 a job failed (or the engine's own checks did),
 * 2 bad input (job files, options, devices): one line on stderr, nothing on
 * stdout, nothing written.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devices/device.h"
#include "engine/engine.h"
#include "cli/cliopts.h"
#include "cli/pytool.h"
#include "cli/server_cmd.h"
#include "queues/queue.h"

enum { EXIT_JOB_FAILED = 1, EXIT_BAD_INPUT = 2 };


static void usage(FILE *f)
{
	fprintf(f, "usage: rqlock run [OPTIONS] [--name=JOB --OPTION=VALUE...] [JOBFILE...]\n"
		   "       rqlock-fio ...                    the same, with fio's command line as is\n"
		   "       rqlock devices [--json] [--all]   list block and NVMe devices\n"
		   "       rqlock sweep|compare|plot|report [ARGS]\n"
		   "                                         experiments: run store, tables, plots,\n"
		   "                                         one HTML page of a run\n"
		   "                                         (`rqlock sweep --help`)\n"
		   "       rqlock server [ADDR] [OPTIONS]   serve fio --client (see rqlock server --help)\n"
		   "       rqlock --list [--json]            lock modes, primitives, devices (what the tools read)\n"
		   "       rqlock --help | --version\n\n"
		   "Runs fio job files through a userspace block layer whose request-queue\n"
		   "locking is switchable, and reports fio-compatible results.\n\n"
		   "Options of run (options and job files in any order, as fio takes them; every\n"
		   "job option is also a command-line option: --name=JOB starts a job, options\n"
		   "before the first --name are global ones that the first job file starts from):\n");
	rq_cli_help(f, RQ_CMD_RUN);
	rq_engine_cli_lists(f);
	fprintf(f, "\nDevices: built-in ones (%s) are named in filename= with '@'\n"
		   "(\"@null1,delay_us=20\"), paths go to the kind serving the job's ioengine:\n",
		rq_dev_builtin_names());
	rq_dev_help(f, NULL);
	fprintf(f, "Latencies are timed with the TSC where the kernel trusts it;\n"
		   "RQLOCK_CLOCK=clock_gettime in the environment forces CLOCK_MONOTONIC,\n"
		   "RQLOCK_CLOCK=tsc the TSC even where the kernel does not trust it.\n"
		   "ioengine=libaio and ioengine=io_uring_cmd (NVMe passthrough, /dev/ngXnY) select\n"
		   "the kernel interface; `rqlock devices` lists what this machine has.\n"
		   "ioengine=null needs no filename, as under fio.\n"
		   "SIGINT/SIGTERM stop new I/O and drain for --grace-period; a second signal (or the\n"
		   "grace running out) abandons what is in flight, lists it (rqlock.stuck) and ends.\n"
		   "RQLOCK_LOCK, RQLOCK_LOCK_TYPE, RQLOCK_WORKERS, RQLOCK_HW_QUEUES, RQLOCK_CLUSTER_SIZE\n"
		   "and RQLOCK_LOCKSTAT in the environment set --lock, --lock-type, --workers, --hw-queues,\n"
		   "--cluster-size and --lockstat (a flag wins), so a tool that drives fio through\n"
		   "rqlock-fio sweeps lock modes unchanged.\n"
		   "Exit status: 0 ok, 1 a job failed, 2 bad input, 130/143 interrupted (SIGINT/SIGTERM).\n");
}

static volatile sig_atomic_t nr_signals;

/* fio's time values on the command line: seconds, or with ms, s, m, h; > 0 */
static int parse_time_ns(const char *s, uint64_t *ns)
{
	static const struct { const char *sfx; uint64_t mult; } units[] = {
		{ "", 1000000000ULL }, { "s", 1000000000ULL }, { "ms", 1000000ULL },
		{ "m", 60000000000ULL }, { "h", 3600000000000ULL },
	};
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].sfx))
			continue;
		if (!x || x > UINT64_MAX / units[i].mult)
			return -EINVAL;
		*ns = x * units[i].mult;
		return 0;
	}
	return -EINVAL;
}

static void on_signal(int sig)
{
	rq_devs_interrupt();	/* a layout in progress stops and removes what it made */
	rq_engine_stop(sig);
	/* the second ends the drain; a third ends the process, whatever it is doing */
	if (++nr_signals == 2)
		rq_set_stop_signals(SIG_DFL);
}

/*
 * SIGINT/SIGTERM end the run cleanly: no new I/O, in-flight I/O drains for
 * --grace-period, what never came back is then abandoned and listed, and
 * the results are written.  A second signal abandons at once.
 */
static void install_signals(void)
{
	rq_set_stop_signals(on_signal);
}

/* Refuse an --output path that cannot be written before anything runs. */
static int check_output(const char *path)
{
	struct stat st;

	if (rq_dir_writable(path)) {
		fprintf(stderr, "rqlock: --output %s: its directory is missing or not writable\n", path);
		return -EINVAL;
	}
	if (!stat(path, &st) && (S_ISDIR(st.st_mode) || access(path, W_OK))) {
		fprintf(stderr, "rqlock: --output %s: not a writable file\n", path);
		return -EINVAL;
	}
	return 0;
}

/*
 * fio's synchronous engines (sync, psync: fio's default) keep one I/O in
 * flight whatever iodepth says; fio notes the cap (backend.c) and so does
 * rqlock, which issues them through its io_uring backend at depth 1.
 */
static void sync_engines(struct rq_job_list *jobs, FILE *info)
{
	for (unsigned int i = 0; i < jobs->nr; i++) {
		struct rq_job *j = &jobs->jobs[i];

		if (j->ioengine != RQ_IOENGINE_SYNC && j->ioengine != RQ_IOENGINE_PSYNC)
			continue;
		/* a note in the normal output, where fio's goes */
		if (j->iodepth > 1 && info)
			fprintf(info, "note: job '%s': ioengine=%s is synchronous: queue depth capped at 1, "
				"as fio caps it\n", j->name, j->ioengine == RQ_IOENGINE_SYNC ? "sync" : "psync");
		j->iodepth = j->iodepth_batch_submit = 1;
		j->iodepth_batch_complete_min = j->iodepth_batch_complete_max = 1;
		rq_job_opt_mark(j, "iodepth");	/* a blktrace replay keeps it (engine/blktrace.c) */
		j->ioengine = RQ_IOENGINE_IO_URING;
	}
}

/*
 * fio's --readonly (its init.c fixup_options): a job that writes or trims
 * is refused, with nothing written.
 */
static int check_readonly(struct rq_job_list *jobs)
{
	for (unsigned int i = 0; i < jobs->nr; i++) {
		struct rq_job *j = &jobs->jobs[i];

		/* a replay's writes and trims are skipped, as fio's read_iolog skips them */
		if (j->read_iolog[0])
			j->replay_skip |= RQ_REPLAY_SKIP_WRITE | RQ_REPLAY_SKIP_TRIM;

		if (rq_rw_writes(j->rw) || j->rw == RQ_RW_TRIM || j->rw == RQ_RW_RANDTRIM) {
			fprintf(stderr, "%s:%d: job '%s': rw=%s writes or trims, and --readonly forbids it\n",
				j->file, j->line, j->name, rq_rw_name(j->rw));
			return -EINVAL;
		}
		/* fio 3.40 too for trim_percentage's trims, whatever rw says (its init.c) */
		if (rq_job_trim_verify(j)) {
			fprintf(stderr, "%s:%d: job '%s': trim_percentage=%u with trim_backlog trims, and "
				"--readonly forbids it\n", j->file, j->line, j->name, j->trim_percentage);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * fio's --server[=ADDR] [--daemonize=PIDFILE]: rqlock's server, which speaks
 * fio's protocol, with the lock settings given so far.  --daemonize detaches
 * it; the pid file holds the server's pid before this process exits.
 */
static int run_server(const char *addr, const char *pidfile, const struct rq_engine_opts *eo)
{
	char lock[96], type[96], workers[32];
	char *args[8];
	int n = 0;
	pid_t pid;

	args[n++] = "server";
	if (addr && *addr)
		args[n++] = (char *)addr;
	snprintf(lock, sizeof(lock), "--lock=%s", eo->lock_mode);
	snprintf(type, sizeof(type), "--lock-type=%s", eo->lock_type);
	args[n++] = lock;
	args[n++] = type;
	if (eo->workers) {
		snprintf(workers, sizeof(workers), "--workers=%u", eo->workers);
		args[n++] = workers;
	}
	args[n] = NULL;
	if (!pidfile)
		return rq_cmd_server(n, args);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "rqlock: --daemonize: fork: %s\n", strerror(errno));
		return EXIT_JOB_FAILED;
	}
	if (!pid) {
		int fd = open("/dev/null", O_RDWR);

		setsid();
		if (fd >= 0) {
			dup2(fd, STDIN_FILENO);
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
			if (fd > STDERR_FILENO)
				close(fd);
		}
		_exit(rq_cmd_server(n, args));
	}
	{
		FILE *f = fopen(pidfile, "w");

		if (!f || fprintf(f, "%d\n", (int)pid) < 0 || fclose(f)) {
			fprintf(stderr, "rqlock: --daemonize=%s: cannot write the pid file\n", pidfile);
			kill(pid, SIGTERM);
			return EXIT_JOB_FAILED;
		}
	}
	return 0;
}

/*
 * getopt's table for run: rqlock's and fio's own options, then every job
 * option (fio's command-line jobs), as fio builds its l_opts.  The caller
 * frees it.
 */
static struct option *run_longopts(void)
{
	unsigned int nr_job = rq_job_cli_opts(NULL, NULL, 0);
	struct option *lo = calloc(RQ_CLI_MAX_OPTS + nr_job + 1, sizeof(*lo));
	const char **names = calloc(nr_job + 1, sizeof(*names));
	bool *bare = calloc(nr_job + 1, sizeof(*bare));
	unsigned int n;

	if (!lo || !names || !bare) {
		free(lo);
		lo = NULL;
		goto out;
	}
	rq_cli_longopts(lo, RQ_CMD_RUN);
	for (n = 0; lo[n].name; n++)
		;
	rq_job_cli_opts(names, bare, nr_job);
	for (unsigned int i = 0; i < nr_job; i++)
		lo[n++] = (struct option){ .name = names[i], .val = RQ_CLI_JOB,
					   .has_arg = bare[i] ? optional_argument : required_argument };
out:
	/* the names are the job table's own strings: only the arrays go */
	free(names);
	free(bare);
	return lo;
}

/* What `rqlock run`'s command line asked for, before any job is parsed. */
struct run_cli {
	struct rq_engine_opts eo;
	struct option *lopts;
	const char *output;
	unsigned int formats;
	const char *aliases[256];
	unsigned int nr_aliases;
	const char *sections[64];
	const char **cmd_keys, **cmd_vals;
	struct rq_parse_opts po;
	bool parse_only, showcmd, readonly, server, merge_only;
	const char *server_addr, *pidfile;
	enum { ETA_AUTO, ETA_ALWAYS, ETA_NEVER } eta;
};

/* A command-line flag ends the command: done, with this exit status. */
#define RUN_CLI_STOP(status) (-1 - (status))

/*
 * The output flags of `rqlock run` (formats, where the report goes, the
 * status line and the logs rqlock itself writes).  Returns 0 applied,
 * 1 not one of them, or RUN_CLI_STOP(status) after one line on stderr.
 */
static int run_cli_output(struct run_cli *rc, int c, const char *arg)
{
	switch (c) {
	case RQ_CLI_APPEND_TERSE:
		rc->formats |= RQ_OUTPUT_TERSE;
		return 0;
	case RQ_CLI_TERSE_VERSION:
		if (!strcmp(arg, "3"))
			return 0;
		fprintf(stderr, "rqlock: --terse-version=%s: rqlock writes terse version 3 only\n", arg);
		return RUN_CLI_STOP(EXIT_BAD_INPUT);
	case RQ_CLI_MINIMAL:
		rc->formats = RQ_OUTPUT_TERSE;
		return 0;
	case RQ_CLI_FORMAT:
		if (!rq_output_parse_format(arg, &rc->formats))
			return 0;
		fprintf(stderr, "rqlock: --output-format=%s: expected normal, json, json+, terse or a comma list\n",
			arg);
		return RUN_CLI_STOP(EXIT_BAD_INPUT);
	case RQ_CLI_OUTPUT:
		rc->output = arg;
		return 0;
	case RQ_CLI_BW_LOG:
		rc->eo.agg_bw_log = arg && *arg ? arg : "agg";
		if (!rq_dir_writable(rc->eo.agg_bw_log))
			return 0;
		fprintf(stderr, "rqlock: --bandwidth-log=%s: its directory is missing or not writable\n",
			rc->eo.agg_bw_log);
		return RUN_CLI_STOP(EXIT_BAD_INPUT);
	case RQ_CLI_TIMELINE:
		rc->eo.timeline = arg;
		return 0;
	case RQ_CLI_AUX_PATH:
		rc->eo.aux_path = arg;
		return 0;
	case RQ_CLI_ETA:
		if (!strcmp(arg, "auto"))
			rc->eta = ETA_AUTO;
		else if (!strcmp(arg, "always"))
			rc->eta = ETA_ALWAYS;
		else if (!strcmp(arg, "never"))
			rc->eta = ETA_NEVER;
		else {
			fprintf(stderr, "rqlock: --eta=%s: expected always, never or auto\n", arg);
			return RUN_CLI_STOP(EXIT_BAD_INPUT);
		}
		return 0;
	case RQ_CLI_LOCK_LOG:
		if (!*arg || arg[strlen(arg) - 1] == '/' || rq_dir_writable(arg)) {
			fprintf(stderr, "rqlock: --write-lock-log=%s: expected a file name prefix in a writable directory\n",
				arg);
			return RUN_CLI_STOP(EXIT_BAD_INPUT);
		}
		rc->eo.lock_log_prefix = arg;
		return 0;
	case RQ_CLI_LOCK_LOG_MSEC:
		if (!rq_cli_uint(arg, 3600000, &rc->eo.lock_log_msec) && rc->eo.lock_log_msec >= 10)
			return 0;
		fprintf(stderr, "rqlock: --lock-log-msec=%s: expected 10..3600000\n", arg);
		return RUN_CLI_STOP(EXIT_BAD_INPUT);
	case RQ_CLI_ETA_NEWLINE:
	case RQ_CLI_STATUS_INTERVAL:
		if (!parse_time_ns(arg, c == RQ_CLI_ETA_NEWLINE ? &rc->eo.eta_newline_ns : &rc->eo.status_interval_ns))
			return 0;
		fprintf(stderr, "rqlock: --%s=%s: expected a time above 0, seconds unless suffixed ms, s, m or h\n",
			c == RQ_CLI_ETA_NEWLINE ? "eta-newline" : "status-interval", arg);
		return RUN_CLI_STOP(EXIT_BAD_INPUT);
	}
	return 1;
}

/* fio's getopt error for @arg, with a job option's near spelling when there is one. */
static int run_cli_unknown(const char *arg)
{
	char name[64];
	const char *hint;

	snprintf(name, sizeof(name), "%s", arg + strspn(arg, "-"));
	name[strcspn(name, "=")] = '\0';
	hint = rq_job_opt_closest(name);
	if (hint && !strcmp(hint, name))
		fprintf(stderr, "rqlock: run: option '%s' needs a value\n", arg);
	else if (hint)
		fprintf(stderr, "rqlock: run: unknown or incomplete option '%s' (did you mean --%s?)\n", arg, hint);
	else
		fprintf(stderr, "rqlock: run: unknown or incomplete option '%s' (see rqlock --help)\n", arg);
	return RUN_CLI_STOP(EXIT_BAD_INPUT);
}

/* --device NAME=SPEC: one more alias, at most as many as rc->aliases holds. */
static int run_cli_device(struct run_cli *rc, const char *arg)
{
	const char *eq = strchr(arg, '=');
	const size_t max = sizeof(rc->aliases) / sizeof(rc->aliases[0]);

	if (!eq || eq == arg || !eq[1]) {
		fprintf(stderr, "rqlock: --device %s: expected NAME=SPEC\n", arg);
		return RUN_CLI_STOP(EXIT_BAD_INPUT);
	}
	if (rc->nr_aliases == max) {
		fprintf(stderr, "rqlock: --device: at most %zu\n", max);
		return RUN_CLI_STOP(EXIT_BAD_INPUT);
	}
	rc->aliases[rc->nr_aliases++] = arg;
	return 0;
}

/*
 * One flag of `rqlock run` (getopt's @c, @arg; @name the long option's
 * name, @given the word as typed).  Returns 0 applied, or
 * RUN_CLI_STOP(status): a flag that does its work and ends the command
 * (--help, --version, --cmdhelp, ...), or bad input after one line.
 */
static int run_cli_flag(struct run_cli *rc, int c, const char *arg, const char *name, const char *given)
{
	/* the engine's options first: 0 applied, 1 not one of them */
	int ret = rq_engine_cli_apply(&rc->eo, c, arg, "rqlock");

	if (ret <= 0)
		return ret < 0 ? RUN_CLI_STOP(EXIT_BAD_INPUT) : 0;
	ret = run_cli_output(rc, c, arg);
	if (ret <= 0)
		return ret;
	switch (c) {
	case RQ_CLI_JOB:
		rc->cmd_keys[rc->po.nr_cmd] = name;
		rc->cmd_vals[rc->po.nr_cmd++] = arg;
		return 0;
	case RQ_CLI_ACCEPT:
		return 0;
	case RQ_CLI_READONLY:
		rc->readonly = true;
		return 0;
	case RQ_CLI_WARNINGS_FATAL:
		rc->po.warnings_fatal = true;
		return 0;
	case RQ_CLI_CMDHELP:
		if (!rq_job_opt_help(arg, stdout))
			return RUN_CLI_STOP(0);
		fprintf(stderr, "rqlock: --cmdhelp=%s: no such job option\n", arg);
		return RUN_CLI_STOP(EXIT_BAD_INPUT);
	case RQ_CLI_ENGHELP:
		if (!rq_job_engines_help(arg, stdout))
			return RUN_CLI_STOP(0);
		fprintf(stderr, "rqlock: --enghelp=%s: no such ioengine in rqlock\n", arg);
		return RUN_CLI_STOP(EXIT_BAD_INPUT);
	case RQ_CLI_VERSION:
		printf("%s\n", RQ_VERSION);
		return RUN_CLI_STOP(0);
	case RQ_CLI_HELP:
		usage(stdout);
		return RUN_CLI_STOP(0);
	case RQ_CLI_SERVER:
		rc->server = true;
		rc->server_addr = arg;
		return 0;
	case RQ_CLI_DAEMONIZE:
		rc->pidfile = arg;
		return 0;
	case RQ_CLI_INFLATE_LOG:
		/* fio's: print the compressed log's lines and exit */
		return RUN_CLI_STOP(rq_log_inflate(arg, stdout, stderr) ? EXIT_BAD_INPUT : 0);
	case RQ_CLI_REFUSE:
		fprintf(stderr, "rqlock: %s: %s\n", given, rq_cli_opt_help(name));
		return RUN_CLI_STOP(EXIT_BAD_INPUT);
	case RQ_CLI_DEVICE:
		return run_cli_device(rc, arg);
	case RQ_CLI_GRACE: {
		unsigned int secs;

		if (rq_cli_uint(arg, 3600, &secs)) {
			fprintf(stderr, "rqlock: --grace-period=%s: expected 0..3600 seconds\n", arg);
			return RUN_CLI_STOP(EXIT_BAD_INPUT);
		}
		rc->eo.grace_period_ns = secs ? (uint64_t)secs * 1000000000ULL : RQ_GRACE_NONE;
		return 0;
	}
	case RQ_CLI_ALLOW_MOUNTED:
		rc->eo.allow_mounted_write = true;
		return 0;
	case RQ_CLI_PARSE_ONLY:
		rc->parse_only = true;
		return 0;
	case RQ_CLI_MERGE_ONLY:
		rc->merge_only = true;
		return 0;
	case RQ_CLI_SHOWCMD:
		rc->showcmd = true;
		return 0;
	case RQ_CLI_SECTION:
		if (rc->po.nr_sections == sizeof(rc->sections) / sizeof(rc->sections[0])) {
			fprintf(stderr, "rqlock: --section: at most %zu\n", sizeof(rc->sections) / sizeof(rc->sections[0]));
			return RUN_CLI_STOP(EXIT_BAD_INPUT);
		}
		rc->sections[rc->po.nr_sections++] = arg;
		return 0;
	}
	return run_cli_unknown(given);
}

/*
 * The command line of `rqlock run`, as fio's: -opt and --opt alike,
 * options and job files in any order.  Returns 0 with @rc filled (the job
 * files from argv[optind]), or RUN_CLI_STOP(status).
 */
static int run_cli_parse(struct run_cli *rc, int argc, char **argv)
{
	int c, idx;

	rq_engine_opts_init(&rc->eo);
	rc->formats = RQ_OUTPUT_NORMAL;
	rc->eta = ETA_AUTO;
	rc->po.sections = rc->sections;
	if (rq_engine_cli_env(&rc->eo, "rqlock"))
		return RUN_CLI_STOP(EXIT_BAD_INPUT);
	rc->lopts = run_longopts();
	rc->cmd_keys = calloc((size_t)argc + 1, sizeof(*rc->cmd_keys));
	rc->cmd_vals = calloc((size_t)argc + 1, sizeof(*rc->cmd_vals));
	if (!rc->lopts || !rc->cmd_keys || !rc->cmd_vals) {
		fprintf(stderr, "rqlock: out of memory\n");
		return RUN_CLI_STOP(EXIT_JOB_FAILED);
	}
	rc->po.cmd_keys = rc->cmd_keys;
	rc->po.cmd_vals = rc->cmd_vals;
	optind = 0;
	opterr = 0;
	for (;;) {
		int ret;

		idx = -1;	/* set only when a long option matched */
		c = getopt_long_only(argc, argv, "l:w:o:h", rc->lopts, &idx);
		if (c == -1)
			break;
		ret = run_cli_flag(rc, c, optarg, idx >= 0 ? rc->lopts[idx].name : NULL, argv[optind - 1]);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Where the status line and the periodic report go.  The status line
 * goes to stderr; auto, as fio: only on a terminal, and not when the
 * report itself goes through stdout to a pipe or a file, or is JSON or
 * terse on stdout (fio's eta.c).
 */
static void run_status_files(struct run_cli *rc)
{
	bool report_on_stdout = !rc->output;
	bool auto_ok = isatty(STDERR_FILENO) && (!report_on_stdout || isatty(STDOUT_FILENO)) &&
		       !(report_on_stdout && !(rc->formats & RQ_OUTPUT_NORMAL));

	if (rc->eta == ETA_ALWAYS || (rc->eta == ETA_AUTO && auto_ok))
		rc->eo.status_f = stderr;
	/* the periodic report never enters JSON, terse or an --output file */
	rc->eo.dump_f = report_on_stdout && rc->formats == RQ_OUTPUT_NORMAL ? stdout : stderr;
}

/*
 * Write the report of @e: rendered in memory first, so the output file is
 * written whole or not at all, after what the normal output said before
 * it (@info, @info_len).  0, or EXIT_JOB_FAILED after one line.
 */
static int run_write_report(struct rq_engine *e, const struct run_cli *rc, FILE *info_f, char **info,
			    size_t *info_len)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len), *out;
	int ret = EXIT_JOB_FAILED;

	if (!mem || rq_output_write(rq_engine_report(e), rc->formats, mem) || fclose(mem)) {
		fprintf(stderr, "rqlock: cannot render the results\n");
		goto out;
	}
	if (info_f && info_f != stdout && fflush(info_f)) {
		fprintf(stderr, "rqlock: out of memory\n");
		goto out;
	}
	out = rc->output ? fopen(rc->output, "w") : stdout;
	if (!out) {
		fprintf(stderr, "rqlock: --output %s: %s\n", rc->output, strerror(errno));
		goto out;
	}
	if ((*info_len && fwrite(*info, 1, *info_len, out) != *info_len) || fwrite(buf, 1, len, out) != len ||
	    (out != stdout ? fclose(out) : fflush(out))) {
		fprintf(stderr, "rqlock: writing the results: %s\n", strerror(errno));
		goto out;
	}
	ret = 0;
out:
	free(buf);
	return ret;
}

/*
 * Set up and run the parsed @jobs and write the report.  Returns the
 * command's exit status: 0, EXIT_JOB_FAILED, EXIT_BAD_INPUT, or 128 +
 * the signal that stopped the run.
 */
static int run_jobs(struct run_cli *rc, struct rq_job_list *jobs)
{
	struct rq_engine *e = NULL;
	char *info = NULL;
	size_t info_len = 0;
	FILE *info_f = NULL;
	int ret;

	/*
	 * What fio's normal output says before the report (laying out files,
	 * a synchronous engine's depth) goes where fio's does: stdout, or the
	 * --output file ahead of the report; JSON and terse have none of it.
	 */
	if (rc->formats & RQ_OUTPUT_NORMAL) {
		info_f = rc->output ? open_memstream(&info, &info_len) : stdout;
		if (!info_f) {
			fprintf(stderr, "rqlock: out of memory\n");
			return EXIT_JOB_FAILED;
		}
	}
	rc->eo.info_f = info_f;
	sync_engines(jobs, info_f);
	run_status_files(rc);
	/* before setup: SIGINT during a file's layout removes what it created */
	install_signals();
	ret = rq_engine_setup(&e, &rc->eo, jobs, stderr);
	if (ret) {
		if (ret == -EINTR && rq_engine_stopped())
			ret = 128 + rq_engine_stopped();
		else
			ret = EXIT_BAD_INPUT;	/* bad input or a limit the jobs exceed: one line said why */
		goto out;
	}
	ret = rq_engine_run(e, stderr);
	if (ret < 0 && ret != -EPROTO) {
		ret = EXIT_JOB_FAILED;
		goto out;
	}
	if (run_write_report(e, rc, info_f, &info, &info_len)) {
		ret = EXIT_JOB_FAILED;
		goto out;
	}
	ret = ret ? EXIT_JOB_FAILED : 0;
	/* as the report says: a signal that came after the run ended does not change it */
	if (rq_engine_report(e)->interrupted)
		ret = 128 + rq_engine_report(e)->interrupted;	/* 130 for SIGINT, 143 for SIGTERM, as a shell */
out:
	if (info_f && info_f != stdout)
		fclose(info_f);
	free(info);
	rq_engine_free(e);
	return ret;
}

static int cmd_run(int argc, char **argv)
{
	struct run_cli rc = { 0 };
	struct rq_job_list jobs = { 0 };
	int ret = run_cli_parse(&rc, argc, argv);

	if (ret) {
		ret = -1 - ret;		/* RUN_CLI_STOP(status) */
		goto out;
	}
	if (rc.server) {
		ret = run_server(rc.server_addr, rc.pidfile, &rc.eo);
		goto out;
	}
	if (optind >= argc && !rc.po.nr_cmd) {
		fprintf(stderr, "rqlock: run: no job file or command-line job given (see rqlock --help)\n");
		ret = EXIT_BAD_INPUT;
		goto out;
	}
	if (rc.output && check_output(rc.output)) {
		ret = EXIT_BAD_INPUT;
		goto out;
	}
	rc.eo.aliases = rc.aliases;
	rc.eo.nr_aliases = rc.nr_aliases;
	/* rqlock's notes on options: --parse-only and --showcmd print them, a run is as quiet as fio */
	rc.po.quiet = !rc.parse_only && !rc.showcmd;
	ret = rq_jobs_parse_opts((const char *const *)&argv[optind], argc - optind, &rc.po, &jobs, stderr);
	if (ret || (rc.readonly && check_readonly(&jobs))) {
		ret = EXIT_BAD_INPUT;
		goto out;
	}
	if (rc.parse_only || rc.showcmd)
		ret = rc.showcmd && rq_jobs_showcmd(&jobs, stdout) ? EXIT_JOB_FAILED : 0;
	else if (rc.merge_only)
		ret = rq_engine_merge_blktraces(&jobs, stderr) ? EXIT_BAD_INPUT : 0;
	else
		ret = run_jobs(&rc, &jobs);
out:
	rq_jobs_free(&jobs);
	free(rc.lopts);
	free(rc.cmd_keys);
	free(rc.cmd_vals);
	return ret;
}

/* Invoked as rqlock-fio (or fio, through a link): the command line is fio's. */
static bool called_as_fio(const char *argv0)
{
	const char *base = strrchr(argv0, '/');

	base = base ? base + 1 : argv0;
	return !strcmp(base, "rqlock-fio") || !strcmp(base, "fio");
}

int main(int argc, char **argv)
{
	if (argc >= 1 && called_as_fio(argv[0])) {
		if (argc < 2) {
			usage(stderr);
			return EXIT_BAD_INPUT;
		}
		return cmd_run(argc, argv);
	}
	if (argc < 2) {
		usage(stderr);
		return EXIT_BAD_INPUT;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("%s\n", RQ_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "--list"))
		return rq_list_cmd(argc - 1, argv + 1);
	if (!strcmp(argv[1], "devices"))
		return rq_devices_cmd(argc - 1, argv + 1);
	if (!strcmp(argv[1], "server"))
		return rq_cmd_server(argc - 1, argv + 1);
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc - 1, argv + 1);
	if (rq_pytool_is_cmd(argv[1]))
		return rq_pytool_exec(argc - 1, argv + 1);
	fprintf(stderr, "rqlock: unknown command '%s' (see rqlock --help)\n", argv[1]);
	return EXIT_BAD_INPUT;
}
