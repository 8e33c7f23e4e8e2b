/* SPDX-License-Identifier: MIT */
/*
 * optdump.c - prints the job-file option table (every section of the
 * registry in jobfile/options.c, through jf_opt_at()) as tab-separated
 * lines, for the man page generator (python/rqlock/manpage.py).  A
 * build-time tool, not installed; reads the table through the parser's
 * internal header.
 *
 * One line per option:
 *   impl  NAME  ALIAS  DEFAULT  HELP      implemented
 *   inert NAME  ALIAS  -        WHY       accepted, a warning: cannot change the result
 *   only  NAME  ALIAS  VALUES   WHY       accepted only at VALUES
 *   nope  NAME  ALIAS  -        WHY       refused
 * Empty fields are "-"; tabs and newlines never occur in the table.
 */
#include <stdio.h>

#include "jobfile/jobfile_internal.h"

static const char *f(const char *s)
{
	return s && *s ? s : "-";
}

int main(void)
{
	static const char *const kind[] = {
		[K_IMPL] = "impl", [K_INERT] = "inert", [K_ONLY] = "only", [K_NOPE] = "nope",
	};

	for (unsigned int i = 0; i < jf_nr_opts(); i++) {
		const struct opt *o = jf_opt_at(i);

		if (!o->name)
			continue;
		printf("%s\t%s\t%s\t%s\t%s\n", kind[o->kind], o->name, f(o->alias),
		       f(o->kind == K_IMPL ? o->def : o->kind == K_ONLY ? o->only : NULL),
		       f(o->kind == K_IMPL ? o->help : o->why));
	}
	return ferror(stdout) ? 1 : 0;
}
