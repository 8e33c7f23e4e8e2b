// SPDX-License-Identifier: MIT
/*
 * status.c - fio's status line (see results.h; fio 3.33 eta.c:
 * display_thread_status, gen_eta_str, eta_to_str, update_condensed_str).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "results/results.h"

void rq_eta_str(char *buf, size_t len, int64_t sec)
{
	unsigned int d, h, m, s;
	int n = 0;

	if (sec < 0) {
		snprintf(buf, len, "--");
		return;
	}
	s = (unsigned int)(sec % 60);
	sec /= 60;
	m = (unsigned int)(sec % 60);
	sec /= 60;
	h = (unsigned int)(sec % 24);
	d = (unsigned int)(sec / 24);
	if (d)
		n = snprintf(buf, len, "%02ud:", d);
	if ((h || d) && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "%02uh:", h);
	if (n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "%02um:%02us", m, s);
}

/* "rrr__" -> "r(3),_(2)" */
static void condense(char *out, size_t len, const char *run)
{
	size_t n = 0;

	out[0] = '\0';
	while (*run && n + 16 < len) {
		unsigned int nr = 1;
		char c = *run++;

		while (*run == c) {
			run++;
			nr++;
		}
		n += (size_t)snprintf(out + n, len - n, "%s%c(%u)", n ? "," : "", c, nr);
	}
}

int rq_status_line(char *buf, size_t len, const struct rq_status *s)
{
	static const char dc[RQ_DDIR_NR] = { 'r', 'w', 't' };
	char run[512], perc[32], eta[64], v[32];
	bool any = false;
	int n;

	n = snprintf(buf, len, "Jobs: %u (f=%u)", s->running, s->files);
	if (!s->running || n < 0 || (size_t)n >= len)
		return n < 0 ? 0 : (int)strlen(buf);
	condense(run, sizeof(run), s->run_str ? s->run_str : "");
	if (s->perc < 0)
		snprintf(perc, sizeof(perc), "-.-%%");
	else
		snprintf(perc, sizeof(perc), "%3.1f%%", s->perc);
	rq_eta_str(eta, sizeof(eta), s->eta_sec);
	n += snprintf(buf + n, len - (size_t)n, ": [%s][%s]", run, perc);
	for (int d = 0; d < RQ_DDIR_NR; d++)
		any |= s->bytes_per_sec[d] || s->iops[d];
	if (any && (size_t)n < len) {
		const char *sep = "";

		n += snprintf(buf + n, len - (size_t)n, "[");
		for (int d = 0; d < RQ_DDIR_NR && (size_t)n < len; d++) {
			if (!s->bytes_per_sec[d] && !s->iops[d])
				continue;
			n += snprintf(buf + n, len - (size_t)n, "%s%c=%s", sep, dc[d],
				      rq_num2str(v, sizeof(v), s->bytes_per_sec[d], 4, s->pow2, "B/s"));
			sep = ",";
		}
		sep = "";
		if ((size_t)n < len)
			n += snprintf(buf + n, len - (size_t)n, "][");
		for (int d = 0; d < RQ_DDIR_NR && (size_t)n < len; d++) {
			if (!s->bytes_per_sec[d] && !s->iops[d])
				continue;
			n += snprintf(buf + n, len - (size_t)n, "%s%c=%s", sep, dc[d],
				      rq_num2str(v, sizeof(v), s->iops[d], 4, false, ""));
			sep = ",";
		}
		if ((size_t)n < len)
			n += snprintf(buf + n, len - (size_t)n, " IOPS]");
	}
	if ((size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "[eta %s]", eta);
	return (size_t)n < len ? n : (int)strlen(buf);
}
