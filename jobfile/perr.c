// SPDX-License-Identifier: MIT
/*
 * perr.c - how the job-file parser and the option setters report: the
 * parse's one error line and its warnings, "FILE:LINE: ...", through the
 * parse's context.  Below parse.c, section.c, expand.c and value.c, which
 * all call it, so value.c never calls back up into the parser.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "jobfile/jobfile_internal.h"

/* Print the one error line of this parse; returns -EINVAL for the caller. */
int jf_perr(struct pctx *p, const char *fmt, ...)
{
	va_list ap;

	if (p->failed || !p->err)
		goto out;
	if (p->line > 0)
		fprintf(p->err, "%s:%d: ", p->file, p->line);
	else
		fprintf(p->err, "%s: ", p->file);
	va_start(ap, fmt);
	vfprintf(p->err, fmt, ap);
	va_end(ap);
	fputc('\n', p->err);
out:
	p->failed = true;
	return -EINVAL;
}

void jf_vwarn(struct pctx *p, const char *fmt, va_list ap)
{
	if (p->line > 0)
		fprintf(p->err, "%s:%d: warning: ", p->file, p->line);
	else
		fprintf(p->err, "%s: warning: ", p->file);
	vfprintf(p->err, fmt, ap);
	fputc('\n', p->err);
}

/*
 * rqlock's own notes on a job (an option without effect, a line fio would
 * misread): --parse-only prints them; a run is silent about them, as fio
 * is about the same options (rq_parse_opts.quiet).
 */
void jf_pwarn(struct pctx *p, const char *fmt, ...)
{
	va_list ap;

	if (!p->err || (p->po && p->po->quiet))
		return;
	va_start(ap, fmt);
	jf_vwarn(p, fmt, ap);
	va_end(ap);
}

/*
 * A warning fio prints too (on stderr): always printed; with
 * --warnings-fatal it is the parse's one error instead, as fio's is.
 */
int jf_warn_fio(struct pctx *p, const char *fmt, ...)
{
	va_list ap;

	if (p->po && p->po->warnings_fatal) {
		char msg[512];

		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		return jf_perr(p, "%s (--warnings-fatal)", msg);
	}
	if (!p->err)
		return 0;
	va_start(ap, fmt);
	jf_vwarn(p, fmt, ap);
	va_end(ap);
	return 0;
}
