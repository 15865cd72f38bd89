// SPDX-License-Identifier: GPL-2.0-or-later
/* test/fuzz/dhcpv6.c - Harness: DHCPv6 parser and reply builder (tap/dhcpv6.c)
 *
 * Input: one byte choosing the size of the reply buffer (fuzz_cap()), then
 * the DHCPv6 message (RFC 8415), sent from the guest's link-local address,
 * UDP port 546, to All_DHCP_Relay_Agents_and_Servers (ff02::1:2) port 547.
 * frame_parse() validates the frame, dhcpv6_handle() answers into a buffer
 * that ends exactly at its size.
 */
#include "../../lib/eth.h"
#include "fuzz.h"
#include "../../tap/services.h"

static struct conf dhcpv6_conf;
static uint8_t dhcpv6_in[FRAME_MAX];
static uint8_t dhcpv6_out[4096];

/**
 * LLVMFuzzerTestOneInput() - One DHCPv6 message
 * @data:	Size byte, then the UDP payload
 * @size:	Length, bytes
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t mcast[ETH_ALEN] = {
		0x33, 0x33, 0x00, 0x01, 0x00, 0x02
	};
	struct in6_addr src, dst;
	static bool ready;
	size_t cap, len, plen;
	struct frame f;
	uint8_t *udp;

	if (!ready) {
		fuzz_conf(&dhcpv6_conf);
		fuzz_fqdn(&dhcpv6_conf);
		ready = true;
	}
	if (size < 1 || size - 1 > 65535 - 8)
		return 0;
	cap = fuzz_cap(data[0], sizeof(dhcpv6_out));
	plen = size - 1;
	inet_pton(AF_INET6, "fe80::5054:ff:fe12:3456", &src);
	inet_pton(AF_INET6, "ff02::1:2", &dst);

	len = frame_eth_fill(dhcpv6_in, mcast, dhcpv6_conf.mac_guest, 0x86dd);
	len += frame_ip6_fill(dhcpv6_in + len, &src, &dst, IPPROTO_UDP, 8 + plen,
			      1);
	udp = dhcpv6_in + len;
	put_be16(udp, 546);
	put_be16(udp + 2, 547);
	put_be16(udp + 4, (uint16_t)(8 + plen));
	put_be16(udp + 6, 0);
	memcpy(udp + 8, data + 1, plen);
	len += 8 + plen;

	if (frame_parse(dhcpv6_in, len, &f) < 0)
		return 0;
	dhcpv6_handle(&dhcpv6_conf, &f, dhcpv6_out + sizeof(dhcpv6_out) - cap,
		      cap);
	return 0;
}
