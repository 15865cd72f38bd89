/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/nsconf.h - pasta --config-net: keep the namespace's addresses and
 *		    routes in step with the host's, through a helper
 */
#ifndef PASST_NSCONF_H
#define PASST_NSCONF_H

#include "ctx.h"

void nsconf_init(struct ctx *ctx);
void nsconf_update(const struct ctx *ctx);
bool nsconf_running(void);

#endif /* PASST_NSCONF_H */
