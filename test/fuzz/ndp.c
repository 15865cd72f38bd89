// SPDX-License-Identifier: GPL-2.0-or-later
/* test/fuzz/ndp.c - Harness: NDP parser and reply builders (tap/ndp.c)
 *
 * Input: one byte choosing the size of the reply buffer (fuzz_cap()), one
 * byte choosing addresses and hop limit, then the ICMPv6 message (a Router
 * or Neighbor Solicitation, RFC 4861, or anything else).  It is sent from
 * the guest's link-local address (or :: as in DAD) to ff02::2, to a
 * solicited-node address, or to our link-local address, with hop limit 255
 * (or 64, which must be ignored).  frame_parse() validates the frame,
 * ndp_handle() answers into a buffer that ends exactly at its size, and
 * ndp_ra() builds an unsolicited Router Advertisement into the same space.
 */
#include "../../lib/eth.h"
#include "fuzz.h"
#include "../../tap/services.h"

static struct conf ndp_conf;
static uint8_t ndp_in[FRAME_MAX];
static uint8_t ndp_out[4096];

/**
 * LLVMFuzzerTestOneInput() - One ICMPv6 message
 * @data:	Size byte, address byte, then the ICMPv6 message
 * @size:	Length, bytes
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const dsts[] = {
		"ff02::2", "ff02::1:ff00:1", "fe80::1", "ff02::1:ff00:15",
	};
	static const uint8_t mcast[ETH_ALEN] = {
		0x33, 0x33, 0x00, 0x00, 0x00, 0x02
	};
	struct in6_addr src, dst;
	static bool ready;
	size_t cap, len, plen;
	struct frame f;

	if (!ready) {
		fuzz_conf(&ndp_conf);
		ready = true;
	}
	if (size < 2 || size - 2 > 65535)
		return 0;
	cap = fuzz_cap(data[0], sizeof(ndp_out));
	plen = size - 2;
	inet_pton(AF_INET6, data[1] & 4 ? "::" : "fe80::5054:ff:fe12:3456",
		  &src);
	inet_pton(AF_INET6, dsts[data[1] & 3], &dst);

	len = frame_eth_fill(ndp_in, mcast, ndp_conf.mac_guest, 0x86dd);
	len += frame_ip6_fill(ndp_in + len, &src, &dst, IPPROTO_ICMPV6, plen,
			      data[1] & 8 ? 64 : 255);
	memcpy(ndp_in + len, data + 2, plen);
	len += plen;

	if (frame_parse(ndp_in, len, &f) >= 0)
		ndp_handle(&ndp_conf, &f, ndp_out + sizeof(ndp_out) - cap,
			   cap);
	ndp_ra(&ndp_conf, ndp_out + sizeof(ndp_out) - cap, cap);
	return 0;
}
