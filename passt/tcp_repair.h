/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/tcp_repair.h - Dump and rebuild a host TCP socket under TCP_REPAIR
 */
#ifndef PASST_TCP_REPAIR_H
#define PASST_TCP_REPAIR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "tcp_migrate.h"

int tcp_repair_dump(int s, struct tcp_mig_ext *e, uint8_t *q, size_t room);
int tcp_repair_restore(int s, const struct sockaddr *local,
		       const struct sockaddr *peer, socklen_t sl,
		       const struct tcp_mig_ext *e, const uint8_t *sndq,
		       const uint8_t *rcvq);
int tcp_repair_restore_finish(int s, const struct tcp_mig_ext *e,
			      const uint8_t *sndq);

#endif /* PASST_TCP_REPAIR_H */
