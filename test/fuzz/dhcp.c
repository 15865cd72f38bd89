// SPDX-License-Identifier: GPL-2.0-or-later
/* test/fuzz/dhcp.c - Harness: DHCPv4 parser and reply builder (tap/dhcp.c)
 *
 * Input: one byte choosing the size of the reply buffer (fuzz_cap()), one
 * byte choosing the source (0.0.0.0 as a client without a lease, or the
 * guest's address as on renewal), then the DHCP message (RFC 2131), sent
 * from UDP port 68 to 255.255.255.255 port 67.  frame_parse() validates the
 * frame, dhcp_handle() answers into a buffer that ends exactly at its size.
 */
#include "../../lib/eth.h"
#include "fuzz.h"
#include "../../tap/services.h"

static struct conf dhcp_conf;
static uint8_t dhcp_in[FRAME_MAX];
static uint8_t dhcp_out[4096];

/**
 * LLVMFuzzerTestOneInput() - One DHCP message
 * @data:	Size byte, source byte, then the UDP payload
 * @size:	Length, bytes
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t bcast[ETH_ALEN] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff
	};
	struct in_addr src = { 0 }, dst = { htonl(INADDR_BROADCAST) };
	static bool ready;
	size_t cap, len, plen, l3;
	struct frame f;
	uint8_t *udp;

	if (!ready) {
		fuzz_conf(&dhcp_conf);
		fuzz_fqdn(&dhcp_conf);
		ready = true;
	}
	if (size < 2 || size - 2 > 65535 - 28)
		return 0;
	cap = fuzz_cap(data[0], sizeof(dhcp_out));
	if (data[1] & 1)
		src = dhcp_conf.ip4.addr;
	plen = size - 2;

	len = frame_eth_fill(dhcp_in, bcast, dhcp_conf.mac_guest, 0x0800);
	l3 = len;
	len += frame_ip4_fill(dhcp_in + l3, src, dst, IPPROTO_UDP, 8 + plen,
			      64);
	udp = dhcp_in + len;
	put_be16(udp, 68);
	put_be16(udp + 2, 67);
	put_be16(udp + 4, (uint16_t)(8 + plen));
	put_be16(udp + 6, 0);
	memcpy(udp + 8, data + 2, plen);
	len += 8 + plen;

	if (frame_parse(dhcp_in, len, &f) < 0)
		return 0;
	dhcp_handle(&dhcp_conf, &f, dhcp_out + sizeof(dhcp_out) - cap, cap);
	return 0;
}
