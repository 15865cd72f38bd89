/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conf/follow.h - Derive the host-given configuration again, and coalesce
 *		   the bursts of changes that ask for it
 */
#ifndef CONF_FOLLOW_H
#define CONF_FOLLOW_H

#include <stdbool.h>
#include <stdint.h>

#include "conf.h"
#include "resolv.h"

#define FOLLOW_QUIET_MS		300	/* act once no change came this long */
#define FOLLOW_MAX_WAIT_MS	2000	/* ... or this long after the first */

/**
 * struct follow_settle - Coalescing of change notifications
 * @pending:	A change came that wasn't acted on yet
 * @first:	Time of the first change since the last action, ms
 * @last:	Time of the latest change, ms
 */
struct follow_settle {
	bool pending;
	int64_t first;
	int64_t last;
};

void follow_settle_event(struct follow_settle *s, int64_t now);
int64_t follow_settle_due(const struct follow_settle *s);
bool follow_settle_take(struct follow_settle *s, int64_t now);

/**
 * typedef follow_host_fn - Fill a family's host-given values (the
 *			    template interface, its address and gateway)
 * @c:		Configuration, the given values in place, as
 *		netlink_host_defaults() takes it
 *
 * Return: 0 or -errno
 */
typedef int (*follow_host_fn)(struct conf *c);

int follow_derive(const struct conf *cur, struct conf *next,
		  const struct resolv_conf *r, follow_host_fn host);
unsigned follow_diff(const struct conf *a, const struct conf *b,
		     void (*line)(const char *msg));

#endif /* CONF_FOLLOW_H */
