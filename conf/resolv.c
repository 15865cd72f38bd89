// SPDX-License-Identifier: GPL-2.0-or-later
/* conf/resolv.c - Name servers and search domains for the guest
 *
 * The host's resolv.conf(5) gives the default DNS configuration.  A name
 * server on a loopback address (systemd-resolved's 127.0.0.53, a local
 * dnsmasq on 127.0.0.1) can't be offered as such: in the guest, loopback is
 * the guest itself.  As upstream pasta does, we offer the guest the address
 * that stands for the host (--map-host-loopback, by default the gateway)
 * in its place, and treat that address as the --dns-forward address unless
 * one was given: DNS queries to it go to --dns-host, which defaults to the
 * first name server of the file, loopback or not.  Without a host-mapping
 * address, loopback name servers are skipped.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/log.h"
#include "resolv.h"

const char *resolv_path = RESOLV_PATH;

/**
 * resolv_domain_norm() - Check a domain name and copy it without final dot
 * @dst:	Output, CONF_SEARCH_LEN bytes
 * @src:	Domain name, not necessarily NUL-terminated
 * @srclen:	Length of @src
 *
 * Accepts labels of 1 to 63 letters, digits, '-' or '_' separated by dots,
 * 253 characters at most (RFC 1035 2.3.4), with an optional final dot.
 *
 * Return: 0 on success, -EINVAL if @src is not a domain name
 */
int resolv_domain_norm(char *dst, const char *src, size_t srclen)
{
	size_t i, label = 0;

	if (srclen && src[srclen - 1] == '.')
		srclen--;
	if (!srclen || srclen > CONF_SEARCH_LEN - 1)
		return -EINVAL;
	for (i = 0; i < srclen; i++) {
		unsigned char ch = (unsigned char)src[i];

		if (ch == '.') {
			if (!label)
				return -EINVAL;
			label = 0;
			continue;
		}
		if (!isalnum(ch) && ch != '-' && ch != '_')
			return -EINVAL;
		if (++label > 63)
			return -EINVAL;
	}
	memcpy(dst, src, srclen);
	dst[srclen] = '\0';
	return 0;
}

/**
 * resolv_nameserver() - Record the address of one "nameserver" line
 * @r:		Result being filled
 * @tok:	First token after "nameserver", NUL-terminated (modified)
 */
static void resolv_nameserver(struct resolv_conf *r, char *tok)
{
	char *pct = strchr(tok, '%');
	struct in6_addr a6;
	struct in_addr a4;

	if (pct)
		*pct = '\0';

	if (inet_pton(AF_INET, tok, &a4) == 1) {
		if (r->ns4_count < RESOLV_MAX_NS)
			r->ns4[r->ns4_count++] = a4;
		return;
	}
	if (inet_pton(AF_INET6, tok, &a6) == 1) {
		if (IN6_IS_ADDR_LINKLOCAL(&a6)) {
			debug("resolv.conf: skipping link-local name server %s",
			      tok);
			return;
		}
		if (r->ns6_count < RESOLV_MAX_NS)
			r->ns6[r->ns6_count++] = a6;
		return;
	}
	debug("resolv.conf: ignoring name server '%.64s'", tok);
}

/**
 * resolv_search() - Replace the search list with the rest of a line
 * @r:		Result being filled
 * @save:	strtok_r() state positioned after "search" or "domain"
 * @one:	Take one domain only ("domain" lines)
 */
static void resolv_search(struct resolv_conf *r, char **save, bool one)
{
	const char *tok;

	r->search_count = 0;
	while ((tok = strtok_r(NULL, " \t\r\n", save))) {
		if (r->search_count >= CONF_MAX_SEARCH)
			break;
		if (resolv_domain_norm(r->search[r->search_count], tok,
				       strlen(tok))) {
			debug("resolv.conf: ignoring domain '%.64s'", tok);
			continue;
		}
		r->search_count++;
		if (one)
			break;
	}
}

/**
 * resolv_line() - Take in one line of a resolv.conf(5) file
 * @r:		Result being filled
 * @line:	The line, NUL-terminated, with or without its newline
 *		(modified: strtok_r())
 *
 * "nameserver" lines add their address (resolv_nameserver()), "search"
 * and "domain" lines replace the search list (resolv_search()); other
 * keywords, and comments ('#' or ';' first), are ignored.
 */
static void resolv_line(struct resolv_conf *r, char *line)
{
	char *save, *kw, *tok;

	kw = strtok_r(line, " \t\r\n", &save);
	if (!kw || *kw == '#' || *kw == ';')
		return;
	if (!strcmp(kw, "nameserver")) {
		tok = strtok_r(NULL, " \t\r\n", &save);
		if (tok)
			resolv_nameserver(r, tok);
	} else if (!strcmp(kw, "search")) {
		resolv_search(r, &save, false);
	} else if (!strcmp(kw, "domain")) {
		resolv_search(r, &save, true);
	}
}

/**
 * resolv_read() - Read name servers and search domains from a file
 * @path:	resolv.conf(5) file, normally RESOLV_PATH
 * @r:		Result, cleared first
 *
 * Keywords other than "nameserver", "search" and "domain" are ignored, and
 * so are lines starting with '#' or ';'.  The last "search" or "domain" line
 * wins, as resolv.conf(5) says.  Entries past RESOLV_MAX_NS per family or
 * CONF_MAX_SEARCH domains are dropped.
 *
 * Return: 0 on success (also for an empty file), -errno from fopen()
 */
int resolv_read(const char *path, struct resolv_conf *r)
{
	size_t cap = 0;
	char *line = NULL;
	FILE *f;

	memset(r, 0, sizeof(*r));
	f = fopen(path, "re");
	if (!f)
		return -errno;

	while (getline(&line, &cap, f) >= 0)
		resolv_line(r, line);

	free(line);
	fclose(f);
	return 0;
}

/**
 * resolv_read_fd() - Read name servers and search domains from an open file
 * @fd:		resolv.conf(5) file, read from offset 0 (pread(), the file
 *		offset is left alone)
 * @r:		Result, cleared first
 *
 * For the running daemon (passt/follow.c): no allocation, and at most
 * RESOLV_READ_MAX bytes are looked at, so a huge or garbage file costs a
 * bounded amount of memory and time; a line cut at that limit is dropped.
 * Otherwise the same rules as resolv_read().
 *
 * #syscalls:helper pread64
 * Return: 0 on success (also for an empty file), -errno from pread()
 */
int resolv_read_fd(int fd, struct resolv_conf *r)
{
	static char buf[RESOLV_READ_MAX + 1];
	char *line, *next;
	size_t len = 0;
	ssize_t n;

	memset(r, 0, sizeof(*r));
	while (len < RESOLV_READ_MAX) {
		n = pread(fd, buf + len, RESOLV_READ_MAX - len, (off_t)len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	if (len == RESOLV_READ_MAX) {	/* drop the line cut in two */
		char *nl = strrchr(buf, '\n');

		if (nl)
			nl[1] = '\0';
		else
			buf[0] = '\0';
	}

	for (line = buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		resolv_line(r, line);
	}
	return 0;
}

/**
 * resolv_add4() - Append an IPv4 name server to the guest's list, once
 * @ip4:	IPv4 configuration
 * @a:		Address
 */
static void resolv_add4(struct conf_ip4 *ip4, struct in_addr a)
{
	unsigned i;

	for (i = 0; i < ip4->dns_count; i++) {
		if (ip4->dns[i].s_addr == a.s_addr)
			return;
	}
	if (ip4->dns_count < CONF_MAX_DNS)
		ip4->dns[ip4->dns_count++] = a;
}

/**
 * resolv_add6() - Append an IPv6 name server to the guest's list, once
 * @ip6:	IPv6 configuration
 * @a:		Address
 */
static void resolv_add6(struct conf_ip6 *ip6, const struct in6_addr *a)
{
	unsigned i;

	for (i = 0; i < ip6->dns_count; i++) {
		if (IN6_ARE_ADDR_EQUAL(&ip6->dns[i], a))
			return;
	}
	if (ip6->dns_count < CONF_MAX_DNS)
		ip6->dns[ip6->dns_count++] = *a;
}

/**
 * resolv_apply4() - IPv4 part of resolv_apply()
 * @ip4:	IPv4 configuration
 * @r:		What resolv.conf says
 * @keep_dns:	-D was given: leave @ip4->dns alone
 */
static void resolv_apply4(struct conf_ip4 *ip4, const struct resolv_conf *r,
			  bool keep_dns)
{
	bool mapped = false;
	unsigned i;

	if (keep_dns)
		return;

	for (i = 0; i < r->ns4_count; i++) {
		if ((ntohl(r->ns4[i].s_addr) >> 24) != 127) {
			resolv_add4(ip4, r->ns4[i]);
		} else if (ip4->map_host_loopback.s_addr) {
			resolv_add4(ip4, ip4->map_host_loopback);
			mapped = true;
		}
	}
	if (mapped && !ip4->dns_fwd.s_addr)
		ip4->dns_fwd = ip4->map_host_loopback;
}

/**
 * resolv_apply6() - IPv6 part of resolv_apply()
 * @ip6:	IPv6 configuration
 * @r:		What resolv.conf says
 * @keep_dns:	-D was given: leave @ip6->dns alone
 */
static void resolv_apply6(struct conf_ip6 *ip6, const struct resolv_conf *r,
			  bool keep_dns)
{
	bool mapped = false;
	unsigned i;

	if (keep_dns)
		return;

	for (i = 0; i < r->ns6_count; i++) {
		if (!IN6_IS_ADDR_LOOPBACK(&r->ns6[i])) {
			resolv_add6(ip6, &r->ns6[i]);
		} else if (!IN6_IS_ADDR_UNSPECIFIED(&ip6->map_host_loopback)) {
			resolv_add6(ip6, &ip6->map_host_loopback);
			mapped = true;
		}
	}
	if (mapped && IN6_IS_ADDR_UNSPECIFIED(&ip6->dns_fwd))
		ip6->dns_fwd = ip6->map_host_loopback;
}

/**
 * resolv_apply() - Derive the guest's DNS settings from resolv.conf
 * @c:		Configuration: map_host_loopback, dns_fwd and dns_host of
 *		each family must already hold the command line values
 * @r:		What resolv.conf says (resolv_read())
 * @keep_dns:	-D was given (addresses or "none"): don't touch the lists
 * @keep_search: -S was given: don't touch the search list
 *
 * For each family, enabled or not: @dns_host, if unset, becomes the file's
 * first name server of that family (a host-side address: queries to the
 * --dns-forward address of the other family may go there, see
 * fwd_nat_to_host_port()).  For each enabled family, unless @keep_dns, the
 * guest's list gets the file's name servers in order, without duplicates,
 * at most CONF_MAX_DNS; loopback ones are replaced by @map_host_loopback
 * (skipped if that is unset), and if any was, @dns_fwd (if unset) becomes
 * @map_host_loopback.  Unless @keep_search, the search list is the file's.
 */
void resolv_apply(struct conf *c, const struct resolv_conf *r,
		  bool keep_dns, bool keep_search)
{
	unsigned i;

	if (!c->ip4.dns_host.s_addr && r->ns4_count)
		c->ip4.dns_host = r->ns4[0];
	if (IN6_IS_ADDR_UNSPECIFIED(&c->ip6.dns_host) && r->ns6_count)
		c->ip6.dns_host = r->ns6[0];

	if (c->ip4.enabled)
		resolv_apply4(&c->ip4, r, keep_dns);
	if (c->ip6.enabled)
		resolv_apply6(&c->ip6, r, keep_dns);

	if (keep_search)
		return;
	for (i = 0; i < r->search_count && i < CONF_MAX_SEARCH; i++)
		memcpy(c->search[i], r->search[i], CONF_SEARCH_LEN);
	c->search_count = i;
}
