// SPDX-License-Identifier: GPL-2.0-or-later
/* conf/log.c - Levelled logging to stderr, a log file or syslog
 *
 * Before the daemon detaches, messages go to stderr.  After it, they go to
 * the --log-file if one was given, else to syslog.  Nothing here allocates
 * memory: messages are formatted into a fixed buffer and written with one
 * write() each, so logging is safe after the seccomp filter is installed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

int log_level = LOG_INFO;
bool log_trace_on;

static int log_file_fd = -1;
static bool log_use_syslog;
static bool log_use_stderr = true;
static struct timespec log_start;

static const char *const log_prio_str[] = {
	[LOG_EMERG] = "emerg",   [LOG_ALERT] = "alert",
	[LOG_CRIT] = "crit",     [LOG_ERR] = "error",
	[LOG_WARNING] = "warning", [LOG_NOTICE] = "notice",
	[LOG_INFO] = "info",     [LOG_DEBUG] = "debug",
	[LOG_TRACE] = "trace",
};

/**
 * log_vmsg() - Format and emit one message
 * @prio:	syslog priority, or LOG_TRACE
 * @with_errno:	Append ": " and strerror(errno) as seen on entry
 * @fmt:	printf() format
 * @ap:		Arguments
 *
 * #syscalls write clock_gettime
 */
static void log_vmsg(int prio, bool with_errno, const char *fmt, va_list ap)
{
	int saved_errno = errno;
	char buf[1024];
	struct timespec ts;
	size_t n = 0;
	int r;

	if (prio > log_level && !(prio == LOG_TRACE && log_trace_on))
		return;

	if (!log_start.tv_sec && !log_start.tv_nsec)
		clock_gettime(CLOCK_MONOTONIC, &log_start);
	clock_gettime(CLOCK_MONOTONIC, &ts);

	if (log_level >= LOG_DEBUG) {
		long ms = (ts.tv_sec - log_start.tv_sec) * 1000 +
			  (ts.tv_nsec - log_start.tv_nsec) / 1000000;

		r = snprintf(buf, sizeof(buf), "%ld.%03ld %s: ", ms / 1000,
			     ms % 1000, log_prio_str[prio]);
		n = r > 0 ? (size_t)r : 0;
	}

	r = vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	if (r > 0)
		n += (size_t)r;
	if (n >= sizeof(buf) - 1)
		n = sizeof(buf) - 2;

	if (with_errno) {
		r = snprintf(buf + n, sizeof(buf) - n, ": %s",
			     strerror(saved_errno));
		if (r > 0)
			n += (size_t)r;
		if (n >= sizeof(buf) - 1)
			n = sizeof(buf) - 2;
	}
	buf[n++] = '\n';

	if (log_file_fd >= 0 && write(log_file_fd, buf, n) < 0) {
		/* nowhere to report it */
	}
	if (log_use_syslog)
		syslog(prio > LOG_DEBUG ? LOG_DEBUG : prio, "%.*s",
		       (int)n - 1, buf);
	if (log_use_stderr && write(STDERR_FILENO, buf, n) < 0) {
		/* nowhere to report it */
	}

	errno = saved_errno;
}

/**
 * log_msg() - Emit a message at a priority
 * @prio:	syslog priority, or LOG_TRACE
 * @with_errno:	Append the description of errno
 * @fmt:	printf() format, then its arguments
 */
void log_msg(int prio, bool with_errno, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(prio, with_errno, fmt, ap);
	va_end(ap);
}

/**
 * die_msg() - Log an error and exit with status 1 (set-up only)
 * @with_errno:	Append the description of errno
 * @fmt:	printf() format, then its arguments
 */
void die_msg(bool with_errno, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(LOG_ERR, with_errno, fmt, ap);
	va_end(ap);
	_exit(EXIT_FAILURE);
}

/**
 * log_open_file() - Send messages to a file too (--log-file)
 * @path:	File path, created with mode 0600 if missing, appended to
 *
 * Return: 0 on success, -errno from open()
 */
int log_open_file(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);

	if (fd < 0)
		return -errno;
	log_file_fd = fd;
	return 0;
}

/**
 * log_to_syslog() - Send messages to syslog (daemon without --log-file)
 * @ident:	Program name for syslog
 */
void log_to_syslog(const char *ident)
{
	openlog(ident, LOG_PID | LOG_NDELAY, LOG_DAEMON);
	log_use_syslog = true;
}

/**
 * log_stderr_off() - Stop writing to stderr (after detaching)
 */
void log_stderr_off(void)
{
	log_use_stderr = false;
}

/**
 * log_ratelimit_ok() - Token check for rate-limited messages
 * @last_s:	Per call site: second of the last message
 * @count:	Per call site: messages printed in that second
 * @now:	Current time, ms
 *
 * Return: true if the message may be printed
 */
bool log_ratelimit_ok(int64_t *last_s, unsigned *count, int64_t now)
{
	int64_t s = now / 1000;

	if (s != *last_s) {
		*last_s = s;
		*count = 0;
	}
	return (*count)++ < LOG_RL_BURST;
}
