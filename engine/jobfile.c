/* SPDX-License-Identifier: MIT */
/*
 * jobfile.c - fio job-file parser.
 *
 * Reads fio 3.33 job files into struct rq_job_list.  Every option lives in
 * one declarative table (opts[] below): name, alias, type, the field it
 * fills, its default and a help text that states the default.  Defaults are
 * applied by running each .def string through the same code as a job file
 * value, so the table is the only place a default is written.
 *
 * Where fio 3.33 is lax (trailing garbage after a number, unknown suffixes
 * read as 1, "10sec" read as 10 microseconds) rqlock refuses the value with
 * an error naming it: a job file both programs accept means the same job
 * to both.  Where fio misreads or rejects what rqlock accepts ("bs = 8k",
 * bare "direct"), rqlock reads what was meant and warns that fio would not.
 *
 * Diagnostics: an error prints exactly one line "file:line: message" to the
 * caller's stream and the whole parse fails; warnings print
 * "file:line: warning: ..." to the same stream and the parse goes on.
 *
 * Memory: a line may be up to LINE_MAX_LEN bytes, refused (never cut) past
 * that; only the lines of the section being read are kept.
 */
#include "engine/job.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

#define LINE_MAX_LEN	(1u << 20)	/* a hand-written job file never needs more */
#define JOBS_MAX	65536u		/* job sections over all files */
#define BS_MAX		(16u << 20)
#define NS_PER_SEC	1000000000ull

_Static_assert(sizeof(bool) == 1, "store() assumes a one-byte bool");
_Static_assert(sizeof(enum rq_rw) == sizeof(uint32_t), "enums are stored as 32 bits");
_Static_assert(sizeof(enum rq_ioengine) == sizeof(uint32_t), "enums are stored as 32 bits");

/* State of one parse: where we are, for messages, and the jobs so far. */
struct pctx {
	const char *file;
	int line;		/* 0: the message names the file only */
	const char *key;	/* the option as written, for messages */
	FILE *err;
	bool failed;		/* at most one error line per parse */
	struct rq_job_list list;
	unsigned int cap;
};

/* A section as it is being filled: the job plus parser-only settings. */
struct sect {
	struct rq_job job;
	unsigned int kb_base;	/* fio's kb_base: 1024 or 1000 */
};

enum opt_type {
	OPT_STR,	/* text, stored as written */
	OPT_INT,	/* a count; fio reads it like a size, so "1k" is 1024 */
	OPT_SIZE,	/* bytes; k/m/g/t/p suffixes follow kb_base */
	OPT_TIME,	/* seconds unless suffixed us, ms, s, m, h or d */
	OPT_BOOL,	/* 0 or 1 */
	OPT_ENUM,	/* one of .vals */
	OPT_FLAG,	/* the bare word sets it; =0 and =1 also accepted */
};

struct opt_val {
	const char *name;
	int val;
	const char *refuse;	/* non-NULL: known to fio, refused, this says why */
};

struct opt {
	const char *name;
	const char *alias;
	enum opt_type type;
	size_t off;		/* offsetof(struct rq_job, field) */
	size_t size;		/* sizeof the field; 0: no field */
	unsigned int nr;	/* OPT_SIZE: fields a "R,W" list fills, from off on */
	int bit;		/* OPT_FLAG on an int field: the bit it sets */
	bool prio;		/* applied before the rest of its section (fio .prio) */
	uint64_t min, max;	/* OPT_INT, OPT_SIZE */
	const struct opt_val *vals;
	/* Stores the value instead of off/size: the number, or the text. */
	int (*set)(struct pctx *p, struct sect *s, uint64_t v, const char *str);
	const char *def;	/* the default, written as in a job file */
	const char *help;	/* says what the option does and its default */
};

#define FIELD(m)	.off = offsetof(struct rq_job, m), \
			.size = sizeof(((struct rq_job *)0)->m)

#define REFUSE_LATER	"is not available in rqlock yet"
#define REFUSE_NEVER	"is not supported in rqlock"

static int perr(struct pctx *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void pwarn(struct pctx *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Print the one error line of this parse; returns -EINVAL for the caller. */
static int perr(struct pctx *p, const char *fmt, ...)
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

static void pwarn(struct pctx *p, const char *fmt, ...)
{
	va_list ap;

	if (!p->err)
		return;
	fprintf(p->err, "%s:%d: warning: ", p->file, p->line);
	va_start(ap, fmt);
	vfprintf(p->err, fmt, ap);
	va_end(ap);
	fputc('\n', p->err);
}

static int set_kb_base(struct pctx *p, struct sect *s, uint64_t v, const char *str)
{
	(void)p;
	(void)str;
	s->kb_base = (unsigned int)v;
	return 0;
}

/* fio keeps one read/write split: rwmixwrite=N is rwmixread=100-N. */
static int set_rwmixwrite(struct pctx *p, struct sect *s, uint64_t v, const char *str)
{
	(void)p;
	(void)str;
	s->job.rwmixread = 100 - (unsigned int)v;
	return 0;
}

static int set_buffered(struct pctx *p, struct sect *s, uint64_t v, const char *str)
{
	(void)p;
	(void)str;
	s->job.direct = !v;
	return 0;
}

/* Cannot change the result, so a warning rather than an error. */
static int set_thread(struct pctx *p, struct sect *s, uint64_t v, const char *str)
{
	(void)s;
	(void)v;
	(void)str;
	pwarn(p, "option 'thread' has no effect in rqlock (workers are always threads)");
	return 0;
}

static const struct opt_val kb_base_vals[] = {
	{ "1024", 1024, NULL },
	{ "1000", 1000, NULL },
	{ NULL, 0, NULL },
};

static const struct opt_val rw_vals[] = {
	{ "read",		RQ_RW_READ,		NULL },
	{ "write",		RQ_RW_WRITE,		NULL },
	{ "randread",		RQ_RW_RANDREAD,		NULL },
	{ "randwrite",		RQ_RW_RANDWRITE,	NULL },
	{ "rw",			RQ_RW_RW,		NULL },
	{ "readwrite",		RQ_RW_RW,		NULL },
	{ "randrw",		RQ_RW_RANDRW,		NULL },
	{ "trim",		0,			REFUSE_NEVER },
	{ "randtrim",		0,			REFUSE_NEVER },
	{ "trimwrite",		0,			REFUSE_NEVER },
	{ "randtrimwrite",	0,			REFUSE_NEVER },
	{ NULL, 0, NULL },
};

static const struct opt_val ioengine_vals[] = {
	{ "io_uring",		RQ_IOENGINE_IO_URING,	NULL },
	{ "null",		RQ_IOENGINE_NULL,	NULL },
	/* backends planned in DESIGN.md */
	{ "libaio",		0,	REFUSE_LATER },
	{ "io_uring_cmd",	0,	REFUSE_LATER },
	/* fio engines rqlock has no plan for */
	{ "sync",		0,	REFUSE_NEVER },
	{ "psync",		0,	REFUSE_NEVER },
	{ "vsync",		0,	REFUSE_NEVER },
	{ "pvsync",		0,	REFUSE_NEVER },
	{ "pvsync2",		0,	REFUSE_NEVER },
	{ "posixaio",		0,	REFUSE_NEVER },
	{ "mmap",		0,	REFUSE_NEVER },
	{ "splice",		0,	REFUSE_NEVER },
	{ "sg",			0,	REFUSE_NEVER },
	{ "net",		0,	REFUSE_NEVER },
	{ "netsplice",		0,	REFUSE_NEVER },
	{ "cpuio",		0,	REFUSE_NEVER },
	{ "rdma",		0,	REFUSE_NEVER },
	{ "falloc",		0,	REFUSE_NEVER },
	{ "ftruncate",		0,	REFUSE_NEVER },
	{ "e4defrag",		0,	REFUSE_NEVER },
	{ "filecreate",		0,	REFUSE_NEVER },
	{ "filestat",		0,	REFUSE_NEVER },
	{ "filedelete",		0,	REFUSE_NEVER },
	{ "dircreate",		0,	REFUSE_NEVER },
	{ "dirstat",		0,	REFUSE_NEVER },
	{ "dirdelete",		0,	REFUSE_NEVER },
	{ "exec",		0,	REFUSE_NEVER },
	{ "nbd",		0,	REFUSE_NEVER },
	{ "http",		0,	REFUSE_NEVER },
	{ "xnvme",		0,	REFUSE_NEVER },
	{ NULL, 0, NULL },
};

/*
 * The options rqlock reads, in fio's spelling.  A future --help or
 * --showcmd walks this same table.
 */
static const struct opt opts[] = {
	{
		.name = "kb_base", .type = OPT_ENUM, .vals = kb_base_vals,
		.set = set_kb_base, .prio = true, .def = "1024",
		.help = "Unit base of size suffixes: 1024 (k = 1024, KiB = 1000, "
			"fio's compatibility mode) or 1000 (k = 1000, KiB = 1024); "
			"applies to the whole section it is in (default: 1024)",
	},
	{
		.name = "name", .type = OPT_STR, FIELD(name),
		.help = "Job name in reports; in a job section it replaces the "
			"section name, as in fio (default: the section name)",
	},
	{
		.name = "description", .type = OPT_STR,
		.help = "Free text about the job; accepted and ignored (default: none)",
	},
	{
		.name = "rw", .alias = "readwrite", .type = OPT_ENUM, FIELD(rw),
		.vals = rw_vals, .def = "read",
		.help = "I/O pattern: read, write, randread, randwrite, "
			"rw (or readwrite), randrw (default: read)",
	},
	{
		.name = "rwmixread", .type = OPT_INT, FIELD(rwmixread),
		.min = 0, .max = 100, .def = "50",
		.help = "Percent of reads in a mixed job (default: 50)",
	},
	{
		.name = "rwmixwrite", .type = OPT_INT, .set = set_rwmixwrite,
		.min = 0, .max = 100,
		.help = "Percent of writes in a mixed job; sets rwmixread to 100 "
			"minus it, the later of the two wins (default: 50)",
	},
	{
		.name = "bs", .alias = "blocksize", .type = OPT_SIZE, FIELD(bs[0]),
		.nr = 2, .min = 1, .max = BS_MAX, .def = "4k",
		.help = "Block size, up to 16m: one value for reads and writes, "
			"or R,W; an empty part keeps that direction's value "
			"(default: 4k)",
	},
	{
		.name = "iodepth", .type = OPT_INT, FIELD(iodepth),
		.min = 1, .max = 65536, .def = "1",
		.help = "I/Os kept in flight per job, 1 to 65536 (default: 1)",
	},
	{
		.name = "numjobs", .type = OPT_INT, FIELD(numjobs),
		.min = 1, .max = 4096, .def = "1",
		.help = "Clones of this job, 1 to 4096 (default: 1)",
	},
	{
		.name = "size", .type = OPT_SIZE, FIELD(size),
		.min = 0, .max = UINT64_MAX, .def = "0",
		.help = "Bytes of I/O per job; 0 is the whole file or device (default: 0)",
	},
	{
		.name = "offset", .type = OPT_SIZE, FIELD(offset),
		.min = 0, .max = UINT64_MAX, .def = "0",
		.help = "Byte offset where I/O starts (default: 0)",
	},
	{
		.name = "runtime", .alias = "timeout", .type = OPT_TIME,
		FIELD(runtime_ns), .def = "0",
		.help = "Run time limit, seconds unless suffixed; 0 is until size "
			"is done (default: 0)",
	},
	{
		.name = "time_based", .type = OPT_FLAG, FIELD(time_based), .def = "0",
		.help = "Keep running for runtime even after size is done (default: 0)",
	},
	{
		.name = "ramp_time", .type = OPT_TIME, FIELD(ramp_ns), .def = "0",
		.help = "Run this long before keeping stats, seconds unless "
			"suffixed (default: 0)",
	},
	{
		.name = "filename", .type = OPT_STR, FIELD(filename),
		.help = "File or device; several separated by ':', '\\:' is a "
			"literal ':' (default: none)",
	},
	{
		.name = "direct", .type = OPT_BOOL, FIELD(direct), .def = "0",
		.help = "Use O_DIRECT (default: 0)",
	},
	{
		.name = "buffered", .type = OPT_BOOL, .set = set_buffered,
		.help = "Opposite of direct: buffered=0 is direct=1 (default: 1)",
	},
	{
		.name = "group_reporting", .type = OPT_FLAG, FIELD(group_reporting),
		.def = "0",
		.help = "Report each group as one job (default: 0)",
	},
	{
		.name = "stonewall", .alias = "wait_for_previous", .type = OPT_FLAG,
		FIELD(stonewall), .bit = RQ_JOB_STONEWALL, .def = "0",
		.help = "Wait for earlier jobs to finish, start a new group (default: 0)",
	},
	{
		.name = "new_group", .type = OPT_FLAG, FIELD(stonewall),
		.bit = RQ_JOB_NEW_GROUP, .def = "0",
		.help = "Start a new reporting group without waiting (default: 0)",
	},
	{
		.name = "ioengine", .type = OPT_ENUM, FIELD(ioengine),
		.vals = ioengine_vals, .def = "io_uring",
		.help = "Backend: io_uring or null; rqlock's default is io_uring "
			"where fio's is psync (default: io_uring)",
	},
	{
		.name = "thread", .type = OPT_FLAG, .set = set_thread,
		.help = "Accepted for fio compatibility; rqlock workers are always "
			"threads (default: 0)",
	},
};

#define NR_OPTS (sizeof(opts) / sizeof(opts[0]))

static bool opt_is(const struct opt *o, const char *key)
{
	return !strcmp(o->name, key) || (o->alias && !strcmp(o->alias, key));
}

static const struct opt *opt_find(const char *key)
{
	size_t i;

	for (i = 0; i < NR_OPTS; i++)
		if (opt_is(&opts[i], key))
			return &opts[i];
	return NULL;
}

/* Edit distance, for "did you mean"; names longer than 63 get no hint. */
static unsigned int dist(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	unsigned int row[64];

	if (la >= 64 || lb >= 64)
		return ~0u;
	for (j = 0; j <= lb; j++)
		row[j] = (unsigned int)j;
	for (i = 1; i <= la; i++) {
		unsigned int diag = row[0], up;

		row[0] = (unsigned int)i;
		for (j = 1; j <= lb; j++) {
			unsigned int best = diag + (a[i - 1] != b[j - 1]);

			up = row[j];
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

static const char *closest(const char *key)
{
	const char *best = NULL;
	unsigned int d, bd = 3;	/* farther than 2 edits is no hint */
	size_t i;

	for (i = 0; i < NR_OPTS; i++) {
		d = dist(key, opts[i].name);
		if (d < bd) {
			bd = d;
			best = opts[i].name;
		}
	}
	return best;
}

static void store(struct sect *s, const struct opt *o, unsigned int idx, uint64_t v)
{
	char *f = (char *)&s->job + o->off + idx * o->size;

	switch (o->size) {
	case sizeof(bool): {
		bool b = v != 0;

		memcpy(f, &b, sizeof(b));
		break;
	}
	case sizeof(uint32_t): {
		uint32_t x = (uint32_t)v;

		memcpy(f, &x, sizeof(x));
		break;
	}
	case sizeof(uint64_t):
		memcpy(f, &v, sizeof(v));
		break;
	}
}

/* Decimal or hex digits at *sp; advances *sp.  NULL or why it failed. */
static const char *digits(const char **sp, unsigned int base, uint64_t *out)
{
	const char *s = *sp;
	uint64_t v = 0;
	bool any = false;

	for (;; s++) {
		unsigned int d;

		if (isdigit((unsigned char)*s))
			d = *s - '0';
		else if (base == 16 && isxdigit((unsigned char)*s))
			d = tolower((unsigned char)*s) - 'a' + 10;
		else
			break;
		if (v > (UINT64_MAX - d) / base)
			return "too large";
		v = v * base + d;
		any = true;
	}
	if (!any)
		return "not a number";
	*sp = s;
	*out = v;
	return NULL;
}

/*
 * Size suffixes as fio 3.33 reads them (parse.c, __get_mult_bytes), checked
 * against fio --debug=parse: a plain letter, or letter + "b", is a power of
 * kb_base; the IEC "KiB" family is the *other* base, so with the default
 * kb_base=1024 "4k" and "4kB" are 4096 but "4KiB" is 4000, and with
 * kb_base=1000 "4k" is 4000 and "4KiB" is 4096.  Case does not matter.
 */
static const struct {
	const char *sfx;
	unsigned int pow;
	bool iec;
} size_sfx[] = {
	{ "", 0, false }, { "b", 0, false },
	{ "k", 1, false }, { "kb", 1, false }, { "kib", 1, true },
	{ "m", 2, false }, { "mb", 2, false }, { "mib", 2, true },
	{ "g", 3, false }, { "gb", 3, false }, { "gib", 3, true },
	{ "t", 4, false }, { "tb", 4, false }, { "tib", 4, true },
	{ "p", 5, false }, { "pb", 5, false }, { "pib", 5, true },
};

/*
 * A byte count: decimal with an optional suffix, or 0x hex without one.
 * fio would read "4x" as 4 and "1.5k" as 1; both are refused here.
 */
static const char *parse_size(const char *v, unsigned int kb_base, uint64_t *out)
{
	const char *s = v, *why;
	uint64_t n, mult;
	size_t i;
	unsigned int pow;

	if (*s == '-')
		return "negative values are not allowed";
	if (*s == '(')
		return "arithmetic expressions are not supported in rqlock";
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		why = digits(&s, 16, &n);
		if (why)
			return why;
		if (*s)
			return "hex values take no suffix";
		*out = n;
		return NULL;
	}
	why = digits(&s, 10, &n);
	if (why)
		return why;
	if (*s == '.')
		return "fractions are not allowed";
	if (!strcmp(s, "%"))
		return "percentages are not supported in rqlock";
	for (i = 0; i < sizeof(size_sfx) / sizeof(size_sfx[0]); i++)
		if (!strcasecmp(s, size_sfx[i].sfx))
			break;
	if (i == sizeof(size_sfx) / sizeof(size_sfx[0]))
		return "unknown size suffix (use k, m, g, t or p, optionally followed by B or iB)";
	mult = kb_base;
	if (size_sfx[i].iec)
		mult = kb_base == 1024 ? 1000 : 1024;
	for (pow = size_sfx[i].pow; pow; pow--) {
		if (n > UINT64_MAX / mult)
			return "too large";
		n *= mult;
	}
	*out = n;
	return NULL;
}

/*
 * fio 3.33 (parse.c, get_mult_time) with seconds as the unit of a bare
 * number, as for runtime and ramp_time.  fio reads an unknown suffix as
 * microseconds ("10sec" is 10us there); rqlock refuses it.
 */
static const struct {
	const char *sfx;
	uint64_t ns;
} time_sfx[] = {
	{ "", NS_PER_SEC },
	{ "us", 1000 }, { "usec", 1000 },
	{ "ms", 1000000 }, { "msec", 1000000 },
	{ "s", NS_PER_SEC },
	{ "m", 60 * NS_PER_SEC },
	{ "h", 3600 * NS_PER_SEC },
	{ "d", 86400 * NS_PER_SEC },
};

static const char *parse_time(const char *v, uint64_t *ns)
{
	const char *s = v, *why;
	uint64_t n;
	size_t i;

	if (*s == '-')
		return "negative values are not allowed";
	why = digits(&s, 10, &n);
	if (why)
		return why;
	if (*s == '.')
		return "fractions are not allowed";
	for (i = 0; i < sizeof(time_sfx) / sizeof(time_sfx[0]); i++)
		if (!strcasecmp(s, time_sfx[i].sfx))
			break;
	if (i == sizeof(time_sfx) / sizeof(time_sfx[0]))
		return "unknown time suffix (use us, ms, s, m, h or d)";
	if (n > UINT64_MAX / time_sfx[i].ns)
		return "too large";
	*ns = n * time_sfx[i].ns;
	return NULL;
}

static int bad(struct pctx *p, const char *v, const char *why)
{
	return perr(p, "bad value '%.64s%s' for option '%s': %s", v,
		    strlen(v) > 64 ? "..." : "", p->key, why);
}

static int num_one(struct pctx *p, struct sect *s, const struct opt *o,
		   const char *v, uint64_t *out)
{
	const char *why;

	if (o->type == OPT_TIME) {
		why = parse_time(v, out);
		return why ? bad(p, v, why) : 0;
	}
	why = parse_size(v, s->kb_base, out);
	if (why)
		return bad(p, v, why);
	if (*out < o->min || *out > o->max) {
		char range[64];

		snprintf(range, sizeof(range), "must be from %llu to %llu",
			 (unsigned long long)o->min, (unsigned long long)o->max);
		return bad(p, v, range);
	}
	return 0;
}

/*
 * Numbers.  With .nr > 1 the value may be fio's "R,W[,T]" list: an empty
 * part leaves that direction as it was ("bs=,8k", and "bs=8k," sets reads
 * only, as fio 3.33 does), one value with no comma sets every direction.
 * The trim part is checked and dropped: rqlock issues no trims.
 */
static int apply_num(struct pctx *p, struct sect *s, const struct opt *o, char *v)
{
	unsigned int parts = 1, i, nset = 0;
	uint64_t n;
	char *c, *part;
	int ret;

	for (c = v; *c; c++)
		parts += *c == ',';
	if (parts > (o->nr > 1 ? 3u : 1u))
		return bad(p, v, o->nr > 1 ? "at most R,W,T" : "one value only");
	if (parts == 1) {
		ret = num_one(p, s, o, v, &n);
		if (ret)
			return ret;
		if (o->set)
			return o->set(p, s, n, v);
		for (i = 0; i < (o->nr ? o->nr : 1); i++)
			store(s, o, i, n);
		return 0;
	}
	for (i = 0, part = v; i < parts; i++, part = c + 1) {
		c = strchr(part, ',');
		if (c)
			*c = '\0';
		if (*part) {
			ret = num_one(p, s, o, part, &n);
			if (ret)
				return ret;
			if (i < o->nr)
				store(s, o, i, n);
			nset++;
		}
		if (!c)
			break;
	}
	if (!nset)
		return perr(p, "option '%s' needs a value", p->key);
	return 0;
}

static int apply_bool(struct pctx *p, struct sect *s, const struct opt *o, const char *v)
{
	uint64_t b;

	if (!v) {
		/* fio 3.33 wants a value for its bool options: "direct" alone fails there */
		if (o->type == OPT_BOOL)
			pwarn(p, "fio 3.33 rejects a bare '%s'; write '%s=1' to keep the job file runnable by fio",
			      p->key, p->key);
		b = 1;
	} else if (!strcmp(v, "0") || !strcmp(v, "1")) {
		b = v[0] == '1';
	} else {
		return bad(p, v, "use 0 or 1");
	}
	if (o->set)
		return o->set(p, s, b, v);
	if (o->bit) {
		int cur;
		char *f = (char *)&s->job + o->off;

		memcpy(&cur, f, sizeof(cur));
		cur = b ? (cur | o->bit) : (cur & ~o->bit);
		memcpy(f, &cur, sizeof(cur));
		return 0;
	}
	if (o->size)
		store(s, o, 0, b);
	return 0;
}

static int apply_enum(struct pctx *p, struct sect *s, const struct opt *o, const char *v)
{
	const struct opt_val *vp;
	char valid[256];
	size_t len = 0;

	for (vp = o->vals; vp->name; vp++)
		if (!strcmp(vp->name, v))
			break;
	if (vp->name && vp->refuse)
		return perr(p, "%s=%s %s", p->key, v, vp->refuse);
	if (vp->name) {
		if (o->set)
			return o->set(p, s, (uint64_t)vp->val, v);
		store(s, o, 0, (uint64_t)(uint32_t)vp->val);
		return 0;
	}
	valid[0] = '\0';
	for (vp = o->vals; vp->name; vp++) {
		if (vp->refuse)
			continue;
		len += snprintf(valid + len, len < sizeof(valid) ? sizeof(valid) - len : 0,
				"%s%s", len ? ", " : "", vp->name);
		if (len >= sizeof(valid))
			break;
	}
	return perr(p, "bad value '%.64s' for option '%s' (valid: %s)", v, p->key, valid);
}

static int apply_str(struct pctx *p, struct sect *s, const struct opt *o, const char *v)
{
	size_t len = strlen(v);
	char *f;

	if (o->set)
		return o->set(p, s, 0, v);
	if (!o->size)
		return 0;
	if (len >= o->size)
		return perr(p, "value of option '%s' is longer than %zu bytes", p->key, o->size - 1);
	f = (char *)&s->job + o->off;
	memcpy(f, v, len + 1);
	return 0;
}

/* @v is NULL for a bare word and may be modified. */
static int opt_apply(struct pctx *p, struct sect *s, const struct opt *o, char *v)
{
	if (!v && o->type != OPT_BOOL && o->type != OPT_FLAG)
		return perr(p, "option '%s' needs a value", p->key);
	switch (o->type) {
	case OPT_STR:
		return apply_str(p, s, o, v);
	case OPT_INT:
	case OPT_SIZE:
	case OPT_TIME:
		return apply_num(p, s, o, v);
	case OPT_BOOL:
	case OPT_FLAG:
		return apply_bool(p, s, o, v);
	case OPT_ENUM:
		return apply_enum(p, s, o, v);
	}
	return perr(p, "option '%s' has a bad table entry", p->key);
}

/*
 * ${VAR} from the environment, an unset VAR being empty, as fio's
 * fio_option_dup_subs does; a "${" with no "}" after it stays as written.
 * Returns a new string, or NULL after printing the error.
 */
static char *expand(struct pctx *p, const char *v)
{
	size_t len = 0, cap = strlen(v) + 1;
	char *out = malloc(cap), *tmp;

	while (out && *v) {
		const char *add = v, *end = NULL;
		size_t n = 1;

		if (v[0] == '$' && v[1] == '{')
			end = strchr(v + 2, '}');
		if (end) {
			char *name = strndup(v + 2, end - v - 2);

			if (!name)
				goto nomem;
			add = getenv(name);
			free(name);
			n = add ? strlen(add) : 0;
			v = end + 1;
		} else {
			v++;
		}
		if (len + n >= LINE_MAX_LEN) {
			free(out);
			perr(p, "value of option '%s' is longer than %u bytes after ${} expansion",
			     p->key, LINE_MAX_LEN);
			return NULL;
		}
		if (len + n + 1 > cap) {
			cap = (len + n + 1) * 2;
			tmp = realloc(out, cap);
			if (!tmp)
				goto nomem;
			out = tmp;
		}
		if (n)
			memcpy(out + len, add, n);
		len += n;
	}
	if (!out)
		goto nomem;
	out[len] = '\0';
	return out;
nomem:
	free(out);
	perr(p, "out of memory");
	return NULL;
}

/* An option line kept until its section ends (kb_base goes first). */
struct kv {
	const struct opt *o;
	char *key;		/* as written; owns the allocation */
	char *val;		/* into the same allocation; NULL for a bare word */
	int line;
};

/* Per-file parse state. */
struct fstate {
	struct sect glob;	/* [global] options so far in this file */
	struct sect cur;	/* the section being read */
	bool in_sect, cur_global;
	bool wall;		/* next job section starts a group (file > 0) */
	unsigned int nr_jobs;	/* job sections in this file */
	struct kv *kv;
	unsigned int nr_kv, cap_kv;
};

static void kv_clear(struct fstate *f)
{
	unsigned int i;

	for (i = 0; i < f->nr_kv; i++)
		free(f->kv[i].key);
	f->nr_kv = 0;
}

static int kv_add(struct pctx *p, struct fstate *f, const struct opt *o,
		  const char *key, size_t klen, const char *val)
{
	size_t vlen = val ? strlen(val) : 0;
	struct kv *kv;
	char *buf;

	if (f->nr_kv == f->cap_kv) {
		unsigned int cap = f->cap_kv ? 2 * f->cap_kv : 16;

		kv = realloc(f->kv, cap * sizeof(*kv));
		if (!kv)
			goto nomem;
		f->kv = kv;
		f->cap_kv = cap;
	}
	buf = malloc(klen + 1 + vlen + 1);
	if (!buf)
		goto nomem;
	memcpy(buf, key, klen);
	buf[klen] = '\0';
	kv = &f->kv[f->nr_kv++];
	kv->o = o;
	kv->key = buf;
	kv->val = NULL;
	kv->line = p->line;
	if (val) {
		kv->val = buf + klen + 1;
		memcpy(kv->val, val, vlen + 1);
	}
	return 0;
nomem:
	perr(p, "out of memory");
	return -ENOMEM;
}

static int job_add(struct pctx *p, const struct rq_job *job)
{
	struct rq_job_list *l = &p->list;

	if (l->nr == JOBS_MAX)
		return perr(p, "more than %u job sections", JOBS_MAX);
	if (l->nr == p->cap) {
		unsigned int cap = p->cap ? 2 * p->cap : 8;
		struct rq_job *jobs = realloc(l->jobs, cap * sizeof(*jobs));

		if (!jobs) {
			perr(p, "out of memory");
			return -ENOMEM;
		}
		l->jobs = jobs;
		p->cap = cap;
	}
	l->jobs[l->nr++] = *job;
	return 0;
}

/* Apply the kept lines of the current section: fio's prio options first. */
static int sect_end(struct pctx *p, struct fstate *f)
{
	unsigned int pass, i;
	int ret = 0;

	if (!f->in_sect)
		return 0;
	for (pass = 0; pass < 2 && !ret; pass++) {
		for (i = 0; i < f->nr_kv && !ret; i++) {
			struct kv *kv = &f->kv[i];
			char *v = NULL;

			if (kv->o->prio != (pass == 0))
				continue;
			p->line = kv->line;
			p->key = kv->key;
			if (kv->val) {
				v = expand(p, kv->val);
				if (!v)
					ret = -EINVAL;
			}
			if (!ret)
				ret = opt_apply(p, &f->cur, kv->o, v);
			free(v);
		}
	}
	kv_clear(f);
	f->in_sect = false;
	if (ret)
		return ret;
	if (f->cur_global) {
		f->glob = f->cur;
		return 0;
	}
	f->nr_jobs++;
	return job_add(p, &f->cur.job);
}

static int sect_start(struct pctx *p, struct fstate *f, const char *name)
{
	struct rq_job *j = &f->cur.job;
	size_t len = strlen(name);

	if (!len)
		return perr(p, "empty section name '[]'");
	if (len >= sizeof(j->name))
		return perr(p, "section name longer than %zu bytes", sizeof(j->name) - 1);
	if (strlen(p->file) >= sizeof(j->file))
		return perr(p, "job file name longer than %zu bytes", sizeof(j->file) - 1);
	f->cur = f->glob;
	/* fio 3.33 (init.c) takes any section whose name starts "global" as global */
	f->cur_global = !strncmp(name, "global", 6);
	f->in_sect = true;
	if (f->cur_global)
		return 0;
	memcpy(j->name, name, len + 1);
	strcpy(j->file, p->file);
	j->line = p->line;
	if (f->wall) {
		j->stonewall |= RQ_JOB_STONEWALL;
		f->wall = false;
	}
	return 0;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	*e = '\0';
	return s;
}

static bool is_key_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/*
 * fio 3.33 hands "option= value" over with the blank: numbers then lose
 * their suffix (parse.c get_mult_bytes stops at the blank, so "bs = 8k" is
 * 8 bytes) and enum values match nothing.  A bare number, a bool and a
 * filename (fio strips it) come through right.
 */
static bool fio_misreads(const struct opt *o, const char *val)
{
	switch (o->type) {
	case OPT_ENUM:
		return true;
	case OPT_INT:
	case OPT_SIZE:
	case OPT_TIME:
		return val[strspn(val, "0123456789")] != '\0';
	default:
		return false;
	}
}

static int do_line(struct pctx *p, struct fstate *f, char *s)
{
	const struct opt *o;
	char *eq, *kend, *val = NULL, *c;
	size_t klen;
	int ret;

	/* fio (parse.c strip_blank_end) ends a line at its first ';' or '#' */
	c = strpbrk(s, ";#");
	if (c)
		*c = '\0';
	s = trim(s);
	if (!*s)
		return 0;

	if (*s == '[') {
		size_t len = strlen(s);
		int line = p->line;

		if (s[len - 1] != ']')
			return perr(p, "unterminated section header '%.64s'", s);
		s[len - 1] = '\0';
		ret = sect_end(p, f);
		if (ret)
			return ret;
		p->line = line;
		return sect_start(p, f, s + 1);
	}

	if (!strncmp(s, "include", 7) && (!s[7] || isspace((unsigned char)s[7])))
		return perr(p, "'include' is not supported in rqlock yet");

	eq = strchr(s, '=');
	kend = eq ? eq : s + strlen(s);
	while (kend > s && isspace((unsigned char)kend[-1]))
		kend--;
	klen = kend - s;
	for (c = s; c < kend && is_key_char(*c); c++)
		;
	if (!klen || c != kend)
		return perr(p, "expected [section], option or option=value, got '%.64s'", s);
	if (!f->in_sect)
		return perr(p, "option '%.*s' outside of any [section]", (int)klen, s);

	*kend = '\0';
	o = opt_find(s);
	if (!o) {
		const char *hint = closest(s);

		if (hint)
			return perr(p, "unknown option '%s' (did you mean '%s'?)", s, hint);
		return perr(p, "unknown option '%s'", s);
	}
	if (eq) {
		bool blank = isspace((unsigned char)eq[1]);

		val = trim(eq + 1);
		if (blank && fio_misreads(o, val))
			pwarn(p, "fio 3.33 keeps the blank after '=' and misreads '%s = %.64s'; write '%s=%.64s' so fio runs the same job",
			      s, val, s, val);
	}
	return kv_add(p, f, o, s, klen, val);
}

/* One line, without its newline, into *line.  1: a line, 0: the end, <0: -errno. */
static int next_line(FILE *fp, const char **bufp, char **line, size_t *cap, size_t *len)
{
	if (fp) {
		ssize_t n = getline(line, cap, fp);

		if (n < 0) {
			int e = errno;

			if (ferror(fp))
				return -(e ? e : EIO);
			return 0;
		}
		*len = (size_t)n;
		if (*len && (*line)[*len - 1] == '\n')
			(*line)[--*len] = '\0';
		return 1;
	} else {
		const char *b = *bufp, *nl;
		size_t n;

		if (!*b)
			return 0;
		nl = strchr(b, '\n');
		n = nl ? (size_t)(nl - b) : strlen(b);
		if (n >= *cap) {
			char *tmp = realloc(*line, n + 1);

			if (!tmp)
				return -ENOMEM;
			*line = tmp;
			*cap = n + 1;
		}
		memcpy(*line, b, n);
		(*line)[n] = '\0';
		*len = n;
		*bufp = nl ? nl + 1 : b + n;
		return 1;
	}
}

/* Parse one job file, from @fp or else @buf; jobs go onto p->list. */
static int parse_one(struct pctx *p, FILE *fp, const char *buf, int file_idx)
{
	struct fstate *f = calloc(1, sizeof(*f));
	char *line = NULL;
	size_t cap = 0, len = 0;
	unsigned int pass, i;
	int ret;

	if (!f) {
		perr(p, "out of memory");
		return -ENOMEM;
	}
	p->line = 0;
	/* the table's defaults, through the same code as a job file's values */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < NR_OPTS; i++) {
			char def[64];

			if (!opts[i].def || opts[i].prio != (pass == 0))
				continue;
			p->key = opts[i].name;
			snprintf(def, sizeof(def), "%s", opts[i].def);
			ret = opt_apply(p, &f->glob, &opts[i], def);
			if (ret)
				goto out;
		}
	}
	f->wall = file_idx > 0;

	for (;;) {
		ret = next_line(fp, &buf, &line, &cap, &len);
		if (ret < 0) {
			p->line = 0;
			perr(p, "cannot read: %s", strerror(-ret));
			goto out;
		}
		if (!ret)
			break;
		p->line++;
		if (len > LINE_MAX_LEN) {
			ret = perr(p, "line is longer than %u bytes", LINE_MAX_LEN);
			goto out;
		}
		if (strlen(line) != len) {
			ret = perr(p, "line has a NUL byte");
			goto out;
		}
		ret = do_line(p, f, line);
		if (ret)
			goto out;
	}
	ret = sect_end(p, f);
	if (!ret && !f->nr_jobs) {
		p->line = 0;
		ret = perr(p, "no jobs defined");
	}
out:
	kv_clear(f);
	free(f->kv);
	free(f);
	free(line);
	return ret;
}

/* fio init.c add_job: a stonewall or new_group after at least one job bumps the group. */
static void set_groups(struct rq_job_list *l)
{
	unsigned int i, in_group = 0;
	int gid = 0;

	for (i = 0; i < l->nr; i++) {
		if (l->jobs[i].stonewall && in_group) {
			gid++;
			in_group = 0;
		}
		l->jobs[i].groupid = gid;
		in_group++;
	}
}

static void list_init(struct rq_job_list *list)
{
	if (list) {
		list->jobs = NULL;
		list->nr = 0;
	}
}

int rq_jobs_parse(const char *const *files, int nr_files, struct rq_job_list *list, FILE *err)
{
	struct pctx p = { .err = err, .file = "rqlock" };
	int i, ret;

	list_init(list);
	if (!files || nr_files <= 0 || !list)
		return perr(&p, "no job files given");
	for (i = 0; i < nr_files; i++) {
		FILE *fp;

		p.file = files[i];
		fp = fopen(files[i], "r");
		if (!fp) {
			int e = errno;

			if (err)
				fprintf(err, "%s: cannot open: %s\n", files[i], strerror(e));
			ret = -e;
			goto fail;
		}
		/* each file starts from the defaults: fio resets [global] per file */
		ret = parse_one(&p, fp, NULL, i);
		fclose(fp);
		if (ret)
			goto fail;
	}
	set_groups(&p.list);
	*list = p.list;
	return 0;
fail:
	free(p.list.jobs);
	return ret;
}

int rq_jobs_parse_buf(const char *name, const char *buf, struct rq_job_list *list, FILE *err)
{
	struct pctx p = { .err = err, .file = name ? name : "(buffer)" };
	int ret;

	list_init(list);
	if (!buf || !list)
		return perr(&p, "no job text given");
	ret = parse_one(&p, NULL, buf, 0);
	if (ret) {
		free(p.list.jobs);
		return ret;
	}
	set_groups(&p.list);
	*list = p.list;
	return 0;
}

void rq_jobs_free(struct rq_job_list *list)
{
	if (!list)
		return;
	free(list->jobs);
	list_init(list);
}

/*
 * As fio's get_next_str: "\:" is a literal ':', empty names (leading,
 * doubled or trailing ':') are skipped.  @fn may be NULL to count names.
 */
int rq_job_for_each_file(const struct rq_job *job, int (*fn)(const char *name, void *arg), void *arg)
{
	char name[RQ_JOB_PATH_MAX];
	size_t max = strnlen(job->filename, sizeof(job->filename)), i, len = 0;
	int nr = 0, ret;

	for (i = 0; i <= max; i++) {
		char c = i < max ? job->filename[i] : '\0';

		if (c == '\\' && i + 1 < max && job->filename[i + 1] == ':') {
			name[len++] = ':';
			i++;
			continue;
		}
		if (c != ':' && c != '\0') {
			name[len++] = c;
			continue;
		}
		if (!len)
			continue;
		name[len] = '\0';
		len = 0;
		if (fn) {
			ret = fn(name, arg);
			if (ret < 0)
				return ret;
		}
		nr++;
	}
	return nr;
}

const char *rq_rw_name(enum rq_rw rw)
{
	switch (rw) {
	case RQ_RW_READ:	return "read";
	case RQ_RW_WRITE:	return "write";
	case RQ_RW_RANDREAD:	return "randread";
	case RQ_RW_RANDWRITE:	return "randwrite";
	case RQ_RW_RW:		return "rw";
	case RQ_RW_RANDRW:	return "randrw";
	}
	return "invalid";
}

bool rq_rw_reads(enum rq_rw rw)
{
	return rw == RQ_RW_READ || rw == RQ_RW_RANDREAD ||
	       rw == RQ_RW_RW || rw == RQ_RW_RANDRW;
}

bool rq_rw_writes(enum rq_rw rw)
{
	return rw == RQ_RW_WRITE || rw == RQ_RW_RANDWRITE ||
	       rw == RQ_RW_RW || rw == RQ_RW_RANDRW;
}

bool rq_rw_random(enum rq_rw rw)
{
	return rw == RQ_RW_RANDREAD || rw == RQ_RW_RANDWRITE || rw == RQ_RW_RANDRW;
}
