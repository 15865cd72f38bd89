// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/fake_netns.c - A scratch network namespace standing in for the host
 *
 * netns_enter_scratch() moves the calling process (a Check test child) into
 * a new, empty network namespace: directly as root, else inside a new user
 * namespace.  netns_host_topology() then builds the same "host" as the
 * integration tests' lib.sh: h0 with 198.51.100.1/24 and 2001:db8:1::1/64,
 * default routes via .2 and ::2, its veth peer r0 up without addresses.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake_netns.h"

/**
 * write_file() - Write a short string to a file
 * @path:	File
 * @s:		Contents
 *
 * Return: 0 or -errno
 */
static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -EIO;
}

/**
 * netns_enter_scratch() - Enter a new, empty network namespace (and bring
 *			   lo up), failing the test if that's not possible
 */
void netns_enter_scratch(void)
{
	char map[64];
	uid_t uid = geteuid();
	gid_t gid = getegid();

	if (unshare(CLONE_NEWNET)) {
		ck_assert_msg(!unshare(CLONE_NEWUSER | CLONE_NEWNET),
			      "can't create a network namespace: %s",
			      strerror(errno));
		write_file("/proc/self/setgroups", "deny");
		snprintf(map, sizeof(map), "0 %u 1", uid);
		ck_assert_int_eq(write_file("/proc/self/uid_map", map), 0);
		snprintf(map, sizeof(map), "0 %u 1", gid);
		ck_assert_int_eq(write_file("/proc/self/gid_map", map), 0);
	}
	netns_sh("ip link set lo up");
}

/**
 * netns_vsh() - Run a shell command, stdout and stderr to /dev/null
 * @fmt:	Command format
 * @ap:		Arguments
 *
 * Return: exit status of the shell, -1 if it didn't exit
 */
static int netns_vsh(const char *fmt, va_list ap)
{
	char cmd[1024], full[1100];
	int rc;

	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	snprintf(full, sizeof(full), "( %s ) >/dev/null 2>&1", cmd);
	rc = system(full);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/**
 * netns_sh() - Run a shell command, failing the test if it fails
 * @fmt:	Command format, then arguments
 */
void netns_sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	va_start(ap, fmt);
	rc = netns_vsh(fmt, ap);
	va_end(ap);
	ck_assert_msg(rc == 0, "'%s' failed with status %d", cmd, rc);
}

/**
 * netns_sh_rc() - Run a shell command
 * @fmt:	Command format, then arguments
 *
 * Return: exit status
 */
int netns_sh_rc(const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = netns_vsh(fmt, ap);
	va_end(ap);
	return rc;
}

/**
 * netns_out() - Run a shell command and capture its standard output
 * @buf:	Output, NUL-terminated, newlines kept
 * @len:	Size of @buf
 * @fmt:	Command format, then arguments
 */
void netns_out(char *buf, size_t len, const char *fmt, ...)
{
	char cmd[1024];
	size_t n = 0;
	va_list ap;
	FILE *p;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while (n + 1 < len) {
		size_t r = fread(buf + n, 1, len - 1 - n, p);

		if (!r)
			break;
		n += r;
	}
	buf[n] = '\0';
	pclose(p);
}

/**
 * netns_host_topology() - Build lib.sh's "host" side in this namespace
 */
void netns_host_topology(void)
{
	netns_sh("ip link add h0 type veth peer name r0");
	netns_sh("ip link set r0 addrgenmode none");
	netns_sh("ip link set r0 up && ip link set h0 up");
	netns_sh("ip addr add " TOPO_H4 "/24 dev h0");
	netns_sh("ip addr add " TOPO_H6 "/64 dev h0 nodad");
	netns_sh("ip route add default via " TOPO_R4);
	netns_sh("ip -6 route add default via " TOPO_R6);
}
