/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/udp_gso.h - UDP_GRO and UDP_SEGMENT on host sockets: the probe and
 *		     the socket option, for udp.c and fwd.c (the rest is in
 *		     udp_internal.h)
 */
#ifndef PASST_UDP_GSO_H
#define PASST_UDP_GSO_H

#include <stdbool.h>

void udp_gso_probe(bool force_off);
bool udp_gro_set(int s);

#endif /* PASST_UDP_GSO_H */
