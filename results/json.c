// SPDX-License-Identifier: MIT
/*
 * json.c - streaming JSON writer with fio's layout (see json_internal.h).
 *
 * Nothing is built in memory: each call writes its member at once, so
 * the report is rendered in one pass with no allocation.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "results/json_internal.h"

static void put(struct rq_json *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct rq_json *j, const char *fmt, ...)
{
	va_list ap;
	int ret;

	if (j->err)
		return;
	va_start(ap, fmt);
	ret = vfprintf(j->f, fmt, ap);
	va_end(ap);
	if (ret < 0)
		j->err = -EIO;
}

static void put_raw(struct rq_json *j, const char *s, size_t len)
{
	if (j->err || !len)
		return;
	if (fwrite(s, 1, len, j->f) != len)
		j->err = -EIO;
}

static void indent(struct rq_json *j, int level)
{
	while (level-- > 0)
		put_raw(j, "  ", 2);
}

/*
 * Length of the well-formed UTF-8 sequence at @s (at most @left bytes),
 * or 0 if the bytes there are not one (RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF).
 */
static size_t utf8_len(const unsigned char *s, size_t left)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (len > left)
		return 0;

	/* the second byte's range is narrower after these lead bytes */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/*
 * Quote and escape @len bytes of @s.  Control characters get JSON's
 * escapes; bytes that are not well-formed UTF-8 become U+FFFD so that
 * the document stays valid for any parser.
 */
static void put_string(struct rq_json *j, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0, n;

	put_raw(j, "\"", 1);
	while (i < len) {
		unsigned char c = p[i];
		const char *esc = NULL;
		char buf[8];

		if (c == '"')
			esc = "\\\"";
		else if (c == '\\')
			esc = "\\\\";
		else if (c == '\n')
			esc = "\\n";
		else if (c == '\r')
			esc = "\\r";
		else if (c == '\t')
			esc = "\\t";
		else if (c == '\b')
			esc = "\\b";
		else if (c == '\f')
			esc = "\\f";
		else if (c < 0x20) {
			snprintf(buf, sizeof(buf), "\\u%04x", c);
			esc = buf;
		} else if (c < 0x80) {
			run++;
			i++;
			continue;
		} else {
			n = utf8_len(p + i, len - i);
			if (n) {
				run += n;
				i += n;
				continue;
			}
			esc = "\\ufffd";
		}
		/* flush the plain bytes before this one, then its escape */
		put_raw(j, s + i - run, run);
		run = 0;
		put_raw(j, esc, strlen(esc));
		i++;
	}
	put_raw(j, s + i - run, run);
	put_raw(j, "\"", 1);
}

/* Start a value: separator, indent and key as its container needs. */
static bool member(struct rq_json *j, const char *key)
{
	if (j->err)
		return false;
	if (j->depth == 0)
		return true;

	put_raw(j, j->empty[j->depth - 1] ? "\n" : ",\n", j->empty[j->depth - 1] ? 1 : 2);
	j->empty[j->depth - 1] = false;
	indent(j, j->depth);
	if (key) {
		put_string(j, key, strlen(key));
		put_raw(j, " : ", 3);
	}
	return !j->err;
}

static void open_container(struct rq_json *j, const char *key, char c)
{
	if (!member(j, key))
		return;
	if (j->depth >= RQ_JSON_MAX_DEPTH) {
		j->err = -EINVAL;
		return;
	}
	put_raw(j, &c, 1);
	j->empty[j->depth++] = true;
}

static void close_container(struct rq_json *j, char c)
{
	if (j->err)
		return;
	if (j->depth <= 0) {
		j->err = -EINVAL;
		return;
	}
	j->depth--;
	if (!j->empty[j->depth]) {
		put_raw(j, "\n", 1);
		indent(j, j->depth);
	}
	put_raw(j, &c, 1);
}

void rq_json_begin(struct rq_json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
}

int rq_json_end(struct rq_json *j)
{
	if (!j->err && j->depth)
		j->err = -EINVAL;
	put_raw(j, "\n", 1);
	return j->err;
}

void rq_json_obj_open(struct rq_json *j, const char *key)
{
	open_container(j, key, '{');
}

void rq_json_obj_close(struct rq_json *j)
{
	close_container(j, '}');
}

void rq_json_arr_open(struct rq_json *j, const char *key)
{
	open_container(j, key, '[');
}

void rq_json_arr_close(struct rq_json *j)
{
	close_container(j, ']');
}

void rq_json_strn(struct rq_json *j, const char *key, const char *s, size_t max)
{
	if (!member(j, key))
		return;
	if (!s)
		s = "";
	put_string(j, s, strnlen(s, max));
}

void rq_json_str(struct rq_json *j, const char *key, const char *s)
{
	rq_json_strn(j, key, s, SIZE_MAX);
}

void rq_json_u64(struct rq_json *j, const char *key, uint64_t v)
{
	if (member(j, key))
		put(j, "%" PRIu64, v);
}

void rq_json_i64(struct rq_json *j, const char *key, int64_t v)
{
	if (member(j, key))
		put(j, "%" PRId64, v);
}

void rq_json_dbl(struct rq_json *j, const char *key, double v)
{
	if (!member(j, key))
		return;
	if (isfinite(v))
		put(j, "%f", v);
	else
		put_raw(j, "null", 4);
}

/*
 * The integer of @size bytes at @p, zero-extended; false if no integer has
 * that size.  Members sit at their natural alignment inside their struct,
 * and a signed integer may be read through its unsigned type.
 */
static bool load_int(const void *p, size_t size, uint64_t *v)
{
	switch (size) {
	case 1:
		*v = *(const uint8_t *)p;
		return true;
	case 2:
		*v = *(const uint16_t *)p;
		return true;
	case 4:
		*v = *(const uint32_t *)p;
		return true;
	case 8:
		*v = *(const uint64_t *)p;
		return true;
	}
	return false;
}

static void write_field(struct rq_json *j, const char *obj, const struct rq_json_field *f)
{
	const void *p = obj + f->offset;
	unsigned int shift = 64 - 8 * (unsigned int)f->size;
	const char *s;
	uint64_t v;

	switch (f->kind) {
	case RQ_JSON_UINT:
		if (!load_int(p, f->size, &v))
			break;
		rq_json_u64(j, f->key, v);
		return;
	case RQ_JSON_INT:
		if (!load_int(p, f->size, &v))
			break;
		/* sign-extend from the member's width */
		rq_json_i64(j, f->key, (int64_t)(v << shift) >> shift);
		return;
	case RQ_JSON_DBL:
		if (f->size != sizeof(double))
			break;
		rq_json_dbl(j, f->key, *(const double *)p);
		return;
	case RQ_JSON_CHARS:
		rq_json_strn(j, f->key, p, f->size);
		return;
	case RQ_JSON_STR:
		if (f->size != sizeof(s))
			break;
		s = *(const char *const *)p;
		rq_json_str(j, f->key, s ? s : f->none);
		return;
	}
	if (!j->err)
		j->err = -EINVAL;
}

void rq_json_fields(struct rq_json *j, const void *obj, const struct rq_json_field *fields,
		    size_t nr)
{
	for (size_t i = 0; i < nr && !j->err; i++)
		write_field(j, obj, &fields[i]);
}

void rq_json_objects(struct rq_json *j, const char *key, const void *base, size_t stride,
		     size_t nr, const struct rq_json_field *fields, size_t nr_fields)
{
	rq_json_arr_open(j, key);
	for (size_t i = 0; base && i < nr; i++) {
		rq_json_obj_open(j, NULL);
		rq_json_fields(j, (const char *)base + i * stride, fields, nr_fields);
		rq_json_obj_close(j);
	}
	rq_json_arr_close(j);
}
