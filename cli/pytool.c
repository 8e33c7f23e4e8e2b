// SPDX-License-Identifier: MIT
/*
 * pytool.c - `rqlock sweep|compare|plot|report`: the experiment tools are the
 * Python package python/rqlock (installed as share/rqlock/python/rqlock);
 * this execs it.  See pytool.h for where the package is looked for.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/pytool.h"

static const char *const py_cmds[] = { "sweep", "compare", "plot", "report" };

/*
 * The package's directory goes first on sys.path before the import, so a
 * rqlock.py or rqlock/ in the current directory cannot stand in for it (as
 * it could under `python3 -m`, which puts the current directory first).
 */
static const char py_boot[] =
	"import sys; sys.path.insert(0, sys.argv.pop(1)); "
	"from rqlock.__main__ import main; sys.exit(main())";

bool rq_pytool_is_cmd(const char *cmd)
{
	for (size_t i = 0; i < sizeof(py_cmds) / sizeof(py_cmds[0]); i++)
		if (!strcmp(cmd, py_cmds[i]))
			return true;
	return false;
}

/* dir holds rqlock/__main__.py: the package is there */
static bool has_pkg(const char *dir)
{
	char p[PATH_MAX];

	return snprintf(p, sizeof(p), "%s/rqlock/__main__.py", dir) < (int)sizeof(p) && !access(p, R_OK);
}

/* Fills dir with the directory to put on PYTHONPATH; 0 or -ENOENT. */
static int find_pkg(const char *exe, char *dir, size_t len)
{
	static const char *const rel[] = { "python", "../share/rqlock/python" };
	const char *env = getenv("RQLOCK_PYTHONPATH");
	char exedir[PATH_MAX], *slash;

	if (env && *env) {
		if (!has_pkg(env))
			return -ENOENT;
		snprintf(dir, len, "%s", env);
		return 0;
	}
	snprintf(exedir, sizeof(exedir), "%s", exe);
	slash = strrchr(exedir, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		char cand[PATH_MAX];

		if (snprintf(cand, sizeof(cand), "%s/%s", exedir, rel[i]) >= (int)sizeof(cand))
			continue;
		if (has_pkg(cand) && realpath(cand, dir) && strlen(dir) < len)
			return 0;
	}
	return -ENOENT;
}

int rq_pytool_exec(int argc, char **argv)
{
	char exe[PATH_MAX], dir[PATH_MAX], **args;
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		fprintf(stderr, "rqlock: %s: cannot find my own binary (/proc/self/exe): %s\n", argv[0],
			strerror(errno));
		return 2;
	}
	exe[n] = '\0';
	if (rq_portable_wanted(argc, argv))
		return rq_portable_exec(argc, argv, exe);
	if (find_pkg(exe, dir, sizeof(dir))) {
		const char *env = getenv("RQLOCK_PYTHONPATH");

		if (env && *env)
			fprintf(stderr, "rqlock: %s: RQLOCK_PYTHONPATH=%s holds no Python package rqlock/\n",
				argv[0], env);
		else
			fprintf(stderr, "rqlock: %s: the Python package rqlock/ is neither in python/ nor in "
				"../share/rqlock/python/ next to %s (set RQLOCK_PYTHONPATH)\n", argv[0], exe);
		return 2;
	}
	args = calloc((size_t)argc + 5, sizeof(*args));
	if (!args)
		return 2;
	args[0] = "python3";
	args[1] = "-c";
	args[2] = (char *)py_boot;
	args[3] = dir;
	memcpy(&args[4], argv, (size_t)argc * sizeof(*args));
	if (setenv("RQLOCK", exe, 1) || setenv("RQLOCK_PROG", "rqlock", 1)) {
		free(args);
		return 2;
	}
	execvp(args[0], args);
	fprintf(stderr, "rqlock: %s needs python3: %s\n", argv[0], strerror(errno));
	free(args);
	return 127;
}
