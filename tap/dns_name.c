// SPDX-License-Identifier: GPL-2.0-or-later
/* tap/dns_name.c - Encode search domains in DNS wire format (RFC 1035 3.1)
 *
 * A name such as "example.org" becomes a sequence of labels, each a length
 * byte (1..63) and that many bytes, ended by the zero-length root label:
 * 07 'e' 'x' 'a' 'm' 'p' 'l' 'e' 03 'o' 'r' 'g' 00.  DHCP option 119 may
 * replace a suffix already present in the list by a two-byte pointer
 * (RFC 3397 section 2, RFC 1035 section 4.1.4); the RA DNSSL option
 * (RFC 8106 section 5.2) and DHCPv6 (RFC 8415 section 10) must not.
 */
#include <errno.h>
#include <string.h>

#include "dns_name.h"

/* Compression pointer: top two bits set, 14-bit offset (RFC 1035 4.1.4) */
#define DNS_PTR_MASK	0xc0
#define DNS_PTR_MAX	0x3fff

/* Label starts remembered for compression: 8 names of at most 127 labels */
#define DNS_LABELS_MAX	(CONF_MAX_SEARCH * 128)

/**
 * dns_name_encode() - Encode one dotted name without compression
 * @name:	Name, e.g. "example.org" or "example.org." (one trailing dot
 *		is allowed), NUL-terminated
 * @out:	Output buffer
 * @cap:	Size of @out, bytes
 *
 * Return: encoded length in bytes (>= 2, root label included), -EINVAL for
 *	   an empty name, the root name ".", an empty label or a label longer
 *	   than 63 bytes, or a result longer than 255 bytes; -ENOSPC if @cap is
 *	   too small
 */
int dns_name_encode(const char *name, uint8_t *out, size_t cap)
{
	uint8_t tmp[DNS_NAME_MAX];
	size_t len = 0, n;
	const char *p = name;

	if (!name || !*name || !strcmp(name, "."))
		return -EINVAL;

	while (*p) {
		const char *dot = strchr(p, '.');

		n = dot ? (size_t)(dot - p) : strlen(p);
		if (n == 0 || n > 63)
			return -EINVAL;
		/* Length byte, label, and room for the root label */
		if (len + 1 + n + 1 > DNS_NAME_MAX)
			return -EINVAL;
		tmp[len++] = (uint8_t)n;
		memcpy(tmp + len, p, n);
		len += n;
		if (!dot)
			break;
		p = dot + 1;
	}
	tmp[len++] = 0;

	if (len > cap)
		return -ENOSPC;
	memcpy(out, tmp, len);
	return (int)len;
}

/**
 * dns_suffix_at() - Does the name at @pos in @buf spell out @suffix?
 * @buf:	Encoded list so far (may hold pointers)
 * @buf_len:	Bytes in @buf
 * @pos:	Offset of a label in @buf
 * @suffix:	Uncompressed encoded name tail, ending with the root label
 *
 * Return: true if following labels (and pointers) from @pos gives exactly
 *	   the labels of @suffix
 */
static bool dns_suffix_at(const uint8_t *buf, size_t buf_len, size_t pos,
			  const uint8_t *suffix)
{
	unsigned jumps = 0;

	for (;;) {
		uint8_t l;

		if (pos >= buf_len)
			return false;
		l = buf[pos];
		if ((l & DNS_PTR_MASK) == DNS_PTR_MASK) {
			if (pos + 1 >= buf_len || ++jumps > DNS_LABELS_MAX)
				return false;
			pos = (size_t)(l & ~DNS_PTR_MASK) << 8 | buf[pos + 1];
			continue;
		}
		if (l != *suffix)
			return false;
		if (!l)
			return true;
		if (pos + 1 + l > buf_len || memcmp(buf + pos + 1, suffix + 1, l))
			return false;
		pos += 1 + l;
		suffix += 1 + l;
	}
}

/**
 * dns_name_list_encode() - Encode a search list, whole names only
 * @names:	Names as in struct conf (dotted, NUL-terminated)
 * @n:		Number of entries in @names
 * @compress:	Replace suffixes seen before by pointers (RFC 1035 4.1.4);
 *		pointer offsets count from the start of @out
 * @out:	Output buffer
 * @cap:	Size of @out, bytes
 *
 * Names that can't be encoded (see dns_name_encode()) are skipped.  The
 * first name that doesn't fit in @cap ends the list: a list is never cut
 * inside a name.
 *
 * Return: bytes written to @out, 0 if no name could be written
 */
size_t dns_name_list_encode(const char (*names)[CONF_SEARCH_LEN], unsigned n,
			    bool compress, uint8_t *out, size_t cap)
{
	uint16_t labels[DNS_LABELS_MAX];
	unsigned nlabels = 0, i;
	size_t len = 0;

	for (i = 0; i < n; i++) {
		uint8_t tmp[DNS_NAME_MAX];
		size_t k, match = SIZE_MAX, best = 0, emit, j;
		int tlen;

		tlen = dns_name_encode(names[i], tmp, sizeof(tmp));
		if (tlen < 0)
			continue;

		/* Longest suffix (smallest k) already present in @out */
		for (k = 0; compress && tmp[k]; k += 1 + tmp[k]) {
			for (j = 0; j < nlabels; j++) {
				if (dns_suffix_at(out, len, labels[j],
						  tmp + k)) {
					match = k;
					best = labels[j];
					break;
				}
			}
			if (match != SIZE_MAX)
				break;
		}

		emit = match == SIZE_MAX ? (size_t)tlen : match + 2;
		if (emit > cap - len)
			break;

		/* Remember where the new, literal labels start */
		for (k = 0; compress && k < (match == SIZE_MAX ?
					     (size_t)tlen - 1 : match);
		     k += 1 + tmp[k]) {
			if (nlabels < DNS_LABELS_MAX && len + k <= DNS_PTR_MAX)
				labels[nlabels++] = (uint16_t)(len + k);
		}

		if (match == SIZE_MAX) {
			memcpy(out + len, tmp, (size_t)tlen);
		} else {
			memcpy(out + len, tmp, match);
			out[len + match] = DNS_PTR_MASK | (uint8_t)(best >> 8);
			out[len + match + 1] = (uint8_t)best;
		}
		len += emit;
	}

	return len;
}
