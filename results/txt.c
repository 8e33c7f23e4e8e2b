// SPDX-License-Identifier: MIT
/*
 * txt.c - the text sink and fio's number and string formatting, shared by
 * output.c (fio's normal and terse output) and output_rqlock.c (the
 * rqlock section): the floor of the text output, calling neither.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "results/output_internal.h"

unsigned int rq_txt_ndigits(uint64_t v)
{
	unsigned int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

void rq_txt_out(struct rq_txt *t, const char *fmt, ...)
{
	va_list ap;
	int ret;

	if (t->err)
		return;
	va_start(ap, fmt);
	ret = vfprintf(t->f, fmt, ap);
	va_end(ap);
	if (ret < 0)
		t->err = -EIO;
}

/*
 * fio's num2str(): scale @num by 1000 (or 1024 with @pow2) until at most
 * @maxlen digits are left, then use the spare digits, if at least two,
 * for a fraction; with fewer, round the last division half up.  So
 * 8159232 bytes at 4 digits is "7968KiB" and 996000 is "996k".
 */
static const char *n2s(char *buf, size_t len, uint64_t num, unsigned int maxlen, bool pow2,
		       unsigned int post, const char *unit)
{
	static const char *const si[] = { "", "k", "M", "G", "T", "P", "E" };
	static const char *const iec[] = { "", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei" };
	const char *const *pfx = pow2 ? iec : si;
	unsigned int thousand = pow2 ? 1024 : 1000;
	uint64_t rem = 0;
	bool scaled = false, carry = false;
	char frac[32];
	int room;

	while (post < 6 && rq_txt_ndigits(num) > maxlen) {
		rem = num % thousand;
		num /= thousand;
		carry = rem >= thousand / 2;
		post++;
		scaled = true;
	}

	room = (int)maxlen - (int)rq_txt_ndigits(num);
	if (!scaled || room <= 1) {
		if (scaled && carry)
			num++;
		snprintf(buf, len, "%" PRIu64 "%s%s", num, pfx[post], unit);
		return buf;
	}

	/* "0.xyz" for the remainder; a carry into "1.000" bumps the integer */
	snprintf(frac, sizeof(frac), "%.*f", room - 1, (double)rem / (double)thousand);
	if (frac[0] == '1')
		num++;
	snprintf(buf, len, "%" PRIu64 ".%s%s%s", num, frac + 2, pfx[post], unit);
	return buf;
}

const char *rq_txt_n2s(char *buf, size_t len, uint64_t num, unsigned int maxlen, bool pow2, const char *unit)
{
	return n2s(buf, len, num, maxlen, pow2, 0, unit);
}

/*
 * fio's num2str() with a base of kb_base: @num counts thousands already
 * (fio's steadystate line divides by kb_base first), so the prefix starts
 * at k or Ki whichever @pow2 says, whatever the base was.
 */
const char *rq_txt_n2s_k(char *buf, size_t len, uint64_t num, unsigned int maxlen, bool pow2, const char *unit)
{
	return n2s(buf, len, num, maxlen, pow2, 1, unit);
}

/* Copy @s (at most @max bytes) for the terminal: control bytes become '?'. */
const char *rq_txt_clean(char *buf, size_t len, const char *s, size_t max)
{
	size_t i, n;

	if (!s)
		s = "";
	n = strnlen(s, max);
	if (n >= len)
		n = len - 1;
	for (i = 0; i < n; i++)
		buf[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	buf[n] = '\0';
	return buf;
}
