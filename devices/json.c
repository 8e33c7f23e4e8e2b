// SPDX-License-Identifier: MIT
/*
 * json.c - a small JSON reader for what devices/ reads from other tools:
 * nvme-cli's `nvme list -o json` (discover.c) and its id-ctrl / id-ns
 * (nvme_pci.c's identify cross-check).  Whole documents, depth at most
 * 64, strings kept ASCII.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "devices/dev_internal.h"

void rq_jv_free(struct rq_jv *v)
{
	for (unsigned int i = 0; i < v->nr; i++) {
		rq_jv_free(&v->kids[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->kids);
	free(v->keys);
	free(v->s);
	memset(v, 0, sizeof(*v));
}

static void skip_ws(const char **p)
{
	while (isspace((unsigned char)**p))
		(*p)++;
}

static int parse_value(const char **p, struct rq_jv *v, int depth);

static int parse_string(const char **p, char **out)
{
	const char *s = *p + 1;
	size_t cap = 16, n = 0;
	char *buf = malloc(cap);

	if (!buf)
		return -ENOMEM;
	while (*s && *s != '"') {
		char c = *s++;

		if (c == '\\') {
			c = *s++;
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'u':
				/* keep ASCII, replace the rest: names here are ASCII */
				for (int i = 0; i < 4; i++)
					if (!isxdigit((unsigned char)s[i]))
						goto bad;
				c = (char)strtol((char[]){ s[0], s[1], s[2], s[3], 0 }, NULL, 16);
				if ((unsigned char)c >= 0x80 || !c)
					c = '?';
				s += 4;
				break;
			case '"': case '\\': case '/': break;
			default: goto bad;
			}
		}
		if (n + 2 > cap) {
			char *nb = realloc(buf, cap *= 2);

			if (!nb)
				goto bad;
			buf = nb;
		}
		buf[n++] = c;
	}
	if (*s != '"')
		goto bad;
	buf[n] = 0;
	*out = buf;
	*p = s + 1;
	return 0;
bad:
	free(buf);
	return -EINVAL;
}

static int parse_container(const char **p, struct rq_jv *v, bool obj, int depth)
{
	char close = obj ? '}' : ']';

	v->t = obj ? RQ_J_OBJ : RQ_J_ARR;
	(*p)++;
	skip_ws(p);
	if (**p == close) {
		(*p)++;
		return 0;
	}
	for (;;) {
		struct rq_jv *nk;
		char *key = NULL;

		skip_ws(p);
		if (obj) {
			if (**p != '"' || parse_string(p, &key))
				return -EINVAL;
			skip_ws(p);
			if (**p != ':') {
				free(key);
				return -EINVAL;
			}
			(*p)++;
			char **nkeys = realloc(v->keys, sizeof(*v->keys) * (v->nr + 1));

			if (!nkeys) {
				free(key);
				return -ENOMEM;
			}
			v->keys = nkeys;
			v->keys[v->nr] = key;
		}
		nk = realloc(v->kids, sizeof(*v->kids) * (v->nr + 1));
		if (!nk) {
			if (obj)
				free(key);
			return -ENOMEM;
		}
		v->kids = nk;
		memset(&v->kids[v->nr], 0, sizeof(*v->kids));
		v->nr++;
		if (parse_value(p, &v->kids[v->nr - 1], depth + 1))
			return -EINVAL;
		skip_ws(p);
		if (**p == ',') {
			(*p)++;
			continue;
		}
		if (**p == close) {
			(*p)++;
			return 0;
		}
		return -EINVAL;
	}
}

static int parse_value(const char **p, struct rq_jv *v, int depth)
{
	char *end;

	if (depth > 64)
		return -EINVAL;
	skip_ws(p);
	switch (**p) {
	case '{':
		return parse_container(p, v, true, depth);
	case '[':
		return parse_container(p, v, false, depth);
	case '"':
		v->t = RQ_J_STR;
		return parse_string(p, &v->s);
	case 't':
	case 'f':
	case 'n': {
		static const struct { const char *w; enum rq_jtype t; double n; } lit[] = {
			{ "true", RQ_J_BOOL, 1 }, { "false", RQ_J_BOOL, 0 }, { "null", RQ_J_NULL, 0 },
		};
		for (size_t i = 0; i < 3; i++) {
			if (!strncmp(*p, lit[i].w, strlen(lit[i].w))) {
				v->t = lit[i].t;
				v->n = lit[i].n;
				*p += strlen(lit[i].w);
				return 0;
			}
		}
		return -EINVAL;
	}
	default:
		v->t = RQ_J_NUM;
		v->n = strtod(*p, &end);
		if (end == *p)
			return -EINVAL;
		*p = end;
		return 0;
	}
}

int rq_jv_parse(const char *text, struct rq_jv *v)
{
	const char *p = text;

	memset(v, 0, sizeof(*v));
	if (parse_value(&p, v, 0)) {
		rq_jv_free(v);
		return -EINVAL;
	}
	skip_ws(&p);
	if (*p) {
		rq_jv_free(v);
		return -EINVAL;
	}
	return 0;
}

const struct rq_jv *rq_jv_get(const struct rq_jv *o, const char *key)
{
	if (!o || o->t != RQ_J_OBJ)
		return NULL;
	for (unsigned int i = 0; i < o->nr; i++)
		if (!strcmp(o->keys[i], key))
			return &o->kids[i];
	return NULL;
}

const char *rq_jv_str(const struct rq_jv *o, const char *key)
{
	const struct rq_jv *v = rq_jv_get(o, key);

	return v && v->t == RQ_J_STR ? v->s : NULL;
}

bool rq_jv_num(const struct rq_jv *o, const char *key, double *out)
{
	const struct rq_jv *v = rq_jv_get(o, key);

	if (!v)
		return false;
	if (v->t == RQ_J_NUM) {
		*out = v->n;
		return true;
	}
	if (v->t == RQ_J_STR && v->s[0] && isdigit((unsigned char)v->s[0])) {
		*out = strtod(v->s, NULL);
		return true;
	}
	return false;
}
