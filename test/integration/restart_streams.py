#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# test/integration/restart_streams.py - Long paced two-way TCP transfers
#
#   serve PORT BIND RESULTS   accept for ever; per connection read the line
#                             "SEED SIZE", then at the same time send the
#                             stream SEED+1 and read one of SIZE bytes; the
#                             upload's sha256 is checked against stream SEED
#                             and "ok SEED" or "bad SEED why" is appended to
#                             RESULTS
#   run HOST PORT N SEED0 SIZE READY
#                             N connections at once, seeds SEED0.., each
#                             sends stream SEED and checks it gets stream
#                             SEED+1, both SIZE bytes, paced (CHUNK bytes
#                             every PACE_S seconds); once all are connected
#                             READY is created.  Exit 0 if every byte of
#                             every stream arrived unchanged, no reset
#
# Streams are random.Random(seed).randbytes(): the expected sha256 is
# computed apart from the transfer, from the seed.
import hashlib
import os
import random
import socket
import sys
import threading
import time

CHUNK = 4096
PACE_S = 0.025


def data(seed, size):
    return random.Random(seed).randbytes(size)


def send_paced(c, buf):
    off = 0
    while off < len(buf):
        c.sendall(buf[off:off + CHUNK])
        off += CHUNK
        time.sleep(PACE_S)


def recv_n(c, size):
    h = hashlib.sha256()
    got = 0
    while True:
        b = c.recv(65536)
        if not b:
            break
        h.update(b)
        got += len(b)
    return got, h.hexdigest()


def serve(port, bind, results):
    fam = socket.AF_INET6 if ":" in bind else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((bind, port))
    s.listen(512)
    lock = threading.Lock()

    def one(c):
        seed = -1
        try:
            line = b""
            while not line.endswith(b"\n"):
                b = c.recv(1)
                if not b:
                    raise OSError("no header")
                line += b
            seed, size = (int(x) for x in line.split())
            t = threading.Thread(target=send_paced,
                                 args=(c, data(seed + 1, size)))
            t.start()
            got, dig = recv_n(c, size)
            t.join()
            c.shutdown(socket.SHUT_WR)
            want = hashlib.sha256(data(seed, size)).hexdigest()
            res = "ok %d" % seed if (got, dig) == (size, want) else \
                  "bad %d got %d bytes" % (seed, got)
        except OSError as e:
            res = "bad %d %s" % (seed, e)
        with lock:
            with open(results, "a") as f:
                f.write(res + "\n")
        c.close()

    while True:
        c, _ = s.accept()
        threading.Thread(target=one, args=(c,), daemon=True).start()


def run(host, port, n, seed0, size, ready):
    errors = []
    conns = []
    for i in range(n):
        c = socket.create_connection((host, port), timeout=60)
        c.sendall(b"%d %d\n" % (seed0 + i, size))
        conns.append(c)
    open(ready, "w").close()

    def one(i, c):
        seed = seed0 + i
        try:
            t = threading.Thread(target=lambda: (
                send_paced(c, data(seed, size)),
                c.shutdown(socket.SHUT_WR)))
            t.start()
            got, dig = recv_n(c, size)
            t.join()
            want = hashlib.sha256(data(seed + 1, size)).hexdigest()
            if (got, dig) != (size, want):
                errors.append("stream %d: %d of %d bytes%s" %
                              (seed, got, size,
                               ", sha256 differs" if got == size else ""))
        except OSError as e:
            errors.append("stream %d: %s" % (seed, e))
        c.close()

    ts = [threading.Thread(target=one, args=(i, c))
          for i, c in enumerate(conns)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for e in errors:
        print(e, file=sys.stderr)
    print("%d of %d streams whole" % (n - len(errors), n))
    return 1 if errors else 0


def main():
    a = sys.argv[1:]
    if a and a[0] == "serve":
        serve(int(a[1]), a[2], a[3])
    elif a and a[0] == "run":
        sys.exit(run(a[1], int(a[2]), int(a[3]), int(a[4]), int(a[5]),
                     a[6]))
    else:
        print(__doc__ if False else "usage: see the file", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
