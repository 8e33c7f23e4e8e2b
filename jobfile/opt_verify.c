// SPDX-License-Identifier: MIT
/*
 * opt_verify.c - the options that say how written data is checked and
 * what data is written: verify, verify_pattern, do_verify, verify_only,
 * verify_state_save/load, experimental_verify, verify_backlog,
 * verify_interval, verify_offset, the trims of written blocks
 * (trim_percentage, trim_verify_zero, trim_backlog, trim_backlog_batch)
 * and buffer_pattern.  Holds their section of the option table, the
 * setters and --showcmd renderings of exactly these options
 * (verify_pattern and buffer_pattern share fio's pattern syntax) and the
 * value tables only they use, so that an option and its code read in
 * one place, as fio keeps them.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobfile/jobfile_internal.h"

/* ------------------------------------------------------- value tables */

#define NOT_VERIFY "is not supported in rqlock (crc32c, md5, meta and pattern are)"
static const struct opt_val verify_vals[] = {
	{ "0",		RQ_VERIFY_NONE,		NULL },
	{ "crc32c",	RQ_VERIFY_CRC32C,	NULL },
	{ "crc32c-intel", RQ_VERIFY_CRC32C,	NULL },
	{ "md5",	RQ_VERIFY_MD5,		NULL },
	{ "pattern",	RQ_VERIFY_PATTERN,	NULL },
	{ "crc64",	0,	NOT_VERIFY },
	{ "crc32",	0,	NOT_VERIFY },
	{ "crc16",	0,	NOT_VERIFY },
	{ "crc7",	0,	NOT_VERIFY },
	{ "sha1",	0,	NOT_VERIFY },
	{ "sha256",	0,	NOT_VERIFY },
	{ "sha512",	0,	NOT_VERIFY },
	{ "sha3-224",	0,	NOT_VERIFY },
	{ "sha3-256",	0,	NOT_VERIFY },
	{ "sha3-384",	0,	NOT_VERIFY },
	{ "sha3-512",	0,	NOT_VERIFY },
	{ "xxhash",	0,	NOT_VERIFY },
	{ "meta",	RQ_VERIFY_META,		NULL },
	{ "null",	0,	NOT_VERIFY },
	{ NULL, 0, NULL },
};

/* -------------------------------------------- options with their own code */

/*
 * verify_pattern, as fio's lib/pattern.c: a sequence of "text" (double
 * quotes, no escapes), 0x hex bytes, and decimal integers (stored little
 * endian in as few bytes as they need, 0 as one byte, negatives as 4).
 * fio's %o (offset) and 'file' items are refused.
 */
static int parse_pattern(struct pctx *p, unsigned char *out, size_t cap, unsigned int *lenp,
			 char *str)
{
	size_t len = 0;
	const char *c = str;

	while (*c) {
		if (*c == '"') {
			const char *end = strchr(c + 1, '"');
			size_t n;

			if (!end)
				return jf_bad(p, str, "a text without its closing '\"'");
			n = (size_t)(end - c - 1);
			if (n > cap - len)
				return jf_bad(p, str, "longer than 512 bytes");
			memcpy(out + len, c + 1, n);
			len += n;
			c = end + 1;
		} else if (c[0] == '0' && (c[1] == 'x' || c[1] == 'X')) {
			const char *h = c + 2;
			size_t n = 0;

			while (isxdigit((unsigned char)h[n]))
				n++;
			/* "0xff0x14": the next 0x starts a new item, as fio looks back for it */
			if (n >= 2 && h[n - 1] == '0' && (h[n] == 'x' || h[n] == 'X'))
				n--;
			if (!n)
				return jf_bad(p, str, "0x without hex digits");
			if ((n + 1) / 2 > cap - len)
				return jf_bad(p, str, "longer than 512 bytes");
			for (size_t i = 0; i < n;) {
				/* an odd count: the first digit is a byte of its own, as fio */
				size_t take = (i == 0 && (n & 1)) ? 1 : 2;
				unsigned int b = 0;

				for (size_t k = 0; k < take; k++) {
					int d = tolower((unsigned char)h[i + k]);

					b = b * 16 + (unsigned int)(isdigit(d) ? d - '0' : d - 'a' + 10);
				}
				out[len++] = (unsigned char)b;
				i += take;
			}
			c = h + n;
		} else if (isdigit((unsigned char)*c) || *c == '-') {
			/* fio stops a decimal where a 0x item starts: "10x04" is 1, then 0x04 */
			const char *hex = strcasestr(c, "0x");
			char num[32], *end;
			size_t n = hex ? (size_t)(hex - c) : strlen(c);
			long long x;
			unsigned int u;

			snprintf(num, sizeof(num), "%.*s", (int)(n < sizeof(num) ? n : sizeof(num) - 1), c);
			errno = 0;
			x = strtoll(num, &end, 10);
			if (end == num || errno || x > INT32_MAX || x < INT32_MIN)
				return jf_bad(p, str, "a number must fit in 32 bits");
			end = (char *)c + (end - num);
			u = (unsigned int)(int)x;
			if (!u) {
				if (len == cap)
					return jf_bad(p, str, "longer than 512 bytes");
				out[len++] = 0;
			}
			for (; u; u >>= 8) {
				if (len == cap)
					return jf_bad(p, str, "longer than 512 bytes");
				out[len++] = (unsigned char)(u & 0xff);
			}
			c = end;
		} else if (*c == '%') {
			return jf_bad(p, str, "fio's %o (block offset) is not supported in rqlock");
		} else if (*c == '\'') {
			return jf_bad(p, str, "a pattern from a file is not supported in rqlock");
		} else {
			return jf_bad(p, str, "expected \"text\", 0xHEX or a decimal number");
		}
	}
	if (!len)
		return jf_bad(p, str, "an empty pattern");
	*lenp = (unsigned int)len;
	return 0;
}

static int set_verify_pattern(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	(void)v;
	return parse_pattern(p, s->job.verify_pattern, sizeof(s->job.verify_pattern),
			     &s->job.verify_pattern_len, str);
}

/* fio: a pattern without verify= set (here or above) means verify=pattern. */
static int set_verify_pattern_opt(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	int ret = set_verify_pattern(p, s, v, str);

	if (!ret && !jf_is_set(s, "verify"))
		s->job.verify = RQ_VERIFY_PATTERN;
	return ret;
}

static void show_verify_pattern(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	(void)o;
	jf_bput(b, "0x");
	for (unsigned int i = 0; i < j->verify_pattern_len; i++)
		jf_bput(b, "%02x", j->verify_pattern[i]);
}

/* buffer_pattern: the data written when not verifying, fio's pattern syntax */
static int set_buffer_pattern(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	(void)v;
	return parse_pattern(p, s->job.buffer_pattern, sizeof(s->job.buffer_pattern),
			     &s->job.buffer_pattern_len, str);
}

static void show_buffer_pattern(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	(void)o;
	jf_bput(b, "0x");
	for (unsigned int i = 0; i < j->buffer_pattern_len; i++)
		jf_bput(b, "%02x", j->buffer_pattern[i]);
}

/* ------------------------------------------------------------ the options */

/*
 * Verification and the data written, in fio's spelling; --showcmd walks
 * them in this order.
 */
const struct opt jf_opts_verify[] = {
	{
		.name = "verify", .type = OPT_ENUM, FIELD(verify), .vals = verify_vals,
		.def = "0",
		.help = "Check written data on read back: 0, crc32c, md5 or pattern",
	},
	{
		.name = "verify_pattern", .type = OPT_STR, .set = set_verify_pattern_opt,
		.show = show_verify_pattern,
		.help = "Data pattern of verify: \"text\", 0xHEX, numbers; sets "
			"verify=pattern unless verify is given (default: none)",
	},
	{
		.name = "do_verify", .type = OPT_BOOL, FIELD(do_verify), .def = "1",
		.help = "Read back and check after writing when verify is set",
	},
	{
		.name = "verify_only", .type = OPT_BOOL, FIELD(verify_only), .def = "0",
		.help = "Write nothing: replay the job's offsets and sizes from its seed and "
			"check what an earlier run of it wrote",
	},
	{
		.name = "verify_state_save", .type = OPT_BOOL, FIELD(verify_state_save), .def = "1",
		.help = "A job that writes with verify= leaves local-JOB-N-verify.state: how far "
			"its writes got, for verify_state_load",
	},
	{
		.name = "verify_state_load", .type = OPT_BOOL, FIELD(verify_state_load), .def = "0",
		.help = "Read local-JOB-N-verify.state and check only the writes it says completed",
	},
	{
		.name = "experimental_verify", .type = OPT_BOOL, FIELD(experimental_verify), .def = "0",
		.help = "Keep no log of writes: read back by replaying the job's offsets from its "
			"seed",
	},
	{
		.name = "verify_backlog", .type = OPT_INT, FIELD(verify_backlog),
		.min = 0, .max = UINT32_MAX, .def = "0",
		.help = "Check after this many blocks are written; 0 is at the end",
	},
	{
		.name = "verify_interval", .type = OPT_INT, FIELD(verify_interval), .min = 64,
		.max = BS_MAX,
		.help = "A verify header every this many bytes of a block (default: bs)",
	},
	{
		.name = "verify_offset", .type = OPT_INT, FIELD(verify_offset), .min = 0,
		.max = BS_MAX, .def = "0",
		.help = "Put the verify header this far into each interval",
	},
	{
		.name = "trim_percentage", .type = OPT_INT, FIELD(trim_percentage),
		.min = 0, .max = 100, .def = "0",
		.help = "With verify= and trim_backlog: percent of the written blocks that are "
			"trimmed after they are written, then read back",
	},
	{
		.name = "trim_verify_zero", .type = OPT_BOOL, FIELD(trim_verify_zero), .def = "1",
		.help = "A block trimmed by trim_percentage must read back as zeros; 0: it is not "
			"read back",
	},
	{
		.name = "trim_backlog", .type = OPT_INT, FIELD(trim_backlog),
		.min = 0, .max = UINT64_MAX, .def = "0",
		.help = "Trim the blocks trim_percentage marked each time this many written "
			"blocks wait to be read back; 0: no trims",
	},
	{
		.name = "trim_backlog_batch", .type = OPT_INT, FIELD(trim_backlog_batch),
		.min = 0, .max = UINT32_MAX, .def = "0",
		.help = "Trims per trim_backlog batch; 0: trim_backlog's count",
	},
	{
		.name = "buffer_pattern", .type = OPT_STR, .set = set_buffer_pattern,
		.show = show_buffer_pattern,
		.help = "Data written when not verifying, as verify_pattern "
			"(default: rqlock's offset stamps)",
	},
};

const unsigned int jf_nr_opts_verify = JF_ARRAY_LEN(jf_opts_verify);
