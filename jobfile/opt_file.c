// SPDX-License-Identifier: MIT
/*
 * opt_file.c - the options that say which files a job uses and how they
 * are laid out: filename, directory, filesize, nrfiles, filename_format,
 * file_service_type, allow_file_create, unlink, and the zones (zonemode,
 * zonesize, zonerange, zoneskip; zbd's zonecapacity, read_beyond_wp, the
 * open-zone limits and zone resets).  Holds their section of the
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

/*
 * zone_reset_threshold, zone_reset_frequency: one share in [0, 1] (fio's
 * float list of at most one value)
 */
static int zone_share(struct pctx *p, char *str, double *out)
{
	unsigned int dec;
	const char *why;

	if (strchr(str, ':'))
		return jf_bad(p, str, "one value only (fio: the list exceeding max length 1)");
	why = str[0] == '-' ? "value out of range: a share from 0 to 1" : jf_parse_float(str, out, &dec);
	if (!why && !(*out >= 0.0 && *out <= 1.0))
		why = "value out of range: a share from 0 to 1";
	return why ? jf_bad(p, str, why) : 0;
}

static int set_zone_reset_threshold(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	(void)v;
	return zone_share(p, str, &s->job.zone_reset_threshold);
}

static int set_zone_reset_frequency(struct pctx *p, struct sect *s, uint64_t v, char *str)
{
	(void)v;
	return zone_share(p, str, &s->job.zone_reset_frequency);
}

static void show_zone_share(struct sbuf *b, const struct rq_job *j, const struct opt *o)
{
	jf_bput(b, "%g", strcmp(o->name, "zone_reset_threshold") ? j->zone_reset_frequency :
		j->zone_reset_threshold);
}

/* "Nz" of one option: N zones of @zone bytes into *@bytes; false on overflow */
static bool zones_to_bytes(uint64_t nz, uint64_t zone, uint64_t *bytes)
{
	if (!nz)
		return true;
	if (zone && nz > UINT64_MAX / zone)
		return false;
	*bytes = nz * zone;
	return true;
}

/*
 * fio's fixup_options for zonemode, and zone counts made bytes as fio's
 * zbd_recalc_options_with_zone_granularity() does with the zone size
 * (zonesize: strided's, and zbd's, whose zones rqlock emulates with it).
 */
int jf_zone_fixup(struct pctx *p, struct rq_job *j)
{
	const bool counts = j->size_nz || j->io_size_nz || j->offset_nz || j->offset_increment_nz ||
			    j->zoneskip_nz;

	if (j->zonemode == RQ_ZONEMODE_NONE && j->zonesize)
		return jf_perr(p, "job '%s': zonesize=%llu needs zonemode=strided or zbd (fio: --zonemode=none "
			    "and --zonesize are not compatible)", j->name, (unsigned long long)j->zonesize);
	if (j->zonemode == RQ_ZONEMODE_STRIDED && !j->zonesize)
		return jf_perr(p, "job '%s': zonemode=strided needs zonesize", j->name);
	if (counts && !j->zonesize)
		return jf_perr(p, "job '%s': a count of zones (Nz) needs zonemode=strided or zbd with "
			    "zonesize", j->name);
	if (!zones_to_bytes(j->size_nz, j->zonesize, &j->size) ||
	    !zones_to_bytes(j->io_size_nz, j->zonesize, &j->io_size) ||
	    !zones_to_bytes(j->offset_nz, j->zonesize, &j->offset) ||
	    !zones_to_bytes(j->offset_increment_nz, j->zonesize, &j->offset_increment) ||
	    !zones_to_bytes(j->zoneskip_nz, j->zonesize, &j->zoneskip))
		return jf_perr(p, "job '%s': a count of zones times zonesize=%llu is too large", j->name,
			    (unsigned long long)j->zonesize);
	if (j->zonemode == RQ_ZONEMODE_STRIDED && !j->zonerange)
		j->zonerange = j->zonesize;	/* fio: backward compatibility */
	/*
	 * zonemode=zbd: what needs no device; a zone size of 0 is a zoned
	 * device's own (fio asks the device), so the size and capacity are
	 * judged when the job runs (engine/zbd.c eng_zbd_check())
	 */
	if (j->zonemode != RQ_ZONEMODE_ZBD)
		return 0;
	if (j->job_max_open_zones && !j->max_open_zones)
		return jf_perr(p, "job '%s': job_max_open_zones needs max_open_zones (fio: "
			    "'job_max_open_zones' cannot be used without a global open zones limit)", j->name);
	if (j->zonesize && j->zoneskip % j->zonesize)
		return jf_perr(p, "job '%s': zoneskip=%llu is not a multiple of zonesize=%llu (fio: "
			    "zoneskip %llu is not a multiple of the device zone size)", j->name,
			    (unsigned long long)j->zoneskip, (unsigned long long)j->zonesize,
			    (unsigned long long)j->zoneskip);
	return 0;
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
			"bytes, then the next zone, zoneskip further; zbd: zones of zonesize "
			"emulated on the file or device, written only at their write pointer, as "
			"fio does on a device that is not zoned",
	},
	{
		.name = "zonesize", .type = OPT_SIZE, FIELD(zonesize), .min = 0, .max = UINT64_MAX,
		.def = "0",
		.help = "zonemode=strided: bytes of I/O in a zone; zbd: the size of each zone",
	},
	{
		.name = "zonecapacity", .type = OPT_SIZE, FIELD(zonecapacity), .min = 0, .max = UINT64_MAX,
		.def = "0",
		.help = "zonemode=zbd: the bytes of each zone that take writes, at most zonesize; "
			"0 is zonesize",
	},
	{
		.name = "read_beyond_wp", .type = OPT_BOOL, FIELD(read_beyond_wp), .def = "0",
		.help = "zonemode=zbd: reads may go past a zone's write pointer; else they go to "
			"written data only, and a mixed job writes first",
	},
	{
		.name = "max_open_zones", .type = OPT_INT, FIELD(max_open_zones), .min = 0, .max = 4096,
		.def = "0",
		.help = "zonemode=zbd: zones written at once on the device, by all jobs; 0 is no "
			"limit",
	},
	{
		.name = "job_max_open_zones", .type = OPT_INT, FIELD(job_max_open_zones), .min = 0,
		.max = 4096, .def = "0",
		.help = "zonemode=zbd: zones one clone writes at once, within max_open_zones; 0 "
			"is no limit",
	},
	{
		.name = "ignore_zone_limits", .type = OPT_BOOL, FIELD(ignore_zone_limits), .def = "0",
		.help = "zonemode=zbd: a zoned device's own open-zone limit is not asked; "
			"emulated zones have none, so it changes nothing here",
	},
	{
		.name = "zone_reset_threshold", .type = OPT_STR, .set = set_zone_reset_threshold,
		.show = show_zone_share,
		.help = "zonemode=zbd: once this share of the region holds data, zone_reset_frequency "
			"of the writes reset their zone first (default: 0)",
	},
	{
		.name = "zone_reset_frequency", .type = OPT_STR, .set = set_zone_reset_frequency,
		.show = show_zone_share,
		.help = "zonemode=zbd: the share of writes that reset their zone once "
			"zone_reset_threshold is passed; 0 is none (default: 0)",
	},
	{
		.name = "zonerange", .type = OPT_SIZE, FIELD(zonerange), .min = 0, .max = UINT64_MAX,
		.help = "zonemode=strided: size of a zone (default: zonesize)",
	},
	{
		.name = "zoneskip", .type = OPT_SIZE, FIELD(zoneskip), .min = 0, .max = UINT64_MAX,
		.def = "0", .zone_off = offsetof(struct rq_job, zoneskip_nz),
		.help = "zonemode=strided or zbd: bytes (or Nz, zones) skipped after each zone of "
			"a sequential job",
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
		.help = "Files per job clone, laid out by rqlock when filename is not given",
	},
	{
		.name = "filename_format", .type = OPT_STR, FIELD(filename_format),
		.def = "$jobname.$jobnum.$filenum",
		.help = "Names of laid-out files: $jobname, $jobnum, $filenum, $clientuid",
	},
	{
		.name = "file_service_type", .type = OPT_ENUM, FIELD(file_service),
		.vals = file_service_vals, .def = "roundrobin",
		.help = "Which file the next I/O goes to: roundrobin, sequential or random",
	},
	{
		.name = "allow_file_create", .type = OPT_BOOL, .set = set_allow_file_create,
		.show = show_allow_file_create, .def = "1",
		.help = "Lay out a file that does not exist; 0 refuses the job instead",
	},
	{
		.name = "fill_device", .alias = "fill_fs", .type = OPT_BOOL, FIELD(fill_device), .def = "0",
		.help = "Without size, a file's region is what its filesystem has free, and a "
			"write that finds it full (ENOSPC, EDQUOT, or short) ends the job without "
			"an error; a reading job reads the file as it is",
	},
	{
		.name = "unlink", .type = OPT_BOOL, FIELD(unlink), .def = "0",
		.help = "Remove the files rqlock laid out when the run is done",
	},
};

const unsigned int jf_nr_opts_file = JF_ARRAY_LEN(jf_opts_file);
