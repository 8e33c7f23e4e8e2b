// SPDX-License-Identifier: MIT
/*
 * numa.c - numa_cpu_nodes= and numa_mem_policy=, checked when the job
 * runs as fio 3.33 checks them (options.c's str_numa_cpunodes_cb and
 * str_numa_mpol_cb, which do nothing under --parse-only): the policy's
 * form, and every node named must be one the machine has
 * (/sys/devices/system/node/online, libnuma's numa_parse_nodestring).
 * rqlock places its workers by the machine's topology and does not bind
 * memory, so a job that passes runs as it would without them.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/runner.h"

/* The machine's online nodes as a mask of nodes 0..63; node 0 where sysfs says nothing. */
static uint64_t online_nodes(void)
{
	char buf[256];
	FILE *f = fopen("/sys/devices/system/node/online", "r");
	uint64_t m = 0;

	if (!f)
		return 1;
	if (fgets(buf, sizeof(buf), f) && eng_numa_list(buf, &m, NULL) == 0 && m) {
		fclose(f);
		return m;
	}
	fclose(f);
	return 1;
}

/*
 * A node list "0-1,3" (or "all") into a mask of nodes 0..63; @online for
 * "all" (NULL: not allowed).  0, or -EINVAL with nothing usable.
 */
int eng_numa_list(const char *s, uint64_t *mask, const uint64_t *online)
{
	*mask = 0;
	if (online && !strcmp(s, "all")) {
		*mask = *online;
		return 0;
	}
	while (*s && *s != '\n') {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;

		if (end == s || !isdigit((unsigned char)*s))
			return -EINVAL;
		s = end;
		if (*s == '-') {
			const char *t = s + 1;

			b = strtoul(t, &end, 10);
			if (end == t || !isdigit((unsigned char)*t) || b < a)
				return -EINVAL;
			s = end;
		}
		if (b > 63)
			return -EINVAL;
		for (unsigned long n = a; n <= b; n++)
			*mask |= 1ULL << n;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -EINVAL;
	}
	return *mask ? 0 : -EINVAL;
}

static int bad(const struct rq_job *job, FILE *err, const char *opt, const char *val, const char *why)
{
	fprintf(err, "%s:%d: job '%s': %s=%s: %s\n", job->file, job->line, job->name, opt, val, why);
	return -EINVAL;
}

static int check_nodes(const struct rq_job *job, FILE *err, const char *opt, const char *val,
		       const char *list, uint64_t online)
{
	uint64_t m;

	if (eng_numa_list(list, &m, &online))
		return bad(job, err, opt, val, "expected NUMA nodes as 0-1,3 or all");
	if (m & ~online) {
		char why[128];
		int n = __builtin_ctzll(m & ~online);

		snprintf(why, sizeof(why), "NUMA node %d is not on this machine (its nodes: %d to %d), "
			 "as fio refuses", n, __builtin_ctzll(online), 63 - __builtin_clzll(online));
		return bad(job, err, opt, val, why);
	}
	return 0;
}

int eng_numa_check(const struct rq_job *job, FILE *err)
{
	static const char *const modes[] = { "default", "prefer", "bind", "interleave", "local" };
	const char *v = job->numa_mem_policy;
	uint64_t online;
	unsigned int i;
	size_t len;

	if (!job->numa_cpu_nodes[0] && !v[0])
		return 0;
	online = online_nodes();
	if (job->numa_cpu_nodes[0] &&
	    check_nodes(job, err, "numa_cpu_nodes", job->numa_cpu_nodes, job->numa_cpu_nodes, online))
		return -EINVAL;
	if (!v[0])
		return 0;
	len = strcspn(v, ":");
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (strlen(modes[i]) == len && !strncmp(v, modes[i], len))
			break;
	if (i == sizeof(modes) / sizeof(modes[0]))
		return bad(job, err, "numa_mem_policy", v, "the mode is default, prefer, bind, interleave or local");
	const char *list = v[len] == ':' ? v + len + 1 : NULL;

	switch (i) {
	case 0:
	case 4:
		return list ? bad(job, err, "numa_mem_policy", v, "default and local take no node list") : 0;
	case 1:
		/* fio takes prefer's one node as a number, unchecked against the machine */
		if (!list || !*list || list[strspn(list, "0123456789")])
			return bad(job, err, "numa_mem_policy", v, "prefer takes exactly one node");
		return 0;
	case 2:
		if (!list)
			return bad(job, err, "numa_mem_policy", v, "bind needs a node list");
		return check_nodes(job, err, "numa_mem_policy", v, list, online);
	default:
		return list ? check_nodes(job, err, "numa_mem_policy", v, list, online) : 0;
	}
}
