/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conf/ports.h - Port forwarding specifications (-t, -u, -T, -U)
 *
 * fwd_spec_parse() turns one option argument into non-overlapping
 * struct fwd_rule entries appended to a struct fwd_table (conf/conf.h).
 */
#ifndef CONF_PORTS_H
#define CONF_PORTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conf.h"

#define FWD_SPEC_MAX_LEN	1024	/* longest spec string accepted */
#define FWD_EPHEMERAL_PATH	"/proc/sys/net/ipv4/ip_local_port_range"
#define FWD_EPHEMERAL_FIRST	32768	/* kernel default, ip-sysctl.rst */
#define FWD_EPHEMERAL_LAST	60999

/* Where fwd_ephemeral_range() reads the range; tests point it elsewhere */
#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
extern const char *fwd_ephemeral_path;
#endif

int fwd_spec_parse(struct fwd_table *t, const char *spec, bool ns_side,
		   char *err, size_t errlen);
void fwd_ephemeral_range(uint16_t *first, uint16_t *last);
void fwd_ephemeral_load(void);
int fwd_rule_fmt(const struct fwd_rule *r, char *buf, size_t len);
#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
bool fwd_auto_excluded(const struct fwd_table *t, uint16_t port);
#endif
int fwd_auto_map(const struct fwd_table *t, uint16_t port, uint16_t *lport);

#endif /* CONF_PORTS_H */
