/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lib/log.h - Levelled logging to stderr, a log file or syslog
 *
 * Messages are lower case with no trailing period and name the syscall that
 * failed.  Anything a peer can trigger per packet uses debug()/trace(), or a
 * *_ratelimit() form that prints a burst of LOG_RL_BURST per second per call
 * site.
 */
#ifndef LIB_LOG_H
#define LIB_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <syslog.h>

#define LOG_RL_BURST	5

/* Pseudo-priority below LOG_DEBUG for --trace */
#define LOG_TRACE	(LOG_DEBUG + 1)

/* --log-size: default (as upstream) and smallest accepted value, bytes.  A
 * trim keeps the newest half, and that must leave room for the longest
 * message (1024 bytes, see log_vmsg()) and the trim notice
 */
#define LOG_FILE_SIZE_DEFAULT	(1024 * 1024)
#define LOG_FILE_SIZE_MIN	4096
#define LOG_TRIM_BUF		512	/* stack buffer for the copy */
#define LOG_TRIM_NOTE_MAX	160	/* longest trim notice, bytes */

extern int log_level;		/* highest priority value printed */
extern bool log_trace_on;	/* --trace given */

void log_msg(int prio, bool with_errno, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void log_msg_always(int prio, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int log_open_file(const char *path, size_t max_size);
#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
void log_close_file(void);
#endif
int log_file_fd_get(void);
void log_early_end(void);
#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
ssize_t log_file_trim(int fd, size_t max, size_t need);
#endif
void log_to_syslog(const char *ident);
void log_stderr_off(void);
const char *log_bits_fmt(uint32_t old, uint32_t new, const char *const *names,
			 unsigned count, char *buf, size_t len);
bool log_ratelimit_ok(int64_t *last_s, unsigned *count, int64_t now_ms);
void die_msg(bool with_errno, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
void assert_fail(const char *expr, const char *file, int line,
		 const char *func) __attribute__((noreturn, cold));

/**
 * ASSERT() - Check an invariant: if it doesn't hold, log it and abort()
 * @expr:	Condition no input can make false (only a bug of ours can)
 *
 * The failed condition is logged at LOG_ERR with file:line and function,
 * then the process aborts (assert_fail()).  Never compiled out: the check
 * is one branch predicted not taken.  Not for anything a peer, the guest
 * or the user can cause: those are dropped, counted, or refused.
 */
#define ASSERT(expr)							\
	do {								\
		if (__builtin_expect(!(expr), 0))			\
			assert_fail(#expr, __FILE__, __LINE__, __func__); \
	} while (0)

#define err(...)		log_msg(LOG_ERR, false, __VA_ARGS__)
#define warn(...)		log_msg(LOG_WARNING, false, __VA_ARGS__)
#define info(...)		log_msg(LOG_INFO, false, __VA_ARGS__)
/* info() that -q doesn't silence: output the user asked for (--stats) */
#define info_always(...)	log_msg_always(LOG_INFO, __VA_ARGS__)
#define debug(...)							\
	do {								\
		if (log_level >= LOG_DEBUG)				\
			log_msg(LOG_DEBUG, false, __VA_ARGS__);		\
	} while (0)
#define trace(...)							\
	do {								\
		if (log_trace_on)					\
			log_msg(LOG_TRACE, false, __VA_ARGS__);		\
	} while (0)
#define err_perror(...)		log_msg(LOG_ERR, true, __VA_ARGS__)
#define warn_perror(...)	log_msg(LOG_WARNING, true, __VA_ARGS__)
#define info_perror(...)	log_msg(LOG_INFO, true, __VA_ARGS__)
#define debug_perror(...)						\
	do {								\
		if (log_level >= LOG_DEBUG)				\
			log_msg(LOG_DEBUG, true, __VA_ARGS__);		\
	} while (0)

/* die() and die_perror() are for set-up only: exit status 1 */
#define die(...)		die_msg(false, __VA_ARGS__)
#define die_perror(...)		die_msg(true, __VA_ARGS__)

/**
 * warn_ratelimit() - warn() at most LOG_RL_BURST times per second per call site
 * @now:	Current time, ms (CLOCK_MONOTONIC, see now_ms())
 */
#define warn_ratelimit(now, ...)					\
	do {								\
		static int64_t rl_last_;				\
		static unsigned rl_count_;				\
		if (log_ratelimit_ok(&rl_last_, &rl_count_, (now)))	\
			log_msg(LOG_WARNING, false, __VA_ARGS__);	\
	} while (0)

#define info_ratelimit(now, ...)					\
	do {								\
		static int64_t rl_last_;				\
		static unsigned rl_count_;				\
		if (log_ratelimit_ok(&rl_last_, &rl_count_, (now)))	\
			log_msg(LOG_INFO, false, __VA_ARGS__);		\
	} while (0)

#endif /* LIB_LOG_H */
