/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conf/resolv.h - Name servers and search domains from resolv.conf(5)
 *
 * resolv_read() only reports what the file says; resolv_apply() decides
 * what the guest is offered (conf/resolv.c explains loopback resolvers).
 */
#ifndef CONF_RESOLV_H
#define CONF_RESOLV_H

#include <stdbool.h>
#include <stddef.h>
#include <netinet/in.h>

#include "conf.h"

#define RESOLV_PATH		"/etc/resolv.conf"
#define RESOLV_MAX_NS		8	/* per family, kept from the file */
#define RESOLV_READ_MAX		65536	/* bytes resolv_read_fd() looks at */

/**
 * struct resolv_conf - What a resolv.conf file says
 * @ns4:		IPv4 "nameserver" entries, file order, loopback included
 * @ns4_count:		Entries in @ns4
 * @ns6:		IPv6 entries, file order (link-local ones are dropped:
 *			their scope can't be used from the guest)
 * @ns6_count:		Entries in @ns6
 * @search:		Domains of the last "search" or "domain" line, without
 *			a trailing dot
 * @search_count:	Entries in @search
 */
struct resolv_conf {
	struct in_addr ns4[RESOLV_MAX_NS];
	unsigned ns4_count;
	struct in6_addr ns6[RESOLV_MAX_NS];
	unsigned ns6_count;
	char search[CONF_MAX_SEARCH][CONF_SEARCH_LEN];
	unsigned search_count;
};

/* File conf_parse() reads; tests point it at their own */
extern const char *resolv_path;

int resolv_domain_norm(char *dst, const char *src, size_t srclen);
int resolv_read(const char *path, struct resolv_conf *r);
int resolv_read_fd(int fd, struct resolv_conf *r);
void resolv_apply(struct conf *c, const struct resolv_conf *r,
		  bool keep_dns, bool keep_search);

#endif /* CONF_RESOLV_H */
