/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/sdlisten.h - Socket activation: a listening socket from systemd
 *
 * See the DOC block of sdlisten.c.
 */
#ifndef PASST_SDLISTEN_H
#define PASST_SDLISTEN_H

#include <sys/types.h>

struct conf;

/* First passed descriptor: SD_LISTEN_FDS_START in sd_listen_fds(3) */
#define SDLISTEN_FDS_START	3

#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
int sdlisten_parse(const char *fds, const char *pid, pid_t self);
int sdlisten_check(int fd);
int sdlisten_name(int fd, char *buf, size_t len);
#endif
int sdlisten_init(const struct conf *c);
int sdlisten_fd(void);
const char *sdlisten_path(void);
int sdlisten_adopt(int epollfd);

#endif /* PASST_SDLISTEN_H */
