// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/isolation.c - Privilege reduction (placeholder: stages are no-ops
 * until the isolation work lands)
 */
#include <errno.h>
#include <grp.h>
#include <unistd.h>

#include "../conf/log.h"
#include "isolation.h"
#include "passt.h"

/** isolate_initial() - Stage 1, before set-up  @ctx: Context */
void isolate_initial(struct ctx *ctx)
{
	(void)ctx;
}

/** isolate_prefork() - Stage 2, after set-up  @ctx: Context */
void isolate_prefork(struct ctx *ctx)
{
	(void)ctx;
}

/** isolate_postfork() - Stage 3, before the loop  @ctx: Context */
void isolate_postfork(struct ctx *ctx)
{
	(void)ctx;
}

/**
 * isolate_user() - passt: leave root for the --runas user (default nobody)
 * @ctx:	Context: c.uid and c.gid, filled by conf_parse() (nobody when
 *		started as root without --runas, else our own IDs)
 *
 * Called once everything that needs root is done: the UNIX socket is bound
 * (and handed to the target user, so that the unprivileged process can
 * still remove it at exit from a sticky directory such as /tmp), forwarded
 * ports are bound, log, pcap and pid files are open or written.  Drops
 * supplementary groups, then the group, then the user, so that no way back
 * is left.  A no-op when not started as root.  pasta's user switch belongs
 * to its namespace set-up and is not done here.
 *
 * Context: set-up, after the pid file is written, before the loop
 * #syscalls setgroups setgid setuid
 */
void isolate_user(struct ctx *ctx)
{
	const struct conf *c = &ctx->c;

	if (geteuid() != 0 || c->uid == 0)
		return;

	if (setgroups(0, NULL))
		die_perror("setgroups");
	if (setgid(c->gid))
		die_perror("setgid(%u)", (unsigned)c->gid);
	if (setuid(c->uid))
		die_perror("setuid(%u)", (unsigned)c->uid);
	debug("running as UID %u, GID %u", (unsigned)c->uid,
	      (unsigned)c->gid);
}
