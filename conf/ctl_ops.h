/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conf/ctl_ops.h - Operations of -c text requests on copies of the tables */
#ifndef CONF_CTL_OPS_H
#define CONF_CTL_OPS_H

#include <stdbool.h>
#include <stddef.h>

#include "conf.h"

bool ctl_table_usable(const struct conf *c, unsigned i);
bool ctl_same_bind(const struct fwd_rule *a, const struct fwd_rule *b);
int ctl_parse(const struct conf *c, char *req, struct fwd_table *tbls,
	      bool *show, bool *change, char *err, size_t len);

#endif /* CONF_CTL_OPS_H */
