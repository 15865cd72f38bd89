// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/main.c - Entry point (placeholder) */
#include "../conf/conf.h"

int main(int argc, char **argv)
{
	static struct conf c;

	return conf_parse(&c, argc, argv);
}
