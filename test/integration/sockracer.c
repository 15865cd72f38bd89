// SPDX-License-Identifier: GPL-2.0-or-later
/* test/integration/sockracer.c - Swap a symbolic link in for socket files
 *
 * Usage: sockracer DIR TARGET SECONDS NAME...
 *
 * Run by an unprivileged user who may write to DIR (sockfile_race.sh
 * compiles it).  For SECONDS, as fast as it can: whenever one of the NAMEs
 * in DIR is a socket (just bound by the daemon), rename() a symbolic link
 * to TARGET over it, so that a later operation by path on DIR/NAME
 * (chmod(), chown()) reaches TARGET.  Prints the number of swaps.
 * rename(2) replaces the entry atomically; lstat(2) doesn't follow the
 * link it finds.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_NAMES	4

/**
 * main() - Entry point
 * @argc:	Argument count
 * @argv:	DIR TARGET SECONDS NAME...
 *
 * Return: 0, 1 on usage errors
 */
int main(int argc, char **argv)
{
	unsigned long swaps = 0, n = 0;
	struct timespec now, end;
	int dfd, i, names;
	struct stat st;

	if (argc < 5 || argc - 4 > MAX_NAMES) {
		fprintf(stderr, "usage: %s DIR TARGET SECONDS NAME...\n",
			argv[0]);
		return 1;
	}
	names = argc - 4;
	dfd = open(argv[1], O_PATH | O_DIRECTORY);
	if (dfd < 0) {
		perror(argv[1]);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += atoi(argv[3]);

	symlinkat(argv[2], dfd, ".racer-link");
	for (;;) {
		if (!(++n % 1024)) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec > end.tv_sec ||
			    (now.tv_sec == end.tv_sec &&
			     now.tv_nsec >= end.tv_nsec))
				break;
		}
		for (i = 0; i < names; i++) {
			if (fstatat(dfd, argv[4 + i], &st, AT_SYMLINK_NOFOLLOW) ||
			    !S_ISSOCK(st.st_mode))
				continue;
			if (!renameat(dfd, ".racer-link", dfd, argv[4 + i])) {
				swaps++;
				symlinkat(argv[2], dfd, ".racer-link");
			}
		}
	}
	printf("%lu\n", swaps);
	return 0;
}
