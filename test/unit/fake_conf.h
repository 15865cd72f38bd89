/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test/unit/fake_conf.h - A fixed struct conf for the tap/ service tests
 *
 * The values match the scratch network of captures/capture.sh, so frames
 * captured there are addressed to "us":
 *
 *   our MAC 9a:55:9a:55:9a:55, guest MAC 52:54:00:12:34:56, MTU 1500
 *   IPv4: guest 203.0.113.15/24, gateway 203.0.113.2, DNS 203.0.113.3
 *   IPv6: guest 2001:db8::15/64, gateway and our link-local fe80::1,
 *         DNS 2001:db8::3
 *   search list example.org, lab.example.org; host name "guest"
 */
#ifndef TEST_UNIT_FAKE_CONF_H
#define TEST_UNIT_FAKE_CONF_H

#include "../../conf/conf.h"

void fake_conf_init(struct conf *c);

#endif /* TEST_UNIT_FAKE_CONF_H */
