/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lib/inany.h - One address type for IPv4 and IPv6: union inany
 *
 * An IPv6 address, or an IPv4 address stored IPv4-mapped (::ffff:a.b.c.d,
 * RFC 4291 2.5.5.2), so that flow keys, hashes, comparisons and formatting
 * need no branch per family.  The helpers are inline: they convert from
 * struct in_addr and sockaddrs, tell the family and the special addresses
 * apart, and format.  Knows nothing of the rest of the tree.
 */
#ifndef LIB_INANY_H
#define LIB_INANY_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

/**
 * union inany - IPv6 address, or IPv4 address stored IPv4-mapped (::ffff:a.b.c.d)
 * @a6:		IPv6 view
 * @v4:		IPv4-mapped view: 10 zero bytes, 0xffff, then the IPv4 address
 *
 * One type for both families keeps flow keys, hashing and comparisons free of
 * per-family branches.  All addresses are in network byte order.
 */
union inany {
	struct in6_addr a6;
	struct {
		uint8_t zero[10];
		uint8_t one[2];
		struct in_addr a4;
	} v4;
};

/**
 * inany_from_v4() - Store an IPv4 address as IPv4-mapped
 * @dst:	Result
 * @a4:		IPv4 address, network order
 */
static inline void inany_from_v4(union inany *dst, struct in_addr a4)
{
	memset(dst, 0, 10);
	dst->v4.one[0] = dst->v4.one[1] = 0xff;
	dst->v4.a4 = a4;
}

/**
 * inany_v4() - IPv4 address if @a is IPv4-mapped
 * @a:		Address
 *
 * Return: pointer to the IPv4 part, or NULL if @a is a real IPv6 address
 */
static inline const struct in_addr *inany_v4(const union inany *a)
{
	static const uint8_t pfx[12] = { [10] = 0xff, [11] = 0xff };

	return memcmp(a, pfx, sizeof(pfx)) ? NULL : &a->v4.a4;
}

/**
 * inany_equals() - Compare two addresses
 * @a:		First address
 * @b:		Second address
 *
 * Return: true if equal
 */
static inline bool inany_equals(const union inany *a, const union inany *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/**
 * inany_af() - Address family of an address
 * @a:		Address
 *
 * Return: AF_INET for IPv4-mapped addresses, AF_INET6 otherwise
 */
static inline int inany_af(const union inany *a)
{
	return inany_v4(a) ? AF_INET : AF_INET6;
}

/**
 * inany_is_loopback() - Is the address 127.0.0.0/8 or ::1?
 * @a:		Address
 *
 * Return: true for loopback addresses of either family
 */
static inline bool inany_is_loopback(const union inany *a)
{
	const struct in_addr *a4 = inany_v4(a);

	if (a4)
		return (ntohl(a4->s_addr) >> 24) == 127;
	return IN6_IS_ADDR_LOOPBACK(&a->a6);
}

/**
 * inany_is_unspecified() - Is the address 0.0.0.0 (mapped) or ::?
 * @a:		Address
 *
 * Return: true if unspecified
 */
static inline bool inany_is_unspecified(const union inany *a)
{
	const struct in_addr *a4 = inany_v4(a);

	if (a4)
		return a4->s_addr == INADDR_ANY;
	return IN6_IS_ADDR_UNSPECIFIED(&a->a6);
}

/**
 * inany_ntop() - Format an address (IPv4-mapped as dotted quad)
 * @a:		Address
 * @buf:	Output, at least INET6_ADDRSTRLEN bytes
 *
 * Return: @buf
 */
static inline const char *inany_ntop(const union inany *a, char *buf)
{
	const struct in_addr *a4 = inany_v4(a);

	if (a4)
		return inet_ntop(AF_INET, a4, buf, INET6_ADDRSTRLEN);
	return inet_ntop(AF_INET6, &a->a6, buf, INET6_ADDRSTRLEN);
}

/**
 * inany_from_sockaddr() - Address and port from a sockaddr
 * @a:		Result address (IPv4-mapped for AF_INET, and for IPv4-mapped
 *		peers of dual-stack sockets, which are the same bytes)
 * @port:	Result port, host order
 * @sa:		sockaddr_in or sockaddr_in6
 */
static inline void inany_from_sockaddr(union inany *a, uint16_t *port,
				       const struct sockaddr_storage *sa)
{
	if (sa->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;

		inany_from_v4(a, s4->sin_addr);
		*port = ntohs(s4->sin_port);
	} else {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;

		a->a6 = s6->sin6_addr;
		*port = ntohs(s6->sin6_port);
	}
}

/**
 * inany_set() - Set @a from an address of a given family
 * @a:		Result
 * @af:		AF_INET or AF_INET6
 * @addr:	struct in_addr or struct in6_addr
 */
static inline void inany_set(union inany *a, int af, const void *addr)
{
	if (af == AF_INET)
		inany_from_v4(a, *(const struct in_addr *)addr);
	else
		memcpy(&a->a6, addr, sizeof(a->a6));
}

/**
 * sockaddr_from_inany() - Build a sockaddr for an address and port
 * @sa:		Result
 * @a:		Address (IPv4-mapped gives struct sockaddr_in)
 * @port:	Port, host order
 * @scope_id:	Interface index for IPv6 link-local addresses, else 0
 *
 * Return: length of the sockaddr
 */
static inline socklen_t sockaddr_from_inany(struct sockaddr_storage *sa,
					    const union inany *a,
					    uint16_t port, unsigned scope_id)
{
	const struct in_addr *a4 = inany_v4(a);

	memset(sa, 0, sizeof(*sa));
	if (a4) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)sa;

		s4->sin_family = AF_INET;
		s4->sin_addr = *a4;
		s4->sin_port = htons(port);
		return sizeof(*s4);
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)sa;

		s6->sin6_family = AF_INET6;
		s6->sin6_addr = a->a6;
		s6->sin6_port = htons(port);
		if (IN6_IS_ADDR_LINKLOCAL(&a->a6))
			s6->sin6_scope_id = scope_id;
		return sizeof(*s6);
	}
}

#endif /* LIB_INANY_H */
