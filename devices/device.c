// SPDX-License-Identifier: MIT
/*
 * device.c - the device registry, spec options, open/close.  (The
 * registration of files and buffers on a worker's ring is the ring's
 * owner's: queues/ctx.c.)
 */
#include <ctype.h>
#include <stddef.h>
#include <signal.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devices/dev_internal.h"

/*
 * The registry, matched by name, as fio's load_ioengine(): an "@KIND"
 * spec opens the kind whose builtin name it carries; a path opens the
 * kind serving the job's ioengine that claims it (its probe: a block
 * device, a regular file, an NVMe generic device).  Claims never overlap
 * (rq_dev_open refuses a path two kinds claim), so the order is only the
 * order of --help.  One line per kind, in devices/kinds.def.
 */
#define RQ_DEV_KIND(ops) extern const struct rq_dev_ops ops;
#include "devices/kinds.def"
#undef RQ_DEV_KIND

static const struct rq_dev_ops *const devs[] = {
#define RQ_DEV_KIND(ops) &ops,
#include "devices/kinds.def"
#undef RQ_DEV_KIND
};

#define NR_DEVS (sizeof(devs) / sizeof(devs[0]))

extern const struct rq_dev_filter_ops rq_filter_fault;

/* The filters: "@NAME[N],...,of=INNER" puts one in front of INNER. */
static const struct rq_dev_filter_ops *const filters[] = {
	&rq_filter_fault,
};

#define NR_FILTERS (sizeof(filters) / sizeof(filters[0]))

int rq_devs_check(char *msg, size_t len)
{
	for (size_t i = 0; i < NR_DEVS; i++) {
		const struct rq_dev_ops *o = devs[i];

		if (!o->name || !o->help || !o->open || !o->close || !o->queue_rq ||
		    (!o->builtin && !o->ioengine) || (o->options && !o->builtin)) {
			snprintf(msg, len, "device ops '%s' lacks a required hook, its help, or a name "
				 "to be reached by", o->name ? o->name : "(unnamed)");
			return -EINVAL;
		}
	}
	for (size_t i = 0; i < NR_FILTERS; i++) {
		const struct rq_dev_filter_ops *f = filters[i];

		if (!f->name || !f->builtin || !f->help || !f->open || !f->close || !f->map) {
			snprintf(msg, len, "device filter '%s' lacks a required hook",
				 f->name ? f->name : "(unnamed)");
			return -EINVAL;
		}
	}
	return 0;
}

static const struct rq_dev_filter_ops *filter_find(const char *spec)
{
	for (size_t i = 0; i < NR_FILTERS; i++)
		if (rq_dev_spec_is(spec, filters[i]->builtin + 1))
			return filters[i];
	return NULL;
}

/* The inner device's spec of a filter's "@NAME,...,of=INNER". */
static const char *filter_inner_spec(const char *spec)
{
	const char *of = strstr(spec, ",of=");

	return of ? of + 4 : NULL;
}

/*
 * "@NAME[N][,opt=val]...,of=INNER": open INNER into @dev, then put the
 * filter in front of it.  The device keeps the spec as written for its
 * name (reports, errors); everything else is INNER's.
 */
static int filter_open(struct rq_dev *dev, const struct rq_dev_filter_ops *f,
		       const struct rq_dev_open *o, FILE *err)
{
	const char *inner = filter_inner_spec(o->spec), *first = strchr(o->spec, ',');
	struct rq_dev_open io = *o;
	char *opts;
	void *priv = NULL;
	int ret;

	if (!inner || !*inner) {
		fprintf(err, "%s: device '%s': of=INNER is required, last\n", o->where, o->spec);
		return -EINVAL;
	}
	if (filter_find(inner)) {
		fprintf(err, "%s: device '%s': a %s device cannot wrap another filter\n", o->where,
			o->spec, f->name);
		return -EINVAL;
	}
	io.spec = inner;
	ret = rq_dev_open(dev, &io, err);
	if (ret)
		return ret;
	opts = strndup(first + 1, (size_t)(inner - 4 - first - 1 > 0 ? inner - 4 - first - 1 : 0));
	if (!opts)
		return -ENOMEM;
	ret = f->open(dev, o, opts, &priv, err);
	free(opts);
	if (ret)
		return ret;
	dev->filter = f;
	dev->filter_priv = priv;
	snprintf(dev->name, sizeof(dev->name), "%s", o->spec);
	return 0;
}

int rq_dev_open(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err)
{
	const struct rq_dev_filter_ops *f = filter_find(o->spec);
	const struct rq_dev_ops *ops = NULL;
	struct rq_dev_open io = *o;
	const char *engine = o->ioengine ? o->ioengine : "io_uring";

	/* a failed open (a filter's too) leaves a device rq_dev_close() can take */
	memset(dev, 0, sizeof(*dev));
	dev->fd = -1;
	if (f)
		return filter_open(dev, f, o, err);
	dev->nr_hw_queues = 1;
	snprintf(dev->name, sizeof(dev->name), "%s", o->spec);
	if (o->spec[0] == '@') {
		for (size_t i = 0; i < NR_DEVS && !ops; i++)
			if (devs[i]->builtin && rq_dev_spec_is(o->spec, devs[i]->builtin + 1))
				ops = devs[i];
		if (!ops) {
			fprintf(err, "%s: %s: unknown built-in device (known: %s)\n", o->where, o->spec,
				rq_dev_builtin_names());
			return -ENODEV;
		}
	} else {
		for (size_t i = 0; i < NR_DEVS; i++) {
			const struct rq_dev_ops *d = devs[i];

			if (d->probe ? !d->probe(&io) : !d->ioengine || strcmp(d->ioengine, engine))
				continue;
			if (ops) {
				fprintf(err, "%s: %s: claimed by both the %s and the %s devices\n", o->where,
					o->spec, ops->name, d->name);
				return -EINVAL;
			}
			ops = d;
		}
		if (!ops) {
			fprintf(err, "%s: %s: no such device or file\n", o->where, o->spec);
			return -ENODEV;
		}
		/* a built-in kind serving an engine (null) takes any path, with no options */
		if (ops->builtin)
			io.spec = ops->builtin;
	}
	dev->ops = ops;
	dev->flags = ops->flags;
	return ops->open(dev, &io, err);
}

int rq_dev_prepare(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err)
{
	struct rq_dev_open io = *o;

	if (dev->filter)
		io.spec = filter_inner_spec(o->spec);	/* the device's own spec */
	return dev->ops->prepare ? dev->ops->prepare(dev, &io, err) : 0;
}

static volatile sig_atomic_t layout_stop;

void rq_devs_interrupt(void)
{
	layout_stop = 1;
}

bool rq_devs_interrupted(void)
{
	return layout_stop;
}

int rq_dev_discard_layout(struct rq_dev *dev)
{
	int removed = 0;

	if (dev->created) {
		removed = !unlink(dev->created);
		free(dev->created);
		dev->created = NULL;
	}
	return removed;
}

void rq_dev_close(struct rq_dev *dev)
{
	free(dev->created);
	dev->created = NULL;
	if (dev->filter)
		dev->filter->close(dev->filter_priv);
	dev->filter = NULL;
	dev->filter_priv = NULL;
	if (dev->ops)
		dev->ops->close(dev);
	if (dev->fd >= 0)
		close(dev->fd);
	dev->fd = -1;
	dev->ops = NULL;
}

/* "@null, @ram, ...": the built-in kinds, in the registry's order */
const char *rq_dev_builtin_names(void)
{
	static char names[256];

	if (!names[0]) {
		size_t n = 0;

		for (size_t i = 0; i < NR_FILTERS; i++)
			if (n < sizeof(names))
				n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", n ? ", " : "",
						      filters[i]->builtin);
		for (size_t i = 0; i < NR_DEVS; i++)
			if (devs[i]->builtin && n < sizeof(names))
				n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", n ? ", " : "",
						      devs[i]->builtin);
	}
	return names;
}

const char *rq_dev_kind(const struct rq_dev *dev)
{
	return dev->ops ? dev->ops->name : "none";
}

/* "4k" -> 4096, as the job files' sizes (kb_base 1024). */
static int parse_u64(const char *s, uint64_t *v, bool time_us)
{
	char *end;
	unsigned long long x;
	uint64_t mult = 1;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno)
		return -EINVAL;
	if (time_us) {
		if (!strcmp(end, "") || !strcmp(end, "us"))
			mult = 1;
		else if (!strcmp(end, "ms"))
			mult = 1000;
		else if (!strcmp(end, "s"))
			mult = 1000000;
		else
			return -EINVAL;
	} else {
		switch (tolower((unsigned char)*end)) {
		case 0: break;
		case 'k': mult = 1ULL << 10; break;
		case 'm': mult = 1ULL << 20; break;
		case 'g': mult = 1ULL << 30; break;
		case 't': mult = 1ULL << 40; break;
		default: return -EINVAL;
		}
		if (*end && end[1] && strcasecmp(end + 1, "b") && strcasecmp(end + 1, "ib"))
			return -EINVAL;
	}
	if (x > UINT64_MAX / mult)
		return -ERANGE;
	*v = x * mult;
	return 0;
}

const char *rq_dev_opt_type_name(enum rq_dev_opt_type t)
{
	return t == RQ_DEV_OPT_STR ? "str" : t == RQ_DEV_OPT_TIME_US ? "time_us" : "int";
}

/* Set @opt in @base from @val; -EINVAL when @val does not parse, -ERANGE when too long. */
static int opt_set(const struct rq_dev_option *opt, void *base, const char *val)
{
	char *p = (char *)base + opt->off;

	if (opt->type == RQ_DEV_OPT_STR) {
		if (strlen(val) >= opt->len)
			return -ERANGE;
		snprintf(p, opt->len, "%s", val);
		return 0;
	}
	return parse_u64(val, (uint64_t *)(void *)p, opt->type == RQ_DEV_OPT_TIME_US);
}

int rq_dev_opts_parse(const struct rq_dev_option *tab, void *base, const char *spec, const char *opts,
		      FILE *err)
{
	char *dup, *save = NULL, *tok;
	int ret = 0;

	for (const struct rq_dev_option *t = tab; t && t->name; t++) {
		if (t->type == RQ_DEV_OPT_STR)
			memset((char *)base + t->off, 0, t->len);
		else
			*(uint64_t *)(void *)((char *)base + t->off) = 0;
	}
	for (const struct rq_dev_option *t = tab; t && t->name; t++)
		if (t->def && opt_set(t, base, t->def))
			abort();	/* a table whose default does not parse: caught by every test */
	if (!opts || !*opts)
		return 0;
	dup = strdup(opts);
	if (!dup)
		return -ENOMEM;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct rq_dev_option *t = tab;
		char *eq = strchr(tok, '=');

		if (!eq) {
			fprintf(err, "device '%s': option '%s' needs a value (key=value)\n", spec, tok);
			ret = -EINVAL;
			break;
		}
		*eq = 0;
		while (t && t->name && strcmp(t->name, tok))
			t++;
		if (!t || !t->name) {
			fprintf(err, "device '%s': unknown option '%s'\n", spec, tok);
			ret = -EINVAL;
			break;
		}
		if (t->type == RQ_DEV_OPT_STR && (!eq[1] || strlen(eq + 1) >= t->len)) {
			fprintf(err, "device '%s': option '%s' needs a value shorter than %zu bytes\n",
				spec, tok, t->len);
			ret = -EINVAL;
			break;
		}
		if (opt_set(t, base, eq + 1)) {
			fprintf(err, "device '%s': bad value '%s' for option '%s'\n", spec, eq + 1, tok);
			ret = -EINVAL;
			break;
		}
	}
	free(dup);
	return ret;
}

#define MEM_OPT(n, t, d, h) { #n, t, offsetof(struct rq_mem_opts, n), 0, d, h }
const struct rq_dev_option rq_mem_options[] = {
	MEM_OPT(size, RQ_DEV_OPT_U64, NULL, "bytes (k/m/g suffixes); 0: what the jobs need"),
	MEM_OPT(depth, RQ_DEV_OPT_U64, "64", "requests in flight, 1..65536"),
	MEM_OPT(irqmode, RQ_DEV_OPT_U64, "0", "0 complete in queue_rq, 1 on the next reap, 2 after delay_us"),
	MEM_OPT(delay_us, RQ_DEV_OPT_TIME_US, "0", "completion delay (sets irqmode=2)"),
	{ NULL, 0, 0, 0, NULL, NULL },
};

int rq_dev_mem_opts(const struct rq_dev_open *o, const char *opts, uint64_t def_size,
		    struct rq_mem_opts *m, FILE *err)
{
	int ret = rq_dev_opts_parse(rq_mem_options, m, o->spec, opts, err);

	if (ret)
		return ret;
	if (m->irqmode > 2 || m->depth == 0 || m->depth > 65536) {
		fprintf(err, "%s: device '%s': irqmode must be 0..2 and depth 1..65536\n",
			o->where, o->spec);
		return -EINVAL;
	}
	if (m->delay_us)
		m->irqmode = 2;
	if (!m->size)
		m->size = o->min_size ? o->min_size : def_size;
	return 0;
}

/* ---- help and --list ------------------------------------------------- */

static void help_options(FILE *f, const struct rq_dev_option *tab)
{
	for (const struct rq_dev_option *t = tab; t && t->name; t++)
		fprintf(f, "      %-16s %s%s%s%s\n", t->name, t->help, t->def ? " (default " : "",
			t->def ? t->def : "", t->def ? ")" : "");
}

static bool help_wanted(const char *name, const char *kind, const char *builtin, const char *engine)
{
	return !name || !strcmp(name, kind) || (builtin && (!strcmp(name, builtin) || !strcmp(name, builtin + 1))) ||
	       (engine && !strcmp(name, engine));
}

unsigned int rq_dev_help(FILE *f, const char *name)
{
	unsigned int n = 0;

	for (size_t i = 0; i < NR_DEVS; i++) {
		const struct rq_dev_ops *d = devs[i];

		if (!help_wanted(name, d->name, d->builtin, d->ioengine))
			continue;
		fprintf(f, "  %-8s %-16s %s\n", d->name, d->builtin ? d->builtin :
			(d->ioengine ? d->ioengine : ""), d->help);
		if (d->builtin && d->ioengine)
			fprintf(f, "      (also every filename of ioengine=%s)\n", d->ioengine);
		help_options(f, d->options);
		n++;
	}
	for (size_t i = 0; i < NR_FILTERS; i++) {
		const struct rq_dev_filter_ops *fl = filters[i];

		if (!help_wanted(name, fl->name, fl->builtin, NULL))
			continue;
		fprintf(f, "  %-8s %-16s %s\n", fl->name, fl->builtin, fl->help);
		help_options(f, fl->options);
		fprintf(f, "      %-16s %s\n", "of", "the device filtered: the rest of the spec, last");
		n++;
	}
	return n;
}

const struct rq_dev_ops *rq_dev_kind_at(unsigned int i)
{
	return i < NR_DEVS ? devs[i] : NULL;
}

const struct rq_dev_filter_ops *rq_dev_filter_at(unsigned int i)
{
	return i < NR_FILTERS ? filters[i] : NULL;
}

bool rq_dev_spec_is(const char *spec, const char *kind)
{
	size_t n = strlen(kind);

	if (spec[0] != '@' || strncmp(spec + 1, kind, n))
		return false;
	spec += 1 + n;
	while (isdigit((unsigned char)*spec))
		spec++;
	return *spec == 0 || *spec == ',';
}

const char *rq_dev_registered_name(const struct rq_dev *dev)
{
	unsigned int r = atomic_load_explicit(&dev->registered, memory_order_relaxed);

	if (!(r & RQ_DEV_REG_PROBED))
		return "n/a";
	if (r & (RQ_DEV_REG_VFIO | RQ_DEV_REG_UIO))	/* nvme-pci: how its DMA memory is mapped */
		return r & RQ_DEV_REG_VFIO ? "vfio" : "uio";
	if ((r & RQ_DEV_REG_FILES) && (r & RQ_DEV_REG_BUFS))
		return r & RQ_DEV_REG_FALLBACK ? "files+buffers (partly)" : "files+buffers";
	if (r & RQ_DEV_REG_FILES)
		return r & RQ_DEV_REG_FALLBACK ? "files (partly)" : "files";
	if (r & RQ_DEV_REG_BUFS)
		return r & RQ_DEV_REG_FALLBACK ? "buffers (partly)" : "buffers";
	return "none";
}
