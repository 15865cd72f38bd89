/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/sockfile.h - UNIX socket files: created without following links,
 * removed at exit by a helper process
 *
 * See the DOC block of sockfile.c.
 */
#ifndef PASST_SOCKFILE_H
#define PASST_SOCKFILE_H

#include <stdbool.h>
#include <sys/types.h>

struct conf;

#define SOCKFILE_UMASK_KEEP	((mode_t)-1)	/* the process' own umask */
#define SOCKFILE_NO_CHOWN	((uid_t)-1)	/* owner: who binds */

int sockfile_listen(const char *path, int type, int backlog, mode_t umask_bind,
		    uid_t uid, gid_t gid);
void sockfile_remover_start(const struct conf *c);
void sockfile_remover_keep(void);
void sockfile_adopt(const char *path);

#endif /* PASST_SOCKFILE_H */
