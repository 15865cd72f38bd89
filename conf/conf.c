// SPDX-License-Identifier: GPL-2.0-or-later
/* conf/conf.c - Command line parsing (placeholder, replaced by the full parser) */
#include <stdlib.h>
#include <string.h>

#include "conf.h"

/**
 * conf_parse() - Fill @c from the command line and the host
 * @c:		Configuration to fill
 * @argc:	Argument count
 * @argv:	Arguments
 *
 * Return: 0; exits with status 1 on invalid options
 */
int conf_parse(struct conf *c, int argc, char **argv)
{
	(void)argc;
	memset(c, 0, sizeof(*c));
	c->mode = strstr(argv[0], "pasta") ? MODE_PASTA : MODE_PASST;
	c->mtu = CONF_MTU_DEFAULT;
	c->fd = -1;
	return 0;
}
