// SPDX-License-Identifier: MIT
/*
 * options.c - the option table's registry: the sections of the declarative
 * table of every fio 3.33 option, in order (the implemented options by
 * concern, each section in its opt_*.c file beside its setters, then the
 * options fio knows that rqlock ignores or refuses, which are here), and
 * the lookups over all of them (jf_opt_at, jf_opt_find, jf_opt_idx,
 * jf_closest, jf_is_set, jf_mark); with the ioengine values parse.c and
 * section.c share and the options of fio engines rqlock lacks (see
 * section.c's jf_add_opt).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "jobfile/jobfile_internal.h"

/* ------------------------------------------------------- value tables */

const struct opt_val jf_ioengine_vals[] = {
	{ "io_uring",		RQ_IOENGINE_IO_URING,	NULL },
	{ "null",		RQ_IOENGINE_NULL,	NULL },
	{ "libaio",		RQ_IOENGINE_LIBAIO,	NULL },
	{ "io_uring_cmd",	RQ_IOENGINE_IO_URING_CMD, NULL },
	{ "posixaio",		RQ_IOENGINE_POSIXAIO,	NULL },
	/* fio engines rqlock has no plan for */
	{ "sync",		RQ_IOENGINE_SYNC,	NULL },
	{ "psync",		RQ_IOENGINE_PSYNC,	NULL },
	{ "vsync",		0,	REFUSE_NEVER },
	{ "pvsync",		0,	REFUSE_NEVER },
	{ "pvsync2",		0,	REFUSE_NEVER },
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
	{ "gfapi",		0,	REFUSE_NEVER },
	{ "gfapi_async",	0,	REFUSE_NEVER },
	{ "mtd",		0,	REFUSE_NEVER },
	{ "rados",		0,	REFUSE_NEVER },
	{ "rbd",		0,	REFUSE_NEVER },
	{ "pmemblk",		0,	REFUSE_NEVER },
	{ "dev-dax",		0,	REFUSE_NEVER },
	{ "libpmem",		0,	REFUSE_NEVER },
	{ "windowsaio",		0,	REFUSE_NEVER },
	{ "solarisaio",		0,	REFUSE_NEVER },
	{ "guasi",		0,	REFUSE_NEVER },
	{ "binject",		0,	REFUSE_NEVER },
	{ "libcufile",		0,	REFUSE_NEVER },
	{ "dfs",		0,	REFUSE_NEVER },
	{ "libiscsi",		0,	REFUSE_NEVER },
	{ "nfs",		0,	REFUSE_NEVER },
	{ "skeleton",		0,	REFUSE_NEVER },
	{ "cpp_null",		0,	REFUSE_NEVER },
	{ "ime_psync",		0,	REFUSE_NEVER },
	{ "ime_psyncv",		0,	REFUSE_NEVER },
	{ "ime_aio",		0,	REFUSE_NEVER },
	{ "libhdfs",		0,	REFUSE_NEVER },
	{ "libzbc",		0,	REFUSE_NEVER },
	{ "librpma_apm_client",	0,	REFUSE_NEVER },
	{ "librpma_apm_server",	0,	REFUSE_NEVER },
	{ "librpma_gpspm_client", 0,	REFUSE_NEVER },
	{ "librpma_gpspm_server", 0,	REFUSE_NEVER },
	{ "spdk",		0,	REFUSE_NEVER },
	{ NULL, 0, NULL },
};

/* Options fio knows that rqlock does not implement, by what it does with them. */
#define INERT(n, w)		{ .name = n, .kind = K_INERT, .why = w }
#define INERT_A(n, a, w)	{ .name = n, .alias = a, .kind = K_INERT, .why = w }
#define NOPE(n, w)		{ .name = n, .kind = K_NOPE, .why = w }
#define NOPE_A(n, a, w)		{ .name = n, .alias = a, .kind = K_NOPE, .why = w }
#define ONLY(n, v, w)		{ .name = n, .kind = K_ONLY, .only = v, .why = w }
#define ONLY_A(n, a, v, w)	{ .name = n, .alias = a, .kind = K_ONLY, .only = v, .why = w }

#define W_LOGS		"rqlock writes plain-text logs timed from the job's start"
#define W_FILES		"rqlock lays files out once, in full, before the run"
#define W_DATA		"rqlock writes its own verifiable data"
#define W_SYNC		"rqlock syncs with flushes through the block layer (fsync, fdatasync, sync_file_range, end_fsync), not O_SYNC or barriers"
#define W_ZONES		"rqlock has no zoned block device support"
#define W_STATS		"rqlock always keeps fio's full statistics"
#define W_RATE		"rqlock shapes load with rate_iops, rate_process and thinktime"
#define W_VERIFY	"rqlock verifies with verify, verify_pattern, do_verify and verify_backlog"
#define W_ENGINE	"an ioengine option rqlock's backends do not offer"
#define W_OS		"rqlock does not change its process or thread settings"
#define W_CONTENT	"rqlock writes its own verifiable data; no rqlock device compresses or deduplicates"

/*
 * The options fio knows that rqlock does not implement: accepted with a
 * warning (INERT), accepted only at fio's default (ONLY), or refused (NOPE).
 */
static const struct opt unimpl_opts[] = {
	/* accepted with a warning: they cannot change what rqlock does or reports */
	INERT("openfiles", "rqlock keeps every file of a clone open; fio's limit only "
	      "changes when files are opened and closed"),
	INERT("create_on_open", "rqlock lays files out before the run; the I/O is the same"),
	INERT("fallocate", "rqlock writes laid-out files in full before the run"),
	INERT("threads", "it is the thread count of fio's tiobench profile, which fio "
	      "also ignores without profile=tiobench"),
	INERT("sqthread_poll_cpu", "rqlock's workers own their rings; the poller's CPU is the kernel's choice"),
	INERT("nonvectored", "rqlock's io_uring reads and writes are not vectored already"),
	INERT("verify_async", "verification runs in the clone's worker; the result is the same"),
	INERT("verify_fatal", "a verify failure ends the job already unless continue_on_error allows it"),
	INERT("dedupe_percentage", W_CONTENT), INERT("dedupe_mode", W_CONTENT),
	INERT("dedupe_working_set_percentage", W_CONTENT), INERT("dedupe_global", W_CONTENT),
	INERT("buffer_compress_percentage", W_CONTENT), INERT("buffer_compress_chunk", W_CONTENT),
	INERT_A("rate_min", "ratemin", "rqlock does not end a job that falls below a minimum rate"),
	INERT("rate_iops_min", "rqlock does not end a job that falls below a minimum rate"),
	INERT("thread", "workers are always threads"),
	INERT("clocksource", "rqlock picks its own clock"),
	INERT("gtod_cpu", "rqlock picks its own clock"),
	INERT("disk_util", "rqlock reports no disk utilization"),
	INERT("unique_filename", "it concerns fio's network clients"),
	INERT("error_dump", "rqlock reports errors its own way"),
	INERT("invalidate", "rqlock does not drop the page cache before a job"),
	INERT("fadvise_hint", "rqlock gives the kernel no access-pattern hints"),
	INERT("log_compression_cpus", "rqlock keeps log samples uncompressed in memory"),
	INERT("log_entries", "rqlock grows its log buffers as needed"),
	INERT("cgroup_nodelete", "rqlock makes no cgroups"),
	INERT("hugepage-size", "it only matters with mem=mmaphuge"),
	INERT("verify_dump", "rqlock writes no dump files"),
	INERT("verifysort", "deprecated in fio"), INERT("verifysort_nr", "deprecated in fio"),

	/* accepted only at fio's default */
	ONLY("bwavgtime", "500", "samples are taken every 500 ms"),
	ONLY("iopsavgtime", "500", "samples are taken every 500 ms"),
	ONLY("thinktime_blocks_type", "complete", "thinktime_blocks counts completed I/Os, fio's default"),
	ONLY("thinktime_iotime", "0", W_RATE),
	ONLY("rate_ignore_thinktime", "0", W_RATE),
	ONLY_A("rate_cycle", "ratecycle", "1000", W_RATE),
	ONLY("rw_sequencer", "sequential", "rw=...:N is supported"),
	ONLY_A("percentage_random", "percentage_sequential", "100", "patterns are all random or all sequential"),
	ONLY("allrandrepeat", "0", "rqlock seeds with randrepeat and randseed"),
	ONLY("softrandommap", "0", "norandommap is supported"),
	ONLY("bs_is_seq_rand", "0", "bs is per direction"),
	ONLY("lockfile", "none", "rqlock takes no file locks"),
	ONLY("write_barrier", "0", W_SYNC), ONLY("sync", "none|0", W_SYNC),
	ONLY("overwrite", "0", W_FILES), INERT("create_serialize", "rqlock lays files out before the run, one after another; the I/O is the same"),
	ONLY("create_fsync", "1", W_FILES),
	ONLY("create_only", "0", W_FILES),
	ONLY("pre_read", "0", W_FILES),
	ONLY("unlink_each_loop", "0", W_FILES), ONLY("file_append", "0", W_FILES),
	ONLY_A("mem", "iomem", "malloc", "rqlock allocates its own buffers"),
	ONLY_A("iomem_align", "mem_align", "0", "rqlock aligns buffers to 4 KiB"),
	ONLY("lockmem", "0", W_OS), ONLY("nice", "0", W_OS),
	ONLY("atomic", "0", "O_ATOMIC does not exist on Linux"),
	ONLY("scramble_buffers", "1", W_DATA),
	ONLY("stats", "1", W_STATS),
	ONLY("block_error_percentiles", "0", W_STATS),
	ONLY("unit_base", "0|8", "rqlock reports bytes"),
	ONLY("offset_align", "0", "offsets align to the block size"),
	INERT("read_iolog_chunked", "rqlock reads the whole log before the run; the I/Os are the same"),
	ONLY("log_unix_epoch", "0", W_LOGS),
	ONLY("log_alternate_epoch", "0", W_LOGS), ONLY("log_alternate_epoch_clock_id", "0", W_LOGS),

	/* refused */
	NOPE("max_latency", W_RATE),
	NOPE("rwmixcycle", "deprecated in fio"),
	NOPE_A("bs_unaligned", "blocksize_unaligned", "block sizes are aligned"),
	NOPE("opendir", W_FILES),
	NOPE("allow_mounted_write", "use rqlock's --allow-mounted-write"),
	NOPE("zero_buffers", W_DATA), NOPE("refill_buffers", W_DATA),
	NOPE("verify_backlog_batch", W_VERIFY), NOPE("verify_async_cpus", W_VERIFY),
	NOPE("iodepth_low", "a job refills its depth as soon as an I/O completes"),
	NOPE("cgroup", W_OS), NOPE("cgroup_weight", W_OS),
	NOPE("uid", W_OS), NOPE("gid", W_OS), NOPE("ioscheduler", W_OS),
	NOPE("exec_prerun", "rqlock runs no commands"), NOPE("exec_postrun", "rqlock runs no commands"),
	NOPE("profile", "rqlock has no fio profiles"),
	NOPE("write_hint", "rqlock sends no write hints"), NOPE("gpu_dev_id", "rqlock has no GPU support"),
	NOPE("uncached", W_ENGINE),
	NOPE("nowait", W_ENGINE), NOPE("force_async", W_ENGINE), NOPE("userspace_reap", W_ENGINE),
};

/*
 * Options of fio engines rqlock does not have (fio registers them with the
 * engine): an example written for one is refused with the engine's name.
 */
static const struct { const char *opt, *engine; } engine_opts[] = {
	{ "cpuload", "cpuio" }, { "cpumode", "cpuio" }, { "cpuchunks", "cpuio" },
	{ "exit_on_io_done", "cpuio" },
	{ "donorname", "e4defrag" }, { "inplace", "e4defrag" },
	{ "program", "exec" }, { "arguments", "exec" }, { "grace_time", "exec" },
	{ "std_redirect", "exec" },
	{ "volume", "gfapi" }, { "brick", "gfapi" },
	{ "skip_bad", "mtd" }, { "uri", "nbd" },
	{ "hostname", "net" }, { "port", "net" }, { "protocol", "net" }, { "listen", "net" },
	{ "pingpong", "net" }, { "ttl", "net" }, { "interface", "net" }, { "nodelay", "net" },
	{ "window_size", "net" }, { "mss", "net" },
	{ "clientname", "rados/rbd" }, { "pool", "rados/rbd" }, { "busy_poll", "rados/rbd" },
	{ "conf", "rados" }, { "rbdname", "rbd" },
	{ "sg_write_mode", "sg" }, { "hipri_percentage", "pvsync2" },
	{ "http_verbose", "http" }, { "http_host", "http" }, { "http_user", "http" },
	{ "http_pass", "http" }, { "http_mode", "http" },
	{ "serverip", "librpma" }, { "nfs_url", "nfs" },
	{ "namenode", "libhdfs" }, { "hdfsdirectory", "libhdfs" }, { "chunk_size", "libhdfs" },
	{ "pmemblk_blocksize", "pmemblk" },
};

const char *jf_engine_of(const char *key)
{
	for (size_t i = 0; i < sizeof(engine_opts) / sizeof(engine_opts[0]); i++)
		if (!strcmp(engine_opts[i].opt, key))
			return engine_opts[i].engine;
	return NULL;
}

static const unsigned int nr_unimpl_opts = JF_ARRAY_LEN(unimpl_opts);

/*
 * The table is these sections, in this order: the implemented options by
 * concern, then the ones rqlock refuses or ignores.  An option's index
 * (its bit in sect.set and rq_job.opts_set) is its place in this walk,
 * dense from 0; --showcmd, --cmdhelp and the man page list them so, and
 * section.c applies the defaults of one prio in this order.  The counts are
 * pointers because a section file's count is no constant here; that the
 * total fits RQ_JOB_OPTS_MAX is checked by jf_apply_defaults() (section.c)
 * and by test_parser's test_table.
 */
static const struct {
	const struct opt *opts;
	const unsigned int *nr;
} opt_sections[] = {
	{ jf_opts_job, &jf_nr_opts_job },
	{ jf_opts_steady, &jf_nr_opts_steady },
	{ jf_opts_io, &jf_nr_opts_io },
	{ jf_opts_prio, &jf_nr_opts_prio },
	{ jf_opts_random, &jf_nr_opts_random },
	{ jf_opts_pace, &jf_nr_opts_pace },
	{ jf_opts_file, &jf_nr_opts_file },
	{ jf_opts_verify, &jf_nr_opts_verify },
	{ jf_opts_log, &jf_nr_opts_log },
	{ unimpl_opts, &nr_unimpl_opts },
};

unsigned int jf_nr_opts(void)
{
	unsigned int n = 0;

	for (size_t k = 0; k < JF_ARRAY_LEN(opt_sections); k++)
		n += *opt_sections[k].nr;
	return n;
}

/* The option at index @i, or NULL past the end. */
const struct opt *jf_opt_at(unsigned int i)
{
	for (size_t k = 0; k < JF_ARRAY_LEN(opt_sections); k++) {
		if (i < *opt_sections[k].nr)
			return &opt_sections[k].opts[i];
		i -= *opt_sections[k].nr;
	}
	return NULL;
}

static bool opt_is(const struct opt *o, const char *key)
{
	return !strcmp(o->name, key) || (o->alias && !strcmp(o->alias, key));
}

const struct opt *jf_opt_find(const char *key)
{
	for (size_t k = 0; k < JF_ARRAY_LEN(opt_sections); k++)
		for (unsigned int i = 0; i < *opt_sections[k].nr; i++)
			if (opt_is(&opt_sections[k].opts[i], key))
				return &opt_sections[k].opts[i];
	return NULL;
}

/* @o's index; jf_nr_opts() for an entry not in the table (never stored). */
unsigned int jf_opt_idx(const struct opt *o)
{
	uintptr_t x = (uintptr_t)o;
	unsigned int base = 0;

	/* by address: the sections are distinct arrays, no pointer difference across them */
	for (size_t k = 0; k < JF_ARRAY_LEN(opt_sections); k++) {
		uintptr_t a = (uintptr_t)opt_sections[k].opts;

		if (x >= a && x < a + *opt_sections[k].nr * sizeof(*o))
			return base + (unsigned int)((x - a) / sizeof(*o));
		base += *opt_sections[k].nr;
	}
	return base;
}

void jf_bit_set(uint8_t *set, unsigned int i)
{
	set[i / 8] |= (uint8_t)(1u << (i % 8));
}

bool jf_bit_test(const uint8_t *set, unsigned int i)
{
	return set[i / 8] >> (i % 8) & 1;
}

void jf_mark(struct sect *s, const char *name)
{
	const struct opt *o = jf_opt_find(name);

	if (o)
		jf_bit_set(s->set, jf_opt_idx(o));
}

/* fio's fio_option_is_set(): written in this section or a [global] above it */
bool jf_is_set(const struct sect *s, const char *name)
{
	const struct opt *o = jf_opt_find(name);

	return o && jf_bit_test(s->set, jf_opt_idx(o));
}

bool rq_job_opt_set(const struct rq_job *job, const char *name)
{
	const struct opt *o = jf_opt_find(name);

	return o && jf_bit_test(job->opts_set, jf_opt_idx(o));
}

void rq_job_opt_mark(struct rq_job *job, const char *name)
{
	const struct opt *o = jf_opt_find(name);

	if (o)
		jf_bit_set(job->opts_set, jf_opt_idx(o));
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

const char *jf_closest(const char *key)
{
	const char *best = NULL;
	unsigned int d, bd = 3;	/* farther than 2 edits is no hint */

	for (size_t k = 0; k < JF_ARRAY_LEN(opt_sections); k++) {
		for (unsigned int i = 0; i < *opt_sections[k].nr; i++) {
			d = dist(key, opt_sections[k].opts[i].name);
			if (d < bd) {
				bd = d;
				best = opt_sections[k].opts[i].name;
			}
		}
	}
	return best;
}

const char *rq_ioengine_name(enum rq_ioengine e)
{
	for (const struct opt_val *v = jf_ioengine_vals; v->name; v++)
		if (!v->refuse && v->val == (int)e)
			return v->name;
	return "io_uring";
}
