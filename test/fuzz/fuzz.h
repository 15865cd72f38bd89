/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test/fuzz/fuzz.h - Shared set-up of the libFuzzer harnesses
 *
 * Each harness is one .c file defining LLVMFuzzerTestOneInput().  run.sh
 * builds them with clang -fsanitize=fuzzer,address,undefined against the
 * daemon's objects; test/unit/fuzz_regress_test.c includes them too, with
 * the entry point renamed, and replays the committed corpus and the
 * regression inputs in make check.
 *
 * Harnesses that reach socket code (frame, stream) first move into a new,
 * empty network namespace (fuzz_isolate_net()): whatever a fuzzed frame
 * makes the daemon connect to, nothing can leave that namespace.  They abort
 * if it can't be created.
 */
#ifndef TEST_FUZZ_FUZZ_H
#define TEST_FUZZ_FUZZ_H

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../conf/conf.h"
#include "../../lib/log.h"
#include "../../passt/flow.h"
#include "../../passt/icmp.h"
#include "../../passt/passt.h"
#include "../../passt/tcp.h"
#include "../../passt/udp.h"
#include "../../tap/frame.h"
#include "../unit/fake_conf.h"

/**
 * fuzz_write_file() - Write a string to a file
 * @path:	File
 * @s:		Content
 *
 * Return: 0, or -1
 */
static inline int fuzz_write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -1;
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		ret = -1;
	close(fd);
	return ret;
}

/**
 * fuzz_isolate_net() - Move into a new network namespace with only lo up
 *
 * As root, a new network namespace; otherwise a user namespace too.  Ping
 * sockets are allowed there (net.ipv4.ping_group_range), lo is brought up
 * so that connections to the host-loopback mapping are refused quickly.
 * Aborts if no namespace can be made: fuzzed frames must never reach a real
 * network.
 */
static inline void fuzz_isolate_net(void)
{
	struct ifreq ifr = { 0 };
	char map[64];
	uid_t uid = geteuid();
	gid_t gid = getegid();
	int s;

	if (unshare(CLONE_NEWNET)) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNET)) {
			fprintf(stderr, "fuzz: can't create a network "
				"namespace (%s): refusing to run\n",
				strerror(errno));
			abort();
		}
		fuzz_write_file("/proc/self/setgroups", "deny");
		snprintf(map, sizeof(map), "0 %u 1", uid);
		fuzz_write_file("/proc/self/uid_map", map);
		snprintf(map, sizeof(map), "0 %u 1", gid);
		fuzz_write_file("/proc/self/gid_map", map);
	}
	fuzz_write_file("/proc/sys/net/ipv4/ping_group_range", "0 2147483647");

	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s >= 0) {
		strcpy(ifr.ifr_name, "lo");
		if (!ioctl(s, SIOCGIFFLAGS, &ifr)) {
			ifr.ifr_flags |= IFF_UP;
			ioctl(s, SIOCSIFFLAGS, &ifr);
		}
		close(s);
	}
}

/**
 * fuzz_conf() - Configuration of the harnesses, quiet logging
 * @c:		Configuration to fill
 *
 * The values of test/unit/fake_conf.h (those of the captured seed frames),
 * with the gateway standing for the host's loopback as by default.
 */
static inline void fuzz_conf(struct conf *c)
{
	fake_conf_init(c);
	c->ip4.map_host_loopback = c->ip4.gw;
	c->ip6.map_host_loopback = c->ip6.gw;
	c->flow_max = 256;
	c->udp_timeout_s = 10;
	log_level = LOG_CRIT;
	log_trace_on = false;
}

/**
 * fuzz_fqdn() - Set a --fqdn of 250 characters for the DHCP harnesses
 * @c:		Configuration
 *
 * Labels of 50 characters: the longest name whose DHCP option 81 fits in
 * one option, so the option is built (and bounded) on every reply.
 */
static inline void fuzz_fqdn(struct conf *c)
{
	size_t i;

	for (i = 0; i < 250; i++)
		c->fqdn[i] = (i % 51 == 50) ? '.' : 'f';
	c->fqdn[250] = '\0';
}

/**
 * fuzz_cap() - Output buffer size for a reply builder, from one input byte
 * @b:		Byte
 *
 * Return: 0xff gives the full buffer (@full), other values small sizes, to
 *	   exercise the builders' bounds checks
 */
static inline size_t fuzz_cap(uint8_t b, size_t full)
{
	return b == 0xff ? full : (size_t)b * 8 % full;
}

/**
 * fuzz_timers() - Advance the clock by 100 ms and run the flow timers that
 *		   are due, as passt_loop() does (no splicing in harnesses)
 * @ctx:	Context
 */
static inline void fuzz_timers(struct ctx *ctx)
{
	ctx->now += 100;
	if (ctx->now >= ctx->timer_next) {
		ctx->timer_next = INT64_MAX;
		flow_timer(ctx);
	}
}

#endif /* TEST_FUZZ_FUZZ_H */

/* The harness's entry point, declared outside the guard: on each inclusion
 * under the name test/unit/fuzz_regress_test.c gives it (LLVMFuzzerTestOneInput
 * renamed to fuzz_frame_one, ...), as it includes every harness
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
