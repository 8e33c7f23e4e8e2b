/* SPDX-License-Identifier: MIT */
#ifndef RQ_CLI_SERVER_CMD_H
#define RQ_CLI_SERVER_CMD_H

/*
 * `rqlock server [ADDR] [OPTIONS]` (cli/server_cmd.c): @argv[0] is
 * "server".  Serves until SIGINT or SIGTERM (or --max-connections);
 * returns 0, or 2 after one line on stderr for bad options or an address
 * it will not bind (1 out of memory).
 */
int rq_cmd_server(int argc, char **argv);

#endif
