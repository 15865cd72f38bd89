#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""stresstool.py - Many TCP connections with mixed sizes and behaviours,
every byte accounted for at both ends

  serve PORT LOG [--bind A]        for each connection: read a header line
                                   "ID UP DOWN RMODE EMODE", receive UP
                                   bytes (reading as RMODE says) and send
                                   DOWN random bytes at once, concurrently;
                                   end as EMODE says; log what was received
                                   and sent (count, sha256) to LOG
  run HOST PORT LOG N PAR [--seed S] [--mix M] [--time T]
                                   N connections, PAR at a time, each with
                                   a random case from mix M; log likewise
  check SERVERLOG CLIENTLOG [--wait T] [--allow-refused]
                                   every byte sent arrived, intact, both
                                   ways, for every connection that did not
                                   end with a reset on purpose (and, with
                                   --allow-refused, those the server never
                                   saw: refused connections); waits up to
                                   T s for the server to finish

Mixes (--mix): default (sizes 0 to 4 MiB, all the behaviours below), norst
(the same without resets, for runs with loss: a lost RST is not resent), big
(100 MiB one way), finpause (uploads of 3.6 to 5.6 MB, then FIN, to a
reader that pauses), or one case "UP,DOWN,CREAD,CEND,SREAD,SEND".

Read modes: fast, slow (16 KiB every 10 ms), pause (stop reading for 3 s,
or STRESS_PAUSE s, after 256 KiB, then go on).  End modes: fin
(shutdown(SHUT_WR), read to EOF, close), close (close() right after the
last write, data may still be queued: the kernel still delivers it), rst
(SO_LINGER 0 close: data may be lost on purpose, only the daemon's health
is checked), trickle (server only: once the client half-closed, send DOWN
bytes in 32 KiB pieces every 20 ms).  STRESS_IDLE (default 60) is how
long, in seconds, a socket may make no progress before it counts as a
stall.

Exit status 0 on success, 1 with a message on failure.
"""
import hashlib
import os
import random
import socket
import struct
import sys
import threading
import time

from tcptool import listener  # same directory: the script's, on sys.path

lock = threading.Lock()
CHUNK = 65536
IDLE = float(os.environ.get("STRESS_IDLE", "60"))  # seconds without progress: a stall
PAUSE = float(os.environ.get("STRESS_PAUSE", "3"))  # "pause" read mode, s


def log_line(f, line):
    with lock:
        f.write(line + "\n")
        f.flush()


def recv_mode(c, mode, limit=None):
    """Read until EOF; return (bytes, sha256 hex, error or None)"""
    h = hashlib.sha256()
    n = 0
    paused = False
    err = None
    try:
        while True:
            want = 16384 if mode == "slow" else CHUNK
            b = c.recv(want)
            if not b:
                break
            h.update(b)
            n += len(b)
            if mode == "slow":
                time.sleep(0.01)
            elif mode == "pause" and not paused and n >= 262144:
                paused = True
                time.sleep(PAUSE)
    except socket.timeout:
        err = "STALL after %d bytes" % n
    except OSError as e:
        err = "%s after %d bytes" % (e.strerror or e, n)
    return n, h.hexdigest(), err


def send_random(c, size, trickle=False):
    """Send size random bytes; return (bytes, sha256 hex, error or None)"""
    h = hashlib.sha256()
    n = 0
    try:
        while n < size:
            piece = min(32768 if trickle else CHUNK, size - n)
            b = os.urandom(piece)
            h.update(b)
            c.sendall(b)
            n += piece
            if trickle:
                time.sleep(0.02)
    except socket.timeout:
        return n, h.hexdigest(), "STALL sending after %d bytes" % n
    except OSError as e:
        return n, h.hexdigest(), "%s sending after %d bytes" % (e.strerror, n)
    return n, h.hexdigest(), None


def linger0(c):
    c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def readline(c):
    b = b""
    while not b.endswith(b"\n"):
        x = c.recv(1)
        if not x:
            raise OSError("EOF in header")
        b += x
    return b.decode()


def serve(port, path, bind):
    s = listener(port, bind, 4096)
    f = open(path, "a")

    def one(c):
        c.settimeout(IDLE)
        try:
            cid, up, down, rmode, emode = readline(c).split()
        except (OSError, ValueError) as e:
            log_line(f, "ERR ? header: %s" % e)
            c.close()
            return
        down = int(down)
        res = {}

        def sender():
            res["s"] = send_random(c, down, trickle=(emode == "trickle"))

        # trickle: the reply starts only once the client half-closed
        t = None
        if emode != "trickle":
            t = threading.Thread(target=sender)
            t.start()
        n, sha, err = recv_mode(c, rmode)
        if emode == "trickle":
            sender()
        else:
            t.join()
        sn, ssha, serr = res["s"]
        log_line(f, "R %s %d %s %s" % (cid, n, sha, err or "ok"))
        log_line(f, "S %s %d %s %s" % (cid, sn, ssha, serr or "ok"))
        if emode == "rst":
            linger0(c)
        elif emode in ("fin", "trickle"):
            try:
                c.shutdown(socket.SHUT_WR)
            except OSError:
                pass
        c.close()

    while True:
        c, _ = s.accept()
        threading.Thread(target=one, args=(c,), daemon=True).start()


SIZES = [0, 1, 1000, 65537, 1048576, 4 << 20]
MIXES = {
    # (weight, up sizes, down sizes, client read, client end, server read,
    #  server end)
    "default": [
        (10, SIZES, SIZES, ["fast"], ["fin"], ["fast"], ["fin", "close"]),
        (3, SIZES, [0], ["fast"], ["close"], ["fast", "slow", "pause"], ["close"]),
        (3, [0, 1], SIZES, ["fast", "slow", "pause"], ["fin"], ["fast"], ["close"]),
        (2, [1000, 1048576], [1048576], ["fast"], ["fin"], ["fast"], ["trickle"]),
        (2, SIZES, SIZES, ["pause"], ["fin"], ["pause"], ["fin", "close"]),
        (1, SIZES, SIZES, ["fast"], ["rst"], ["fast"], ["fin"]),
        (1, SIZES, SIZES, ["fast"], ["fin"], ["fast"], ["rst"]),
    ],
    # Under loss: a reset that is lost is never sent again (RFC 9293
    # 3.10.7), and the peer waiting for data then waits forever
    "norst": [],
    "finpause": [
        (1, [0], [0], ["fast"], ["fin"], ["pause"], ["close"]),
    ],
    "big": [
        (1, [100 << 20], [0], ["fast"], ["close"], ["fast"], ["close"]),
        (1, [0], [100 << 20], ["fast"], ["fin"], ["fast"], ["close"]),
    ],
}


MIXES["norst"] = [c for c in MIXES["default"]
                  if "rst" not in c[4] and "rst" not in c[6]]


def run(host, port, path, n, par, seed, mix, tmax):
    rng = random.Random(seed)
    cases = []
    if mix in MIXES:
        table = MIXES[mix]
    else:  # one case: "UP DOWN CREAD CEND SREAD SEND"
        u, d, cr_, ce_, sr_, se_ = mix.split(",")
        table = [(1, [int(u)], [int(d)], [cr_], [ce_], [sr_], [se_])]
    weights = [w[0] for w in table]
    for i in range(n):
        _, ups, downs, cr, ce, sr, se = rng.choices(table, weights)[0]
        up = rng.choice(ups)
        down = rng.choice(downs)
        ce = rng.choice(ce)
        if ce == "close":
            down = 0
        if mix == "finpause":
            # uploads spread over the sizes a loopback socket's buffers
            # hold with a reader that stopped (see tcp_fin_slow_reader.sh)
            up = 3600000 + i * 2000000 // max(n - 1, 1)
        cases.append(("%d-%d" % (seed, i), up, down, rng.choice(cr), ce,
                      rng.choice(sr), rng.choice(se)))
    f = open(path, "a")
    errors = []
    nxt = [0]
    deadline = time.time() + tmax
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET

    durs = []

    def one(case):
        t0 = time.time()
        one_(case)
        with lock:
            durs.append((time.time() - t0, case))

    def one_(case):
        cid, up, down, cr, ce, sr, se = case
        c = socket.socket(fam, socket.SOCK_STREAM)
        c.settimeout(IDLE)
        try:
            c.connect((host, port))
        except OSError as e:
            log_line(f, "ERR %s connect: %s" % (cid, e))
            errors.append(cid)
            return
        try:
            c.sendall(("%s %d %d %s %s\n" % (cid, up, down, sr, se)).encode())
        except OSError as e:
            log_line(f, "ERR %s header: %s" % (cid, e))
            errors.append(cid)
            c.close()
            return
        res = {}

        def reader():
            res["r"] = recv_mode(c, cr)

        t = None
        if ce not in ("close", "rst"):
            t = threading.Thread(target=reader)
            t.start()
        sn, ssha, serr = send_random(c, up)
        log_line(f, "CS %s %d %s %s %s %s" % (cid, sn, ssha, ce, se,
                                          serr or "ok"))
        if ce == "close":
            c.close()
            return
        if ce == "rst":
            linger0(c)
            c.close()
            return
        try:
            c.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        t.join()
        rn, rsha, rerr = res["r"]
        log_line(f, "CR %s %d %s %s %s %s" % (cid, rn, rsha, ce, se,
                                          rerr or "ok"))
        c.close()

    def worker():
        while time.time() < deadline:
            with lock:
                if nxt[0] >= len(cases):
                    return
                case = cases[nxt[0]]
                nxt[0] += 1
            one(case)

    ts = [threading.Thread(target=worker) for _ in range(par)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if nxt[0] < len(cases):
        print("time out: %d of %d connections started" % (nxt[0], len(cases)))
        sys.exit(1)
    print("%d connections done, %d connect/header errors" % (n, len(errors)))
    for d, case in sorted(durs, key=lambda x: -x[0])[:5]:
        print("slowest: %.1f s %s" % (d, case))


def complete(spath, cpath):
    """True once the server logged both directions of every connection the
    client logged (resets on purpose aside)"""
    have = set()
    for line in open(spath):
        p = line.split()
        if p[0] in ("R", "S"):
            have.add((p[0], p[1]))
    for line in open(cpath):
        p = line.split()
        if p[0] in ("CS", "CR") and "rst" not in p[4:6]:
            if ("R" if p[0] == "CS" else "S", p[1]) not in have:
                return False
    return True


def check(spath, cpath, wait=0, allow_refused=False):
    end = time.time() + wait
    last, since = -1, time.time()
    while time.time() < end and not complete(spath, cpath):
        # Refused connections never complete: stop once the server's log
        # has not grown for 5 s
        size = os.path.getsize(spath)
        if size != last:
            last, since = size, time.time()
        elif allow_refused and time.time() - since > 5:
            break
        time.sleep(0.2)
    srv = {}
    for line in open(spath):
        p = line.split()
        if p[0] in ("R", "S"):
            srv[(p[0], p[1])] = (int(p[2]), p[3], " ".join(p[4:]))
        else:
            print("server: " + line.strip())
    bad = 0
    nconn = 0
    total = 0
    refused = set()
    seen = set(k[1] for k in srv)
    for line in open(cpath):
        p = line.split()
        if p[0] == "ERR":
            if allow_refused:
                refused.add(p[1])
                continue
            print("client: " + line.strip())
            bad += 1
            continue
        if allow_refused and p[1] not in seen:
            # reset before the server saw it: refused, not lost
            refused.add(p[1])
            continue
        kind, cid, n, sha, ce, se, err = p[0], p[1], int(p[2]), p[3], p[4], p[5], " ".join(p[6:])
        rst = "rst" in (ce, se)
        other = srv.get(("R" if kind == "CS" else "S", cid))
        if kind == "CS":
            nconn += 1
        total += n
        if rst:
            continue
        if err != "ok":
            print("%s: client %s error: %s" % (cid, kind, err))
            bad += 1
            continue
        if other is None:
            print("%s: no server record for %s" % (cid, kind))
            bad += 1
            continue
        on, osha, oerr = other
        if (on, osha) != (n, sha) or oerr != "ok":
            print("%s: %s client %d %s, server %d %s %s (%s/%s)" %
                  (cid, kind, n, sha[:12], on, osha[:12], oerr, ce, se))
            bad += 1
    if refused:
        print("%d connections refused" % len(refused))
    print("%d connections, %d bytes on the client side, %d bad" % (nconn, total, bad))
    sys.exit(1 if bad else 0)


def main():
    a = sys.argv[1:]
    if not a:
        print(__doc__)
        sys.exit(1)

    def opt(name, default):
        if name in a:
            i = a.index(name)
            v = a[i + 1]
            del a[i:i + 2]
            return v
        return default

    if a[0] == "serve":
        bind = opt("--bind", "::")
        serve(int(a[1]), a[2], bind)
    elif a[0] == "run":
        seed = int(opt("--seed", "1"))
        mix = opt("--mix", "default")
        tmax = float(opt("--time", "600"))
        run(a[1], int(a[2]), a[3], int(a[4]), int(a[5]), seed, mix, tmax)
    elif a[0] == "check":
        allow = "--allow-refused" in a
        if allow:
            a.remove("--allow-refused")
        check(a[1], a[2], float(opt("--wait", "0")), allow)
    else:
        print(__doc__)
        sys.exit(1)


if __name__ == "__main__":
    main()
