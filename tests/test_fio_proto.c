// SPDX-License-Identifier: MIT
/*
 * test_fio_proto.c - server/fio_proto.c against facts of fio 3.33:
 * CRC-16/ARC's check value, packet headers byte for byte as Debian's fio
 * 3.33 sent them (captured through a proxy, docs/SERVER.md), fragment
 * joining, and every refusal of the reassembler and the decoders.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/fio_proto.h"
#include "tests/helpers.h"

static void unhex(const char *h, uint8_t *out)
{
	for (size_t i = 0; h[2 * i]; i++)
		sscanf(h + 2 * i, "%2hhx", &out[i]);
}

/* Headers fio 3.33 sent: the probe reply (tag echoed, 112-byte pdu) and a JOB fragment. */
static void test_captured_headers(void)
{
	uint8_t want[FIO_NET_HDR_LEN], got[FIO_NET_HDR_LEN], pdu[1024];

	CHECK(rq_fio_crc16("123456789", 9) == 0xBB3D);	/* CRC-16/ARC check value */

	/* server -> client PROBE reply header; the pdu crc field depends on the pdu, compare the rest */
	unhex("61000a0000000000501abbfa2b56000070000000414380af", want);
	memset(pdu, 0, sizeof(pdu));
	rq_fio_hdr_encode(got, FIO_NET_CMD_PROBE, 0, 0x562bfabb1a50ULL, pdu, 112);
	CHECK(!memcmp(got, want, 22));

	/* client -> server JOB, first fragment: F_MORE, 1024 bytes */
	unhex("6100030001000000000000000000000000040000c46c214a", want);
	rq_fio_hdr_encode(got, FIO_NET_CMD_JOB, FIO_NET_CMD_F_MORE, 0, pdu, 1024);
	CHECK(!memcmp(got, want, 22));
}

static size_t put_packet(uint8_t *out, uint16_t op, uint32_t flags, const void *pdu, uint32_t len)
{
	rq_fio_hdr_encode(out, op, flags, 42, pdu, len);
	if (len)
		memcpy(out + FIO_NET_HDR_LEN, pdu, len);
	return FIO_NET_HDR_LEN + len;
}

static int feed_all(struct rq_fio_rx *rx, const uint8_t *b, size_t len, size_t step)
{
	size_t off = 0, used;
	int ret = RQ_FIO_RX_MORE;

	while (off < len) {
		size_t n = len - off < step ? len - off : step;

		ret = rq_fio_rx_feed(rx, b + off, n, &used);
		off += used;
		if (ret != RQ_FIO_RX_MORE)
			return ret;
	}
	return ret;
}

static void test_fragments(void)
{
	static uint8_t job[3000], wire[4000];
	struct rq_fio_rx rx;
	struct rq_fio_cmd cmd;
	size_t n = 0;
	const char *text;
	size_t tlen;

	memset(job, 0, sizeof(job));
	job[0] = 200;		/* buf_len 200, rest NUL padding as fio sends it */
	memset(job + 8, 'a', 100);
	for (size_t off = 0; off < sizeof(job); off += 1024) {
		uint32_t l = sizeof(job) - off > 1024 ? 1024 : (uint32_t)(sizeof(job) - off);

		n += put_packet(wire + n, FIO_NET_CMD_JOB, off + l < sizeof(job) ? FIO_NET_CMD_F_MORE : 0,
				job + off, l);
	}
	for (size_t step = 1; step <= 4096; step *= 7) {
		rq_fio_rx_init(&rx);
		CHECK(feed_all(&rx, wire, n, step) == RQ_FIO_RX_CMD);
		rq_fio_rx_cmd(&rx, &cmd);
		CHECK(cmd.opcode == FIO_NET_CMD_JOB && cmd.len == sizeof(job) && cmd.tag == 42);
		CHECK(!rq_fio_job_text(&cmd, &text, &tlen) && tlen == 100 && text[0] == 'a');
		CHECK(rq_fio_rx_idle(&rx));
		rq_fio_rx_free(&rx);
	}
}

static void test_refusals(void)
{
	uint8_t b[2048], pdu[8] = { 1, 2, 3 };
	struct rq_fio_rx rx;
	size_t n, used;

	/* header crc */
	n = put_packet(b, FIO_NET_CMD_PROBE, 0, pdu, sizeof(pdu));
	b[20] ^= 1;
	rq_fio_rx_init(&rx);
	CHECK(rq_fio_rx_feed(&rx, b, n, &used) == RQ_FIO_RX_BAD_HDR_CRC);
	CHECK(rq_fio_rx_feed(&rx, b, n, &used) == RQ_FIO_RX_BAD_HDR_CRC);	/* sticky */
	rq_fio_rx_free(&rx);
	/* payload crc */
	n = put_packet(b, FIO_NET_CMD_PROBE, 0, pdu, sizeof(pdu));
	b[FIO_NET_HDR_LEN] ^= 1;
	rq_fio_rx_init(&rx);
	CHECK(rq_fio_rx_feed(&rx, b, n, &used) == RQ_FIO_RX_BAD_PDU_CRC);
	rq_fio_rx_free(&rx);
	/* version 96, and one over */
	for (int v = 96; v <= 98; v += 2) {
		n = put_packet(b, FIO_NET_CMD_PROBE, 0, pdu, sizeof(pdu));
		b[0] = (uint8_t)v;
		{	/* a valid header crc over the edited version */
			uint16_t crc = rq_fio_crc16(b, FIO_NET_CRC_LEN);

			b[20] = (uint8_t)crc;
			b[21] = (uint8_t)(crc >> 8);
		}
		rq_fio_rx_init(&rx);
		CHECK(rq_fio_rx_feed(&rx, b, n, &used) == RQ_FIO_RX_BAD_VERSION);
		CHECK(rx.version == v);
		rq_fio_rx_free(&rx);
	}
	/* an oversized fragment is refused from its header alone */
	{
		uint8_t h[FIO_NET_HDR_LEN];
		static uint8_t big[1025];

		rq_fio_hdr_encode(h, FIO_NET_CMD_JOB, 0, 0, big, sizeof(big));
		rq_fio_rx_init(&rx);
		CHECK(rq_fio_rx_feed(&rx, h, sizeof(h), &used) == RQ_FIO_RX_TOO_BIG && used == sizeof(h));
		rq_fio_rx_free(&rx);
	}
	/* opcode 0 and out of range */
	n = put_packet(b, 0, 0, NULL, 0);
	rq_fio_rx_init(&rx);
	CHECK(rq_fio_rx_feed(&rx, b, n, &used) == RQ_FIO_RX_BAD_OPCODE);
	rq_fio_rx_free(&rx);
	/* a fragment of another command */
	n = put_packet(b, FIO_NET_CMD_JOB, FIO_NET_CMD_F_MORE, pdu, sizeof(pdu));
	n += put_packet(b + n, FIO_NET_CMD_TEXT, 0, pdu, sizeof(pdu));
	rq_fio_rx_init(&rx);
	CHECK(feed_all(&rx, b, n, n) == RQ_FIO_RX_FRAG_MISMATCH);
	rq_fio_rx_free(&rx);
	/* endless F_MORE fragments stop at RQ_FIO_MAX_CMD */
	{
		static uint8_t frag[1024];
		uint8_t *w = malloc(RQ_FIO_MAX_CMD + 64 * 1024);
		size_t m = 0;
		int ret = 0;

		for (size_t i = 0; w && i < RQ_FIO_MAX_CMD / 1024 + 2; i++)
			m += put_packet(w + m, FIO_NET_CMD_JOB, FIO_NET_CMD_F_MORE, frag, sizeof(frag));
		rq_fio_rx_init(&rx);
		if (w)
			ret = feed_all(&rx, w, m, 65536);
		CHECK(ret == RQ_FIO_RX_TOO_BIG);
		rq_fio_rx_free(&rx);
		free(w);
	}
}

static int count_arg(const char *arg, void *priv)
{
	(void)arg;
	++*(int *)priv;
	return 0;
}

static void test_decoders(void)
{
	/* fio's JOBLINE for --output-format=json+, as captured */
	static const uint8_t line[] = { 2, 0, 1, 0, 4, 0, 'f', 'i', 'o', 0, 22, 0,
		'-', '-', 'o', 'u', 't', 'p', 'u', 't', '-', 'f', 'o', 'r', 'm', 'a', 't', '=',
		'j', 's', 'o', 'n', '+', 0 };
	struct rq_fio_cmd cmd = { .opcode = FIO_NET_CMD_JOBLINE, .pdu = line, .len = sizeof(line) };
	uint8_t bad[sizeof(line)];
	const char *text;
	size_t tlen;
	char name[64];
	int n = 0;

	CHECK(rq_fio_jobline_each(&cmd, count_arg, &n) == 2 && n == 2);
	memcpy(bad, line, sizeof(line));
	bad[10] = 23;		/* the second line runs past the pdu */
	cmd.pdu = bad;
	CHECK(rq_fio_jobline_each(&cmd, count_arg, &n) == -EINVAL);
	bad[10] = 22;
	bad[sizeof(bad) - 1] = 'x';	/* not terminated */
	CHECK(rq_fio_jobline_each(&cmd, count_arg, &n) == -EINVAL);
	cmd.len = 3;
	CHECK(rq_fio_jobline_each(&cmd, count_arg, &n) == -EINVAL);

	/* JOB: buf_len past the pdu */
	{
		uint8_t job[16] = { 100 };

		cmd.pdu = job;
		cmd.len = sizeof(job);
		CHECK(rq_fio_job_text(&cmd, &text, &tlen) == -EINVAL);
		job[0] = 8;
		memcpy(job + 8, "abc", 4);
		CHECK(!rq_fio_job_text(&cmd, &text, &tlen) && tlen == 3);
		cmd.len = 7;
		CHECK(rq_fio_job_text(&cmd, &text, &tlen) == -EINVAL);
	}
	/* LOAD_FILE: terminated name only */
	{
		uint8_t lf[12] = { 5, 0, 1, 0, '/', 'e', 't', 'c', 0 };

		cmd.pdu = lf;
		cmd.len = 9;
		CHECK(!rq_fio_load_file_name(&cmd, name, sizeof(name)) && !strcmp(name, "/etc"));
		cmd.len = 8;
		CHECK(rq_fio_load_file_name(&cmd, name, sizeof(name)) == -EINVAL);
	}
}

int main(void)
{
	test_captured_headers();
	test_fragments();
	test_refusals();
	test_decoders();
	if (failures) {
		fprintf(stderr, "FAIL: %d check(s)\n", failures);
		return 1;
	}
	printf("PASS\n");
	return 0;
}
