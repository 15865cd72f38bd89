// SPDX-License-Identifier: GPL-2.0-or-later
/* tap/pcap.c - placeholder until the pcap writer lands */
#include <errno.h>
#include "pcap.h"
int pcap_open(const char *path) { (void)path; return -ENOSYS; }
void pcap_frame(const uint8_t *frame, size_t len) { (void)frame; (void)len; }
void pcap_frames(const struct iovec *iov, size_t n, size_t skip) { (void)iov; (void)n; (void)skip; }
