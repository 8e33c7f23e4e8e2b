/* SPDX-License-Identifier: MIT */
#ifndef RQ_CLI_PYTOOL_H
#define RQ_CLI_PYTOOL_H

#include <stdbool.h>

/* True for the commands the Python package implements: sweep, compare, plot, report. */
bool rq_pytool_is_cmd(const char *cmd);

/*
 * Runs the package's rqlock.__main__ with argv (as `python3 -m rqlock
 * argv[0] argv[1..]` would, but with the package's directory first on
 * sys.path, so nothing in the current directory can stand in for it) in
 * place of this process, with RQLOCK naming this binary.
 * The package is looked for, first match wins:
 *   $RQLOCK_PYTHONPATH                   (a directory holding rqlock/)
 *   <dir of the binary>/python           (source tree; the build tree has a
 *                                         symlink to the source's python/)
 *   <dir of the binary>/../share/rqlock/python   (installed, any prefix)
 * Returns only on failure, with one line on stderr: 2 when the package is
 * not found, 127 when python3 cannot be run.
 */
int rq_pytool_exec(int argc, char **argv);

/* True for `sweep ... --portable ...`, which needs no Python (portable.c). */
bool rq_portable_wanted(int argc, char **argv);

/*
 * Runs the embedded scripts/portable-sweep.sh with /bin/sh in place of this
 * process (argv as for rq_pytool_exec, exe this binary).  Returns only on
 * failure: 2 on bad input (one line on stderr), 127 without /bin/sh.
 */
int rq_portable_exec(int argc, char **argv, const char *exe);

#endif
