// SPDX-License-Identifier: GPL-2.0-or-later
/* test/fuzz/arp.c - Harness: ARP parser and reply builder (tap/arp.c)
 *
 * Input: one byte choosing the size of the reply buffer (fuzz_cap()), then
 * the ARP payload (RFC 826), sent in a broadcast Ethernet frame from the
 * guest's MAC.  frame_parse() validates it as the daemon does, then
 * arp_handle() answers into a buffer that ends exactly at its size.
 */
#include "../../lib/eth.h"
#include "fuzz.h"
#include "../../tap/services.h"

static struct conf arp_conf;
static uint8_t arp_in[FRAME_MAX];
static uint8_t arp_out[2048];

/**
 * LLVMFuzzerTestOneInput() - One ARP payload
 * @data:	Size byte, then the payload
 * @size:	Length, bytes
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t bcast[ETH_ALEN] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff
	};
	static bool ready;
	struct frame f;
	size_t cap, len;

	if (!ready) {
		fuzz_conf(&arp_conf);
		ready = true;
	}
	if (size < 1 || size - 1 > sizeof(arp_in) - ETH_HLEN)
		return 0;
	cap = fuzz_cap(data[0], sizeof(arp_out));

	len = frame_eth_fill(arp_in, bcast, arp_conf.mac_guest, 0x0806);
	memcpy(arp_in + len, data + 1, size - 1);
	len += size - 1;
	if (frame_parse(arp_in, len, &f) < 0)
		return 0;
	arp_handle(&arp_conf, &f, arp_out + sizeof(arp_out) - cap, cap);
	return 0;
}
