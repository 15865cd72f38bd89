// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/isolation_test.c - Seccomp list and filter, resource limits
 * (passt/isolation.c, passt/limits.c, passt/seccomp.sh)
 *
 * The allow-list is generated from "#syscalls" comments: every name in it
 * must be a system call of this architecture (a libc function name like
 * "recv" or "open" would silently allow nothing), and a few system calls
 * must never be in it.  The filter itself is installed in a child, which
 * must survive an allowed call and be killed with SIGSYS by a forbidden one
 * (release builds; sanitizer builds only log, see isolation.c).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../conf/conf.h"
#include "../../passt/follow.h"
#include "../../passt/isolation.h"
#include "../../passt/limits.h"
#include "../../passt/passt.h"

#define SECCOMP_M_PASTA		BIT(MODE_PASTA)
#define SECCOMP_M_PASST		BIT(MODE_PASST)
#define SECCOMP_M_BOTH		(SECCOMP_M_PASTA | SECCOMP_M_PASST)
#define SECCOMP_M_HELPER	BIT(8)

/* ioctl() requests, from the uapi headers, written out on purpose:
 * TCGETS 0x5401 (asm-generic/ioctls.h), DMA_BUF_IOCTL_SYNC
 * _IOW('b', 0, struct dma_buf_sync { __u64 flags; }) = 0x40086200
 */
#define K_TCGETS		0x5401
#define K_DMA_BUF_IOCTL_SYNC	0x40086200UL
#define K_DMABUF_FD		77	/* stands in for the bound dma-buf */

/**
 * struct entry - One generated allow-list entry
 * @name:	System call name
 * @modes:	Mode bits
 * @why:	Functions asking for it
 */
static const struct entry {
	const char *name;
	unsigned long modes;
	const char *why;
} list[] = {
#define SECCOMP_ENTRY(n, m, w)	{ (n), (m), (w) },
#include "seccomp_list.h"
#undef SECCOMP_ENTRY
};

/**
 * in_list() - Is a name in the generated list for a mode?
 * @name:	System call name
 * @modes:	Mode bits to look at
 *
 * Return: true if some entry has the name and one of @modes
 */
static bool in_list(const char *name, unsigned long modes)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(list); i++)
		if (!strcmp(list[i].name, name) && (list[i].modes & modes))
			return true;
	return false;
}

START_TEST(test_seccomp_list_names_are_syscalls)
{
	size_t i;

	ck_assert_uint_gt(ARRAY_SIZE(list), 10);
	for (i = 0; i < ARRAY_SIZE(list); i++) {
		int nr = seccomp_syscall_resolve_name(list[i].name);

		ck_assert_msg(nr >= 0, "'%s' (asked for by %s) is no system "
			      "call here", list[i].name, list[i].why);
		ck_assert_msg(list[i].why[0], "'%s' has no reason",
			      list[i].name);
	}
}
END_TEST

/* Never on the list: running programs, debugging other processes, mounts,
 * kernel modules and eBPF, the self-test's personality()
 */
START_TEST(test_seccomp_list_forbids_dangerous_calls)
{
	static const char *const never[] = {
		"execve", "execveat", "ptrace", "process_vm_writev",
		"process_vm_readv", "mount", "umount2", "pivot_root", "chroot",
		"unshare", "init_module", "finit_module", "delete_module",
		"kexec_load", "bpf", "personality", "setuid", "setresuid",
		"capset", "prctl", "seccomp", "open_by_handle_at", "keyctl",
		"add_key", "userfaultfd", "perf_event_open", "io_uring_setup",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(never); i++)
		ck_assert_msg(!in_list(never[i], SECCOMP_M_BOTH),
			      "'%s' must not be allowed", never[i]);
}
END_TEST

/* Never on the list either: changes to the file system.  The daemon keeps
 * no directory descriptor after set-up; socket files are removed at exit
 * by a helper with a filter of its own (passt/sockfile.c, issue 26)
 */
START_TEST(test_seccomp_list_no_file_changes)
{
	static const char *const never[] = {
		"unlink", "unlinkat", "rmdir", "rename", "renameat",
		"renameat2", "link", "linkat", "symlink", "symlinkat",
		"mkdir", "mkdirat", "mknod", "mknodat", "chmod", "fchmodat",
		"chown", "lchown", "fchownat", "truncate",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(never); i++)
		ck_assert_msg(!in_list(never[i], SECCOMP_M_BOTH),
			      "'%s' must not be allowed", never[i]);
}
END_TEST

/* mmap() is allowed by isolation.c's seccomp_special[] only, never
 * executable; mprotect() (making memory executable later) by nothing
 */
START_TEST(test_seccomp_list_leaves_special_rules_alone)
{
	ck_assert(!in_list("mmap", SECCOMP_M_BOTH));
	ck_assert(!in_list("mprotect", SECCOMP_M_BOTH));
}
END_TEST

/* kill() only serves pasta (has the target PID gone?); accept4() is in
 * both lists (passt: the UNIX socket, both: forwarded ports)
 */
START_TEST(test_seccomp_list_modes)
{
	ck_assert(in_list("kill", SECCOMP_M_PASTA));
	ck_assert(!in_list("kill", SECCOMP_M_PASST));
	ck_assert(in_list("epoll_wait", SECCOMP_M_PASTA));
	ck_assert(in_list("epoll_wait", SECCOMP_M_PASST));
}
END_TEST

/**
 * filtered_child_dm() - Fork, install the filter of a mode, run a step
 * @mode:	MODE_PASTA or MODE_PASST
 * @step:	0: allowed calls only, 1: the self-test, 2: kill(self, 0),
 *		3: clone() making a user namespace, 4: executable mmap(),
 *		5: fork(), 6: ioctl(TCGETS) on stdin, 7: ioctl() with
 *		DMA_BUF_IOCTL_SYNC on K_DMABUF_FD, 8: the same on fd 0,
 *		9: openat() of "/" (O_PATH), 10: kill(self, SIGCONT)
 * @dmabuf:	Bound dma-buf for the filter (K_DMABUF_FD), or -1
 *
 * Return: wait status of the child (it exits 42 if it got to the end)
 */
static int filtered_child_dm(enum conf_mode mode, int step, int dmabuf)
{
	static struct ctx ctx;
	int status;
	pid_t pid;

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		unsigned long sync = K_DMA_BUF_IOCTL_SYNC;
		uint64_t flags = 0;
		int t[16];

		ctx.c.mode = mode;
		if (dmabuf < 0)
			isolate_postfork(&ctx);
		else if (isolate_seccomp_load(mode, dmabuf) < 0)
			_exit(2);
		if (syscall(SYS_getpid) != getpid())
			_exit(1);
		if (step == 1)
			isolate_forbidden_syscall();
		if (step == 2)
			kill(getpid(), 0);
		if (step == 3 &&
		    !syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, NULL, NULL,
			     NULL, NULL))
			_exit(43);	/* the new child, if it was allowed */
		if (step == 4 &&
		    syscall(SYS_mmap, NULL, 4096, PROT_READ | PROT_EXEC,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == -1)
			_exit(1);
		if (step == 5 && !syscall(SYS_clone, SIGCHLD, NULL, NULL, NULL,
					  NULL))
			_exit(43);
		if (step == 6)
			syscall(SYS_ioctl, 0, K_TCGETS, t);
		/* A memfd is no dma-buf: the kernel answers ENOTTY, if the
		 * filter lets the call through
		 */
		if (step == 7 &&
		    syscall(SYS_ioctl, K_DMABUF_FD, sync, &flags) != -1)
			_exit(1);
		if (step == 8)
			syscall(SYS_ioctl, 0, sync, &flags);
		if (step == 9)
			syscall(SYS_openat, AT_FDCWD, "/", O_PATH | O_DIRECTORY);
		if (step == 10)
			kill(getpid(), SIGCONT);	/* harmless, if let through */
		_exit(42);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return status;
}

/**
 * filtered_child() - filtered_child_dm() without a dma-buf
 * @mode:	MODE_PASTA or MODE_PASST
 * @step:	As filtered_child_dm()
 *
 * Return: wait status of the child
 */
static int filtered_child(enum conf_mode mode, int step)
{
	return filtered_child_dm(mode, step, -1);
}

START_TEST(test_seccomp_filter_allows_listed_calls)
{
	int status = filtered_child(MODE_PASTA, 0);

	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 42);
	status = filtered_child(MODE_PASST, 0);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 42);
}
END_TEST

START_TEST(test_seccomp_filter_kills_forbidden_call)
{
	int status = filtered_child(MODE_PASTA, 1);

#ifdef SANITIZER_BUILD
	/* SECCOMP_RET_LOG: the call goes through, the kernel logs it */
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 42);
#else
	ck_assert(WIFSIGNALED(status));
	ck_assert_int_eq(WTERMSIG(status), SIGSYS);
#endif
}
END_TEST

START_TEST(test_seccomp_filter_is_per_mode)
{
	int status = filtered_child(MODE_PASTA, 2);

	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 42);
	status = filtered_child(MODE_PASST, 2);
#ifdef SANITIZER_BUILD
	ck_assert(WIFEXITED(status));
#else
	ck_assert(WIFSIGNALED(status));
	ck_assert_int_eq(WTERMSIG(status), SIGSYS);
#endif
}
END_TEST

/* Whatever the list says about clone(), new namespaces are never allowed;
 * executable memory neither
 */
START_TEST(test_seccomp_filter_checks_arguments)
{
	int status = filtered_child(MODE_PASTA, 3);

#ifdef SANITIZER_BUILD
	ck_assert(WIFEXITED(status));
#else
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS,
		      "clone(CLONE_NEWUSER) not stopped");
	status = filtered_child(MODE_PASST, 4);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS,
		      "executable mmap() not stopped");
#endif
}
END_TEST

/**
 * killed() - Did the filter stop the child?
 * @status:	Wait status
 *
 * Return: true if killed with SIGSYS (release builds), or if it got to the
 *	   end (sanitizer builds only log)
 */
static bool killed(int status)
{
#ifdef SANITIZER_BUILD
	return WIFEXITED(status) && WEXITSTATUS(status) == 42;
#else
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS;
#endif
}

/* pasta's kill() only asks whether its target exists (signal 0, kill(2)):
 * a daemon taken over can't signal the processes of its user
 */
START_TEST(test_seccomp_filter_kill_signal_zero_only)
{
	int status = filtered_child(MODE_PASTA, 2);

	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 42);
	ck_assert_msg(killed(filtered_child(MODE_PASTA, 10)),
		      "kill(self, SIGCONT) not stopped in pasta");
}
END_TEST

/* No process or thread after set-up: even a plain fork-like clone() is
 * stopped (no #syscalls line lists clone, and no special rule lets it in)
 */
START_TEST(test_seccomp_filter_no_clone)
{
	ck_assert_msg(killed(filtered_child(MODE_PASTA, 5)),
		      "clone(SIGCHLD) not stopped in pasta");
	ck_assert_msg(killed(filtered_child(MODE_PASST, 5)),
		      "clone(SIGCHLD) not stopped in passt");
	ck_assert(!in_list("clone", SECCOMP_M_BOTH));
	ck_assert(!in_list("clone3", SECCOMP_M_BOTH));
}
END_TEST

/* ioctl(): nothing without a bound dma-buf; with one, DMA_BUF_IOCTL_SYNC
 * (_IOW('b', 0, struct dma_buf_sync): 0x40086200, include/uapi/linux/
 * dma-buf.h) on that fd only
 */
START_TEST(test_seccomp_filter_ioctl)
{
	int fd, status;

	ck_assert_msg(killed(filtered_child(MODE_PASTA, 6)),
		      "ioctl(TCGETS) not stopped without devmem");
	ck_assert_msg(killed(filtered_child(MODE_PASST, 8)),
		      "DMA_BUF_IOCTL_SYNC not stopped without devmem");

	fd = memfd_create("not-a-dmabuf", 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(dup2(fd, K_DMABUF_FD), K_DMABUF_FD);
	close(fd);
	status = filtered_child_dm(MODE_PASTA, 7, K_DMABUF_FD);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 42,
		      "DMA_BUF_IOCTL_SYNC on the dma-buf stopped: %x", status);
	status = filtered_child_dm(MODE_PASST, 7, K_DMABUF_FD);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 42,
		      "DMA_BUF_IOCTL_SYNC on the dma-buf stopped: %x", status);
	ck_assert_msg(killed(filtered_child_dm(MODE_PASTA, 8, K_DMABUF_FD)),
		      "DMA_BUF_IOCTL_SYNC on another fd not stopped");
	ck_assert_msg(killed(filtered_child_dm(MODE_PASST, 6, K_DMABUF_FD)),
		      "ioctl(TCGETS) not stopped with devmem");
	close(K_DMABUF_FD);
}
END_TEST

/**
 * helper_child() - Fork, install the helper's filter, make one call
 * @step:	0: socket() and close(), 1: getppid(), 2: prctl(), 3: ioctl()
 *
 * Return: wait status of the child (it exits 42 if it got to the end)
 */
static int helper_child(int step)
{
	int status;
	pid_t pid;

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		int s;

		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		if (isolate_seccomp_helper() <= 0)
			_exit(2);
		s = (int)syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
		if (s < 0 || syscall(SYS_close, s))
			_exit(1);
		if (step == 1)
			syscall(SYS_getppid);
		if (step == 2)
			syscall(SYS_prctl, PR_GET_DUMPABLE, 0, 0, 0, 0);
		if (step == 3)
			syscall(SYS_ioctl, 0, K_TCGETS, NULL);
		syscall(SYS_exit_group, 42);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return status;
}

/* The namespace socket helper's filter comes from the "#syscalls:helper"
 * lines (passt/nsock.c): sockets yes; what it does before the filter
 * (getppid(), prctl()) and anything else, no.  The helper kills in every
 * build.
 */
START_TEST(test_seccomp_helper_filter)
{
	int status = helper_child(0);

	ck_assert(in_list("socket", SECCOMP_M_HELPER));
	ck_assert(!in_list("prctl", SECCOMP_M_HELPER));
	ck_assert(!in_list("setns", SECCOMP_M_HELPER));
	ck_assert(!in_list("seccomp", SECCOMP_M_HELPER));
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 42,
		      "socket() in the helper: status %x", status);
	status = helper_child(1);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS,
		      "getppid() after the helper's filter: status %x", status);
	status = helper_child(2);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS,
		      "prctl() after the helper's filter: status %x", status);
	status = helper_child(3);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS,
		      "ioctl() after the helper's filter: status %x", status);
}
END_TEST

/* The daemon opens no file once its filter is in: resolv.conf is read
 * again by a helper (passt/follow.c), so no list of either mode has
 * openat() or open(), and seccomp_special[] has no openat() rule either
 */
START_TEST(test_seccomp_daemon_opens_nothing)
{
	static const char *const never[] = { "open", "openat", "openat2",
					     "creat", "name_to_handle_at" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(never); i++)
		ck_assert_msg(!in_list(never[i], SECCOMP_M_BOTH),
			      "'%s' must not be in the daemon's list",
			      never[i]);
	ck_assert_msg(killed(filtered_child(MODE_PASTA, 9)),
		      "openat() of a directory fd not stopped in pasta");
	ck_assert_msg(killed(filtered_child(MODE_PASST, 9)),
		      "openat() of a directory fd not stopped in passt");
}
END_TEST

/**
 * dirs_child() - Fork a child with the resolv.conf helper's filter, and
 *		  make it call openat()
 * @with_dir:	Allow openat() relative to a directory fd of /tmp
 * @dirfd_arg:	0: that fd, 1: AT_FDCWD
 * @flags:	Flags to call openat() with
 *
 * Return: wait status of the child (it exits 42 if it got to the end)
 */
static int dirs_child(bool with_dir, int dirfd_arg, int flags)
{
	int status;
	pid_t pid;

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		int d = open("/tmp", O_PATH | O_DIRECTORY | O_CLOEXEC);

		if (d < 0)
			_exit(2);
		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		if (isolate_seccomp_helper_dirs(&d, with_dir ? 1 : 0,
						FOLLOW_OPEN_FLAGS) <= 0)
			_exit(2);
		/* The name needn't exist: ENOENT is an answer too */
		syscall(SYS_openat, dirfd_arg ? AT_FDCWD : d,
			"isolation_test_none", flags);
		syscall(SYS_exit_group, 42);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return status;
}

/* The resolv.conf helper's filter: openat() relative to its directory
 * fds, with FOLLOW_OPEN_FLAGS exactly; other flags (O_RDWR), another
 * directory (AT_FDCWD), or any helper without directories: killed
 */
START_TEST(test_seccomp_helper_dirs_filter)
{
	int status = dirs_child(true, 0, FOLLOW_OPEN_FLAGS);

	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 42,
		      "openat() in the kept directory: status %x", status);
	status = dirs_child(true, 0, O_RDWR | O_CREAT);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS,
		      "openat(O_RDWR | O_CREAT): status %x", status);
	status = dirs_child(true, 1, FOLLOW_OPEN_FLAGS);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS,
		      "openat(AT_FDCWD): status %x", status);
	status = dirs_child(false, 0, FOLLOW_OPEN_FLAGS);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS,
		      "openat() in a helper without directories: status %x",
		      status);
}
END_TEST

/**
 * gen() - Run passt/seccomp.sh on one file with the given content
 * @content:	File content
 * @out:	Output, at least 4096 bytes
 *
 * Return: exit status of the script
 */
static int gen(const char *content, char *out)
{
	char src[] = "/tmp/isolation_test_XXXXXX", cmd[256];
	size_t n;
	FILE *f;
	int fd, st;

	fd = mkstemp(src);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, content, strlen(content)),
			 (ssize_t)strlen(content));
	close(fd);
	snprintf(cmd, sizeof(cmd), "sh passt/seccomp.sh %s 2>&1", src);
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(out, 1, 4095, f);
	out[n] = '\0';
	st = pclose(f);
	unlink(src);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

START_TEST(test_seccomp_gen_merges_by_name)
{
	char out[4096];

	ck_assert_int_eq(gen("/**\n * a() - A\n * #syscalls read write\n */\n"
			     "/**\n * b() - B\n * #syscalls:pasta read kill\n */\n",
			     out), 0);
	ck_assert_ptr_nonnull(strstr(out, "SECCOMP_ENTRY(\"kill\", "
					  "SECCOMP_M_PASTA,"));
	ck_assert_ptr_nonnull(strstr(out, "SECCOMP_ENTRY(\"read\", "
					  "SECCOMP_M_BOTH,"));
	ck_assert_ptr_nonnull(strstr(out, ": a(); "));
	ck_assert_ptr_nonnull(strstr(out, "SECCOMP_ENTRY(\"write\", "
					  "SECCOMP_M_BOTH,"));
	ck_assert(strstr(out, "\"kill\"") < strstr(out, "\"read\""));
}
END_TEST

START_TEST(test_seccomp_gen_rejects_bad_lines)
{
	char out[4096];

	ck_assert_int_eq(gen("/**\n * a() - A\n * #syscalls recv()\n */\n",
			     out), 1);
	ck_assert_ptr_nonnull(strstr(out, "is not a system call name"));
	ck_assert_int_eq(gen("/**\n * a() - A\n * #syscalls:qemu read\n */\n",
			     out), 1);
	ck_assert_int_eq(gen("/**\n * a() - A\n * #syscalls\n */\n", out), 1);
}
END_TEST

/* A helper process's calls are listed, but never for the daemon's modes */
START_TEST(test_seccomp_gen_helper_entries)
{
	char out[4096];

	ck_assert_int_eq(gen("/**\n * a() - A\n * #syscalls:helper setns read\n"
			     " */\n/**\n * b() - B\n * #syscalls read\n */\n",
			     out), 0);
	ck_assert_ptr_nonnull(strstr(out, "SECCOMP_ENTRY(\"setns\", "
					  "SECCOMP_M_HELPER,"));
	ck_assert_ptr_nonnull(strstr(out, "SECCOMP_ENTRY(\"read\", "
					  "SECCOMP_M_BOTH | SECCOMP_M_HELPER,"));
}
END_TEST

/* LIMITS_FDS_PER_FLOW (6) per flow, two per forwarded port, 64 fixed */
START_TEST(test_limits_nofile_need)
{
	static struct conf c;

	c.flow_max = 100;
	c.tcp_in.n = 1;
	c.tcp_in.rules[0].first = 80;
	c.tcp_in.rules[0].last = 81;
	ck_assert_uint_eq(limits_nofile_need(&c), 100 * 6 + 2 * 2 + 64);
}
END_TEST

/* passt.1, PORT SPECIFICATIONS: 64 fixed, then 6 for each of 64 flows
 * (384) and, in pasta, 224 for the pools, or half of what the 64 leave
 */
START_TEST(test_limits_listen_budget_reserve)
{
	ck_assert_uint_eq(limits_listen_budget(4096, 8192, true),
			  4096 - 64 - 384 - 224);
	ck_assert_uint_eq(limits_listen_budget(4096, 8192, false),
			  4096 - 64 - 384);
	/* --flow-max 10: 60 descriptors for flows */
	ck_assert_uint_eq(limits_listen_budget(4096, 10, false),
			  4096 - 64 - 60);
	/* 1024 - 64 = 960, half of it is less than 384 + 224 */
	ck_assert_uint_eq(limits_listen_budget(1024, 8192, true), 480);
	ck_assert_uint_eq(limits_listen_budget(128, 8192, true), 32);
	ck_assert_uint_eq(limits_listen_budget(10, 8192, true), 0);
}
END_TEST

/* Host side: one socket per port; namespace side without an address: two
 * (127.0.0.1 and ::1); with an address: one
 */
START_TEST(test_limits_table_socks_per_side)
{
	static struct fwd_table t;

	t.n = 2;
	t.rules[0].first = 1;
	t.rules[0].last = 100;
	t.rules[0].weak = true;
	t.rules[1].first = 200;
	t.rules[1].last = 209;
	ck_assert_uint_eq(limits_table_socks(&t, false, true), 100);
	ck_assert_uint_eq(limits_table_socks(&t, false, false), 10);
	ck_assert_uint_eq(limits_table_socks(&t, true, true), 200);
	t.rules[1].af = AF_INET;
	ck_assert_uint_eq(limits_table_socks(&t, true, false), 10);
}
END_TEST

/* Ports given explicitly beyond the budget: refused, naming the option */
START_TEST(test_limits_listen_plan_refuses_given_ports)
{
	static struct conf c;
	char why[256];

	c.mode = MODE_PASTA;
	c.flow_max = 8192;
	c.tcp_in.n = 1;
	c.tcp_in.rules[0].first = 1;
	c.tcp_in.rules[0].last = 1010;
	ck_assert_int_eq(limits_listen_plan(&c, 1024, why, sizeof(why)),
			 -EMFILE);
	ck_assert_ptr_nonnull(strstr(why, "-t: "));
	ck_assert_ptr_nonnull(strstr(why, "RLIMIT_NOFILE 1024"));

	c.tcp_in.rules[0].last = 480;	/* exactly the budget */
	ck_assert_int_eq(limits_listen_plan(&c, 1024, why, sizeof(why)), 0);
	ck_assert(limits_listen_take(LIMITS_TBL_T, false, 1));
}
END_TEST

/* "all" on two options: they share what is left, in proportion */
START_TEST(test_limits_listen_plan_shares_weak_ports)
{
	static struct conf c;
	unsigned n;

	c.mode = MODE_PASST;
	c.flow_max = 8192;
	c.tcp_in.n = c.udp_in.n = 1;
	c.tcp_in.rules[0] = (struct fwd_rule){ .first = 1, .last = 30000,
					       .weak = true };
	c.udp_in.rules[0] = (struct fwd_rule){ .first = 1, .last = 10000,
					       .weak = true };
	/* budget 4096 - 64 - 384 = 3648: 3/4 for -t, 1/4 for -u */
	ck_assert_int_eq(limits_listen_plan(&c, 4096, NULL, 0), 0);
	for (n = 0; limits_listen_take(LIMITS_TBL_T, true, 1); n++)
		;
	ck_assert_uint_eq(n, 2736);
	for (n = 0; limits_listen_take(LIMITS_TBL_U, true, 1); n++)
		;
	ck_assert_uint_eq(n, 912);
	/* A socket given back (port in use) can be taken again */
	limits_listen_put(LIMITS_TBL_U, true, 1);
	ck_assert(limits_listen_take(LIMITS_TBL_U, true, 1));
	ck_assert(!limits_listen_take(LIMITS_TBL_U, true, 1));

	/* No limit: everything fits */
	ck_assert_int_eq(limits_listen_plan(&c, (unsigned long)RLIM_INFINITY,
					    NULL, 0), 0);
	for (n = 0; n < 40000; n++)
		ck_assert(limits_listen_take(LIMITS_TBL_T, true, 1));
}
END_TEST

/* Run-time shares (passt/ctl.c): everything when it fits, else in
 * proportion, rounded down, never more than the room; no limit, no cut
 */
START_TEST(test_limits_listen_share)
{
	const unsigned long want[3] = { 36280, 2048, 0 };
	const unsigned long few[3] = { 10, 20, 0 };
	unsigned long share[3];

	limits_listen_share(3424, want, share, 3);
	ck_assert_uint_eq(share[0], 3424UL * 36280 / 38328);
	ck_assert_uint_eq(share[1], 3424UL * 2048 / 38328);
	ck_assert_uint_eq(share[2], 0);
	ck_assert_uint_le(share[0] + share[1], 3424);

	limits_listen_share(30, few, share, 3);
	ck_assert_uint_eq(share[0], 10);
	ck_assert_uint_eq(share[1], 20);

	limits_listen_share(0, few, share, 3);
	ck_assert_uint_eq(share[0] + share[1], 0);

	limits_listen_share(ULONG_MAX, want, share, 3);
	ck_assert_uint_eq(share[0], 36280);
}
END_TEST

/**
 * count_lines() - Count lines containing a string in a file
 * @fd:		File, read from the start
 * @s:		String
 *
 * Return: count
 */
static int count_lines(int fd, const char *s)
{
	char buf[8192], *p;
	ssize_t n;
	int count = 0;

	n = pread(fd, buf, sizeof(buf) - 1, 0);
	ck_assert_int_ge(n, 0);
	buf[n] = '\0';
	for (p = buf; (p = strstr(p, s)); p++)
		count++;
	return count;
}

START_TEST(test_limits_refused_logs_once_per_second)
{
	char path[] = "/tmp/isolation_test_XXXXXX";
	int fd = mkstemp(path), saved = dup(STDERR_FILENO), i;

	ck_assert_int_ge(fd, 0);
	unlink(path);
	dup2(fd, STDERR_FILENO);

	limits_refused(10000, LIMIT_FLOWS, "x");	/* logged: first */
	for (i = 1; i <= 9; i++)
		limits_refused(10000 + i * 100, LIMIT_FLOWS, "x");
	limits_refused(11000, LIMIT_FLOWS, "x");	/* logged: 1 s later */
	limits_refused(11999, LIMIT_FLOWS, "x");
	limits_refused(11500, LIMIT_FDS, "y");	/* other kind: own budget */

	dup2(saved, STDERR_FILENO);
	ck_assert_int_eq(count_lines(fd, "flow table full"), 2);
	ck_assert_int_eq(count_lines(fd, "(10 since the last message"), 1);
	ck_assert_int_eq(count_lines(fd, "out of file descriptors"), 1);
	ck_assert_uint_eq(limits_refused_total(LIMIT_FLOWS), 12);
	close(fd);
	close(saved);
}
END_TEST

/**
 * isolation_suite() - Build the suite
 *
 * Return: suite
 */
static Suite *isolation_suite(void)
{
	Suite *s = suite_create("isolation");
	TCase *tc;

	tc = tcase_create("seccomp_list");
	tcase_add_test(tc, test_seccomp_list_names_are_syscalls);
	tcase_add_test(tc, test_seccomp_list_forbids_dangerous_calls);
	tcase_add_test(tc, test_seccomp_list_no_file_changes);
	tcase_add_test(tc, test_seccomp_list_leaves_special_rules_alone);
	tcase_add_test(tc, test_seccomp_list_modes);
	suite_add_tcase(s, tc);

	tc = tcase_create("seccomp_filter");
	tcase_add_test(tc, test_seccomp_filter_allows_listed_calls);
	tcase_add_test(tc, test_seccomp_filter_kills_forbidden_call);
	tcase_add_test(tc, test_seccomp_filter_is_per_mode);
	tcase_add_test(tc, test_seccomp_filter_checks_arguments);
	tcase_add_test(tc, test_seccomp_filter_kill_signal_zero_only);
	tcase_add_test(tc, test_seccomp_filter_no_clone);
	tcase_add_test(tc, test_seccomp_filter_ioctl);
	tcase_add_test(tc, test_seccomp_helper_filter);
	tcase_add_test(tc, test_seccomp_daemon_opens_nothing);
	tcase_add_test(tc, test_seccomp_helper_dirs_filter);
	suite_add_tcase(s, tc);

	tc = tcase_create("seccomp_gen");
	tcase_add_test(tc, test_seccomp_gen_merges_by_name);
	tcase_add_test(tc, test_seccomp_gen_rejects_bad_lines);
	tcase_add_test(tc, test_seccomp_gen_helper_entries);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	tcase_add_test(tc, test_limits_nofile_need);
	tcase_add_test(tc, test_limits_listen_budget_reserve);
	tcase_add_test(tc, test_limits_table_socks_per_side);
	tcase_add_test(tc, test_limits_listen_plan_refuses_given_ports);
	tcase_add_test(tc, test_limits_listen_plan_shares_weak_ports);
	tcase_add_test(tc, test_limits_listen_share);
	tcase_add_test(tc, test_limits_refused_logs_once_per_second);
	suite_add_tcase(s, tc);

	return s;
}

/**
 * main() - Run the suite
 *
 * Return: EXIT_SUCCESS if every test passed
 */
int main(void)
{
	SRunner *sr = srunner_create(isolation_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
