// SPDX-License-Identifier: GPL-2.0-or-later
/* lib/log.c - Levelled logging to stderr, a log file or syslog
 *
 * Before the daemon detaches, messages go to stderr.  After it, they go to
 * the --log-file if one was given, else to syslog.  Nothing here allocates
 * memory: messages are formatted into a fixed buffer and written with one
 * write() each, so logging is safe after the seccomp filter is installed.
 *
 * The log file never grows beyond its limit (--log-size).  When a message
 * would not fit, the oldest part of the file is dropped: the newest half of
 * the limit, cut at a line boundary, is copied to the start of the file
 * through a small stack buffer (pread()/pwrite()), the file is truncated
 * after it, and a line saying how much was dropped is written first.  The
 * file was opened before the sandbox was set up, so this needs no path,
 * only system calls on the descriptor.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "file.h"
#include "log.h"
#include "util.h"
#include "visible.h"

int log_level = LOG_INFO;
bool log_trace_on;

static int log_file_fd = -1;
static size_t log_file_max = LOG_FILE_SIZE_DEFAULT;
static size_t log_file_size;	/* bytes we know of, >= the real size */
static bool log_use_syslog;
static bool log_use_stderr = true;
static struct timespec log_start;

/* Messages from before the log file is open (option parsing, the template
 * interface), written to it first when it opens: the start of a run is
 * what one looks for in a log
 */
static char log_early[4096];
static size_t log_early_n;
static bool log_early_off;

static const char *const log_prio_str[] = {
	[LOG_EMERG] = "emerg",   [LOG_ALERT] = "alert",
	[LOG_CRIT] = "crit",     [LOG_ERR] = "error",
	[LOG_WARNING] = "warning", [LOG_NOTICE] = "notice",
	[LOG_INFO] = "info",     [LOG_DEBUG] = "debug",
	[LOG_TRACE] = "trace",
};

/**
 * log_file_trim() - Drop the oldest part of the log file to make room
 * @fd:		Log file, opened with O_APPEND
 * @max:	Size limit, bytes
 * @need:	Bytes about to be appended (including a trim notice)
 *
 * Keeps the newest messages that fit in half of @max (less if @need is
 * larger than the other half), starting at the first complete line, at the
 * start of the file, and truncates the file after them.  Works on the
 * descriptor only (no path, no allocation), after the sandbox too.
 *
 * #syscalls lseek pread64 pwrite64 ftruncate fcntl
 * Return: new size of the file, bytes (bytes dropped are the old size less
 *	   this), or -errno; on error the file may be shorter than it was but
 *	   holds only complete lines
 */
VISIBLE_IF_UNIT
ssize_t log_file_trim(int fd, size_t max, size_t need)
{
	size_t keep = max / 2, rd, wr = 0;
	char buf[LOG_TRIM_BUF];
	off_t end;
	int fl, ret = 0;

	if (need > max)
		need = max;
	if (keep > max - need)
		keep = max - need;

	end = lseek(fd, 0, SEEK_END);
	if (end < 0)
		return -errno;
	if ((size_t)end <= keep)
		return end;

	/* First complete line at or after end - keep */
	for (rd = (size_t)end - keep; rd < (size_t)end; ) {
		ssize_t r = pread(fd, buf, sizeof(buf), (off_t)rd);
		char *nl;

		if (r <= 0) {
			rd = (size_t)end;	/* nothing usable: drop all */
			break;
		}
		nl = memchr(buf, '\n', (size_t)r);
		if (nl) {
			rd += (size_t)(nl - buf) + 1;
			break;
		}
		rd += (size_t)r;
	}

	/* pwrite() ignores the offset with O_APPEND (pwrite(2), BUGS) */
	fl = fcntl(fd, F_GETFL);
	if (fl < 0)
		return -errno;
	if (fcntl(fd, F_SETFL, fl & ~O_APPEND) < 0)
		return -errno;

	while (rd < (size_t)end) {
		ssize_t r = pread(fd, buf, sizeof(buf), (off_t)rd), w;

		if (r <= 0) {
			ret = r < 0 ? -errno : 0;
			break;
		}
		w = pwrite(fd, buf, (size_t)r, (off_t)wr);
		if (w <= 0) {
			ret = w < 0 ? -errno : -EIO;
			break;
		}
		rd += (size_t)w;
		wr += (size_t)w;
	}
	if (!ret && ftruncate(fd, (off_t)wr) < 0)
		ret = -errno;
	if (ret) {
		/* Keep what was copied in full, a prefix of complete lines */
		while (wr && pread(fd, buf, 1, (off_t)wr - 1) == 1 &&
		       buf[0] != '\n')
			wr--;
		if (ftruncate(fd, (off_t)wr) < 0) {
			/* nothing more we can do */
		}
	}
	if (fcntl(fd, F_SETFL, fl) < 0 && !ret)
		ret = -errno;

	return ret ? ret : (ssize_t)wr;
}

/**
 * log_file_write() - Append one formatted message to the log file
 * @buf:	Message, ending with '\n'
 * @n:		Its length, bytes
 * @n_prefix:	Length of the time stamp at its start (reused by the trim
 *		notice), 0 if none
 *
 * If the message doesn't fit in the size limit, the oldest lines are
 * dropped first (log_file_trim()) and a notice about it is written.
 *
 * #syscalls write
 */
static void log_file_write(const char *buf, size_t n, size_t n_prefix)
{
	char note[LOG_TRIM_NOTE_MAX];
	size_t nn = 0;

	if (n > log_file_max)
		n = log_file_max;

	if (log_file_size + n > log_file_max) {
		ssize_t sz = log_file_trim(log_file_fd, log_file_max,
					   n + sizeof(note));
		int r;

		if (sz < 0) {
			/* can't trim: don't let the file grow */
			return;
		}
		memcpy(note, buf, n_prefix);
		r = snprintf(note + n_prefix, sizeof(note) - n_prefix,
			     "%slog file reached --log-size %zu: dropped %zu bytes of older messages\n",
			     n_prefix ? "info: " : "", log_file_max,
			     log_file_size > (size_t)sz ?
			     log_file_size - (size_t)sz : 0);
		nn = r > 0 ? MIN(n_prefix + (size_t)r, sizeof(note) - 1) : 0;
		if (nn)
			note[nn - 1] = '\n';
		log_file_size = (size_t)sz;
		if (nn && write(log_file_fd, note, nn) > 0)
			log_file_size += nn;
	}

	if (write(log_file_fd, buf, n) > 0)
		log_file_size += n;
}

/**
 * log_vmsg() - Format and emit one message
 * @prio:	syslog priority, or LOG_TRACE
 * @force:	Print regardless of the log level (--stats output)
 * @with_errno:	Append ": " and strerror(errno) as seen on entry
 * @fmt:	printf() format
 * @ap:		Arguments
 *
 * #syscalls write clock_gettime
 */
static void log_vmsg(int prio, bool force, bool with_errno, const char *fmt,
		     va_list ap)
{
	int saved_errno = errno;
	char buf[1024];
	size_t n = 0, n_prefix = 0;
	struct timespec ts;
	int r;

	if (!force && prio > log_level &&
	    !(prio == LOG_TRACE && log_trace_on))
		return;

	if (!log_start.tv_sec && !log_start.tv_nsec)
		clock_gettime(CLOCK_MONOTONIC, &log_start);
	clock_gettime(CLOCK_MONOTONIC, &ts);

	if (log_level >= LOG_DEBUG) {
		long ms = (ts.tv_sec - log_start.tv_sec) * 1000 +
			  (ts.tv_nsec - log_start.tv_nsec) / 1000000;

		r = snprintf(buf, sizeof(buf), "%ld.%03ld ", ms / 1000,
			     ms % 1000);
		n_prefix = n = r > 0 ? (size_t)r : 0;
		r = snprintf(buf + n, sizeof(buf) - n, "%s: ",
			     log_prio_str[prio]);
		n += r > 0 ? (size_t)r : 0;
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

	if (log_file_fd >= 0)
		log_file_write(buf, n, n_prefix);
	else if (!log_early_off && log_early_n + n <= sizeof(log_early))
		memcpy(log_early + log_early_n, buf, n), log_early_n += n;
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
	log_vmsg(prio, false, with_errno, fmt, ap);
	va_end(ap);
}

/**
 * log_msg_always() - Emit a message whatever the log level (-q included)
 * @prio:	syslog priority, used for the label and for syslog
 * @fmt:	printf() format, then its arguments
 *
 * For output the user asked for explicitly: --stats, SIGUSR1.
 */
void log_msg_always(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(prio, true, false, fmt, ap);
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
	log_vmsg(LOG_ERR, false, with_errno, fmt, ap);
	va_end(ap);
	_exit(EXIT_FAILURE);
}

/**
 * assert_fail() - An ASSERT() failed: log where and what, then abort()
 * @expr:	Text of the condition that was false
 * @file:	Source file (__FILE__)
 * @line:	Line in @file (__LINE__)
 * @func:	Function (__func__)
 *
 * The message is written (one write(), nothing allocated) before the
 * signal.  abort() raises SIGABRT; under the seccomp filter, which doesn't
 * allow the signal's system calls, the process is killed with SIGSYS
 * instead: it ends either way, and the log says why.
 */
void assert_fail(const char *expr, const char *file, int line,
		 const char *func)
{
	log_msg(LOG_ERR, false, "assertion failed: %s at %s:%d (%s())", expr,
		file, line, func);
	abort();
}

/**
 * log_open_file() - Send messages to a file too (--log-file)
 * @path:	File path, created with mode 0600 if missing, appended to
 * @max_size:	Size limit (--log-size), bytes, at least LOG_FILE_SIZE_MIN;
 *		an existing file that is larger is trimmed at the first message
 *
 * Opened for reading too: trimming copies the newest lines to the start.
 * Never through a symbolic link (file_open_safe()).
 *
 * Return: 0 on success, -errno from file_open_safe() (-ELOOP for a
 *	   symbolic link, -EFTYPE_ for other than a regular file) or lseek(),
 *	   -EINVAL if @max_size is below LOG_FILE_SIZE_MIN
 */
int log_open_file(const char *path, size_t max_size)
{
	off_t end;
	int fd;

	if (max_size < LOG_FILE_SIZE_MIN)
		return -EINVAL;
	fd = file_open_safe(path, O_RDWR | O_APPEND, 0600);
	if (fd < 0)
		return fd;
	end = lseek(fd, 0, SEEK_END);
	if (end < 0) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	if (log_file_fd >= 0)
		close(log_file_fd);
	log_file_fd = fd;
	log_file_max = max_size;
	log_file_size = (size_t)end;
	if (!log_early_off && log_early_n)
		log_file_write(log_early, log_early_n, 0);
	log_early_end();
	return 0;
}

/**
 * log_file_fd_get() - The --log-file descriptor
 *
 * Return: it, or -1 without a log file
 */
int log_file_fd_get(void)
{
	return log_file_fd;
}

/**
 * log_early_end() - Stop keeping messages for a log file that may come
 *
 * Context: set-up, once it is known whether there is a --log-file
 */
void log_early_end(void)
{
	log_early_off = true;
	log_early_n = 0;
}

/**
 * log_close_file() - Stop writing to the log file and close it (tests)
 */
VISIBLE_IF_UNIT
void log_close_file(void)
{
	if (log_file_fd >= 0)
		close(log_file_fd);
	log_file_fd = -1;
	log_file_size = 0;
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
	log_early_end();
}

/**
 * log_bits_fmt() - Changed bits of a flag word, spelled out: "+NAME -NAME ..."
 * @old:	Old bits
 * @new:	New bits
 * @names:	Name of each bit, by bit number (at least @count entries)
 * @count:	Number of bits to look at, from bit 0 (at most 32)
 * @buf:	Output, always NUL-terminated (truncated if too small)
 * @len:	Size of @buf, bytes, at least 1
 *
 * Used by the state setters of TCP (passt/tcp.c) and spliced TCP
 * (splice/tcp_splice.c) to log which event or flag bits a change sets (+)
 * and clears (-).
 *
 * Return: @buf
 */
const char *log_bits_fmt(uint32_t old, uint32_t new, const char *const *names,
			 unsigned count, char *buf, size_t len)
{
	size_t off = 0;
	unsigned i;

	buf[0] = '\0';
	for (i = 0; i < count && off < len; i++) {
		int n;

		if (!((old ^ new) & (1U << i)))
			continue;
		n = snprintf(buf + off, len - off, "%s%c%s", off ? " " : "",
			     new & (1U << i) ? '+' : '-', names[i]);
		if (n < 0)
			break;
		off += (size_t)n;
	}
	return buf;
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
