// SPDX-License-Identifier: MIT
/*
 * server_cmd.c - `rqlock server [ADDR] [OPTIONS]`: the command line of the
 * server (docs/SERVER.md).  Reads argv into a struct rq_server_config - the
 * engine's options (rq_engine_cli_apply), --allow, the caps, the timeouts,
 * the address in fio's --server syntax - and hands it to rq_server_run().
 * Bad options: one line on stderr, exit 2, nothing bound.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cliopts.h"
#include "cli/server_cmd.h"
#include "engine/engine.h"
#include "server/fio_proto.h"
#include "server/server.h"

enum { EXIT_BAD_INPUT = 2 };

static void usage(FILE *f)
{
	fprintf(f, "usage: rqlock server [ADDR] [OPTIONS]\n\n"
		   "Serves fio 3.33's client/server protocol: `fio --client=ADDR job.fio` runs the job\n"
		   "file through rqlock with this command line's lock options and prints fio's output.\n"
		   "ADDR is fio's --server syntax: ip:HOST,PORT, ip6:HOST,PORT or sock:PATH\n"
		   "(default: ip:127.0.0.1,8765).  See docs/SERVER.md.\n\nOptions:\n");
	rq_cli_help(f, RQ_CMD_SERVER);
	rq_engine_cli_lists(f);
}

static int parse_num(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	return errno || *end || end == s || *v > max || !*v ? -EINVAL : 0;
}

/* A size as fio writes one: digits, then k, m, g or t (powers of 1024); 0 allowed. */
static int parse_size(const char *s, uint64_t *v)
{
	static const char units[] = "kmgt";
	const char *u;
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return -EINVAL;
	if (*end && (u = strchr(units, end[0] | 0x20)) != NULL) {
		unsigned int shift = 10 * (unsigned int)(u - units + 1);

		if (*v > (UINT64_MAX >> shift))
			return -ERANGE;
		*v <<= shift;
		end++;
		if ((*end | 0x20) == 'i' && (end[1] | 0x20) == 'b')
			end += 2;
		else if ((*end | 0x20) == 'b')
			end++;
	}
	return *end ? -EINVAL : 0;
}

/*
 * fio's --server syntax: sock:PATH, ip:HOST[,PORT], ip4:..., ip6:HOST[,PORT],
 * HOST[,PORT], ,PORT or :PORT (fio's server.c fio_server_parse_string).
 * A sock: path is kept as @arg's (checked when it is bound).
 */
static int parse_listen(struct rq_server_listen *l, const char *arg)
{
	const char *h = arg, *comma;
	long port = FIO_NET_PORT;

	l->sock = NULL;
	l->v6 = false;
	if (!strncmp(arg, "sock:", 5)) {
		l->sock = arg + 5;
		return 0;
	}
	if (!strncmp(h, "ip:", 3))
		h += 3;
	else if (!strncmp(h, "ip4:", 4))
		h += 4;
	else if (!strncmp(h, "ip6:", 4)) {
		h += 4;
		l->v6 = true;
	} else if (h[0] == ':') {
		h++;
		comma = h - 1;
		goto port;
	}
	comma = strchr(h, ',');
port:
	if (comma) {
		char *end;

		errno = 0;
		port = strtol(comma + 1, &end, 10);
		if (errno || *end || port < 1 || port > 65535) {
			fprintf(stderr, "rqlock server: %s: bad port (expected 1..65535)\n", arg);
			return -EINVAL;
		}
	}
	if ((comma && comma > h ? (size_t)(comma - h) : comma ? 0 : strlen(h)) >= sizeof(l->host)) {
		fprintf(stderr, "rqlock server: %.40s...: host name too long (at most %zu bytes)\n",
			arg, sizeof(l->host) - 1);
		return -ENAMETOOLONG;
	}
	if (comma && comma <= h)
		snprintf(l->host, sizeof(l->host), "%s", l->v6 ? "::1" : "127.0.0.1");
	else if (comma)
		snprintf(l->host, sizeof(l->host), "%.*s", (int)(comma - h), h);
	else if (*h)
		snprintf(l->host, sizeof(l->host), "%s", h);
	else
		snprintf(l->host, sizeof(l->host), "%s", l->v6 ? "::1" : "127.0.0.1");
	l->port = (int)port;
	return 0;
}

/* --allow PATH, @builtin or @none */
static int add_allow(struct rq_server_config *cfg, const char *arg)
{
	if (!strcmp(arg, "@builtin")) {
		cfg->allow_builtin = true;
		return 0;
	}
	if (!strcmp(arg, "@none")) {
		cfg->allow_builtin = false;
		return 0;
	}
	if (cfg->nr_allow == RQ_SERVER_MAX_ALLOW) {
		fprintf(stderr, "rqlock server: --allow: at most %d paths\n", RQ_SERVER_MAX_ALLOW);
		return -E2BIG;
	}
	if (arg[0] != '/') {
		fprintf(stderr, "rqlock server: --allow %s: expected an absolute path, @builtin or @none\n", arg);
		return -EINVAL;
	}
	if (rq_server_allow_path(&cfg->allow[cfg->nr_allow], arg)) {
		fprintf(stderr, "rqlock server: --allow %s: its directory does not exist\n", arg);
		return -EINVAL;
	}
	cfg->nr_allow++;
	return 0;
}

/* --max-numjobs, --max-files, --max-iodepth, --max-runtime: 1..their maximum */
static int set_cap(struct rq_server_config *cfg, int key, const char *arg)
{
	static const struct { int key; const char *name; size_t off; unsigned long max; } caps[] = {
		{ RQ_CLI_MAX_NUMJOBS, "max-numjobs", offsetof(struct rq_server_config, max_numjobs), 1000000 },
		{ RQ_CLI_MAX_FILES, "max-files", offsetof(struct rq_server_config, max_files), 10000000 },
		{ RQ_CLI_MAX_IODEPTH, "max-iodepth", offsetof(struct rq_server_config, max_iodepth), 65536 },
		{ RQ_CLI_MAX_RUNTIME, "max-runtime", offsetof(struct rq_server_config, max_runtime_s), 31536000 },
	};
	unsigned int k = 0;
	unsigned long v;

	while (caps[k].key != key)
		k++;
	if (parse_num(arg, caps[k].max, &v)) {
		fprintf(stderr, "rqlock server: --%s=%s: expected 1..%lu\n", caps[k].name, arg, caps[k].max);
		return -EINVAL;
	}
	*(unsigned int *)((char *)cfg + caps[k].off) = (unsigned int)v;
	return 0;
}

/*
 * One of the server's own options (getopt's @c, its @arg; @opt as written,
 * for the message).  0, 1 when --help was printed, or -EINVAL after one
 * line on stderr.
 */
static int server_opt(struct rq_server_config *cfg, int c, const char *arg, const char *opt)
{
	unsigned long v;

	switch (c) {
	case RQ_CLI_ALLOW:
		return add_allow(cfg, arg) ? -EINVAL : 0;
	case RQ_CLI_NONLOCAL:
		cfg->allow_nonlocal = true;
		return 0;
	case RQ_CLI_READ_TIMEOUT:
	case RQ_CLI_IDLE_TIMEOUT:
		if (parse_num(arg, 3600000, &v)) {
			fprintf(stderr, "rqlock server: --%s=%s: expected 1..3600000 ms\n",
				c == RQ_CLI_READ_TIMEOUT ? "read-timeout" : "idle-timeout", arg);
			return -EINVAL;
		}
		*(c == RQ_CLI_READ_TIMEOUT ? &cfg->read_timeout_ms : &cfg->idle_timeout_ms) = (int)v;
		return 0;
	case RQ_CLI_MAX_CONNS:
		if (parse_num(arg, 1000000, &v)) {
			fprintf(stderr, "rqlock server: --max-connections=%s: expected 1..1000000\n", arg);
			return -EINVAL;
		}
		cfg->max_conns = (unsigned int)v;
		return 0;
	case RQ_CLI_MAX_MEMORY:
		if (parse_size(arg, &cfg->eo.max_mem_bytes)) {
			fprintf(stderr, "rqlock server: --max-memory=%s: expected a size such as 512m or 4g, or 0\n",
				arg);
			return -EINVAL;
		}
		return 0;
	case RQ_CLI_MAX_NUMJOBS:
	case RQ_CLI_MAX_FILES:
	case RQ_CLI_MAX_IODEPTH:
	case RQ_CLI_MAX_RUNTIME:
		return set_cap(cfg, c, arg);
	case RQ_CLI_NAME:
		if (!*arg || strlen(arg) >= sizeof(cfg->name)) {
			fprintf(stderr, "rqlock server: --name=%s: expected 1..%zu bytes\n", arg,
				sizeof(cfg->name) - 1);
			return -EINVAL;
		}
		snprintf(cfg->name, sizeof(cfg->name), "%s", arg);
		return 0;
	case RQ_CLI_HELP:
		usage(stdout);
		return 1;
	default:
		fprintf(stderr, "rqlock server: unknown or incomplete option '%s' (see rqlock server --help)\n", opt);
		return -EINVAL;
	}
}

/* The options and the address into @cfg: 0, 1 after --help, or -EINVAL after one line on stderr. */
static int server_args(struct rq_server_config *cfg, int argc, char **argv)
{
	struct option lopts[RQ_CLI_MAX_OPTS + 1];
	const char *addr = "ip:127.0.0.1,8765";
	int c;

	rq_cli_longopts(lopts, RQ_CMD_SERVER);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "l:w:h", lopts, NULL)) != -1) {
		/* the engine's options first: 0 applied, 1 not one of them */
		int r = rq_engine_cli_apply(&cfg->eo, c, optarg, "rqlock server");

		if (r < 0)
			return -EINVAL;
		if (r)
			r = server_opt(cfg, c, optarg, argv[optind - 1]);
		if (r)
			return r;
	}
	if (optind < argc)
		addr = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "rqlock server: one address only ('%s' is extra)\n", argv[optind]);
		return -EINVAL;
	}
	return parse_listen(&cfg->listen, addr) ? -EINVAL : 0;
}

int rq_cmd_server(int argc, char **argv)
{
	struct rq_server_config *cfg = calloc(1, sizeof(*cfg));
	int ret;

	if (!cfg)
		return 1;
	rq_server_config_init(cfg);
	ret = server_args(cfg, argc, argv);
	if (!ret)
		ret = rq_server_run(cfg);
	else
		ret = ret > 0 ? 0 : EXIT_BAD_INPUT;
	free(cfg);
	return ret;
}
