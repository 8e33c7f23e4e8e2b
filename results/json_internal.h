/* SPDX-License-Identifier: MIT */
/*
 * json_internal.h - a streaming JSON writer laid out as fio prints JSON.
 *
 * Internal to results/.  fio's layout: "{" or "[" ends its line, each
 * member sits on its own line indented two spaces per level as
 * `"key" : value`, members are separated by ",\n", and the closing
 * bracket is on its own line at the opener's indent.  Integers print as
 * integers, doubles with "%f" (six decimals), as fio's json.c does.
 * Strings are escaped fully (fio escapes only '"' and '\'), so the output
 * is valid JSON whatever a job or device is called.
 *
 * Errors are sticky: after the first failed write every call does
 * nothing and rq_json_end() returns -EIO.  Callers need not check each
 * call.
 */
#ifndef RQ_RESULTS_JSON_INTERNAL_H
#define RQ_RESULTS_JSON_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define RQ_JSON_MAX_DEPTH 32

struct rq_json {
	FILE *f;
	int depth;			/* open containers */
	int err;			/* 0 or -errno, sticky */
	/* per depth: no member written yet (decides the ",\n" separator) */
	bool empty[RQ_JSON_MAX_DEPTH];
};

void rq_json_begin(struct rq_json *j, FILE *f);
/* All containers must be closed; writes the final newline.  0 or -errno. */
int rq_json_end(struct rq_json *j);

/*
 * @key names the member inside an object; it must be NULL at the top
 * level and inside an array.
 */
void rq_json_obj_open(struct rq_json *j, const char *key);
void rq_json_obj_close(struct rq_json *j);
void rq_json_arr_open(struct rq_json *j, const char *key);
void rq_json_arr_close(struct rq_json *j);

void rq_json_str(struct rq_json *j, const char *key, const char *s);
/* At most @max bytes of @s: for fixed-size char arrays that may lack a NUL. */
void rq_json_strn(struct rq_json *j, const char *key, const char *s, size_t max);
void rq_json_u64(struct rq_json *j, const char *key, uint64_t v);
void rq_json_i64(struct rq_json *j, const char *key, int64_t v);
/* "%f"; a NaN or infinity, which JSON cannot express, is written as null. */
void rq_json_dbl(struct rq_json *j, const char *key, double v);

#endif /* RQ_RESULTS_JSON_INTERNAL_H */
