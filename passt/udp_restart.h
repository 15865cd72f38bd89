/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/udp_restart.h - Hitless restart of UDP flows */
#ifndef PASST_UDP_RESTART_H
#define PASST_UDP_RESTART_H

void udp_restart_register(void);

#endif /* PASST_UDP_RESTART_H */
