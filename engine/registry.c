// SPDX-License-Identifier: MIT
/*
 * registry.c - what the binary has, from the registries themselves: the
 * lock modes (queues/queue.c) with their flags, the lock primitives
 * (locks/), the device kinds and filters (devices/device.c) with their
 * options.  Built once; `rqlock --list --json` prints it and every JSON
 * report carries it (rqlock.registry), so that no tool keeps a list of
 * its own (DESIGN.md).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "devices/device.h"
#include "engine/engine.h"
#include "results/results.h"

static struct rq_registry reg;

static void device_options(struct rq_registry_device *d, const struct rq_dev_option *tab)
{
	struct rq_registry_option *o;
	unsigned int n = 0;

	while (tab && tab[n].name)
		n++;
	o = n ? calloc(n, sizeof(*o)) : NULL;
	for (unsigned int i = 0; o && i < n; i++)
		o[i] = (struct rq_registry_option){ tab[i].name, rq_dev_opt_type_name(tab[i].type),
						    tab[i].def ? tab[i].def : "", tab[i].help };
	d->options = o;
	d->nr_options = o ? n : 0;
}

const struct rq_registry *rq_registry_get(void)
{
	unsigned int nm = 0, nk = 0, nf = 0, np = rq_lock_nr_types();
	struct rq_registry_mode *modes;
	struct rq_registry_device *devs;
	const char **prims;

	if (reg.modes)
		return &reg;
	while (rq_queue_mode_at(nm))
		nm++;
	while (rq_dev_kind_at(nk))
		nk++;
	while (rq_dev_filter_at(nf))
		nf++;
	modes = calloc(nm, sizeof(*modes));
	devs = calloc(nk + nf, sizeof(*devs));
	prims = calloc(np, sizeof(*prims));
	if (!modes || !devs || !prims) {
		free(modes);
		free(devs);
		free(prims);
		return NULL;
	}
	for (unsigned int i = 0; i < nm; i++) {
		const struct rq_queue_mode_ops *m = rq_queue_mode_at(i);

		modes[i].name = m->name;
		modes[i].help = m->help;
		modes[i].options = m->options;
		for (unsigned int b = 0; rq_queue_mode_flag_name(b) && modes[i].nr_flags < RQ_REGISTRY_FLAGS_MAX; b++)
			if (m->flags & (1u << b))
				modes[i].flags[modes[i].nr_flags++] = rq_queue_mode_flag_name(b);
	}
	for (unsigned int i = 0; i < np; i++)
		prims[i] = rq_lock_type_name((enum rq_lock_type)i);
	for (unsigned int i = 0; i < nk; i++) {
		const struct rq_dev_ops *k = rq_dev_kind_at(i);

		devs[i] = (struct rq_registry_device){ .name = k->name, .builtin = k->builtin ? k->builtin : "",
			.ioengine = k->ioengine ? k->ioengine : "", .help = k->help };
		device_options(&devs[i], k->options);
	}
	for (unsigned int i = 0; i < nf; i++) {
		const struct rq_dev_filter_ops *f = rq_dev_filter_at(i);

		devs[nk + i] = (struct rq_registry_device){ .name = f->name, .builtin = f->builtin,
			.ioengine = "", .help = f->help, .filter = true };
		device_options(&devs[nk + i], f->options);
	}
	reg = (struct rq_registry){ .nr_modes = nm, .nr_primitives = np, .nr_devices = nk + nf,
				    .modes = modes, .primitives = prims, .devices = devs };
	return &reg;
}
