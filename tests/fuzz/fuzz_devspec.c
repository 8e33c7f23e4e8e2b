// SPDX-License-Identifier: MIT
/*
 * fuzz_devspec - libFuzzer target for rqlock's device-spec syntax:
 * rq_dev_opts_parse() over a table of number, time and string options, and
 * rq_dev_open() on built-in specs that touch nothing outside the process
 * (@null, and @fault wrapping @null).  Paths are never opened: an "of="
 * that is not @null is not opened (see wraps_only_null()).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devices/device.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

/*
 * Does @fault wrap only @null?  "of=NAME" with a relative NAME is a file in
 * the working directory: laying it out (1 MiB and an fsync per input) is
 * what fuzz-long's first 10^7 run found - 1356 files, 1.4 GB, and 10 s
 * units (kept as corpus-devspec/regress-timeout-*, regress-slow-*).
 */
static bool wraps_only_null(const char *spec)
{
	for (const char *p = strstr(spec, "of="); p; p = strstr(p + 3, "of="))
		if (strncmp(p + 3, "@null", 5))
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static FILE *sink;
	char *spec;

	if (!sink)
		sink = fopen("/dev/null", "w");
	if (size > 4096)
		return 0;
	spec = malloc(size + 1);
	if (!spec)
		return 0;
	memcpy(spec, data, size);
	spec[size] = 0;

	{
		struct o {
			uint64_t a, b;
			char s[32];
		} v;
		static const struct rq_dev_option tab[] = {
			{ "size", RQ_DEV_OPT_U64, offsetof(struct o, a), 0, "1m", "" },
			{ "delay_us", RQ_DEV_OPT_TIME_US, offsetof(struct o, b), 0, NULL, "" },
			{ "file", RQ_DEV_OPT_STR, offsetof(struct o, s), sizeof(v.s), NULL, "" },
			{ NULL, 0, 0, 0, NULL, NULL },
		};
		const char *comma = strchr(spec, ',');

		rq_dev_opts_parse(tab, &v, spec, comma ? comma + 1 : spec, sink);
	}
	if ((!strncmp(spec, "@null", 5) || !strncmp(spec, "@fault", 6)) && !strchr(spec, '/') &&
	    !strstr(spec, "@ram") && !strstr(spec, "@floppy") && !strstr(spec, "@hdd") &&
	    !strstr(spec, "size=") && wraps_only_null(spec)) {
		struct rq_dev_open o = { .spec = spec, .where = "fuzz", .ioengine = "io_uring",
					 .nr_cpus = 1, .min_size = 1 << 20 };
		struct rq_dev dev;

		if (!rq_dev_open(&dev, &o, sink))
			rq_dev_prepare(&dev, &o, sink);
		rq_dev_close(&dev);
	}
	free(spec);
	return 0;
}
