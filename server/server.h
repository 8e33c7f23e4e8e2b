/* SPDX-License-Identifier: MIT */
/*
 * server.h - `rqlock server`: fio 3.33's client/server protocol in front of
 * rqlock's engine (docs/SERVER.md).
 */
#ifndef RQ_SERVER_H
#define RQ_SERVER_H

/*
 * The server subcommand: @argv[0] is "server".  Serves until SIGINT or
 * SIGTERM (or --max-connections); returns 0, or 2 after one line on stderr
 * for bad options or an address it will not bind.
 */
int rq_server_cmd(int argc, char **argv);

#endif
