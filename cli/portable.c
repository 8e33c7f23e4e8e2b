// SPDX-License-Identifier: MIT
/*
 * portable.c - `rqlock sweep --portable OUT [OPTIONS]`: the lock-scaling
 * set where only this binary and a POSIX shell exist (no Python, no fio).
 *
 * The binary carries scripts/portable-sweep.sh and jobs/lock-scaling.fio
 * (cmake/embed.cmake writes them into portable_data.c at build time); this
 * runs the script with `sh -c`, the job file and the script itself in the
 * environment, RQLOCK naming this binary.  The script checks its options,
 * takes the axes from the machine, writes the run store into OUT and says
 * how to read it back home (rqlock sweep --summarize, compare, plot).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/pytool.h"

/*
 * Weak: a build that compiles every engine source without the generated portable_data.c
 * (the fuzz targets, tests/fuzz/) still links, and says so if asked.
 */
extern const unsigned char rq_portable_script[] __attribute__((weak));
extern const unsigned char rq_portable_job[] __attribute__((weak));

bool rq_portable_wanted(int argc, char **argv)
{
	if (argc < 1 || strcmp(argv[0], "sweep"))
		return false;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--portable") || !strncmp(argv[i], "--portable=", 11))
			return true;
	return false;
}

int rq_portable_exec(int argc, char **argv, const char *exe)
{
	const char *script = (const char *)rq_portable_script;
	const char *out = NULL;
	char **args;
	int n = 0;

	if (!rq_portable_script || !rq_portable_job) {
		fprintf(stderr, "rqlock: sweep --portable: this binary was built without the portable sweep\n");
		return 2;
	}
	args = calloc((size_t)argc + 5, sizeof(*args));
	if (!args)
		return 2;
	args[n++] = "sh";
	args[n++] = "-c";
	args[n++] = (char *)script;
	args[n++] = "rqlock sweep --portable";
	args[n++] = NULL;	/* OUT, below */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--portable")) {
			if (i + 1 >= argc || out) {
				fprintf(stderr, "rqlock: sweep: --portable %s\n",
					out ? "given twice" : "needs OUT, the run store's directory");
				free(args);
				return 2;
			}
			out = argv[++i];
		} else if (!strncmp(argv[i], "--portable=", 11)) {
			if (out || !argv[i][11]) {
				fprintf(stderr, "rqlock: sweep: --portable %s\n",
					out ? "given twice" : "needs OUT, the run store's directory");
				free(args);
				return 2;
			}
			out = argv[i] + 11;
		} else {
			args[n++] = argv[i];
		}
	}
	args[4] = (char *)out;	/* sh -c SCRIPT $0 OUT OPTIONS... */
	args[n] = NULL;
	if (setenv("RQLOCK", exe, 1) || setenv("RQLOCK_PORTABLE_JOB", (const char *)rq_portable_job, 1) ||
	    setenv("RQLOCK_PORTABLE_SCRIPT", script, 1)) {
		fprintf(stderr, "rqlock: sweep --portable: %s\n", strerror(errno));
		free(args);
		return 2;
	}
	execv("/bin/sh", args);
	fprintf(stderr, "rqlock: sweep --portable needs /bin/sh: %s\n", strerror(errno));
	free(args);
	return 127;
}
