// SPDX-License-Identifier: MIT
/*
 * fuzz_devspec - libFuzzer target for rqlock's device-spec syntax:
 * rq_dev_parse_opts() over a table of number, time and string options, and
 * rq_dev_open() on built-in specs that touch nothing outside the process
 * (@null, and @fault wrapping @null).  Paths are never opened.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devices/device.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

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
		uint64_t a = 0, b = 0;
		char s[32];
		struct rq_dev_opt tab[] = {
			{ .key = "size", .val = &a },
			{ .key = "delay_us", .val = &b, .is_time_us = true },
			{ .key = "file", .str = s, .str_len = sizeof(s) },
		};
		const char *comma = strchr(spec, ',');

		rq_dev_parse_opts(spec, comma ? comma + 1 : spec, tab, 3, sink);
	}
	if ((!strncmp(spec, "@null", 5) || !strncmp(spec, "@fault", 6)) && !strchr(spec, '/') &&
	    !strstr(spec, "@ram") && !strstr(spec, "@floppy") && !strstr(spec, "@hdd") &&
	    !strstr(spec, "size=")) {
		struct rq_dev_open o = { .spec = spec, .where = "fuzz", .ioengine = RQ_DEV_ENGINE_IO_URING,
					 .nr_cpus = 1, .min_size = 1 << 20 };
		struct rq_dev dev;

		if (!rq_dev_open(&dev, &o, sink))
			rq_dev_prepare(&dev, &o, sink);
		rq_dev_close(&dev);
	}
	free(spec);
	return 0;
}
