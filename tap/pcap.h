/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tap/pcap.h - Capture of guest frames to a classic pcap file (--pcap)
 *
 * Format: the libpcap file format (tcpdump.org "pcap-savefile" and
 * draft-ietf-opsawg-pcap): a 24-byte file header, then per frame a 16-byte
 * record header and the frame.  Fields are in host byte order; readers
 * detect it from the magic number.
 */
#ifndef TAP_PCAP_H
#define TAP_PCAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define PCAP_MAGIC_US		0xa1b2c3d4	/* microsecond timestamps */
#define PCAP_VERSION_MAJOR	2
#define PCAP_VERSION_MINOR	4
#define PCAP_SNAPLEN		262144	/* libpcap's MAXIMUM_SNAPLEN */
#define PCAP_LINKTYPE_ETHERNET	1	/* tcpdump.org link-layer types */

int pcap_open(const char *path);
#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
void pcap_close(void);
#endif
void pcap_frame(const uint8_t *frame, size_t len);
#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
void pcap_frames(const struct iovec *iov, size_t n, size_t skip);
#endif

#endif /* TAP_PCAP_H */
