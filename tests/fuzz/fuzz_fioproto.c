// SPDX-License-Identifier: MIT
/*
 * fuzz_fioproto.c - libFuzzer target for rqlock server's packet parser
 * (server/fio_proto.c): the bytes a network peer sends.
 *
 * The first input byte picks the chunk size the stream is fed in (a peer
 * chooses how its bytes are split), the rest is the stream.  Every whole
 * command goes through the payload decoders the server uses (JOB,
 * JOBLINE, LOAD_FILE).  The parser must never crash, leak, read past its
 * input or allocate beyond RQ_FIO_MAX_CMD; ASan and UBSan judge.
 * Build and run: tests/fuzz/run-fioproto.sh.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "server/fio_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int sink_arg(const char *arg, void *priv)
{
	*(size_t *)priv += strlen(arg);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rq_fio_rx rx;
	size_t step, off = 1, used, total = 0;
	int ret = RQ_FIO_RX_MORE;

	if (!size)
		return 0;
	step = (size_t)data[0] * 7 + 1;
	rq_fio_rx_init(&rx);
	while (off < size && ret >= 0) {
		size_t n = size - off < step ? size - off : step;

		ret = rq_fio_rx_feed(&rx, data + off, n, &used);
		off += used;
		if (ret == RQ_FIO_RX_CMD) {
			struct rq_fio_cmd cmd;
			const char *text;
			char name[FIO_NET_NAME_MAX];
			size_t len;

			rq_fio_rx_cmd(&rx, &cmd);
			if (cmd.pdu[cmd.len] != '\0')
				__builtin_trap();	/* the decoders rely on the NUL after the pdu */
			if (!rq_fio_job_text(&cmd, &text, &len) && len && text[len - 1] == '\0')
				__builtin_trap();	/* the text stops before its NUL */
			rq_fio_jobline_each(&cmd, sink_arg, &total);
			rq_fio_load_file_name(&cmd, name, sizeof(name));
			(void)rq_fio_op_name(cmd.opcode);
			ret = RQ_FIO_RX_MORE;
		} else if (ret == RQ_FIO_RX_MORE && !used) {
			break;
		}
	}
	(void)rq_fio_rx_idle(&rx);
	(void)rq_fio_rx_strerror(ret);
	rq_fio_rx_free(&rx);
	return 0;
}
