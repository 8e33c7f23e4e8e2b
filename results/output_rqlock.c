// SPDX-License-Identifier: MIT
/*
 * output_rqlock.c - the rqlock part of a report, in JSON and normal text.
 *
 * What fio's output has no place for: the lock mode and primitive, the
 * requests that never came back, per-lock and per-queue counters and the
 * devices, followed by lockstat.c's lockstat, lockdep and mode sections.
 * JSON puts them in one extra top-level object, "rqlock" (fio's tools
 * ignore keys they do not know); normal text prints them after fio's
 * "Run status" lines.  output.c calls in here for both.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "results/json_internal.h"
#include "results/output_internal.h"
#include "results/results.h"

/* The run's own facts: the first members of "rqlock". */
static const struct rq_json_field run_fields[] = {
	RQ_JSON_MEMBER(struct rq_run_report, lock_mode, RQ_JSON_STR),
	RQ_JSON_MEMBER(struct rq_run_report, lock_type, RQ_JSON_STR),
	RQ_JSON_MEMBER(struct rq_run_report, workers, RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct rq_run_report, bios_submitted, RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct rq_run_report, bios_completed, RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct rq_run_report, bios_abandoned, RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct rq_run_report, sectors_verified, RQ_JSON_UINT),
	RQ_JSON_STR_OR(struct rq_run_report, clock, "clock", "clock_gettime"),
	RQ_JSON_MEMBER(struct rq_run_report, interrupted, RQ_JSON_INT),
	RQ_JSON_MEMBER(struct rq_run_report, stalled, RQ_JSON_UINT),
};

/* A stuck request's members around "op", which is written as a word. */
static const struct rq_json_field stuck_where[] = {
	RQ_JSON_MEMBER(struct rq_stuck_report, job, RQ_JSON_CHARS),
	RQ_JSON_MEMBER(struct rq_stuck_report, clone, RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct rq_stuck_report, device, RQ_JSON_CHARS),
};

static const struct rq_json_field stuck_what[] = {
	RQ_JSON_MEMBER(struct rq_stuck_report, offset, RQ_JSON_UINT),
	RQ_JSON_FIELD(struct rq_stuck_report, len, "length", RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct rq_stuck_report, age_ns, RQ_JSON_UINT),
};

/* The rest of the machine during the run (lib/machine.h): "machine". */
static const struct rq_json_field machine_fields[] = {
	RQ_JSON_MEMBER(struct rq_machine_load, cpus, RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct rq_machine_load, bg_cpu, RQ_JSON_DBL),
	RQ_JSON_MEMBER(struct rq_machine_load, steal, RQ_JSON_DBL),
	RQ_JSON_MEMBER(struct rq_machine_load, self_cpu, RQ_JSON_DBL),
	RQ_JSON_MEMBER(struct rq_machine_load, loadavg_before, RQ_JSON_DBL),
	RQ_JSON_MEMBER(struct rq_machine_load, loadavg_after, RQ_JSON_DBL),
	RQ_JSON_MEMBER(struct rq_machine_load, mhz_min, RQ_JSON_DBL),
	RQ_JSON_MEMBER(struct rq_machine_load, mhz_max, RQ_JSON_DBL),
	RQ_JSON_MEMBER(struct rq_machine_load, mhz_spread, RQ_JSON_DBL),
};

static const struct rq_json_field lock_fields[] = {
	RQ_JSON_MEMBER(struct rq_lock_report, name, RQ_JSON_CHARS),
	RQ_JSON_MEMBER(struct rq_lock_report, acquisitions, RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct rq_lock_report, contentions, RQ_JSON_UINT),
};

static const struct rq_json_field queue_fields[] = {
	RQ_JSON_MEMBER(struct rq_queue_report, name, RQ_JSON_CHARS),
	RQ_JSON_MEMBER(struct rq_queue_report, requests, RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct rq_queue_report, bios, RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct rq_queue_report, merges_front, RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct rq_queue_report, merges_back, RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct rq_queue_report, dispatched, RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct rq_queue_report, completed, RQ_JSON_UINT),
};

static const struct rq_json_field device_fields[] = {
	RQ_JSON_MEMBER(struct rq_device_report, name, RQ_JSON_CHARS),
	RQ_JSON_MEMBER(struct rq_device_report, kind, RQ_JSON_CHARS),
	RQ_JSON_MEMBER(struct rq_device_report, subkind, RQ_JSON_CHARS),
	RQ_JSON_MEMBER(struct rq_device_report, path, RQ_JSON_CHARS),
	RQ_JSON_MEMBER(struct rq_device_report, model, RQ_JSON_CHARS),
	RQ_JSON_MEMBER(struct rq_device_report, size, RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct rq_device_report, logical_block_size, RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct rq_device_report, queue_depth, RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct rq_device_report, serial, RQ_JSON_CHARS),
	RQ_JSON_MEMBER(struct rq_device_report, transport, RQ_JSON_CHARS),
	RQ_JSON_MEMBER(struct rq_device_report, rotational, RQ_JSON_INT),
	RQ_JSON_MEMBER(struct rq_device_report, registered, RQ_JSON_CHARS),
};

static void registry_members(struct rq_json *j, const struct rq_registry *reg)
{
	rq_json_arr_open(j, "modes");
	for (unsigned int i = 0; i < reg->nr_modes; i++) {
		const struct rq_registry_mode *m = &reg->modes[i];

		rq_json_obj_open(j, NULL);
		rq_json_str(j, "name", m->name);
		rq_json_str(j, "help", m->help);
		rq_json_arr_open(j, "flags");
		for (unsigned int k = 0; k < m->nr_flags; k++)
			rq_json_str(j, NULL, m->flags[k]);
		rq_json_arr_close(j);
		rq_json_arr_open(j, "options");
		for (const char *const *o = m->options; o && *o; o++)
			rq_json_str(j, NULL, *o);
		rq_json_arr_close(j);
		rq_json_obj_close(j);
	}
	rq_json_arr_close(j);
	rq_json_arr_open(j, "primitives");
	for (unsigned int i = 0; i < reg->nr_primitives; i++)
		rq_json_str(j, NULL, reg->primitives[i]);
	rq_json_arr_close(j);
	rq_json_arr_open(j, "devices");
	for (unsigned int i = 0; i < reg->nr_devices; i++) {
		const struct rq_registry_device *d = &reg->devices[i];

		rq_json_obj_open(j, NULL);
		rq_json_str(j, "name", d->name);
		rq_json_str(j, "builtin", d->builtin);
		rq_json_str(j, "ioengine", d->ioengine);
		rq_json_u64(j, "filter", d->filter);
		rq_json_str(j, "help", d->help);
		rq_json_arr_open(j, "options");
		for (unsigned int k = 0; k < d->nr_options; k++) {
			rq_json_obj_open(j, NULL);
			rq_json_str(j, "name", d->options[k].name);
			rq_json_str(j, "type", d->options[k].type);
			rq_json_str(j, "default", d->options[k].def);
			rq_json_str(j, "help", d->options[k].help);
			rq_json_obj_close(j);
		}
		rq_json_arr_close(j);
		rq_json_obj_close(j);
	}
	rq_json_arr_close(j);
}

int rq_registry_json_write(FILE *f, const struct rq_registry *reg)
{
	struct rq_json j;

	rq_json_begin(&j, f);
	rq_json_obj_open(&j, NULL);
	registry_members(&j, reg);
	rq_json_obj_close(&j);
	return rq_json_end(&j);
}

void rq_output_rqlock_json(struct rq_json *j, const struct rq_run_report *r)
{
	rq_json_obj_open(j, "rqlock");
	rq_json_fields_of(j, r, run_fields);
	if (r->machine.valid) {
		rq_json_obj_open(j, "machine");
		rq_json_fields_of(j, &r->machine, machine_fields);
		rq_json_obj_close(j);
	}
	/* the requests that never came back (abandoned), always a list */
	rq_json_arr_open(j, "stuck");
	for (unsigned int i = 0; r->stuck && i < r->nr_stuck; i++) {
		const struct rq_stuck_report *s = &r->stuck[i];

		rq_json_obj_open(j, NULL);
		rq_json_fields_of(j, s, stuck_where);
		rq_json_str(j, "op", s->op == RQ_DDIR_WRITE ? "write" : s->op == RQ_DDIR_TRIM ? "trim" :
			    s->op == RQ_DDIR_TRIM + 1 ? "sync" : "read");	/* queues/ RQ_OP_FLUSH */
		rq_json_fields_of(j, s, stuck_what);
		rq_json_obj_close(j);
	}
	rq_json_arr_close(j);
	rq_json_objects_of(j, "locks", r->locks, r->nr_locks, lock_fields);
	rq_json_objects_of(j, "queues", r->queues, r->nr_queues, queue_fields);
	rq_json_objects_of(j, "devices", r->devices, r->nr_devices, device_fields);
	rq_lockstat_json(j, r);
	if (r->registry) {
		rq_json_obj_open(j, "registry");
		registry_members(j, r->registry);
		rq_json_obj_close(j);
	}
	rq_json_obj_close(j);
}

/*
 * A small aligned table: the columns set in @left (bit per column)
 * left-aligned, the rest right-aligned, each as wide as its widest cell.  @cell formats one
 * cell; it is called twice per cell (measure, then print) so nothing is
 * buffered.
 */
#define TABLE_MAX_COLS 8
#define CELL_MAX 288

typedef void (*cell_fn)(const struct rq_run_report *r, unsigned int row, unsigned int col,
			char *buf, size_t len);

static void text_table(struct rq_txt *t, const struct rq_run_report *r, const char *const *hdr,
		       unsigned int ncols, unsigned int left, unsigned int nrows, cell_fn cell)
{
	unsigned int w[TABLE_MAX_COLS], row, col;
	char buf[CELL_MAX];

	for (col = 0; col < ncols; col++)
		w[col] = strlen(hdr[col]);
	for (row = 0; row < nrows; row++)
		for (col = 0; col < ncols; col++) {
			cell(r, row, col, buf, sizeof(buf));
			if (strlen(buf) > w[col])
				w[col] = strlen(buf);
		}

	for (row = 0; row <= nrows; row++) {
		rq_txt_out(t, "  ");
		for (col = 0; col < ncols; col++) {
			/* row 0 is the header */
			if (row)
				cell(r, row - 1, col, buf, sizeof(buf));
			else
				snprintf(buf, sizeof(buf), "%s", hdr[col]);
			/* no padding after the last column */
			if (col == ncols - 1 && (left & (1u << col)))
				rq_txt_out(t, "  %s", buf);
			else
				rq_txt_out(t, (left & (1u << col)) ? "  %-*s" : "  %*s", (int)w[col], buf);
		}
		rq_txt_out(t, "\n");
	}
}

static void lock_cell(const struct rq_run_report *r, unsigned int row, unsigned int col,
		      char *buf, size_t len)
{
	const struct rq_lock_report *l = &r->locks[row];

	switch (col) {
	case 0:
		rq_txt_clean(buf, len, l->name, sizeof(l->name));
		break;
	case 1:
		snprintf(buf, len, "%" PRIu64, l->acquisitions);
		break;
	case 2:
		snprintf(buf, len, "%" PRIu64, l->contentions);
		break;
	default:
		if (l->acquisitions)
			snprintf(buf, len, "%.2f%%", 100.0 * (double)l->contentions / (double)l->acquisitions);
		else
			snprintf(buf, len, "-");
		break;
	}
}

static void queue_cell(const struct rq_run_report *r, unsigned int row, unsigned int col,
		       char *buf, size_t len)
{
	const struct rq_queue_report *q = &r->queues[row];
	const uint64_t v[] = { 0, q->bios, q->requests, q->merges_front, q->merges_back,
			       q->dispatched, q->completed };

	if (!col)
		rq_txt_clean(buf, len, q->name, sizeof(q->name));
	else
		snprintf(buf, len, "%" PRIu64, v[col]);
}

static void device_cell(const struct rq_run_report *r, unsigned int row, unsigned int col,
			char *buf, size_t len)
{
	const struct rq_device_report *dv = &r->devices[row];

	switch (col) {
	case 0:
		rq_txt_clean(buf, len, dv->name, sizeof(dv->name));
		break;
	case 1:
		rq_txt_clean(buf, len, dv->kind, sizeof(dv->kind));
		break;
	case 2:
		rq_txt_clean(buf, len, dv->subkind, sizeof(dv->subkind));
		break;
	case 3:
		rq_txt_clean(buf, len, dv->path, sizeof(dv->path));
		break;
	case 4:
		rq_txt_clean(buf, len, dv->model, sizeof(dv->model));
		break;
	case 5:
		rq_txt_n2s(buf, len, dv->size, SIG_FIGS, true, "B");
		return;
	case 6:
		snprintf(buf, len, "%" PRIu32, dv->logical_block_size);
		return;
	default:
		snprintf(buf, len, "%" PRIu32, dv->queue_depth);
		return;
	}
	if (!*buf)
		snprintf(buf, len, "-");
}

void rq_output_rqlock_text(struct rq_txt *t, const struct rq_run_report *r)
{
	static const char *const lock_hdr[] = { "lock", "acquisitions", "contentions", "contended" };
	static const char *const queue_hdr[] = { "queue", "bios", "requests", "front merges",
						 "back merges", "dispatched", "completed" };
	static const char *const dev_hdr[] = { "device", "kind", "subkind", "path", "model",
					       "size", "lbs", "qd" };
	char mode[64], type[64];

	rq_txt_out(t, "\nrqlock: lock mode=%s, lock type=%s, workers=%u\n",
	    rq_txt_clean(mode, sizeof(mode), r->lock_mode, sizeof(mode)),
	    rq_txt_clean(type, sizeof(type), r->lock_type, sizeof(type)), r->workers);
	if (r->nr_locks) {
		rq_txt_out(t, "  locks:\n");
		text_table(t, r, lock_hdr, 4, 0x1, r->nr_locks, lock_cell);
	}
	if (r->nr_queues) {
		rq_txt_out(t, "  queues:\n");
		text_table(t, r, queue_hdr, 7, 0x1, r->nr_queues, queue_cell);
	}
	if (r->nr_devices) {
		rq_txt_out(t, "  devices:\n");
		text_table(t, r, dev_hdr, 8, 0x1f, r->nr_devices, device_cell);
	}
	if (!t->err && rq_lockstat_text(t->f, r))
		t->err = -EIO;
}
