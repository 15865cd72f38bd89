// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/isolation.c - Privilege reduction in stages, and the seccomp filter
 *
 * DOC: Theory of Operation
 *
 * The daemon parses frames from an untrusted guest, so once set up it runs
 * with as little as possible: no capabilities, no file system, no way to
 * gain privileges back, and only the system calls its code needs.  Set-up
 * itself needs privileges (the tap device, namespaces, low ports), so
 * isolation comes in three stages:
 *
 * 1. isolate_initial(), right after the command line is parsed: close every
 *    file descriptor we didn't open (stdin, stdout, stderr and -F stay),
 *    size RLIMIT_NOFILE for --flow-max (limits_nofile_init()), and drop the
 *    capabilities set-up never needs (isolate_setup_caps[] lists the ones
 *    that stay, with the reason).
 *
 * 2. isolate_prefork(), after set-up (sockets, tap, listeners, pid file),
 *    before the command pasta spawned is let go:
 *    - without CAP_SYS_ADMIN (an unprivileged passt, say) we create a user
 *      namespace that maps our own IDs, which gives us capabilities for the
 *      next steps, over that namespace only;
 *    - unshare mount, IPC and UTS namespaces; make every mount private,
 *      mount an empty read-only tmpfs, pivot_root() into it and detach the
 *      old root, so that nothing of the file system stays reachable
 *      (sockets, the tap, log and capture files are open already);
 *    - started as root in the initial user namespace: switch to the --runas
 *      user or nobody, without supplementary groups, or refuse to go on;
 *    - drop every capability (CAP_NET_BIND_SERVICE stays if a forwarded
 *      port is below net.ipv4.ip_unprivileged_port_start), clear the
 *      bounding and ambient sets, and set no_new_privs.
 *
 * 3. isolate_postfork(), just before the loop: install the seccomp filter.
 *
 * Seccomp.  The allow-list is generated at build time by passt/seccomp.sh,
 * from the "#syscalls" lines in function comments all over the tree, into
 * $(BUILD)/gen/seccomp_list.h: one entry per system call, with the modes
 * that need it and, as its reason, the functions that asked for it
 * ("#syscalls:pasta" and "#syscalls:passt" lines apply to one mode;
 * "#syscalls:helper" lines belong to a helper process with a filter of its
 * own, isolate_seccomp_helper(), and are not in the daemon's).
 * System calls that libc makes on our behalf are listed the same way, in
 * the libc_*() comment blocks below.  Rules that can't be a plain "allow"
 * are in seccomp_special[]: argument checks, each with its reason.  Such a
 * rule replaces a plain entry of the same name, and may be installed only
 * if some "#syscalls" line asks for the name in the mode: ioctl(), listed
 * by the devmem reader, is allowed for DMA_BUF_IOCTL_SYNC on the bound
 * dma-buf only, and only if a dma-buf is bound (--devmem that worked);
 * by the TCP migration (passt only), for SIOCINQ, SIOCOUTQ and SIOCOUTQNSD,
 * the queue lengths a dump reads; the tap and udmabuf ioctls run during
 * set-up, before the filter.
 * Neither mode starts a process or a thread once the filter is in (the
 * namespace work of pasta_ns_call() is all done during set-up; the splice
 * helper is forked before): clone(), clone3(), fork() and vfork() are on no list.
 * Anything else kills the process (SECCOMP_RET_KILL_PROCESS, SIGSYS), on
 * every thread (SECCOMP_FILTER_FLAG_TSYNC); system calls through another
 * architecture's entry point (i386 or x32 on x86_64) kill it too.
 *
 * Sanitizer builds (SAN=1, SANITIZER_BUILD): the ASan and UBSan run-times
 * make system calls of their own at any time (shadow mappings, reading
 * /proc/self/maps, starting a symbolizer for a report), and a report is
 * worth more than a kill.  There the filter's default action is
 * SECCOMP_RET_LOG: a call off the list goes through and the kernel logs it
 * ("audit: type=1326 ... syscall=N" in dmesg, which is also the way to find
 * a missing entry), and the pivot_root() step is left out so that reports
 * stay symbolized.  Release builds always kill, and make check runs every
 * integration test with the release build.
 *
 * Threads.  Stages 1 and 2 must run while the process has a single thread:
 * unshare(CLONE_NEWUSER) refuses otherwise, and unshare(CLONE_NEWNS) would
 * only move the calling thread.  After stage 2 no capability is left, so
 * setns() fails with EPERM: work in the target namespace after set-up needs
 * sockets, pipes or a helper thread prepared during set-up.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/dma-buf.h>
#include <linux/sockios.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cap-ng.h>

#include "../lib/log.h"
#include "../lib/visible.h"
#include "devmem.h"
#include "isolation.h"
#include "limits.h"
#include "ctx.h"
#include "sdlisten.h"

#define SECCOMP_M_PASTA		BIT(MODE_PASTA)
#define SECCOMP_M_PASST		BIT(MODE_PASST)
#define SECCOMP_M_BOTH		(SECCOMP_M_PASTA | SECCOMP_M_PASST)
#define SECCOMP_M_HELPER	BIT(8)	/* a helper's own filter, not ours */

#ifdef SANITIZER_BUILD
#define SECCOMP_DEFAULT_ACTION	SCMP_ACT_LOG
#define ISOLATE_PIVOT_ROOT	false
#else
#define SECCOMP_DEFAULT_ACTION	SCMP_ACT_KILL_PROCESS
#define ISOLATE_PIVOT_ROOT	true
#endif

#define PORT_START_PATH		"/proc/sys/net/ipv4/ip_unprivileged_port_start"
#define PORT_START_DEFAULT	1024	/* ip-sysctl.rst */

/* personality(0xffffffff) only reads the execution domain: harmless even if
 * a broken filter let it through.  It is on no list (isolation_test.c).
 */
#define FORBIDDEN_SYSCALL	SYS_personality
#define FORBIDDEN_ARG		0xffffffffUL

/**
 * struct seccomp_allow - Generated allow-list entry
 * @name:	System call name
 * @modes:	SECCOMP_M_PASTA and/or SECCOMP_M_PASST
 * @why:	Functions that need it ("passt/tcp.c: tcp_sndbuf_free()"; ...)
 */
struct seccomp_allow {
	const char *name;
	unsigned long modes;
	const char *why;
};

static const struct seccomp_allow seccomp_allow[] = {
#define SECCOMP_ENTRY(n, m, w)	{ (n), (m), (w) },
#include "seccomp_list.h"
#undef SECCOMP_ENTRY
};

/**
 * struct seccomp_special - Rule that is not a plain "allow"
 * @name:	System call name; a generated entry of the same name is
 *		replaced by this rule
 * @modes:	SECCOMP_M_PASTA and/or SECCOMP_M_PASST
 * @if_listed:	Only if some "#syscalls" line asks for @name in the mode
 * @dmabuf:	Only with a bound dma-buf, whose fd is compared with the
 *		last entry of @arg (its datum_a is filled in at load time)
 * @action:	SCMP_ACT_ALLOW (with @arg checks) or SCMP_ACT_ERRNO(e)
 * @nargs:	Argument comparisons in @arg, all must match
 * @arg:	Comparisons
 * @why:	Reason
 */
struct seccomp_special {
	const char *name;
	unsigned long modes;
	bool if_listed;
	bool dmabuf;
	uint32_t action;
	unsigned nargs;
	struct scmp_arg_cmp arg[2];
	const char *why;
};

/* ioctl() request numbers are 32 bits (unsigned int cmd in the kernel's
 * ksys_ioctl()): compare those only
 */
#define IOCTL_CMD_MASK		0xffffffffUL

static const struct seccomp_special seccomp_special[] = {
	{ "mmap", SECCOMP_M_BOTH, false, false, SCMP_ACT_ALLOW, 1,
	  { { .arg = 2, .op = SCMP_CMP_MASKED_EQ, .datum_a = PROT_EXEC,
	      .datum_b = 0 } },
	  "malloc() inside libc (syslog() of a long message): memory, "
	  "never executable" },
	{ "ioctl", SECCOMP_M_BOTH, true, true, SCMP_ACT_ALLOW, 2,
	  { { .arg = 1, .op = SCMP_CMP_MASKED_EQ, .datum_a = IOCTL_CMD_MASK,
	      .datum_b = DMA_BUF_IOCTL_SYNC },
	    { .arg = 0, .op = SCMP_CMP_EQ /* .datum_a: the dma-buf fd */ } },
	  "devmem reader (dm_sync()): DMA_BUF_IOCTL_SYNC on the bound dma-buf, "
	  "with --devmem only" },
	{ "ioctl", SECCOMP_M_PASST, true, false, SCMP_ACT_ALLOW, 1,
	  { { .arg = 1, .op = SCMP_CMP_MASKED_EQ, .datum_a = IOCTL_CMD_MASK,
	      .datum_b = SIOCINQ } },
	  "TCP migration (tcp_repair_dump()): receive queue length, a "
	  "read-only query" },
	{ "ioctl", SECCOMP_M_PASST, true, false, SCMP_ACT_ALLOW, 1,
	  { { .arg = 1, .op = SCMP_CMP_MASKED_EQ, .datum_a = IOCTL_CMD_MASK,
	      .datum_b = SIOCOUTQ } },
	  "TCP migration (tcp_repair_dump()): send queue length" },
	{ "ioctl", SECCOMP_M_PASST, true, false, SCMP_ACT_ALLOW, 1,
	  { { .arg = 1, .op = SCMP_CMP_MASKED_EQ, .datum_a = IOCTL_CMD_MASK,
	      .datum_b = SIOCOUTQNSD } },
	  "TCP migration (tcp_repair_dump()): bytes of it never sent" },
	{ "kill", SECCOMP_M_PASTA, true, false, SCMP_ACT_ALLOW, 1,
	  { { .arg = 1, .op = SCMP_CMP_EQ, .datum_a = 0 } },
	  "pasta_target_gone(): kill(pid, 0) only asks whether the target "
	  "exists; no signal is ever sent (kill(2))" },
};

/**
 * seccomp_listed() - Does the generated list ask for a system call?
 * @name:	System call name
 * @m:		Mode bit
 *
 * Return: true if an entry has @name and @m
 */
static bool seccomp_listed(const char *name, unsigned long m)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(seccomp_allow); i++)
		if ((seccomp_allow[i].modes & m) &&
		    !strcmp(seccomp_allow[i].name, name))
			return true;
	return false;
}

/**
 * seccomp_is_special() - Is a system call ruled by seccomp_special[]?
 * @name:	System call name
 * @m:		Mode bit
 *
 * Return: true if a special rule for @name applies to @m
 */
static bool seccomp_is_special(const char *name, unsigned long m)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(seccomp_special); i++)
		if ((seccomp_special[i].modes & m) &&
		    !strcmp(seccomp_special[i].name, name))
			return true;
	return false;
}

/*
 * libc_exit - exit(), _exit() and returning from main() end the process
 *
 * #syscalls exit_group
 */

/*
 * libc_free - free() and realloc() of memory libc allocated for itself
 *	       (mmap() is in seccomp_special[])
 *
 * #syscalls brk munmap mremap madvise
 */

/*
 * libc_syslog - syslog() with LOG_PID calls getpid() for each message and
 *		 sends it with send(); a connection to /dev/log that broke
 *		 (syslog daemon restarted) is opened again, which fails
 *		 harmlessly once the file system is gone
 *
 * #syscalls getpid sendto socket connect close
 */

/*
 * libc_clock - clock_gettime() is served by the vDSO, but falls back to the
 *		system call with some clock sources (virtual machines)
 *
 * #syscalls clock_gettime
 */

/*
 * libc_restart - A system call interrupted by a stop signal (SIGSTOP, then
 *		  SIGCONT) is resumed with restart_syscall()
 *
 * #syscalls restart_syscall
 */

/*
 * libc_locks - libc's internal locks (syslog(), stdio) wait and wake with
 *		futex() when another thread holds them
 *
 * #syscalls futex
 */

/**
 * struct isolate_cap - Capability kept for set-up
 * @cap:	CAP_* value
 * @why:	What set-up needs it for
 */
struct isolate_cap {
	unsigned cap;
	const char *why;
};

static const struct isolate_cap isolate_setup_caps[] = {
	{ CAP_NET_ADMIN,	"tap device, links, addresses and routes in the "
				"namespace; devmem binding" },
	{ CAP_SYS_ADMIN,	"setns(), unshare(), mount() and pivot_root()" },
	{ CAP_SYS_CHROOT,	"chroot() of --chroot-fallback" },
	{ CAP_NET_BIND_SERVICE,	"forwarded ports below "
				"ip_unprivileged_port_start" },
	{ CAP_NET_RAW,		"SO_BINDTODEVICE on forwarded-port listeners" },
	{ CAP_SETUID,		"switching to --runas or nobody" },
	{ CAP_SETGID,		"switching to --runas or nobody" },
	{ CAP_SETPCAP,		"clearing the bounding set" },
	{ CAP_SYS_RESOURCE,	"pipe sizes above fs.pipe-max-size" },
	{ CAP_CHOWN,		"handing passt's socket file to --runas" },
	{ CAP_DAC_OVERRIDE,	"pid, log and capture files, /dev/net/tun" },
	{ CAP_DAC_READ_SEARCH,	"--netns and --userns paths" },
	{ CAP_SYS_PTRACE,	"/proc/PID/ns/ of a target of another user" },
};

static bool isolate_root_init;		/* started as root, initial userns */
static bool isolate_root_init_known;
static unsigned isolate_port_start = PORT_START_DEFAULT;

/**
 * isolate_read_file() - Read a small file into a NUL-terminated buffer
 * @path:	File
 * @buf:	Buffer
 * @len:	Size of @buf, bytes
 *
 * Return: bytes read, or -errno
 */
static ssize_t isolate_read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	else
		buf[n] = '\0';
	close(fd);
	return n;
}

/**
 * isolate_write_file() - Write a string to a file (uid_map and friends)
 * @path:	File
 * @s:		Content
 *
 * Return: 0, or -errno
 */
static int isolate_write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;
	size_t len = strlen(s);

	if (fd < 0)
		return -errno;
	if (write(fd, s, len) != (ssize_t)len)
		ret = -errno;
	close(fd);
	return ret;
}

/**
 * isolate_userns_is_init() - Are we in the initial user namespace?
 *
 * The initial namespace maps every ID to itself: its uid_map is the single
 * line "0 0 4294967295" (user_namespaces(7)).
 *
 * Return: true if so (or if /proc can't tell: assume the stricter case)
 */
static bool isolate_userns_is_init(void)
{
	unsigned long in, out, count;
	char buf[256];
	const char *nl;

	if (isolate_read_file("/proc/self/uid_map", buf, sizeof(buf)) <= 0)
		return true;
	if (sscanf(buf, "%lu %lu %lu", &in, &out, &count) != 3)
		return true;
	nl = strchr(buf, '\n');
	if (nl && nl[1])
		return false;		/* more than one range */
	return in == 0 && out == 0 && count == 4294967295UL;
}

/**
 * isolate_root_in_init_userns() - Were we started as root in the initial
 *				   user namespace?
 *
 * Such a process switches to --runas or nobody after set-up, and needs no
 * user namespace to set up any network namespace.
 *
 * Return: true if so
 */
bool isolate_root_in_init_userns(void)
{
	if (!isolate_root_init_known) {
		isolate_root_init = geteuid() == 0 && isolate_userns_is_init();
		isolate_root_init_known = true;
	}
	return isolate_root_init;
}

/**
 * isolate_have_cap() - Is a capability in our effective set?
 * @cap:	CAP_* value
 *
 * Return: true if so
 */
static bool isolate_have_cap(unsigned cap)
{
	if (capng_get_caps_process())
		return false;
	return capng_have_capability(CAPNG_EFFECTIVE, cap) == 1;
}

/**
 * isolate_close_fds() - Close every inherited file descriptor but stdio
 * @keep:	One more descriptor to keep (-F), or -1
 *
 * Context: start-up, before anything of ours is open
 */
static void isolate_close_fds(int keep)
{
	int ret;

	if (keep > STDERR_FILENO) {
		ret = keep > STDERR_FILENO + 1 ?
		      close_range(STDERR_FILENO + 1, (unsigned)keep - 1, 0) : 0;
		if (!ret)
			ret = close_range((unsigned)keep + 1, ~0U, 0);
	} else {
		ret = close_range(STDERR_FILENO + 1, ~0U, 0);
	}
	if (ret)
		warn_perror("close_range()");
}

/**
 * isolate_drop_setup_caps() - Drop the capabilities set-up doesn't need
 *
 * Only the effective, permitted and inheritable sets change: the bounding
 * set stays, so that a command pasta spawns as root still gets the
 * capabilities root normally has.
 */
static void isolate_drop_setup_caps(void)
{
	bool had[ARRAY_SIZE(isolate_setup_caps)];
	size_t i;

	if (capng_get_caps_process() ||
	    capng_have_capabilities(CAPNG_SELECT_CAPS) == CAPNG_NONE)
		return;

	for (i = 0; i < ARRAY_SIZE(isolate_setup_caps); i++)
		had[i] = capng_have_capability(CAPNG_PERMITTED,
					       isolate_setup_caps[i].cap) == 1;
	capng_clear(CAPNG_SELECT_CAPS);
	for (i = 0; i < ARRAY_SIZE(isolate_setup_caps); i++) {
		if (had[i])
			capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED,
				     isolate_setup_caps[i].cap);
	}
	if (capng_apply(CAPNG_SELECT_CAPS))
		warn("can't drop capabilities not needed for set-up");
}

/**
 * isolate_initial() - Stage 1: before set-up
 * @ctx:	Context, with the configuration parsed
 *
 * Context: start-up, single-threaded; dies if RLIMIT_NOFILE can't be read
 *	    or set at all, or leaves no room for the ports given explicitly
 *	    (limits_listen_plan())
 */
void isolate_initial(struct ctx *ctx)
{
	const struct conf *c = &ctx->c;
	char buf[32], why[256];
	int ret;

	isolate_root_init_known = false;
	isolate_root_in_init_userns();

	if (isolate_read_file(PORT_START_PATH, buf, sizeof(buf)) > 0)
		isolate_port_start = (unsigned)strtoul(buf, NULL, 10);

	/* -F (pasta: a tap device), or the listening socket from systemd
	 * (passt/sdlisten.c)
	 */
	isolate_close_fds(c->fd >= 0 ? c->fd :
			  c->mode != MODE_PASST ? -1 : sdlisten_fd());

	if ((ret = limits_nofile_init(c)) < 0) {
		errno = -ret;
		die_perror("setrlimit(RLIMIT_NOFILE)");
	}
	if (limits_listen_plan(c, limits_nofile(), why, sizeof(why)) < 0)
		die("%s", why);

	isolate_drop_setup_caps();
}

/**
 * isolate_userns_own() - Create a user namespace that maps our own IDs
 *
 * An unprivileged process gets every capability over the namespaces it
 * creates: enough to detach from the file system.  Nothing else changes:
 * the network namespace, its sockets and our IDs as seen from outside stay
 * what they were.
 *
 * Return: 0, or -errno (unprivileged user namespaces disabled, say)
 */
static int isolate_userns_own(void)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	char map[64];
	int ret;

	if (unshare(CLONE_NEWUSER))
		return -errno;

	/* Needed before gid_map can be written without privileges */
	isolate_write_file("/proc/self/setgroups", "deny");
	snprintf(map, sizeof(map), "%u %u 1", uid, uid);
	if ((ret = isolate_write_file("/proc/self/uid_map", map)))
		return ret;
	snprintf(map, sizeof(map), "%u %u 1", gid, gid);
	return isolate_write_file("/proc/self/gid_map", map);
}

/**
 * isolate_pivot_empty() - Make an empty read-only tmpfs our root
 * @chroot_fallback:	chroot() into it if pivot_root() fails
 *
 * Mounts stop propagating both ways first (MS_PRIVATE, recursively), so
 * nothing we do is seen outside and the host's later mounts don't reach us.
 * The old root is detached lazily after pivot_root(".", "."), the form
 * pivot_root(2) documents for this.
 *
 * Return: 0, or -errno
 */
static int isolate_pivot_empty(bool chroot_fallback)
{
	static const char *const dirs[] = { "/tmp", "/run", "/var/tmp", "/dev",
					    "/proc" };
	const char *dir = NULL;
	bool all_private;
	size_t i;

	/* In a chroot, "/" is no mount point (EINVAL): with the fallback, the
	 * mount we put the tmpfs on must be private itself, so that the
	 * tmpfs doesn't show up outside
	 */
	all_private = !mount("", "/", "", MS_REC | MS_PRIVATE, NULL);
	if (!all_private && !chroot_fallback)
		return -errno;

	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		if (!all_private &&
		    mount("", dirs[i], "", MS_PRIVATE, NULL))
			continue;
		if (!mount("passt-root", dirs[i], "tmpfs",
			   MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY,
			   "nr_inodes=2,size=4k,mode=0555")) {
			dir = dirs[i];
			break;
		}
	}
	if (!dir)
		return -errno;

	if (chdir(dir))
		return -errno;
	if (syscall(SYS_pivot_root, ".", ".")) {
		/* EINVAL: our root is no mount point (initramfs, a chroot) */
		if (!chroot_fallback)
			return -errno;
		debug_perror("pivot_root(): chroot() instead (--chroot-fallback)");
		if (chroot(".") || chdir("/"))
			return -errno;
		return 0;
	}
	if (umount2(".", MNT_DETACH) || chdir("/"))
		return -errno;
	return 0;
}

/**
 * isolate_detach() - New mount, IPC and UTS namespaces; empty root
 * @chroot_fallback:	--chroot-fallback: chroot() where pivot_root() fails
 *
 * Context: single-threaded, with CAP_SYS_ADMIN over our user namespace
 */
static void isolate_detach(bool chroot_fallback)
{
	int ret;

	if (unshare(CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS)) {
		warn_perror("unshare() of mount, IPC and UTS namespaces: they "
			    "stay shared");
		return;
	}
	if (!ISOLATE_PIVOT_ROOT) {
		debug("sanitizer build: file system left in place, for "
		      "symbolized reports");
		return;
	}
	if ((ret = isolate_pivot_empty(chroot_fallback)) < 0) {
		errno = -ret;
		warn_perror("can't switch to an empty root directory: the file "
			    "system stays reachable");
	}
}

/**
 * isolate_helper() - Detach a helper process the way the daemon detaches
 * @c:		Configuration (--runas)
 *
 * For a process forked during set-up that keeps running (the namespace
 * socket helper): new mount, IPC and UTS namespaces with an empty root,
 * and, started as root, the switch to the --runas user or nobody.  Call
 * after the helper entered the namespaces it needs, before it drops its
 * capabilities.  A configuration without a user to switch to (UID 0, as
 * in tests that build a bare context) leaves the IDs as they are: the
 * daemon itself refuses to go on as root.
 *
 * Context: forked helper, single-threaded
 * Return: 0, or -EPERM if the switch of IDs failed
 */
int isolate_helper(const struct conf *c)
{
	if (isolate_have_cap(CAP_SYS_ADMIN))
		isolate_detach(c->chroot_fallback);
	if (!isolate_root_in_init_userns() || c->uid == 0)
		return 0;
	if (capng_get_caps_process())
		return -EPERM;
	capng_clear(CAPNG_SELECT_BOTH);
	if (capng_change_id((int)c->uid, (int)c->gid,
			    CAPNG_DROP_SUPP_GRP | CAPNG_CLEAR_BOUNDING))
		return -EPERM;
	return 0;
}

/**
 * isolate_helper_keep() - Detach a helper that keeps one capability
 * @c:		Configuration (--runas, --chroot-fallback)
 * @cap:	CAP_* value to keep, effective and permitted, over the
 *		namespaces the helper is in
 *
 * As isolate_helper() (new mount, IPC and UTS namespaces with an empty
 * root; started as root in the initial user namespace, the switch to the
 * --runas user or nobody), but @cap survives the switch of IDs, and every
 * other capability is dropped here, the bounding set cleared.  For pasta's
 * namespace configuration helper (passt/nsconf.c), which keeps
 * CAP_NET_ADMIN.
 *
 * Context: forked helper, single-threaded, in its target namespaces
 * Return: 0, or -EPERM if the capabilities or IDs couldn't be changed
 */
int isolate_helper_keep(const struct conf *c, unsigned cap)
{
	if (isolate_have_cap(CAP_SYS_ADMIN))
		isolate_detach(c->chroot_fallback);
	if (capng_get_caps_process())
		return -EPERM;
	capng_clear(CAPNG_SELECT_BOTH);
	capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED, cap);
	if (isolate_root_in_init_userns() && c->uid) {
		if (capng_change_id((int)c->uid, (int)c->gid,
				    CAPNG_DROP_SUPP_GRP | CAPNG_CLEAR_BOUNDING))
			return -EPERM;
		return 0;
	}
	return capng_apply(CAPNG_SELECT_BOTH) ? -EPERM : 0;
}

/**
 * isolate_low_ports() - Does a forwarding rule include a privileged port?
 * @c:		Configuration
 *
 * Return: true if a port of -t, -u, -T or -U is below
 *	   net.ipv4.ip_unprivileged_port_start
 */
static bool isolate_low_ports(const struct conf *c)
{
	const struct fwd_table *t[] = { &c->tcp_in, &c->udp_in, &c->tcp_out,
					&c->udp_out };
	size_t i;
	unsigned j;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		for (j = 0; j < t[i]->n; j++)
			if (t[i]->rules[j].first < isolate_port_start)
				return true;
	return false;
}

/**
 * isolate_drop() - Switch user if started as root, drop every capability
 * @c:		Configuration (--runas, forwarding rules)
 *
 * Started as root in the initial user namespace with --runas 0, we stay
 * UID 0 with no capability left (a warning says so).
 *
 * Context: single-threaded; dies rather than run on as root with
 *	    capabilities
 */
static void isolate_drop(const struct conf *c)
{
	bool bind = isolate_low_ports(c);
	int rc;

	if (capng_get_caps_process())
		die("can't read our capabilities");
	capng_clear(CAPNG_SELECT_ALL);
	if (bind)
		capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED,
			     CAP_NET_BIND_SERVICE);

	if (isolate_root_in_init_userns() && c->uid == 0) {
		/* --runas 0: stay UID 0, with nothing a root process has
		 * beyond its UID: every capability, bounding and ambient
		 * sets included (upstream's behaviour)
		 */
		warn("--runas 0: staying root (UID 0), without capabilities");
		capng_clear(CAPNG_SELECT_ALL);
		if (capng_apply(CAPNG_SELECT_BOTH) ||
		    capng_apply(CAPNG_SELECT_AMBIENT))
			die("can't drop capabilities: refusing to keep running "
			    "as root");
	} else if (isolate_root_in_init_userns()) {
		rc = capng_change_id((int)c->uid, (int)c->gid,
				     CAPNG_DROP_SUPP_GRP | CAPNG_CLEAR_BOUNDING);
		if (rc)
			die("can't switch to UID %u, GID %u (capng_change_id() "
			    "failed: %d): refusing to keep running as root",
			    (unsigned)c->uid, (unsigned)c->gid, rc);
		info("running as UID %u, GID %u", (unsigned)c->uid,
		     (unsigned)c->gid);
		/* the bounding set was cleared, now the ambient one */
		capng_clear(CAPNG_SELECT_AMBIENT);
		if (capng_apply(CAPNG_SELECT_AMBIENT))
			die("can't clear the ambient capability set");
	} else {
		if (c->runas_set && c->uid != geteuid())
			info("--runas ignored: not started as root");
		if (isolate_have_cap(CAP_SETPCAP)) {
			capng_clear(CAPNG_SELECT_ALL);
			if (bind)
				capng_update(CAPNG_ADD,
					     CAPNG_EFFECTIVE | CAPNG_PERMITTED,
					     CAP_NET_BIND_SERVICE);
			if (capng_apply(CAPNG_SELECT_BOUNDS))
				die("can't clear the capability bounding set");
		} else {
			capng_clear(CAPNG_SELECT_ALL);
			if (bind)
				capng_update(CAPNG_ADD,
					     CAPNG_EFFECTIVE | CAPNG_PERMITTED,
					     CAP_NET_BIND_SERVICE);
			debug("no CAP_SETPCAP: the bounding set stays as it is");
		}
		if (capng_apply(CAPNG_SELECT_CAPS) ||
		    capng_apply(CAPNG_SELECT_AMBIENT))
			die("can't drop capabilities");
	}

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		die_perror("prctl(PR_SET_NO_NEW_PRIVS)");
}

/**
 * isolate_prefork() - Stage 2: after set-up
 * @ctx:	Context
 *
 * Context: single-threaded; dies rather than keep running as root
 */
void isolate_prefork(struct ctx *ctx)
{
	int ret;

	/* syslog() stamps messages with the local time: read the zone file
	 * while there is a file system
	 */
	tzset();

	if (!isolate_have_cap(CAP_SYS_ADMIN) && !isolate_root_in_init_userns() &&
	    (ret = isolate_userns_own()) < 0) {
		errno = -ret;
		warn_perror("can't create a user namespace");
	}

	if (isolate_have_cap(CAP_SYS_ADMIN))
		isolate_detach(ctx->c.chroot_fallback);
	else
		warn("no CAP_SYS_ADMIN: mount, IPC and UTS namespaces stay "
		     "shared, the file system stays reachable");

	isolate_drop(&ctx->c);
}

/**
 * isolate_seccomp_add() - Add one rule
 * @sc:		Filter being built
 * @name:	System call name
 * @action:	SCMP_ACT_*
 * @nargs:	Argument comparisons in @arg
 * @arg:	Comparisons, or NULL
 *
 * Return: 1 if added, 0 if the name is unknown here (logged), or -errno
 */
static int isolate_seccomp_add(scmp_filter_ctx sc, const char *name,
			       uint32_t action, unsigned nargs,
			       const struct scmp_arg_cmp *arg)
{
	int nr = seccomp_syscall_resolve_name(name), rc;

	if (nr == __NR_SCMP_ERROR || nr < 0) {
		warn("seccomp: no system call '%s' on this architecture", name);
		return 0;
	}
	rc = seccomp_rule_add_array(sc, action, nr, nargs, arg);
	return rc < 0 ? rc : 1;
}

/**
 * isolate_seccomp_load() - Build and install the filter for a mode
 * @mode:	MODE_PASTA or MODE_PASST
 * @dmabuf_fd:	Bound dma-buf (devmem_dmabuf_fd()), -1 for none
 *
 * Return: number of rules, or -errno from libseccomp
 */
VISIBLE_IF_UNIT
int isolate_seccomp_load(enum conf_mode mode, int dmabuf_fd)
{
	unsigned long m = BIT(mode);
	scmp_filter_ctx sc;
	int rc, n = 0;
	size_t i;

	sc = seccomp_init(SECCOMP_DEFAULT_ACTION);
	if (!sc)
		return -ENOMEM;
	if ((rc = seccomp_attr_set(sc, SCMP_FLTATR_CTL_TSYNC, 1)) < 0)
		goto out;
	if ((rc = seccomp_attr_set(sc, SCMP_FLTATR_CTL_NNP, 1)) < 0)
		goto out;

	for (i = 0; i < ARRAY_SIZE(seccomp_allow); i++) {
		if (!(seccomp_allow[i].modes & m) ||
		    seccomp_is_special(seccomp_allow[i].name, m))
			continue;
		rc = isolate_seccomp_add(sc, seccomp_allow[i].name,
					 SCMP_ACT_ALLOW, 0, NULL);
		if (rc < 0)
			goto out;
		n += rc;
	}
	for (i = 0; i < ARRAY_SIZE(seccomp_special); i++) {
		const struct seccomp_special *s = &seccomp_special[i];
		struct scmp_arg_cmp arg[ARRAY_SIZE(s->arg)];

		if (!(s->modes & m) ||
		    (s->if_listed && !seccomp_listed(s->name, m)) ||
		    (s->dmabuf && dmabuf_fd < 0))
			continue;
		memcpy(arg, s->arg, sizeof(arg));
		if (s->dmabuf)
			arg[s->nargs - 1].datum_a = (scmp_datum_t)dmabuf_fd;
		rc = isolate_seccomp_add(sc, s->name, s->action, s->nargs,
					 arg);
		if (rc < 0)
			goto out;
		n += rc;
	}

	rc = seccomp_load(sc);
out:
	seccomp_release(sc);
	return rc < 0 ? rc : n;
}

#ifdef SANITIZER_BUILD
/* What the ASan run-time of a sanitizer build calls in a helper process,
 * on top of the helper's own list: write() and the shadow memory calls for
 * a report, and sigaltstack(), which it calls when the process exits (a
 * helper without it was killed by SIGSYS at every exit)
 */
static const char *const isolate_san_allow[] = {
	"write", "mmap", "munmap", "madvise", "getpid", "gettid",
	"sigaltstack",
};
#endif

/**
 * isolate_seccomp_helper() - Install the filter of a helper process
 *
 * The allow-list is the "#syscalls:helper" entries of the generated list
 * (passt/nsock.c); anything else kills the helper, in every build:
 * sanitizer builds also allow what the ASan run-time calls to write a
 * report and manage its shadow memory, and sigaltstack(), which it calls
 * when the helper exits (the helper was killed by SIGSYS at every exit).
 *
 * Context: forked helper, after no_new_privs, before serving requests
 * Return: number of rules, or -errno from libseccomp
 */
int isolate_seccomp_helper(void)
{
	return isolate_seccomp_helper_dirs(NULL, 0, 0);
}

/**
 * isolate_seccomp_helper_dirs() - A helper's filter, and openat() in some
 *				   directories
 * @dirs:	Directory fds (O_PATH) openat() may be relative to
 * @n_dirs:	Entries in @dirs, 0 for none (isolate_seccomp_helper())
 * @flags:	The only flags openat() may be called with
 *
 * As isolate_seccomp_helper(), plus one rule per entry of @dirs: openat()
 * with that directory fd as first argument and exactly @flags as the
 * third.  For the resolv.conf helper (passt/follow.c), which opens the
 * file again by name after it was replaced; no other helper, and never
 * the daemon, may open anything.
 *
 * Context: forked helper, after no_new_privs, before serving requests
 * Return: number of rules, or -errno from libseccomp
 */
int isolate_seccomp_helper_dirs(const int *dirs, unsigned n_dirs, int flags)
{
	scmp_filter_ctx sc;
	int rc = 0, n = 0;
	size_t i;

	sc = seccomp_init(SCMP_ACT_KILL_PROCESS);
	if (!sc)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(seccomp_allow); i++) {
		if (!(seccomp_allow[i].modes & SECCOMP_M_HELPER))
			continue;
		rc = isolate_seccomp_add(sc, seccomp_allow[i].name,
					 SCMP_ACT_ALLOW, 0, NULL);
		if (rc < 0)
			goto out;
		n += rc;
	}
#ifdef SANITIZER_BUILD
	for (i = 0; i < ARRAY_SIZE(isolate_san_allow); i++) {
		rc = isolate_seccomp_add(sc, isolate_san_allow[i],
					 SCMP_ACT_ALLOW, 0, NULL);
		if (rc < 0)
			goto out;
		n += rc;
	}
#endif
	for (i = 0; i < n_dirs; i++) {
		struct scmp_arg_cmp arg[2] = {
			{ .arg = 0, .op = SCMP_CMP_EQ,
			  .datum_a = (scmp_datum_t)dirs[i] },
			{ .arg = 2, .op = SCMP_CMP_EQ,
			  .datum_a = (scmp_datum_t)flags },
		};

		rc = isolate_seccomp_add(sc, "openat", SCMP_ACT_ALLOW, 2, arg);
		if (rc < 0)
			goto out;
		n += rc;
	}
	rc = seccomp_load(sc);
out:
	seccomp_release(sc);
	return rc < 0 ? rc : n;
}

/**
 * isolate_seccomp_only() - Install a filter that allows only some calls
 * @names:	System call names; those unknown on this architecture are
 *		skipped (a list may name the variants of several)
 * @n:		Number of names
 *
 * For a helper process with a fixed, short list (passt/sockfile.c):
 * anything else kills it, in every build; sanitizer builds also allow what
 * the ASan run-time calls (isolate_san_allow).
 *
 * Context: forked helper, after no_new_privs
 * Return: number of rules, or -errno from libseccomp
 */
int isolate_seccomp_only(const char *const *names, size_t n)
{
	scmp_filter_ctx sc;
	int rc = 0, k = 0, nr;
	size_t i;

	sc = seccomp_init(SCMP_ACT_KILL_PROCESS);
	if (!sc)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		nr = seccomp_syscall_resolve_name(names[i]);
		if (nr == __NR_SCMP_ERROR || nr < 0)
			continue;
		if ((rc = seccomp_rule_add(sc, SCMP_ACT_ALLOW, nr, 0)) < 0)
			goto out;
		k++;
	}
#ifdef SANITIZER_BUILD
	for (i = 0; i < ARRAY_SIZE(isolate_san_allow); i++) {
		rc = isolate_seccomp_add(sc, isolate_san_allow[i],
					 SCMP_ACT_ALLOW, 0, NULL);
		if (rc < 0)
			goto out;
		k += rc;
	}
#endif
	rc = seccomp_load(sc);
out:
	seccomp_release(sc);
	return rc < 0 ? rc : k;
}

/* What isolate_postfork() logs about the filter's action (a directive can't
 * sit inside a macro's arguments: C11 6.10.3 11)
 */
#ifdef SANITIZER_BUILD
#define SECCOMP_HOW	", violations logged only (sanitizer build)"
#else
#define SECCOMP_HOW	""
#endif

/**
 * isolate_postfork() - Stage 3: the seccomp filter, just before the loop
 * @ctx:	Context
 *
 * Context: dies if the filter can't be installed
 */
void isolate_postfork(struct ctx *ctx)
{
	int n = isolate_seccomp_load(ctx->c.mode, devmem_dmabuf_fd());

	if (n < 0) {
		errno = -n;
		die_perror("can't install the seccomp filter");
	}
	debug("seccomp: %d rules for %s%s", n,
	      ctx->c.mode == MODE_PASTA ? "pasta" : "passt", SECCOMP_HOW);
}

/**
 * isolate_forbidden_syscall() - Seccomp self-test: make a system call the
 *				 filter forbids
 *
 * Called on SIGUSR2 with the hidden --seccomp-selftest option (a test aid,
 * deliberately left out of --help and passt.1).  With the release filter
 * the kernel kills the process with SIGSYS inside this function.
 */
void isolate_forbidden_syscall(void)
{
	long r;

	warn("seccomp self-test: calling personality(), which no rule allows");
	r = syscall(FORBIDDEN_SYSCALL, FORBIDDEN_ARG);
	err("seccomp self-test: personality() returned %ld: not stopped", r);
}

