// SPDX-License-Identifier: MIT
/*
 * opt_job.c - the options that describe a job and control when it runs and
 * ends: kb_base, name, description, wait_for, numjobs, runtime, time_based,
 * ramp_time, CPU placement, groups and stonewalls, loops, startdelay,
 * exitall, continue_on_error, ignore_error and fio's flow control.  Holds
 * their section of the option table, the setters and --showcmd renderings
 * of exactly these options and the value tables only they use, so that an
 * option and its code read in one place, as fio keeps them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jobfile/jobfile_internal.h"

/* ------------------------------------------------------- value tables */

static const struct opt_val kb_base_vals[] = {
	{ "1024", 1024, NULL },
	{ "1000", 1000, NULL },
	{ NULL, 0, NULL },
};

static const struct opt_val cpus_policy_vals[] = {
	{ "shared",	0,	NULL },
	{ "split",	1,	NULL },
	{ NULL, 0, NULL },
};

static const struct opt_val coe_vals[] = {
	{ "none",	RQ_COE_NONE,	NULL },
	{ "read",	RQ_COE_READ,	NULL },
	{ "write",	RQ_COE_WRITE,	NULL },
	{ "io",		RQ_COE_IO,	NULL },
	{ "verify",	RQ_COE_VERIFY,	NULL },
	{ "all",	RQ_COE_ALL,	NULL },
	{ "0",		RQ_COE_NONE,	NULL },
	{ "1",		RQ_COE_ALL,	NULL },
	{ NULL, 0, NULL },
};

static const struct opt_val exit_what_vals[] = {
	{ "group",	RQ_EXIT_GROUP,		NULL },
	{ "stonewall",	RQ_EXIT_STONEWALL,	NULL },
	{ "all",	RQ_EXIT_ALL,		NULL },
	{ NULL, 0, NULL },
};

/* -------------------------------------------- options with their own code */

static int set_kb_base(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	(void)p;
	(void)str;
	s->kb_base = (unsigned int)v;
	s->job.kb_base = (unsigned int)v;
	return 0;
}

static void show_kb_base(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	(void)o;
	jf_bput(b, "%u", j->kb_base);
}

/* fio keeps any length and shows the first 255 bytes (FIO_JOBDESC_SIZE); so does rqlock. */
static int set_description(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	size_t n = strlen(str);

	(void)p;
	(void)v;
	if (n >= sizeof(s->job.description))
		n = sizeof(s->job.description) - 1;
	memcpy(s->job.description, str, n);
	s->job.description[n] = '\0';
	return 0;
}

static void show_description(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	(void)o;
	jf_bput(b, "%s", j->description);
}

static void cpu_set(struct rq_job *j, unsigned int cpu)
{
	j->cpus_allowed[cpu / 64] |= 1ull << (cpu % 64);
}

/* cpus_allowed=0-3,6: CPUs this job's clones may run on, as fio's set_cpus_allowed. */
static int set_cpus_allowed(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	long max = jf_cpus_configured();
	char *c = str, *next;

	(void)v;
	memset(s->job.cpus_allowed, 0, sizeof(s->job.cpus_allowed));
	while (c) {
		const char *d = c, *why;
		uint64_t a, b;

		next = strchr(c, ',');
		if (next)
			*next++ = '\0';
		why = jf_digits(&d, 10, &a);
		b = a;
		if (!why && *d == '-') {
			d++;
			why = jf_digits(&d, 10, &b);
		}
		if (!why && *d)
			why = "expected CPU or FIRST-LAST";
		if (!why && b < a)
			why = "a range must not go down";
		if (!why && b >= RQ_CPUMASK_WORDS * 64)
			why = "CPUs above 1023 are not supported";
		if (why)
			return jf_bad(p, c, why);
		if ((long)b >= max)
			return jf_perr(p, "option '%s': CPU %llu too large (this machine has %ld, as fio refuses)",
				    p->key, (unsigned long long)b, max);
		for (; a <= b; a++)
			cpu_set(&s->job, (unsigned int)a);
		c = next;
	}
	s->job.has_cpus_allowed = true;
	return 0;
}

static void show_cpus(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	unsigned int c = 0, n = 0;

	(void)o;
	while (c < RQ_CPUMASK_WORDS * 64) {
		unsigned int first;

		if (!(j->cpus_allowed[c / 64] >> (c % 64) & 1)) {
			c++;
			continue;
		}
		first = c;
		while (c + 1 < RQ_CPUMASK_WORDS * 64 && (j->cpus_allowed[(c + 1) / 64] >> ((c + 1) % 64) & 1))
			c++;
		if (first == c)
			jf_bput(b, "%s%u", n++ ? "," : "", first);
		else
			jf_bput(b, "%s%u-%u", n++ ? "," : "", first, c);
		c++;
	}
}

/* cpumask=N: a bit per CPU of the low 32, as fio's str_cpumask_cb. */
static int set_cpumask(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	long max = jf_cpus_configured();

	(void)str;
	if (!v || v > UINT32_MAX)
		return jf_bad(p, str, "a mask of CPUs 0 to 31, not 0");
	memset(s->job.cpus_allowed, 0, sizeof(s->job.cpus_allowed));
	for (unsigned int i = 0; i < 32; i++) {
		if (!(v >> i & 1))
			continue;
		if ((long)i >= max)
			return jf_perr(p, "option '%s': CPU %u too large (this machine has %ld, as fio refuses)",
				    p->key, i, max);
		cpu_set(&s->job, i);
	}
	s->job.has_cpus_allowed = true;
	return 0;
}

static void show_cpumask(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	(void)o;
	jf_bput(b, "0x%llx", (unsigned long long)(j->cpus_allowed[0] & 0xffffffffull));
}

/*
 * ignore_error=READ,WRITE,VERIFY: each a ':' list of errno names (EIO) or
 * numbers.  As fio's ignore_error_type: a non-empty list also turns on
 * continue_on_error for that kind, and then only the listed errors are
 * passed over.
 */
static int set_ignore_error(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	static const int coe_bit[3] = { RQ_COE_READ, RQ_COE_WRITE, RQ_COE_VERIFY };
	char *kind = str, *nk;

	(void)v;
	for (int k = 0; kind && k < 3; k++, kind = nk) {
		char *e = kind, *ne;
		unsigned int nr = 0;

		nk = strchr(kind, ',');
		if (nk)
			*nk++ = '\0';
		for (; e && *e; e = ne) {
			int err = 0;

			ne = strchr(e, ':');
			if (ne)
				*ne++ = '\0';
			if (e[0] == 'E') {
				for (int i = 1; i < 134 && !err; i++) {
					const char *n = strerrorname_np(i);

					if (n && !strcmp(n, e))
						err = i;
				}
			} else {
				err = abs(atoi(e));
			}
			if (!err)
				return jf_bad(p, e, "unknown error: an errno name (EIO) or number");
			if (nr == RQ_MAX_IGNORE)
				return jf_bad(p, kind, "more than 32 errors");
			s->job.ignore_error[k][nr++] = err;
		}
		s->job.nr_ignore_error[k] = nr;
		if (nr)
			s->job.continue_on_error |= coe_bit[k];
	}
	if (kind)
		return jf_bad(p, kind, "at most READ,WRITE,VERIFY");
	return 0;
}

static void show_ignore_error(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	int last = -1;

	(void)o;
	for (int k = 0; k < 3; k++)
		if (j->nr_ignore_error[k])
			last = k;
	/* errno names where there are ones, READ,WRITE,VERIFY; empty lists at the end left off */
	for (int k = 0; k <= last; k++) {
		if (k)
			jf_bput(b, ",");
		for (unsigned int i = 0; i < j->nr_ignore_error[k]; i++) {
			const char *n = strerrorname_np(j->ignore_error[k][i]);

			if (n)
				jf_bput(b, "%s%s", i ? ":" : "", n);
			else
				jf_bput(b, "%s%d", i ? ":" : "", j->ignore_error[k][i]);
		}
	}
}

/* flow=N: a signed weight (fio's OPT_INT takes a sign) */
static int set_flow(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	char *end;
	long x;

	(void)v;
	errno = 0;
	x = strtol(str, &end, 10);
	if (end == str || *end || errno || x < INT32_MIN || x > INT32_MAX)
		return jf_bad(p, str, "a whole number, may be negative");
	s->job.flow = (int)x;
	return 0;
}

static void show_flow(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	(void)o;
	jf_bput(b, "%d", j->flow);
}

/* ------------------------------------------------------------ the options */

/*
 * Job description and control, in fio's spelling (fio's name is the
 * canonical one, fio's alias the alias); --showcmd walks them in this order.
 */
const struct opt jf_opts_job[] = {
	{
		.name = "significant_figures", .type = OPT_INT, FIELD(sig_figs), .min = 1, .max = 10,
		.def = "4",
		.help = "Significant figures of the amounts in the normal output (IOPS, "
			"bandwidth, io=), 1 to 10",
	},
	{
		.name = "kb_base", .type = OPT_ENUM, .vals = kb_base_vals,
		.set = set_kb_base, .show = show_kb_base, .prio = 1, .def = "1024",
		.help = "Unit base of size suffixes: 1024 (k = 1024, KiB = 1000, fio's "
			"compatibility mode) or 1000 (k = 1000, KiB = 1024); applies to the whole "
			"section it is in",
	},
	{
		.name = "name", .type = OPT_STR, FIELD(name),
		.help = "Job name in reports; in a job section it replaces the "
			"section name, as in fio (default: the section name)",
	},
	{
		.name = "description", .type = OPT_STR, .set = set_description,
		.show = show_description,
		.help = "Free text about the job, shown in the reports (its first 255 "
			"bytes, as fio) (default: none)",
	},
	{
		.name = "wait_for", .type = OPT_STR, FIELD(wait_for),
		.help = "Start only when the earlier job of this name has finished "
			"(default: none)",
	},
	{
		.name = "numjobs", .type = OPT_INT, FIELD(numjobs),
		.min = 1, .max = 4096, .def = "1",
		.help = "Clones of this job, 1 to 4096",
	},
	{
		.name = "runtime", .alias = "timeout", .type = OPT_TIME,
		FIELD(runtime_ns), .unit = NS_PER_SEC, .div = 1, .def = "0",
		.help = "Run time limit, seconds unless suffixed; 0 is until size is done",
	},
	{
		.name = "time_based", .type = OPT_FLAG, FIELD(time_based), .def = "0",
		.help = "Keep running for runtime even after size is done",
	},
	{
		.name = "ramp_time", .type = OPT_TIME, FIELD(ramp_ns),
		.unit = NS_PER_SEC, .div = 1, .def = "0",
		.help = "Run this long before keeping stats, seconds unless suffixed",
	},
	{
		.name = "cpus_allowed", .type = OPT_STR, .set = set_cpus_allowed,
		.show = show_cpus,
		.help = "CPUs the job's clones may run on, as 0-3,6 (default: all)",
	},
	{
		.name = "numa_cpu_nodes", .type = OPT_STR, FIELD(numa_cpu_nodes),
		.help = "NUMA nodes the job runs on, as 0-1: checked against the machine when the "
			"job runs, as fio does; rqlock places its workers by the machine's topology "
			"(default: none)",
	},
	{
		.name = "numa_mem_policy", .type = OPT_STR, FIELD(numa_mem_policy),
		.help = "default, local, prefer:NODE, bind:LIST or interleave[:LIST]: checked "
			"when the job runs, as fio does; the memory stays where the workers allocate "
			"it (default: none)",
	},
	{
		.name = "cpumask", .type = OPT_INT, .set = set_cpumask, .show = show_cpumask,
		.min = 0, .max = UINT32_MAX,
		.help = "CPUs 0 to 31 the job may run on, one bit each (default: all)",
	},
	{
		.name = "cpus_allowed_policy", .type = OPT_ENUM, FIELD(cpus_allowed_split),
		.vals = cpus_policy_vals, .prio = 1, .def = "shared",
		.help = "shared: clones share the CPUs; split: one CPU each in turn",
	},
	{
		.name = "group_reporting", .type = OPT_FLAG, FIELD(group_reporting),
		.def = "0",
		.help = "Report each group as one job",
	},
	{
		.name = "stonewall", .alias = "wait_for_previous", .type = OPT_FLAG,
		FIELD(stonewall), .bit = RQ_JOB_STONEWALL, .def = "0",
		.help = "Wait for earlier jobs to finish, start a new group",
	},
	{
		.name = "new_group", .type = OPT_FLAG, FIELD(stonewall),
		.bit = RQ_JOB_NEW_GROUP, .def = "0",
		.help = "Start a new reporting group without waiting",
	},
	{
		.name = "continue_on_error", .type = OPT_ENUM, FIELD(continue_on_error),
		.vals = coe_vals, .def = "none",
		.help = "Errors to go on after: none, read, write, io, verify, all",
	},
	{
		.name = "loops", .type = OPT_INT, FIELD(loops), .min = 1, .max = UINT32_MAX,
		.def = "1",
		.help = "Run the job's I/O this many times over",
	},
	{
		.name = "startdelay", .type = OPT_TIME, FIELD(startdelay_ns), .unit = NS_PER_SEC,
		.div = 1, .def = "0",
		.help = "Start the job this long after its group, seconds unless suffixed",
	},
	{
		.name = "exitall", .type = OPT_FLAG, FIELD(exitall), .def = "0",
		.help = "When one job finishes, end all jobs",
	},
	{
		.name = "exitall_on_error", .type = OPT_FLAG, FIELD(exitall_on_error), .def = "0",
		.help = "When one job fails, end all jobs",
	},
	{
		.name = "exit_what", .type = OPT_ENUM, FIELD(exit_what), .vals = exit_what_vals,
		.def = "group",
		.help = "Whom exitall ends: group (the job's reporting group), stonewall (every "
			"job running) or all (later jobs never start)",
	},
	{
		.name = "ignore_error", .type = OPT_STR, .set = set_ignore_error,
		.show = show_ignore_error,
		.help = "Errors a job goes on after, READ,WRITE,VERIFY lists of EIO:ENOSPC "
			"or numbers (default: none)",
	},
	{
		.name = "flow", .type = OPT_STR, .set = set_flow, .show = show_flow,
		.def = "0",
		.help = "Weight in fio's token flow control: jobs sharing a flow_id keep their "
			"I/O in the ratio of their weights",
	},
	{
		.name = "flow_id", .type = OPT_INT, FIELD(flow_id), .min = 0, .max = UINT32_MAX,
		.def = "0",
		.help = "The flow a job's weight counts in",
	},
	{
		.name = "flow_watermark", .type = OPT_INT, FIELD(flow_watermark), .min = 0,
		.max = UINT32_MAX, .def = "1024",
		.help = "Accepted as fio 3.33 accepts it; its flow rule (and rqlock's) does not "
			"read it",
	},
	{
		.name = "flow_sleep", .type = OPT_INT, FIELD(flow_sleep_us), .min = 0,
		.max = UINT32_MAX, .def = "0",
		.help = "Microseconds a job waits when its flow is ahead",
	},
};

const unsigned int jf_nr_opts_job = JF_ARRAY_LEN(jf_opts_job);
