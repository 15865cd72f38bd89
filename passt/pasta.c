// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/pasta.c - pasta mode: join or create the namespaces, set up the tap
 *
 * DOC: Theory of Operation
 *
 * The daemon itself always stays in the network namespace it was started
 * in (the "host" side): its flow sockets live there.  The target namespace
 * is either
 *  - an existing one: --netns PATH|NAME, or the namespaces of a PID given as
 *    first argument (plus its user namespace unless --netns-only), or
 *  - a new one, created by a child process that unshare()s a network
 *    namespace (and, when we are not root, a user namespace whose uid_map
 *    maps root to our uid, like "unshare -r"), then waits until we are done
 *    and runs the command (default: $SHELL) in it.
 *
 * When a user namespace is involved the daemon joins it once (setns() while
 * still single-threaded), which gives it CAP_NET_ADMIN over the target
 * network namespace without leaving its own.  Work inside the target
 * namespace runs through pasta_ns_call(): a short-lived clone(CLONE_VM |
 * CLONE_FILES | CLONE_VFORK) child enters the namespace with setns() and
 * runs a function; file descriptors it opens (the tap, netlink sockets)
 * belong to the shared table, and sockets stay bound to the namespace they
 * were created in.
 *
 * In the namespace we bring up lo, create the tap (tap/tap.c), read or set
 * its MAC address, set the MTU and, with --config-net, the addresses and
 * default routes of both families through libnl-route (lib/netlink.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_ether.h>
#include <linux/nsfs.h>
#include <cap-ng.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/log.h"
#include "../lib/netlink.h"
#include "../tap/guest.h"
#include "../tap/tap.h"
#include "epoll_ref.h"
#include "fwd.h"
#include "isolation.h"
#include "ctx.h"
#include "signals.h"
#include "pasta.h"

#define PASTA_NS_CALL_STACK	(256 * 1024)
#define PASTA_LL_WAIT_MS	3000	/* link-local address, --config-net */
/* Frames the tap queues for us to read (tun's default, TUN_READQ_SIZE, is
 * 500): make bench M1.1000 (1000 flows of 1 MiB out of the namespace) saw
 * 14-16k drops per run and flows waiting for RTOs with 500, none with 8192
 * in 5 of 6 runs (aggregate 0.2-0.7 -> 1.3-1.7 Gbit/s)
 */
#ifndef PASTA_TAP_TXQLEN	/* -D for experiments only */
#define PASTA_TAP_TXQLEN	8192
#endif

static pid_t pasta_child_pid;
static pid_t pasta_netns_pid;	/* --netns /proc/PID/ns/net: that PID */
static int pasta_target_pidfd = -1;	/* pidfd of the target PID */
static int pasta_go_fd = -1;
static int pasta_netns_watch = -1;	/* inotify on the --netns directory */
static char pasta_netns_name[NAME_MAX + 1];	/* --netns file name */
static bool pasta_tap_vnet = true;	/* tap frames have a virtio-net header */

/**
 * struct pasta_ns_call_arg - What an pasta_ns_call() child needs
 * @fn:		Function to run in the namespace
 * @arg:	Its argument
 * @nsfd:	Network namespace fd
 * @ret:	Return value of @fn, or -errno of setns()
 */
struct pasta_ns_call_arg {
	int (*fn)(void *arg);
	void *arg;
	int nsfd;
	int ret;
};

/**
 * pasta_ns_call_child() - Body of the pasta_ns_call() clone: enter, run, return
 * @p:		struct pasta_ns_call_arg
 *
 * Return: 0 (the result goes through @p)
 */
static int pasta_ns_call_child(void *p)
{
	struct pasta_ns_call_arg *a = p;

	if (setns(a->nsfd, CLONE_NEWNET)) {
		a->ret = -errno;
		return 0;
	}
	a->ret = a->fn(a->arg);
	return 0;
}

/**
 * pasta_ns_call() - Run a function inside a network namespace
 * @nsfd:	Namespace fd (from /proc/PID/ns/net or a bind mount)
 * @fn:		Function; shares our memory and fd table
 * @arg:	Its argument
 *
 * The caller is suspended until @fn returns (CLONE_VFORK), so nothing runs
 * concurrently with it.
 *
 * Context: set-up only.  After isolate_prefork() no capability is left
 *	    and setns() would fail with EPERM, and the seccomp filter doesn't
 *	    allow clone() or setns() (passt/isolation.c)
 * Return: @fn's return value, or -errno
 */
int pasta_ns_call(int nsfd, int (*fn)(void *arg), void *arg)
{
	struct pasta_ns_call_arg a = { .fn = fn, .arg = arg, .nsfd = nsfd, .ret = 0 };
	static uint8_t *stack;
	pid_t pid;

	if (!stack) {
		stack = mmap(NULL, PASTA_NS_CALL_STACK, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		if (stack == MAP_FAILED) {
			stack = NULL;
			return -ENOMEM;
		}
	}

	pid = clone(pasta_ns_call_child, stack + PASTA_NS_CALL_STACK,
		    CLONE_VM | CLONE_FILES | CLONE_VFORK | SIGCHLD, &a);
	if (pid < 0)
		return -errno;
	while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR)
		;
	return a.ret;
}

/**
 * write_file() - Write a string to a file (uid_map and friends)
 * @path:	File
 * @s:		Content
 *
 * Return: 0 or -errno
 */
static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		ret = -errno;
	close(fd);
	return ret;
}

/**
 * pasta_exec() - Run the command, or a shell
 * @argv:	Command and arguments, NULL for $SHELL (default /bin/sh)
 *
 * Context: the spawned child, in the new namespaces; doesn't return
 */
static void pasta_exec(char **argv)
{
	char *sh_argv[2] = { NULL, NULL };

	if (!argv) {
		const char *sh = getenv("SHELL");

		sh_argv[0] = UNCONST(char *, sh && *sh ? sh : "/bin/sh");
		argv = sh_argv;
	}
	execvp(argv[0], argv);
	fprintf(stderr, "pasta: can't run %s: %s\n", argv[0], strerror(errno));
	/* as shells do: 127 for a command not found, 126 for one that can't
	 * be executed
	 */
	_exit(errno == ENOENT || errno == ENOTDIR ? 127 : 126);
}

/**
 * pasta_spawn_wait() - Run the command in a grandchild, kill it when pasta ends
 * @parent:	PID of pasta
 * @argv:	Command, as for pasta_exec()
 *
 * Started as root, pasta goes on as the --runas user or nobody, while the
 * command stays root: the kernel then drops the parent-death signal of
 * PR_SET_PDEATHSIG (it is sent with the dying parent's credentials, and
 * those may not signal a root process), and the command would outlive
 * pasta.  So this process, root without capabilities, stays between them:
 * it waits for either pasta or the command to end (pidfd_open(2) and
 * poll(2)), kills the command (SIGKILL, as PR_SET_PDEATHSIG would have)
 * if pasta went first, and ends with the command's status, so that pasta
 * reports it as its own.  Without pidfds (Linux < 5.3), it just waits for
 * the command.
 *
 * Context: the spawned child, in the new namespaces; doesn't return
 */
static void pasta_spawn_wait(pid_t parent, char **argv)
{
	struct pollfd pfd[2] = { { .fd = -1 }, { .fd = -1 } };
	pid_t me = getpid(), pid;
	int status;

	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "pasta: fork: %s\n", strerror(errno));
		_exit(126);
	}
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != me)
			_exit(126);
		pasta_exec(argv);
	}

	prctl(PR_SET_NAME, "pasta-wait");
	pfd[0].fd = (int)syscall(SYS_pidfd_open, parent, 0);
	pfd[1].fd = (int)syscall(SYS_pidfd_open, pid, 0);
	pfd[0].events = pfd[1].events = POLLIN;
	capng_clear(CAPNG_SELECT_BOTH);
	capng_apply(CAPNG_SELECT_BOTH);
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);

	while (pfd[0].fd >= 0 && pfd[1].fd >= 0) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].revents)
			break;
		if (pfd[0].revents) {
			kill(pid, SIGKILL);
			break;
		}
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			_exit(126);
	}
	if (WIFSIGNALED(status)) {
		struct rlimit no_core = { 0, 0 };

		setrlimit(RLIMIT_CORE, &no_core);
		signal(WTERMSIG(status), SIG_DFL);
		raise(WTERMSIG(status));
		_exit(128 + WTERMSIG(status));
	}
	_exit(WEXITSTATUS(status));
}

/**
 * pasta_spawn() - Fork the child that creates the namespaces and will run
 *		   the command
 * @ctx:	Context
 * @userns:	Also create a user namespace (we are not root)
 * @nsfd:	Result: its network namespace
 * @usernsfd:	Result: its user namespace, or -1
 *
 * Return: 0, or -errno
 */
static int pasta_spawn(struct ctx *ctx, bool userns, int *nsfd, int *usernsfd)
{
	int ready[2], go[2], ret;
	char path[64], map[64];
	uid_t uid = geteuid();
	gid_t gid = getegid();
	pid_t parent = getpid(), pid;
	char c;

	if (pipe2(ready, O_CLOEXEC) || pipe2(go, O_CLOEXEC))
		return -errno;

	pid = fork();
	if (pid < 0)
		return -errno;

	if (!pid) {
		int flags = CLONE_NEWNET | CLONE_NEWUTS |
			    (userns ? CLONE_NEWUSER : 0);
		char **argv = ctx->c.cmd;
		int err = 0;

		close(ready[0]);
		close(go[1]);
		signals_unblock_child();
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (unshare(flags))
			err = errno;
		if (write(ready[1], &err, sizeof(err)) != sizeof(err) || err)
			_exit(1);
		if (read(go[0], &c, 1) != 1)
			_exit(1);	/* set-up failed: parent closed */
		close(go[0]);

		if (!userns && uid == 0)
			pasta_spawn_wait(parent, argv);
		pasta_exec(argv);
	}

	close(ready[1]);
	close(go[0]);
	pasta_child_pid = pid;
	pasta_go_fd = go[1];

	if (read(ready[0], &ret, sizeof(ret)) != sizeof(ret)) {
		close(ready[0]);
		return -ECHILD;
	}
	close(ready[0]);
	if (ret) {
		errno = ret;
		die_perror("unshare() of the namespace child");
	}

	if (userns) {
		snprintf(path, sizeof(path), "/proc/%d/setgroups", pid);
		write_file(path, "deny");
		snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
		snprintf(map, sizeof(map), "0 %u 1", uid);
		if ((ret = write_file(path, map)))
			return ret;
		snprintf(path, sizeof(path), "/proc/%d/gid_map", pid);
		snprintf(map, sizeof(map), "0 %u 1", gid);
		if ((ret = write_file(path, map)))
			return ret;
		snprintf(path, sizeof(path), "/proc/%d/ns/user", pid);
		*usernsfd = open(path, O_RDONLY | O_CLOEXEC);
		if (*usernsfd < 0)
			return -errno;
	}
	snprintf(path, sizeof(path), "/proc/%d/ns/net", pid);
	*nsfd = open(path, O_RDONLY | O_CLOEXEC);
	if (*nsfd < 0)
		return -errno;
	return 0;
}

/**
 * join_userns() - Join a user namespace unless we are in it already
 * @fd:		User namespace fd
 *
 * Return: 0 or -errno
 */
static int join_userns(int fd)
{
	struct stat a, b;

	if (fstat(fd, &a) == 0 && stat("/proc/self/ns/user", &b) == 0 &&
	    a.st_ino == b.st_ino && a.st_dev == b.st_dev)
		return 0;
	if (setns(fd, CLONE_NEWUSER))
		return -errno;
	return 0;
}

/**
 * struct pasta_ns_arg - In and out of pasta_ns_setup()
 * @ctx:	Context
 * @tap_fd:	Result: tap fd
 * @ifname:	Result: tap name
 * @err:	Result: what failed, for the message
 * @name_taken:	Result: the tap device's name is that of another kind of
 *		interface in the namespace (then in @ifname)
 */
struct pasta_ns_arg {
	struct ctx *ctx;
	int tap_fd;
	char ifname[IFNAMSIZ];
	const char *err;
	bool name_taken;
};

/**
 * pasta_ns_ipv6_sysctl() - Set an IPv6 setting of the tap device
 * @ifname:	Tap device name, in the current network namespace
 * @key:	Setting under /proc/sys/net/ipv6/conf/IFNAME/
 * @val:	Value to write
 *
 * The files under /proc/sys/net belong to the network namespace of the
 * process that opens them (here: the target namespace, from pasta_ns_call()).
 * A failure is not fatal: one debug line.
 */
static void pasta_ns_ipv6_sysctl(const char *ifname, const char *key,
				 const char *val)
{
	char path[PATH_MAX];
	int rc;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/%s",
		 ifname, key);
	if ((rc = write_file(path, val)))
		debug("%s: %s", path, strerror(-rc));
}

/**
 * pasta_ns_tpl_addrs() - Add the template interface's other addresses
 * @ifi:	Tap device index, in the current namespace
 * @af:		AF_INET or AF_INET6
 * @primary:	The address already added (network order), skipped here
 * @tpl:	Recorded addresses (conf/host.c, netlink_host_defaults())
 *
 * A failure is not fatal: one warning line per address (a debug line if
 * the address is there already).
 */
static void pasta_ns_tpl_addrs(int ifi, int af, const void *primary,
			       const struct conf_tpl *tpl)
{
	size_t alen = af == AF_INET ? 4 : 16;
	char buf[INET6_ADDRSTRLEN];
	unsigned i;
	int rc;

	for (i = 0; i < tpl->addr_count; i++) {
		const struct netlink_addr *a = &tpl->addrs[i];

		if (!memcmp(&a->addr, primary, alen))
			continue;
		rc = netlink_addr_add(ifi, af, &a->addr, a->prefix_len);
		if (!rc)
			continue;
		inet_ntop(af, &a->addr, buf, sizeof(buf));
		if (rc == -EEXIST)
			debug("address %s/%d exists in the namespace", buf,
			      a->prefix_len);
		else
			warn("can't copy address %s/%d to the namespace: %s",
			     buf, a->prefix_len, strerror(-rc));
	}
}

/**
 * pasta_ns_tpl_routes() - Add the template interface's other routes
 * @ifi:	Tap device index, in the current namespace
 * @af:		AF_INET or AF_INET6
 * @tpl:	Recorded routes (conf/host.c, netlink_host_defaults())
 *
 * Routes to networks on the link go first, so that the gateways of the
 * others are reachable when those are added.  A failure is not fatal: one
 * warning line per route (a debug line if the route is there already).
 */
static void pasta_ns_tpl_routes(int ifi, int af, const struct conf_tpl *tpl)
{
	static const union netlink_ip zero;
	char d[INET6_ADDRSTRLEN], g[INET6_ADDRSTRLEN];
	size_t alen = af == AF_INET ? 4 : 16;
	unsigned i, pass;
	int rc;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < tpl->route_count; i++) {
			const struct netlink_route *r = &tpl->routes[i];
			bool has_gw = memcmp(&r->gw, &zero, alen);

			if (has_gw != (pass == 1))
				continue;
			rc = netlink_route_add(ifi, af, &r->dst, r->prefix_len,
					       has_gw ? &r->gw : NULL,
					       r->metric);
			if (!rc)
				continue;
			inet_ntop(af, &r->dst, d, sizeof(d));
			if (has_gw)
				inet_ntop(af, &r->gw, g, sizeof(g));
			else
				snprintf(g, sizeof(g), "the link");
			if (rc == -EEXIST)
				debug("route to %s/%d exists in the namespace",
				      d, r->prefix_len);
			else
				warn("can't copy route to %s/%d via %s to the "
				     "namespace: %s", d, r->prefix_len, g,
				     strerror(-rc));
		}
	}
}

/**
 * pasta_ns_setup() - In the target namespace: lo up, tap, addresses, routes
 * @p:		struct pasta_ns_arg
 *
 * With --config-net: the guest's address of each family first (primary),
 * then the other recorded addresses of the template interface, link up,
 * the default routes, then the recorded routes (see netlink_host_defaults()).
 * Only the first address and the default routes are fatal if they fail.
 *
 * Return: 0, or -errno with @p->err naming the step
 */
static int pasta_ns_setup(void *p)
{
	struct pasta_ns_arg *a = p;
	const struct conf *c = &a->ctx->c;
	const char *name = c->ifname_ns;
	uint8_t mac[ETH_ALEN];
	int fd, ifi, lo, ret;

	if (!*name)
		name = *c->ip4.ifname_out ? c->ip4.ifname_out :
		       *c->ip6.ifname_out ? c->ip6.ifname_out : "tap0";

	lo = netlink_ifindex("lo");
	if (lo > 0 && (ret = netlink_link_up(lo)) < 0) {
		a->err = "bringing up lo";
		return ret;
	}
	if (c->splice_only)	/* no tap device */
		return 0;

	if (c->fd >= 0) {	/* -F: the caller's, here already */
		if ((ret = tap_dev_adopt(c->fd, &pasta_tap_vnet)) < 0) {
			a->err = "taking the tap device of -F/--fd";
			return ret;
		}
		snprintf(a->ifname, IFNAMSIZ, "%s", name);
		fd = c->fd;
	} else {
		fd = tap_dev_open_current_ns(name, a->ifname);
	}
	if (fd < 0) {
		/* TUNSETIFF on the name of another kind of device: EINVAL */
		a->name_taken = fd == -EINVAL && *name &&
				netlink_ifindex(name) > 0;
		if (a->name_taken)
			snprintf(a->ifname, IFNAMSIZ, "%s", name);
		a->err = "creating the tap device (/dev/net/tun)";
		return fd;
	}
	a->tap_fd = fd;

	ifi = netlink_ifindex(a->ifname);
	if (ifi <= 0) {
		a->err = c->fd >= 0 ? "looking up the tap device of -F/--fd "
				      "in the namespace" :
				      "looking up the tap device";
		return ifi < 0 ? ifi : -ENODEV;
	}

	/* --ns-mac-addr, or the address the kernel gave the device */
	if (c->mac_guest_set) {
		memcpy(mac, c->mac_guest, sizeof(mac));
		ret = netlink_link_set_mac(ifi, mac);
	} else {
		ret = netlink_link_get_mac(ifi, mac);
	}
	if (ret < 0) {
		a->err = "MAC address of the tap device";
		return ret;
	}
	tap_guest_mac_set(mac);

	/* -m 0: the tap keeps the kernel's default (ether_setup(): 1500) */
	if (!c->no_mtu && (ret = netlink_link_set_mtu(ifi, c->mtu)) < 0) {
		a->err = "setting the MTU";
		return ret;
	}
	/* A tun device drops what the namespace sends once its ring of
	 * PASTA_TAP_TXQLEN frames is full: a burst of many flows then costs
	 * retransmissions and timeouts in the namespace.  Not fatal.
	 */
	if ((ret = netlink_link_set_txqlen(ifi, PASTA_TAP_TXQLEN)) < 0)
		warn("tap device: can't set its queue length to %u: %s",
		     PASTA_TAP_TXQLEN, strerror(-ret));

	if (!c->config_net)
		return 0;

	if (c->ip4.enabled && c->ip4.addr.s_addr) {
		if ((ret = netlink_addr_add(ifi, AF_INET, &c->ip4.addr,
					    c->ip4.prefix_len)) < 0) {
			a->err = "adding the IPv4 address";
			return ret;
		}
	}
	if (c->ip6.enabled && !IN6_IS_ADDR_UNSPECIFIED(&c->ip6.addr)) {
		if ((ret = netlink_addr_add(ifi, AF_INET6, &c->ip6.addr,
					    c->ip6.prefix_len)) < 0) {
			a->err = "adding the IPv6 address";
			return ret;
		}
	}
	if (c->ip4.enabled)
		pasta_ns_tpl_addrs(ifi, AF_INET, &c->ip4.addr, &c->ip4.tpl);
	if (c->ip6.enabled)
		pasta_ns_tpl_addrs(ifi, AF_INET6, &c->ip6.addr, &c->ip6.tpl);
	if (c->ip6.enabled) {
		/* Only we are on the link: Duplicate Address Detection
		 * (RFC 4862, 5.4) would just keep the link-local address
		 * tentative for up to two seconds.  The namespace keeps the
		 * address we gave it: no second one by SLAAC from our router
		 * advertisements, which would become the preferred source
		 * address, unknown to the forwarded peers.
		 */
		pasta_ns_ipv6_sysctl(a->ifname, "accept_dad", "0");
		pasta_ns_ipv6_sysctl(a->ifname, "autoconf", "0");
	}
	if ((ret = netlink_link_up(ifi)) < 0) {
		a->err = "bringing up the tap device";
		return ret;
	}
	if (c->ip4.enabled && c->ip4.gw.s_addr) {
		ret = netlink_route_add_default(ifi, AF_INET, &c->ip4.gw);
		if (ret == -EEXIST) {
			warn("IPv4 default route exists in the namespace: left as it is");
		} else if (ret < 0) {
			a->err = "adding the IPv4 default route";
			return ret;
		}
	}
	if (c->ip6.enabled && !IN6_IS_ADDR_UNSPECIFIED(&c->ip6.gw)) {
		ret = netlink_route_add_default(ifi, AF_INET6, &c->ip6.gw);
		if (ret == -EEXIST) {
			warn("IPv6 default route exists in the namespace: left as it is");
		} else if (ret < 0) {
			a->err = "adding the IPv6 default route";
			return ret;
		}
	}
	if (c->ip4.enabled)
		pasta_ns_tpl_routes(ifi, AF_INET, &c->ip4.tpl);
	if (c->ip6.enabled)
		pasta_ns_tpl_routes(ifi, AF_INET6, &c->ip6.tpl);
	/* Last: the wait mustn't delay the routes */
	if (c->ip6.enabled) {
		struct in6_addr ll;

		if ((ret = netlink_addr_wait_ll(ifi, &ll, PASTA_LL_WAIT_MS)) < 0)
			warn("no IPv6 link-local address on %s after %d ms: %s",
			     a->ifname, PASTA_LL_WAIT_MS, strerror(-ret));
	}
	return 0;
}

/**
 * pasta_netns_watch_init() - Watch the directory of --netns for its removal
 * @path:	--netns path
 *
 * A stat() of the path can't tell after isolate_prefork(): the file system
 * is gone by then.  An inotify watch keeps working, as it holds the
 * directory's inode and no path.  Paths under /proc give no events: there
 * the namespace is watched no further (debug message).
 *
 * Context: set-up
 */
static void pasta_netns_watch_init(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	size_t dlen;

	if (!strncmp(path, "/proc/", 6)) {
		int pid, end = 0;

		/* /proc/PID/ns/net: watched like a PID target */
		if (sscanf(path, "/proc/%d/ns/net%n", &pid, &end) == 1 &&
		    (size_t)end == strlen(path) && pid > 0)
			pasta_netns_pid = pid;
		else
			debug("--netns %s: can't notice its removal", path);
		return;
	}
	if (!slash || !slash[1]) {
		debug("--netns %s: can't notice its removal", path);
		return;
	}
	dlen = slash == path ? 1 : (size_t)(slash - path);	/* "/N": "/" */
	snprintf(dir, sizeof(dir), "%.*s", (int)dlen, path);
	snprintf(pasta_netns_name, sizeof(pasta_netns_name), "%s", slash + 1);

	pasta_netns_watch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (pasta_netns_watch < 0 ||
	    inotify_add_watch(pasta_netns_watch, dir, IN_DELETE | IN_MOVED_FROM |
			      IN_DELETE_SELF | IN_MOVE_SELF) < 0) {
		debug_perror("inotify on %s: can't notice the removal of %s",
			     dir, path);
		if (pasta_netns_watch >= 0)
			close(pasta_netns_watch);
		pasta_netns_watch = -1;
	}
}

/**
 * pasta_setup() - Find or create the target namespace and set it up
 * @ctx:	Context; sets ns_fd and host_ns_fd
 *
 * Context: set-up, single-threaded; dies with a message on failure
 * Return: tap fd, -1 with --splice-only
 */
int pasta_setup(struct ctx *ctx)
{
	struct pasta_ns_arg a = { .ctx = ctx, .tap_fd = -1 };
	struct conf *c = &ctx->c;
	int nsfd = -1, usernsfd = -1, ret;
	char path[PATH_MAX];

	ctx->host_ns_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (ctx->host_ns_fd < 0)
		die_perror("open /proc/self/ns/net");

	if (*c->netns) {
		nsfd = open(c->netns, O_RDONLY | O_CLOEXEC);
		if (nsfd < 0)
			die_perror("--netns %s", c->netns);
		if (!c->no_netns_quit)
			pasta_netns_watch_init(c->netns);
		if (*c->userns) {
			usernsfd = open(c->userns, O_RDONLY | O_CLOEXEC);
			if (usernsfd < 0)
				die_perror("--userns %s", c->userns);
		}
	} else if (c->target_pid) {
		snprintf(path, sizeof(path), "/proc/%d/ns/net", c->target_pid);
		nsfd = open(path, O_RDONLY | O_CLOEXEC);
		if (nsfd < 0)
			die_perror("network namespace of PID %d", c->target_pid);
		if (*c->userns) {
			usernsfd = open(c->userns, O_RDONLY | O_CLOEXEC);
			if (usernsfd < 0)
				die_perror("--userns %s", c->userns);
		} else if (!c->netns_only) {
			snprintf(path, sizeof(path), "/proc/%d/ns/user",
				 c->target_pid);
			usernsfd = open(path, O_RDONLY | O_CLOEXEC);
		}
	} else {
		ret = pasta_spawn(ctx, geteuid() != 0 && !c->netns_only,
				  &nsfd, &usernsfd);
		if (ret < 0) {
			errno = -ret;
			die_perror("creating the namespaces");
		}
	}

	/* root in the initial user namespace may set up any network
	 * namespace from there, and must stay there to switch to --runas or
	 * nobody after set-up (passt/isolation.c)
	 */
	if (usernsfd >= 0 && !isolate_root_in_init_userns() &&
	    (ret = join_userns(usernsfd)) < 0) {
		errno = -ret;
		die_perror("joining the user namespace");
	}

	ret = pasta_ns_call(nsfd, pasta_ns_setup, &a);
	if (ret == -EPERM && usernsfd < 0) {
		/* The namespace belongs to a user namespace we aren't in:
		 * try its owner (NS_GET_USERNS, ioctl_ns(2))
		 */
		int owner = ioctl(nsfd, NS_GET_USERNS);

		if (owner >= 0 && join_userns(owner) == 0) {
			a.err = NULL;
			ret = pasta_ns_call(nsfd, pasta_ns_setup, &a);
		}
		if (owner >= 0)
			close(owner);
	}
	if (ret < 0 && a.name_taken)
		die("-I/--ns-ifname: '%s' is taken in the namespace by an "
		    "interface that is not a tap device (give another name)",
		    a.ifname);
	if (ret == -EPERM && !a.err && (*c->netns || c->target_pid))
		die("%s: can't enter the network namespace (%s): it belongs "
		    "to a user namespace we have no privileges in (start "
		    "pasta as its owner, or give --userns)",
		    *c->netns ? "--netns" : "PID", strerror(EPERM));
	if (ret < 0) {
		errno = -ret;
		die_perror("namespace set-up failed%s%s", a.err ? " while " : "",
			   a.err ? a.err : "");
	}

	if (usernsfd >= 0)
		close(usernsfd);
	ctx->ns_fd = nsfd;
	if (c->target_pid || pasta_netns_pid)
		pasta_target_pidfd = (int)syscall(SYS_pidfd_open, c->target_pid ?
						  c->target_pid :
						  pasta_netns_pid, 0);
	if (c->splice_only) {
		info("--splice-only: no tap device, loopback connections only");
		return -1;
	}
	info("namespace interface %s, MAC %02x:%02x:%02x:%02x:%02x:%02x, MTU %d%s%s",
	     a.ifname, tap_guest.mac[0], tap_guest.mac[1], tap_guest.mac[2],
	     tap_guest.mac[3], tap_guest.mac[4], tap_guest.mac[5], c->mtu,
	     c->no_mtu ? " (-m 0: not set on the device)" : "",
	     c->config_net ? ", addresses and routes configured" : "");
	return a.tap_fd;
}

/**
 * pasta_restart_setup() - A hitless restart: the namespace we took over
 * @ctx:	Context, ns_fd received from the old process (-1 if none)
 *
 * The namespace and its interface are as the old process left them: no
 * set-up inside, only what pasta_setup() keeps besides: the host's
 * namespace, the owner of the namespace joined if we aren't root in the
 * initial one, the watch on --netns or the target PID.
 *
 * Context: set-up, restart_take(); dies with a message on failure
 */
void pasta_restart_setup(struct ctx *ctx)
{
	struct conf *c = &ctx->c;
	int owner;

	ctx->host_ns_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (ctx->host_ns_fd < 0)
		die_perror("open /proc/self/ns/net");
	if (ctx->ns_fd < 0)
		die("restart: the old process handed over no namespace");
	if (!isolate_root_in_init_userns() &&
	    (owner = ioctl(ctx->ns_fd, NS_GET_USERNS)) >= 0) {
		int ret = join_userns(owner);

		close(owner);
		if (ret < 0) {
			errno = -ret;
			die_perror("restart: joining the namespace's owner");
		}
	}
	if (*c->netns && !c->no_netns_quit)
		pasta_netns_watch_init(c->netns);
	if (c->target_pid || pasta_netns_pid)
		pasta_target_pidfd = (int)syscall(SYS_pidfd_open, c->target_pid ?
						  c->target_pid :
						  pasta_netns_pid, 0);
}

/**
 * pasta_tap_vnet_hdr() - Do frames on the tap device carry a virtio-net header?
 *
 * Return: true for the device we create, as the -F device says otherwise
 */
bool pasta_tap_vnet_hdr(void)
{
	return pasta_tap_vnet;
}

/**
 * struct pasta_listen_arg - In and out of pasta_listen_ns_fn()
 * @ctx:	Context
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @t:		Table (-T or -U)
 */
struct pasta_listen_arg {
	struct ctx *ctx;
	uint8_t proto;
	const struct fwd_table *t;
};

/**
 * pasta_listen_ns_fn() - In the target namespace: open the listeners
 * @p:		struct pasta_listen_arg
 *
 * Return: what fwd_listen() returns
 */
static int pasta_listen_ns_fn(void *p)
{
	struct pasta_listen_arg *a = p;

	return fwd_listen(a->ctx, a->proto, a->t, true);
}

/**
 * pasta_listen_ns() - Open the listeners of -T or -U inside the namespace
 * @ctx:	Context, after pasta_setup() (ns_fd, epollfd)
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @t:		Table
 *
 * The sockets belong to the namespace but sit in our fd table and epoll
 * set, with ref.listen.ns set (see fwd_listen()).
 *
 * Context: set-up
 * Return: number of sockets opened, or -errno (logged by fwd_listen())
 */
int pasta_listen_ns(struct ctx *ctx, uint8_t proto, const struct fwd_table *t)
{
	struct pasta_listen_arg a = { .ctx = ctx, .proto = proto, .t = t };

	if (!t->n || ctx->ns_fd < 0)
		return 0;
	return pasta_ns_call(ctx->ns_fd, pasta_listen_ns_fn, &a);
}

/**
 * pasta_start_child() - Let the spawned child run its command
 *
 * Return: true if there is such a child
 */
bool pasta_start_child(void)
{
	if (pasta_go_fd < 0)
		return false;
	if (write(pasta_go_fd, "g", 1) != 1)
		warn_perror("starting the command");
	close(pasta_go_fd);
	pasta_go_fd = -1;
	return true;
}

/**
 * pasta_child_pid_get() - PID of the command we spawned
 *
 * Return: PID, or 0 if none
 */
pid_t pasta_child_pid_get(void)
{
	return pasta_child_pid;
}

/**
 * pasta_netns_gone() - Has the --netns target been deleted?
 * @ctx:	Context
 *
 * Reads what the inotify watch of pasta_netns_watch_init() collected: the
 * file was deleted or renamed ("ip netns del"), or its directory went away.
 *
 * Context: main loop (housekeeping), non-blocking
 * #syscalls:pasta read
 * Return: true if so
 */
bool pasta_netns_gone(const struct ctx *ctx)
{
	char buf[sizeof(struct inotify_event) + NAME_MAX + 1]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	bool gone = false;
	ssize_t n;

	if (!*ctx->c.netns || pasta_netns_watch < 0)
		return false;

	while ((n = read(pasta_netns_watch, buf, sizeof(buf))) > 0) {
		const char *p = buf;

		while (p + sizeof(struct inotify_event) <= buf + n) {
			const struct inotify_event *ev = (const void *)p;

			if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF |
					IN_UNMOUNT))
				gone = true;
			if (ev->len && !strcmp(ev->name, pasta_netns_name))
				gone = true;
			p += sizeof(*ev) + ev->len;
		}
	}
	return gone;
}

/**
 * pasta_watch_add() - Have the main loop woken when the target goes away
 * @ctx:	Context, epoll instance created
 *
 * The inotify watch of --netns (pasta_netns_watch_init()) and the pidfd of
 * the target PID become readable when the namespace file is deleted or
 * the process exits: pasta exits at once rather than at the next
 * housekeeping tick.
 *
 * Context: set-up, after pasta_setup()
 */
void pasta_watch_add(struct ctx *ctx)
{
	int fds[2] = { pasta_netns_watch, pasta_target_pidfd };
	unsigned i;

	if (ctx->c.no_netns_quit)
		return;
	for (i = 0; i < 2; i++) {
		union epoll_ref ref = { .type = EPOLL_TYPE_NS_WATCH };
		struct epoll_event ev = { .events = EPOLLIN };

		if (fds[i] < 0)
			continue;
		ref.fd = (uint32_t)fds[i] & EPOLL_REF_FD_MAX;
		ev.data.u64 = ref.u64;
		if (epoll_ctl(ctx->epollfd, EPOLL_CTL_ADD, fds[i], &ev))
			debug_perror("epoll_ctl on the namespace watch");
	}
}

/**
 * pasta_target_gone() - Has the target PID exited?
 * @ctx:	Context
 *
 * A pidfd (pidfd_open(2), Linux 5.3) tells even if nobody reaps the
 * process; without one, kill(pid, 0) tells once it is reaped.
 *
 * #syscalls:pasta kill poll ppoll
 * Return: true if the PID given on the command line, or the one of a
 *	   --netns /proc/PID/ns/net path, no longer exists
 */
bool pasta_target_gone(const struct ctx *ctx)
{
	pid_t pid = ctx->c.target_pid ? ctx->c.target_pid : pasta_netns_pid;

	if (!pid)
		return false;
	if (pasta_target_pidfd >= 0) {
		/* readable once it has exited, reaped or not */
		struct pollfd p = { .fd = pasta_target_pidfd,
				    .events = POLLIN };

		return poll(&p, 1, 0) > 0;
	}
	return kill(pid, 0) < 0 && errno == ESRCH;
}
