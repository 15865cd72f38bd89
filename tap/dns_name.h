/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tap/dns_name.h - Domain names in DNS wire format for DHCP, RA and DHCPv6
 *
 * Only tap/ includes this: DHCP option 119 (RFC 3397), the RA DNSSL option
 * (RFC 8106) and DHCPv6 option 24 (RFC 3646) carry search lists encoded
 * as in RFC 1035 section 3.1.
 */
#ifndef TAP_DNS_NAME_H
#define TAP_DNS_NAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../conf/conf.h"

/* Longest encoded name, RFC 1035 section 2.3.4 */
#define DNS_NAME_MAX	255

int dns_name_encode(const char *name, uint8_t *out, size_t cap);
size_t dns_name_list_encode(const char (*names)[CONF_SEARCH_LEN], unsigned n,
			    bool compress, uint8_t *out, size_t cap);

#endif /* TAP_DNS_NAME_H */
