/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/sdnotify.h - Readiness notification to a service manager (systemd)
 *
 * See the DOC block of sdnotify.c.
 */
#ifndef PASST_SDNOTIFY_H
#define PASST_SDNOTIFY_H

#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

/* Longest datagram we send, bytes: a STATUS= line and a few short ones */
#define SDNOTIFY_MSG_MAX	512

#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
int sdnotify_addr(const char *env, struct sockaddr_un *sa, socklen_t *len);
#endif
void sdnotify_init(void);
void sdnotify_mainpid(pid_t pid);
void sdnotify_ready(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
void sdnotify_stopping(void);
#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
int sdnotify_fd(void);
#endif

#endif /* PASST_SDNOTIFY_H */
