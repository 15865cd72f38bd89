// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/captures/tap_responder.c - Our services on a tap, for captures
 *
 * Creates tap0 in the current network namespace and answers ARP, DHCP,
 * NDP and DHCPv6 from it with tap/ services for a fixed time, so that
 * capture_tap.sh can record real clients talking to our code.  The
 * configuration matches the one the unit tests use (test/unit/fake_conf.c).
 */
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../../../lib/eth.h"
#include "../fake_conf.h"
#include "../../../tap/frame.h"
#include "../../../tap/services.h"

/**
 * respond() - Answer one frame with the matching service
 * @c:		Configuration
 * @f:		Parsed frame
 * @out:	Reply buffer
 * @cap:	Size of @out
 *
 * Return: reply length, 0 for none
 */
static size_t respond(const struct conf *c, const struct frame *f,
		      uint8_t *out, size_t cap)
{
	if (f->ethertype == 0x0806)
		return arp_handle(c, f, out, cap);
	if (f->proto == IPPROTO_UDP && f->dport == 67)
		return dhcp_handle(c, f, out, cap);
	if (f->proto == IPPROTO_UDP && f->dport == 547)
		return dhcpv6_handle(c, f, out, cap);
	if (f->proto == IPPROTO_ICMPV6)
		return ndp_handle(c, f, out, cap);
	return 0;
}

/**
 * main() - Serve tap0 for argv[1] seconds
 * @argc:	Argument count
 * @argv:	Seconds to run
 *
 * Return: 0, 1 if the tap can't be created
 */
int main(int argc, char **argv)
{
	static uint8_t buf[FRAME_MAX], out[FRAME_MAX];
	struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI };
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 10);
	struct conf c;
	int fd;

	fake_conf_init(&c);
	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	strcpy(ifr.ifr_name, "tap0");
	if (fd < 0 || ioctl(fd, TUNSETIFF, &ifr)) {
		perror("tap0");
		return 1;
	}
	while (time(NULL) < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct frame f;
		size_t r;
		ssize_t n;

		if (poll(&p, 1, 200) <= 0)
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n <= 0 || frame_parse(buf, (size_t)n, &f))
			continue;
		r = respond(&c, &f, out, sizeof(out));
		if (r && write(fd, out, r) < 0)
			perror("write");
	}
	return 0;
}
