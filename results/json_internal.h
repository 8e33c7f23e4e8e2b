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

/*
 * A struct's members as a table: a report states which members it
 * writes, under which key and in which order, once, as data, and
 * rq_json_fields() writes them.  The member's size is taken from the
 * struct, so a table cannot read past a member or truncate it; a size
 * the kind cannot have (a 3-byte integer, a float) sets the sticky
 * error -EINVAL.
 */
enum rq_json_kind {
	RQ_JSON_UINT,		/* unsigned integer or bool, any width */
	RQ_JSON_INT,		/* signed integer, any width */
	RQ_JSON_DBL,		/* double, as rq_json_dbl() */
	RQ_JSON_CHARS,		/* char array, at most its size (as rq_json_strn()) */
	RQ_JSON_STR,		/* const char *; NULL is written as @none, or "" */
};

struct rq_json_field {
	const char *key;
	size_t offset;
	size_t size;
	enum rq_json_kind kind;
	const char *none;	/* RQ_JSON_STR: written for a NULL pointer; NULL = "" */
};

/* The member @m of @type, written under @key as @kind. */
#define RQ_JSON_FIELD(type, m, key, kind) \
	{ (key), offsetof(type, m), sizeof(((type *)0)->m), (kind), NULL }
/* The same, under the member's own name. */
#define RQ_JSON_MEMBER(type, m, kind) RQ_JSON_FIELD(type, m, #m, kind)
/* A const char * member, @none written when it is NULL. */
#define RQ_JSON_STR_OR(type, m, key, none) \
	{ (key), offsetof(type, m), sizeof(((type *)0)->m), RQ_JSON_STR, (none) }

/* Write @nr members of @obj, one per entry of @fields, in table order. */
void rq_json_fields(struct rq_json *j, const void *obj, const struct rq_json_field *fields,
		    size_t nr);
/*
 * An array @key of @nr objects, the structs of @stride bytes from @base,
 * each written as rq_json_fields() does; a NULL @base writes an empty
 * array.
 */
void rq_json_objects(struct rq_json *j, const char *key, const void *base, size_t stride,
		     size_t nr, const struct rq_json_field *fields, size_t nr_fields);

/* The two above with a whole table, and an array's own element size. */
#define RQ_JSON_NR(table) (sizeof(table) / sizeof((table)[0]))
#define rq_json_fields_of(j, obj, table) rq_json_fields((j), (obj), (table), RQ_JSON_NR(table))
#define rq_json_objects_of(j, key, arr, nr, table) \
	rq_json_objects((j), (key), (arr), sizeof(*(arr)), (nr), (table), RQ_JSON_NR(table))

#endif /* RQ_RESULTS_JSON_INTERNAL_H */
