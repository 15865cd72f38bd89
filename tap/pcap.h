/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tap/pcap.h - placeholder until the pcap writer lands */
#ifndef TAP_PCAP_H
#define TAP_PCAP_H
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
int pcap_open(const char *path);
void pcap_frame(const uint8_t *frame, size_t len);
void pcap_frames(const struct iovec *iov, size_t n, size_t skip);
#endif
