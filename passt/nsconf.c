// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/nsconf.c - pasta --config-net: keep the namespace's addresses and
 *		    routes in step with the host's, through a helper
 *
 * DOC: Theory of Operation
 *
 * Changing addresses and routes in the namespace takes CAP_NET_ADMIN there
 * at the time of each request (netlink checks the sender, netlink(7)), and
 * the daemon has no capability left once it runs.  So nsconf_init(),
 * during set-up (pasta with --config-net, unless --no-follow-host), forks
 * one helper that enters the target namespace, keeps CAP_NET_ADMIN and
 * nothing else (isolate_helper_keep(): an empty root of its own, and the
 * --runas user or nobody if started as root), sets no_new_privs and the
 * helpers' seccomp filter, and waits on a
 * SOCK_SEQPACKET socketpair.  nsconf_update() sends it, per family, the
 * addresses and routes the namespace should have (the guest's address and
 * gateway, and what --config-net copies); the helper makes the tap link
 * match with netlink_sync() (lib/netlink.c): what's missing is added,
 * what the host lost is removed, but only what we put there (at set-up or
 * by an earlier request): addresses and routes a container or the user
 * added in the namespace are never touched.  Nothing comes back: the daemon never
 * waits for it.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/capability.h>

#include "../lib/log.h"
#include "../lib/netlink.h"
#include "isolation.h"
#include "nsconf.h"
#include "signals.h"

/**
 * struct nsconf_fam - What one family of the namespace should have
 * @on:		Apply this family
 * @na:		Entries in @addrs
 * @nr:		Entries in @routes
 * @addrs:	Addresses: the guest's first, then the copied ones
 * @routes:	Routes: the copied ones, then the default route
 */
struct nsconf_fam {
	uint32_t on;
	uint32_t na;
	uint32_t nr;
	struct netlink_addr addrs[CONF_TPL_ADDRS_MAX + 1];
	struct netlink_route routes[CONF_TPL_ROUTES_MAX + 1];
};

/**
 * struct nsconf_msg - One request to the helper
 * @f:		IPv4 ([0]) and IPv6 ([1])
 */
struct nsconf_msg {
	struct nsconf_fam f[2];
};

static int nsconf_sock = -1;

/**
 * nsconf_fam_fill() - What one family of the namespace should have
 * @f:		Filled
 * @af:		AF_INET or AF_INET6
 * @addr:	Guest's address, network order
 * @plen:	Its prefix length
 * @gw:		Gateway, network order (all zero: no default route)
 * @tpl:	Copied addresses and routes
 */
static void nsconf_fam_fill(struct nsconf_fam *f, int af, const void *addr,
			    int plen, const void *gw, const struct conf_tpl *tpl)
{
	static const uint8_t zero[16];
	size_t alen = af == AF_INET ? 4 : 16;
	unsigned i;

	memset(f, 0, sizeof(*f));
	f->on = 1;
	memcpy(&f->addrs[0].addr, addr, alen);
	f->addrs[0].prefix_len = plen;
	f->na = 1;
	for (i = 0; i < tpl->addr_count && i < CONF_TPL_ADDRS_MAX; i++)
		f->addrs[f->na++] = tpl->addrs[i];
	for (i = 0; i < tpl->route_count && i < CONF_TPL_ROUTES_MAX; i++)
		f->routes[f->nr++] = tpl->routes[i];
	if (memcmp(gw, zero, alen)) {
		memcpy(&f->routes[f->nr].gw, gw, alen);
		f->nr++;	/* dst ::/0: the default route */
	}
}

/**
 * nsconf_msg_fill() - What the namespace should have, both families
 * @m:		Filled
 * @c:		Configuration
 */
static void nsconf_msg_fill(struct nsconf_msg *m, const struct conf *c)
{
	memset(m, 0, sizeof(*m));
	if (c->ip4.enabled)
		nsconf_fam_fill(&m->f[0], AF_INET, &c->ip4.addr,
				c->ip4.prefix_len, &c->ip4.gw, &c->ip4.tpl);
	if (c->ip6.enabled && !IN6_IS_ADDR_UNSPECIFIED(&c->ip6.addr))
		nsconf_fam_fill(&m->f[1], AF_INET6, &c->ip6.addr,
				c->ip6.prefix_len, &c->ip6.gw, &c->ip6.tpl);
}

/**
 * nsconf_helper() - Body of the helper process
 * @fd:		Helper's end of the socketpair
 * @ctx:	Context (target namespace, tap name, --runas)
 *
 * Context: forked child; never returns
 * #syscalls:helper recvfrom exit_group brk mmap munmap getpid setsockopt
 */
static void nsconf_helper(int fd, const struct ctx *ctx)
{
	static struct nsconf_msg m, prev;
	const struct conf *c = &ctx->c;
	int ifi, k;

	/* What set-up configured: the first request may remove only that */
	nsconf_msg_fill(&prev, c);

	signals_unblock_child();
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	prctl(PR_SET_NAME, "pasta-nsconf");
	if (setns(ctx->ns_fd, CLONE_NEWNET))
		_exit(1);
	if (fd > 3)
		close_range(3, (unsigned)fd - 1, 0);
	close_range((unsigned)fd + 1, ~0U, 0);
	ifi = netlink_ifindex(c->ifname_ns);
	if (ifi <= 0)
		_exit(1);

	if (isolate_helper_keep(c, CAP_NET_ADMIN))
		_exit(1);
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	if (isolate_seccomp_helper() < 0)
		_exit(1);

	for (;;) {
		ssize_t n = recv(fd, &m, sizeof(m), 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(0);	/* the daemon is gone */
		if (n != sizeof(m))
			continue;
		for (k = 0; k < 2; k++) {
			struct nsconf_fam *f = &m.f[k];

			struct nsconf_fam *p = &prev.f[k];
			struct netlink_sync_set old = {
				p->addrs, p->on ? p->na : 0,
				p->routes, p->on ? p->nr : 0 };

			if (!f->on || f->na > ARRAY_SIZE(f->addrs) ||
			    f->nr > ARRAY_SIZE(f->routes))
				continue;
			netlink_sync(ifi, k ? AF_INET6 : AF_INET, f->addrs,
				     f->na, f->routes, f->nr, &old);
			*p = *f;
		}
	}
}

/**
 * nsconf_init() - Fork the namespace configuration helper, if needed
 * @ctx:	Context: pasta with --config-net, ns_fd the target namespace
 *
 * Context: set-up, before isolate_prefork() (the helper keeps
 * CAP_NET_ADMIN from there).  A failure is a warning: the namespace then
 * keeps its start-up addresses and routes.
 */
void nsconf_init(struct ctx *ctx)
{
	int sv[2];
	pid_t pid;

	if (ctx->c.mode != MODE_PASTA || !ctx->c.config_net || ctx->ns_fd < 0)
		return;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		warn_perror("namespace configuration helper: socketpair");
		return;
	}
	pid = fork();
	if (pid < 0) {
		warn_perror("namespace configuration helper: fork");
		close(sv[0]);
		close(sv[1]);
		return;
	}
	if (!pid) {
		close(sv[0]);
		nsconf_helper(sv[1], ctx);	/* no return */
	}
	close(sv[1]);
	nsconf_sock = sv[0];
}

/**
 * nsconf_running() - Does a helper keep the namespace's addresses in step?
 *
 * Return: true for pasta --config-net following the host, with its helper
 */
bool nsconf_running(void)
{
	return nsconf_sock >= 0;
}

/**
 * nsconf_update() - Ask the helper to make the namespace match @ctx->c
 * @ctx:	Context
 *
 * #syscalls sendto
 */
void nsconf_update(const struct ctx *ctx)
{
	static struct nsconf_msg m;

	if (nsconf_sock < 0)
		return;
	nsconf_msg_fill(&m, &ctx->c);
	if (send(nsconf_sock, &m, sizeof(m), MSG_DONTWAIT | MSG_NOSIGNAL) !=
	    sizeof(m))
		warn_perror("namespace configuration helper");
}
