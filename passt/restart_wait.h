/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/restart_wait.h - Hitless restart of a pasta that started its command
 *
 * The link between the command's waiter (the first pasta, its parent) and
 * the instance that runs now: a SOCK_SEQPACKET pair, messages of two
 * bytes, a type and a value.
 */
#ifndef PASST_RESTART_WAIT_H
#define PASST_RESTART_WAIT_H

#include <stdint.h>
#include <sys/types.h>

#include "restart.h"

/* Waiter to instance */
#define RESTART_WAIT_EXITED	'X'	/* value: pasta's status for the
					 * command's end (its exit status,
					 * 128 + signal number) */
#define RESTART_WAIT_SIGNAL	'S'	/* value: a signal the waiter got:
					 * SIGTERM, SIGINT, SIGHUP, SIGUSR1 */
/* Instance to waiter */
#define RESTART_WAIT_DONE	'E'	/* value: the instance's exit status */

struct ctx;

void restart_wait_init(pid_t child);
int restart_wait_handover(struct restart_waiter *w);
void restart_wait_become(int s);
void restart_wait_adopt(struct ctx *ctx, const struct restart_waiter *w,
			int fd);
unsigned restart_wait_handler(struct ctx *ctx);
void restart_wait_done(int status);

#endif /* PASST_RESTART_WAIT_H */
