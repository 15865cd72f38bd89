#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""test/bench/migconns.py - Host ends of the connections a migrating guest holds

The host side of test/bench/migrate.sh, with migconns.c in the guest (an
echo on every connection):

  migconns.py connect ADDR PORT N GOFILE   (in R: N connections to ADDR:PORT,
                                           passt's -t forward to the guest)
  migconns.py serve PORT N GOFILE          (in H: accept the guest's N
                                           connections through the gateway)

Once its N connections are up, each end sends a 16-byte probe on every
connection (its kind, index and round: unique, so bytes crossing
connections are caught) and checks that the same 16 bytes come back:
round "a", before the migration.  It prints "ready N" when all N
echoed, then leaves the connections idle until GOFILE exists (the
migration is over), sends round "b" the same way and prints
"result OK N": the connections that echoed round "b" intact, then
"lost I: REASON" for each that didn't.  Exit status: 0 if all N did.
"""

import os
import selectors
import socket
import sys
import time

PROBE_LEN = 16          # bytes per probe
PROBE_TIMEOUT_S = 120   # for the echoes of one round, all connections
SETUP_TIMEOUT_S = 600   # to get all N connections up


def probe(socks, kind, rnd):
    """Send one probe on each socket, collect the echoes.

    socks: connected sockets; kind: "i" (inbound) or "o" (outbound);
    rnd: "a" or "b".  Return: dict index -> reason for each that failed.
    """
    want = {}
    bad = {}
    for i, s in enumerate(socks):
        p = ("%s%05d%s" % (kind, i, rnd)).ljust(PROBE_LEN, ".").encode()
        want[i] = p
        try:
            s.sendall(p)
        except OSError as e:
            bad[i] = "send: %s" % e.strerror
    got = {i: b"" for i in want if i not in bad}
    sel = selectors.DefaultSelector()
    for i in got:
        socks[i].setblocking(False)
        sel.register(socks[i], selectors.EVENT_READ, i)
    end = time.monotonic() + PROBE_TIMEOUT_S
    while got and time.monotonic() < end:
        for key, _ in sel.select(timeout=1):
            i = key.data
            try:
                d = socks[i].recv(PROBE_LEN - len(got[i]))
            except BlockingIOError:
                continue
            except OSError as e:
                d = None
                bad[i] = "recv: %s" % e.strerror
            if d == b"":
                bad[i] = "closed by the peer"
            if not d:
                sel.unregister(socks[i])
                del got[i]
                continue
            got[i] += d
            if len(got[i]) == PROBE_LEN:
                if got[i] != want[i]:
                    bad[i] = "echo %r, sent %r" % (got[i], want[i])
                sel.unregister(socks[i])
                del got[i]
    for i in got:
        bad[i] = "no echo in %d s (%d bytes)" % (PROBE_TIMEOUT_S, len(got[i]))
    sel.close()
    for s in socks:
        s.setblocking(True)
    return bad


def run(socks, kind, gofile):
    """Round "a", wait for gofile, round "b"; print and return the status."""
    bad = probe(socks, kind, "a")
    if bad:
        print("before %d of %d" % (len(socks) - len(bad), len(socks)))
        for i in sorted(bad):
            print("lost %d: %s (before the migration)" % (i, bad[i]))
        return 1
    print("ready %d" % len(socks), flush=True)
    while not os.path.exists(gofile):
        time.sleep(0.1)
    t0 = time.monotonic()
    bad = probe(socks, kind, "b")
    print("result %d %d %.3f" % (len(socks) - len(bad), len(socks),
                                 time.monotonic() - t0))
    for i in sorted(bad):
        print("lost %d: %s" % (i, bad[i]))
    return 1 if bad else 0


def main():
    """Parse the command line, set the connections up, run both rounds."""
    if len(sys.argv) == 6 and sys.argv[1] == "connect":
        addr, port, n, gofile = sys.argv[2], int(sys.argv[3]), \
            int(sys.argv[4]), sys.argv[5]
        socks = []
        for i in range(n):
            try:
                s = socket.create_connection((addr, port), timeout=60)
            except OSError as e:
                print("error connect %d: %s" % (i, e), flush=True)
                return 1
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            socks.append(s)
        return run(socks, "i", gofile)
    if len(sys.argv) == 5 and sys.argv[1] == "serve":
        port, n, gofile = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
        ls = socket.socket(socket.AF_INET6)
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind(("::", port))
        ls.listen(4096)
        ls.settimeout(SETUP_TIMEOUT_S)
        print("listening", flush=True)
        socks = []
        while len(socks) < n:
            try:
                s, _ = ls.accept()
            except OSError as e:
                print("error accept %d: %s" % (len(socks), e), flush=True)
                return 1
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            socks.append(s)
        ls.close()
        return run(socks, "o", gofile)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
