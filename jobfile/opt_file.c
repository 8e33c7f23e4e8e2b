// SPDX-License-Identifier: MIT
/*
 * opt_file.c - the options that say which files a job uses and how they
 * are laid out: filename, directory, filesize, nrfiles, filename_format,
 * file_service_type, allow_file_create, unlink, and the strided zones
 * (zonemode, zonesize, zonerange, zoneskip).  Holds their section of the
 * option table, the setters and --showcmd renderings of exactly these
 * options and the value tables only they use, so that an option and its
 * code read in one place, as fio keeps them.
 */
#include <string.h>

#include "jobfile/jobfile_internal.h"

/* ------------------------------------------------------- value tables */

static const struct opt_val zonemode_vals[] = {
	{ "none",	RQ_ZONEMODE_NONE,	NULL },
	{ "strided",	RQ_ZONEMODE_STRIDED,	NULL },
	{ "zbd",	RQ_ZONEMODE_ZBD,	NULL },
	{ NULL, 0, NULL },
};

static const struct opt_val file_service_vals[] = {
	{ "roundrobin",	RQ_FS_ROUNDROBIN,	NULL },
	{ "sequential",	RQ_FS_SEQUENTIAL,	NULL },
	{ "random",	RQ_FS_RANDOM,		NULL },
	{ "zipf",	0,	"is not supported in rqlock (roundrobin, sequential and random are)" },
	{ "pareto",	0,	"is not supported in rqlock (roundrobin, sequential and random are)" },
	{ "normal",	0,	"is not supported in rqlock (roundrobin, sequential and random are)" },
	{ "gauss",	0,	"is not supported in rqlock (roundrobin, sequential and random are)" },
	{ NULL, 0, NULL },
};

/* -------------------------------------------- options with their own code */

/* filesize=SIZE or MIN-MAX (each file drawn in the range, as fio) */
static int set_filesize(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	char *dash = strchr(str, '-');
	uint64_t lo, hi;
	const char *why;

	(void)v;
	if (dash)
		*dash++ = '\0';
	why = jf_parse_size(str, s->kb_base, &lo);
	if (why)
		return jf_bad(p, str, why);
	hi = lo;
	if (dash && (why = jf_parse_size(dash, s->kb_base, &hi)))
		return jf_bad(p, dash, why);
	if (hi < lo)
		return jf_bad(p, dash, "the range ends below its start");
	s->job.filesize_min = lo;
	s->job.filesize_max = hi;
	return 0;
}

static void show_filesize(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	(void)o;
	jf_bput(b, "%llu", (unsigned long long)j->filesize_min);
	if (j->filesize_max != j->filesize_min)
		jf_bput(b, "-%llu", (unsigned long long)j->filesize_max);
}

/* allow_file_create, kept inverted so that a zeroed job allows it */
static int set_allow_file_create(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	(void)p;
	(void)str;
	s->job.no_file_create = !v;
	return 0;
}

static void show_allow_file_create(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	(void)o;
	jf_bput(b, "%d", !j->no_file_create);
}

/* ------------------------------------------------------------ the options */

/*
 * Files and their layout, in fio's spelling (fio's name is the canonical
 * one, fio's alias the alias); --showcmd walks them in this order.
 */
const struct opt jf_opts_file[] = {
	{
		.name = "filename", .type = OPT_STR, FIELD(filename), .prio = -1,
		.help = "File or device; several separated by ':', '\\:' is a "
			"literal ':' (default: none)",
	},
	{
		.name = "zonemode", .type = OPT_ENUM, FIELD(zonemode), .vals = zonemode_vals,
		.def = "none",
		.help = "none; strided: zonesize bytes of I/O (random too) in a zone of zonerange "
			"bytes, then the next zone, zoneskip further; zbd "
			"(zoned devices) is parsed and refused at run time (default: none)",
	},
	{
		.name = "zonesize", .type = OPT_SIZE, FIELD(zonesize), .min = 0, .max = UINT64_MAX,
		.def = "0",
		.help = "zonemode=strided: bytes of I/O in a zone (default: 0)",
	},
	{
		.name = "zonerange", .type = OPT_SIZE, FIELD(zonerange), .min = 0, .max = UINT64_MAX,
		.help = "zonemode=strided: size of a zone (default: zonesize)",
	},
	{
		.name = "zoneskip", .type = OPT_SIZE, FIELD(zoneskip), .min = 0, .max = UINT64_MAX,
		.def = "0",
		.help = "zonemode=strided: bytes skipped after each zone (default: 0)",
	},
	{
		.name = "directory", .type = OPT_STR, FIELD(directory),
		.help = "Directory of the job's files; ':' separates several, the files "
			"go round them (default: the current directory)",
	},
	{
		.name = "filesize", .type = OPT_STR, .set = set_filesize, .show = show_filesize,
		.help = "Size of each file, or MIN-MAX drawn per file (default: size / nrfiles)",
	},
	{
		.name = "nrfiles", .alias = "nr_files", .type = OPT_INT, FIELD(nrfiles),
		.min = 1, .max = 65536, .def = "1",
		.help = "Files per job clone, laid out by rqlock when filename is not "
			"given (default: 1)",
	},
	{
		.name = "filename_format", .type = OPT_STR, FIELD(filename_format),
		.def = "$jobname.$jobnum.$filenum",
		.help = "Names of laid-out files: $jobname, $jobnum, $filenum, $clientuid "
			"(default: $jobname.$jobnum.$filenum)",
	},
	{
		.name = "file_service_type", .type = OPT_ENUM, FIELD(file_service),
		.vals = file_service_vals, .def = "roundrobin",
		.help = "Which file the next I/O goes to: roundrobin, sequential or "
			"random (default: roundrobin)",
	},
	{
		.name = "allow_file_create", .type = OPT_BOOL, .set = set_allow_file_create,
		.show = show_allow_file_create, .def = "1",
		.help = "Lay out a file that does not exist; 0 refuses the job instead "
			"(default: 1)",
	},
	{
		.name = "unlink", .type = OPT_BOOL, FIELD(unlink), .def = "0",
		.help = "Remove the files rqlock laid out when the run is done (default: 0)",
	},
};

const unsigned int jf_nr_opts_file = JF_ARRAY_LEN(jf_opts_file);
