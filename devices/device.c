// SPDX-License-Identifier: MIT
/*
 * device.c - the device registry, spec options, open/close.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devices/device.h"

extern const struct rq_dev_ops rq_dev_null;
extern const struct rq_dev_ops rq_dev_file;
extern const struct rq_dev_ops rq_dev_blkdev;

/* The registry, probed in order: built-in specs first, then paths. */
static const struct rq_dev_ops *const devs[] = {
	&rq_dev_null,
	&rq_dev_blkdev,
	&rq_dev_file,
};

#define NR_DEVS (sizeof(devs) / sizeof(devs[0]))

int rq_devs_check(char *msg, size_t len)
{
	for (size_t i = 0; i < NR_DEVS; i++) {
		const struct rq_dev_ops *o = devs[i];

		if (!o->name || !o->probe || !o->open || !o->close || !o->queue_rq) {
			snprintf(msg, len, "device ops '%s' lacks a required hook",
				 o->name ? o->name : "(unnamed)");
			return -EINVAL;
		}
	}
	return 0;
}

int rq_dev_open(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err)
{
	memset(dev, 0, sizeof(*dev));
	dev->fd = -1;
	snprintf(dev->name, sizeof(dev->name), "%s", o->spec);
	for (size_t i = 0; i < NR_DEVS; i++) {
		if (devs[i]->probe(o)) {
			dev->ops = devs[i];
			return devs[i]->open(dev, o, err);
		}
	}
	if (o->spec[0] == '@')
		fprintf(err, "%s: %s: unknown built-in device (known: @null)\n", o->where, o->spec);
	else
		fprintf(err, "%s: %s: no such device or file\n", o->where, o->spec);
	return -ENODEV;
}

int rq_dev_prepare(struct rq_dev *dev, const struct rq_dev_open *o, FILE *err)
{
	return dev->ops->prepare ? dev->ops->prepare(dev, o, err) : 0;
}

void rq_dev_close(struct rq_dev *dev)
{
	if (dev->ops)
		dev->ops->close(dev);
	if (dev->fd >= 0)
		close(dev->fd);
	dev->fd = -1;
	dev->ops = NULL;
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

int rq_dev_parse_opts(const char *spec, const char *opts, struct rq_dev_opt *tab, int nr, FILE *err)
{
	char *dup, *save = NULL, *tok;
	int ret = 0;

	if (!opts || !*opts)
		return 0;
	dup = strdup(opts);
	if (!dup)
		return -ENOMEM;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		int i;

		if (!eq) {
			fprintf(err, "device '%s': option '%s' needs a value (key=value)\n", spec, tok);
			ret = -EINVAL;
			break;
		}
		*eq = 0;
		for (i = 0; i < nr; i++)
			if (!strcmp(tab[i].key, tok))
				break;
		if (i == nr) {
			fprintf(err, "device '%s': unknown option '%s'\n", spec, tok);
			ret = -EINVAL;
			break;
		}
		if (parse_u64(eq + 1, tab[i].val, tab[i].is_time_us)) {
			fprintf(err, "device '%s': bad value '%s' for option '%s'\n", spec, eq + 1, tok);
			ret = -EINVAL;
			break;
		}
	}
	free(dup);
	return ret;
}
