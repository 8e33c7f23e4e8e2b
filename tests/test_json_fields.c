// SPDX-License-Identifier: MIT
/*
 * test_json_fields.c - results/json.c's member tables (rq_json_fields,
 * rq_json_objects), which write every struct of the rqlock report.
 *
 * Cases: each integer width, signed (negative values sign-extended from
 * the member's width) and unsigned, bool, a double and a NaN, a char
 * array with no NUL (written up to its size), a NULL string with and
 * without its default, a key other than the member's name; an array of
 * structs and an empty one with a NULL base; a table whose member size
 * its kind cannot have (a float as RQ_JSON_DBL) fails the document with
 * -EINVAL and writes nothing more.
 *
 * Exit 0 pass, 1 fail.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/json_internal.h"
#include "tests/helpers.h"

struct sample {
	int8_t i8;
	int16_t i16;
	int i32;
	int64_t i64;
	uint8_t u8;
	uint16_t u16;
	unsigned int u32;
	uint64_t u64;
	bool flag;
	double d;
	double nan;
	char name[4];			/* filled to the last byte: no NUL */
	const char *s;
	const char *unset;
	const char *unset_or;
	float f;			/* no kind writes a float */
};

static const struct rq_json_field sample_fields[] = {
	RQ_JSON_MEMBER(struct sample, i8, RQ_JSON_INT),
	RQ_JSON_MEMBER(struct sample, i16, RQ_JSON_INT),
	RQ_JSON_MEMBER(struct sample, i32, RQ_JSON_INT),
	RQ_JSON_MEMBER(struct sample, i64, RQ_JSON_INT),
	RQ_JSON_MEMBER(struct sample, u8, RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct sample, u16, RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct sample, u32, RQ_JSON_UINT),
	RQ_JSON_FIELD(struct sample, u64, "big", RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct sample, flag, RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct sample, d, RQ_JSON_DBL),
	RQ_JSON_MEMBER(struct sample, nan, RQ_JSON_DBL),
	RQ_JSON_MEMBER(struct sample, name, RQ_JSON_CHARS),
	RQ_JSON_MEMBER(struct sample, s, RQ_JSON_STR),
	RQ_JSON_MEMBER(struct sample, unset, RQ_JSON_STR),
	RQ_JSON_STR_OR(struct sample, unset_or, "or", "default"),
};

static const char sample_json[] =
	"{\n"
	"  \"i8\" : -128,\n"
	"  \"i16\" : -2,\n"
	"  \"i32\" : -2147483648,\n"
	"  \"i64\" : -9223372036854775807,\n"
	"  \"u8\" : 255,\n"
	"  \"u16\" : 65535,\n"
	"  \"u32\" : 4294967295,\n"
	"  \"big\" : 18446744073709551615,\n"
	"  \"flag\" : 1,\n"
	"  \"d\" : 1.500000,\n"
	"  \"nan\" : null,\n"
	"  \"name\" : \"abcd\",\n"
	"  \"s\" : \"x\\\"y\",\n"
	"  \"unset\" : \"\",\n"
	"  \"or\" : \"default\"\n"
	"}\n";

struct pair {
	unsigned int a;
	int b;
};

static const struct rq_json_field pair_fields[] = {
	RQ_JSON_MEMBER(struct pair, a, RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct pair, b, RQ_JSON_INT),
};

static const char pairs_json[] =
	"{\n"
	"  \"pairs\" : [\n"
	"    {\n"
	"      \"a\" : 1,\n"
	"      \"b\" : -1\n"
	"    },\n"
	"    {\n"
	"      \"a\" : 2,\n"
	"      \"b\" : -2\n"
	"    }\n"
	"  ],\n"
	"  \"none\" : []\n"
	"}\n";

static const struct rq_json_field bad_fields[] = {
	RQ_JSON_MEMBER(struct sample, u8, RQ_JSON_UINT),
	RQ_JSON_MEMBER(struct sample, f, RQ_JSON_DBL),
	RQ_JSON_MEMBER(struct sample, u16, RQ_JSON_UINT),
};

/* Render with @fn into memory; the document in *@out (free it), rq_json_end()'s value returned. */
static int render(void (*fn)(struct rq_json *j), char **out)
{
	struct rq_json j;
	size_t len;
	FILE *f = open_memstream(out, &len);
	int ret;

	if (!f)
		return -errno;
	rq_json_begin(&j, f);
	fn(&j);
	ret = rq_json_end(&j);
	if (fclose(f))
		return -EIO;
	return ret;
}

static struct sample sample = {
	.i8 = -128, .i16 = -2, .i32 = -2147483647 - 1, .i64 = -9223372036854775807LL,
	.u8 = 255, .u16 = 65535, .u32 = 4294967295u, .u64 = UINT64_MAX, .flag = true,
	.d = 1.5, .name = { 'a', 'b', 'c', 'd' }, .s = "x\"y", .f = 1.0f,
};

static void write_sample(struct rq_json *j)
{
	rq_json_obj_open(j, NULL);
	rq_json_fields_of(j, &sample, sample_fields);
	rq_json_obj_close(j);
}

static void write_pairs(struct rq_json *j)
{
	static const struct pair pairs[] = { { 1, -1 }, { 2, -2 } };

	rq_json_obj_open(j, NULL);
	rq_json_objects_of(j, "pairs", pairs, 2, pair_fields);
	rq_json_objects(j, "none", NULL, sizeof(struct pair), 3, pair_fields, RQ_JSON_NR(pair_fields));
	rq_json_obj_close(j);
}

static void write_bad(struct rq_json *j)
{
	rq_json_obj_open(j, NULL);
	rq_json_fields_of(j, &sample, bad_fields);
	rq_json_obj_close(j);
}

int main(void)
{
	char *out = NULL;
	int ret;

	sample.nan = NAN;
	ret = render(write_sample, &out);
	CHECK(ret == 0, "sample: %d", ret);
	CHECK(out && !strcmp(out, sample_json), "sample:\n%s\nwanted:\n%s", out, sample_json);
	free(out);

	out = NULL;
	ret = render(write_pairs, &out);
	CHECK(ret == 0, "pairs: %d", ret);
	CHECK(out && !strcmp(out, pairs_json), "pairs:\n%s\nwanted:\n%s", out, pairs_json);
	free(out);

	/* the float stops the document: u8 written, nothing after it */
	out = NULL;
	ret = render(write_bad, &out);
	CHECK(ret == -EINVAL, "bad size: %d, wanted -EINVAL", ret);
	CHECK(out && strstr(out, "\"u8\" : 255") && !strstr(out, "u16"), "bad size wrote:\n%s", out);
	free(out);
	return failures ? 1 : 0;
}
