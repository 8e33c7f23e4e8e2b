// SPDX-License-Identifier: MIT
/*
 * fuzz_jobfile.c - libFuzzer target for the fio job-file parser.
 *
 * Feeds the input, as text, to rq_jobs_parse_buf() and, when it parses,
 * renders it through rq_jobs_showcmd(); diagnostics go to /dev/null.  The
 * parser must never crash, leak, hang or read past its input whatever the
 * bytes; ASan and UBSan judge.  An 'include' in the input can name a real
 * file: the parser reads regular files only, a bounded line at a time.
 * Build and run: tests/fuzz/run.sh (or -DRQ_FUZZ=ON with clang).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobfile/job.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	struct rq_job_list l;
	char *buf;

	if (!sink)
		sink = fopen("/dev/null", "w");
	buf = malloc(size + 1);
	if (!buf || !sink) {
		free(buf);
		return 0;
	}
	memcpy(buf, data, size);
	buf[size] = '\0';
	if (rq_jobs_parse_buf("fuzz.fio", buf, &l, sink) == 0) {
		rq_jobs_showcmd(&l, sink);
		rq_jobs_free(&l);
	}
	free(buf);
	return 0;
}
