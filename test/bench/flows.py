#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""test/bench/flows.py - Many concurrent TCP flows, each one timed and verified

  flows.py serve PORT [--bind A] [--backlog B] [--life S]
      For each connection: read a 12-byte header (flow id, size: network
      order u32, u64), then the flow's bytes, comparing every one with the
      flow's expected stream; once size bytes are in, answer "OK <bytes>\\n"
      (all equal) or "BAD <bytes> <why>\\n", and close (also on a FIN
      before that).  Exits after S seconds (default 300), listing on stderr
      the flows still open then (id, bytes received).
  flows.py run HOST PORT N SIZE [--timeout S]
      Start N connections at once, each sends its header and SIZE bytes
      and waits for the server's answer, then closes.  A flow's completion
      time runs from its connect() to the answer (every byte arrived and
      checked).  No half-close: the answer doesn't depend on how a FIN is
      carried, only on the data.  Prints one JSON object: flows, ok, failed, errors (first
      five), p50_s, p99_s (nearest rank), max_s, over_1s, wall_s (first
      connect to last answer), gbps (N x SIZE x 8 / wall_s), the client's
      CPU seconds and the TCP retransmissions of the client's namespace
      (/proc/net/snmp RetransSegs, /proc/net/netstat TCPSynRetrans) over
      the run.  Exit status 0 if every flow was verified, 1 if not.

Single-threaded, non-blocking sockets on epoll in both, so neither costs a
thread per flow.  The payload of flow i is a window into one pseudo-random
pattern, starting at an offset that depends on i: checking it is a memory
comparison, not a hash, and bytes of one flow arriving on another differ.
"""
import errno
import json
import os
import random
import resource
import selectors
import signal
import socket
import struct
import sys
import time

HDR = struct.Struct(">IQ")
PAT_LEN = (1 << 20) + 4093      # pattern period, not a multiple of any MSS
RECV = 1 << 18
_pat = random.Random(13).randbytes(PAT_LEN)
PAT2 = _pat + _pat              # any window of up to PAT_LEN bytes is contiguous
PAT2_MV = memoryview(PAT2)


def flow_offset(fid):
    """Where flow FID's stream starts in the pattern"""
    return (fid * 7919 + 17) % PAT_LEN


def raise_nofile():
    """Soft RLIMIT_NOFILE up to the hard limit: one fd per flow"""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (ValueError, OSError):
            pass


class ServerConn:
    __slots__ = ("sock", "hdr", "fid", "size", "got", "bad")

    def __init__(self, sock):
        self.sock = sock
        self.hdr = b""
        self.fid = self.size = None
        self.got = 0
        self.bad = None


def serve(port, bind, backlog, life):
    raise_nofile()
    fam = socket.AF_INET6 if ":" in bind else socket.AF_INET
    ls = socket.socket(fam, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((bind, port))
    ls.listen(backlog)
    ls.setblocking(False)
    sel = selectors.DefaultSelector()
    sel.register(ls, selectors.EVENT_READ, None)
    end = time.monotonic() + life

    conns = {}

    def finish(c, reply):
        conns.pop(c.sock.fileno(), None)
        sel.unregister(c.sock)
        try:
            c.sock.send(reply)      # a few bytes into an empty buffer
        except OSError:
            pass
        c.sock.close()

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        serve_loop(ls, sel, conns, finish, end)
    finally:
        for c in conns.values():
            print("flows serve: at exit, flow %s still open, %d of %s bytes in" % (
                c.fid, c.got, c.size), file=sys.stderr)


def serve_loop(ls, sel, conns, finish, end):
    """Accept and read until END (monotonic seconds)"""
    buf = bytearray(RECV)
    mv = memoryview(buf)
    while time.monotonic() < end:
        for key, _ in sel.select(1.0):
            if key.data is None:
                while True:
                    try:
                        s, _ = ls.accept()
                    except (BlockingIOError, InterruptedError):
                        break
                    except OSError as e:
                        if e.errno in (errno.EMFILE, errno.ENFILE):
                            print("flows serve: accept: %s" % e, file=sys.stderr)
                            break
                        continue
                    s.setblocking(False)
                    conns[s.fileno()] = ServerConn(s)
                    sel.register(s, selectors.EVENT_READ, conns[s.fileno()])
                continue
            c = key.data
            while True:
                try:
                    n = c.sock.recv_into(buf, RECV)
                except (BlockingIOError, InterruptedError):
                    break
                except OSError as e:
                    print("flows serve: flow %s: %s after %d bytes" % (
                        c.fid, e, c.got), file=sys.stderr)
                    conns.pop(c.sock.fileno(), None)
                    sel.unregister(c.sock)
                    c.sock.close()
                    break
                if n == 0:
                    if c.size is None:
                        finish(c, b"BAD 0 no header\n")
                    elif c.bad or c.got != c.size:
                        finish(c, b"BAD %d %s\n" % (c.got, (c.bad or "short").encode()))
                    else:
                        finish(c, b"OK %d\n" % c.got)
                    break
                d = mv[:n]
                if c.size is None:
                    need = HDR.size - len(c.hdr)
                    c.hdr += bytes(d[:need])
                    d = d[need:]
                    if len(c.hdr) < HDR.size:
                        continue
                    c.fid, c.size = HDR.unpack(c.hdr)
                if c.got + len(d) > c.size:
                    finish(c, b"BAD %d excess\n" % (c.got + len(d)))
                    break
                start = (flow_offset(c.fid) + c.got) % PAT_LEN
                if not c.bad and bytes(d) != PAT2[start:start + len(d)]:
                    c.bad = "mismatch@%d" % c.got   # bytes(): memcmp, fast
                c.got += len(d)
                if c.got == c.size:
                    finish(c, b"BAD %d %s\n" % (c.got, c.bad.encode()) if c.bad
                           else b"OK %d\n" % c.got)
                    break


class ClientFlow:
    __slots__ = ("fid", "sock", "t0", "t1", "hdr", "sent", "reply", "err")

    def __init__(self, fid):
        self.fid = fid
        self.sock = None
        self.t0 = self.t1 = None
        self.hdr = b""
        self.sent = 0
        self.reply = b""
        self.err = None


def tcp_counters():
    """RetransSegs (snmp) and TCPSynRetrans (netstat) of this namespace"""
    out = {}
    for path, keys in (("/proc/net/snmp", ("RetransSegs",)),
                       ("/proc/net/netstat", ("TCPSynRetrans",))):
        try:
            with open(path) as f:
                lines = f.read().splitlines()
        except OSError:
            continue
        for a, b in zip(lines[::2], lines[1::2]):
            if not a.startswith("Tcp"):
                continue
            for k, v in zip(a.split()[1:], b.split()[1:]):
                if k in keys:
                    out[k] = int(v)
    return out


def run(host, port, n, size, timeout):
    raise_nofile()
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    sel = selectors.DefaultSelector()
    flows = [ClientFlow(i) for i in range(n)]
    c0 = tcp_counters()
    cpu0 = os.times()
    live = 0
    t_start = time.monotonic()
    for f in flows:
        f.hdr = HDR.pack(f.fid, size)
        f.t0 = time.monotonic()
        try:
            s = socket.socket(fam, socket.SOCK_STREAM)
        except OSError as e:
            f.err = "socket: %s" % e
            continue
        s.setblocking(False)
        f.sock = s
        rc = s.connect_ex((host, port))
        if rc not in (0, errno.EINPROGRESS):
            f.err = "connect: %s" % os.strerror(rc)
            s.close()
            continue
        sel.register(s, selectors.EVENT_WRITE, f)
        live += 1

    def close(f, err=None):
        nonlocal live
        f.err = err
        sel.unregister(f.sock)
        f.sock.close()
        live -= 1

    deadline = t_start + timeout
    while live and time.monotonic() < deadline:
        for key, ev in sel.select(max(0.0, min(1.0, deadline - time.monotonic()))):
            f = key.data
            if f.sent < 0:                  # reading the answer
                try:
                    d = f.sock.recv(256)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError as e:
                    close(f, "answer: %s" % e)
                    continue
                if d:
                    f.reply += d
                    continue
                f.t1 = time.monotonic()
                r = f.reply.decode(errors="replace").split()
                close(f, None if r == ["OK", str(size)] else
                      "server: %s" % " ".join(r)[:60])
                continue
            if f.sent == 0 and f.hdr is not None and len(f.hdr) == HDR.size:
                e = f.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                if e:
                    close(f, "connect: %s" % os.strerror(e))
                    continue
            try:
                while f.hdr:
                    k = f.sock.send(f.hdr)
                    f.hdr = f.hdr[k:]
                while f.sent < size:
                    start = (flow_offset(f.fid) + f.sent) % PAT_LEN
                    k = f.sock.send(PAT2_MV[start:start + min(size - f.sent, PAT_LEN)])
                    f.sent += k
            except (BlockingIOError, InterruptedError):
                continue
            except OSError as e:
                close(f, "send at %d: %s" % (f.sent, e))
                continue
            f.sent = -1
            sel.modify(f.sock, selectors.EVENT_READ, f)
    t_end = time.monotonic()
    cpu1 = os.times()
    c1 = tcp_counters()
    for f in flows:
        if f.sock is not None and f.sock.fileno() >= 0:
            f.err = f.err or "not done after %d s (%d bytes sent)" % (
                timeout, f.sent if f.sent >= 0 else size)
            f.sock.close()
    times = sorted(f.t1 - f.t0 for f in flows if f.err is None and f.t1)
    errs = ["flow %d: %s" % (f.fid, f.err) for f in flows if f.err or not f.t1]
    res = {"flows": n, "size": size, "ok": len(times), "failed": len(errs),
           "errors": errs[:5]}
    if times:
        last = max(f.t1 for f in flows if f.t1)
        wall = last - t_start
        res.update({
            "p50_s": times[(len(times) - 1) // 2],
            "p99_s": times[max(0, -(-len(times) * 99 // 100) - 1)],
            "max_s": times[-1],
            "over_1s": sum(1 for t in times if t > 1.0),
            "wall_s": wall,
            "gbps": len(times) * size * 8 / wall / 1e9 if wall > 0 else None,
        })
    res["client_cpu_s"] = round((cpu1.user - cpu0.user) + (cpu1.system - cpu0.system), 3)
    res["run_s"] = round(t_end - t_start, 3)
    for k in ("RetransSegs", "TCPSynRetrans"):
        if k in c0 and k in c1:
            res[k] = c1[k] - c0[k]
    print(json.dumps(res))
    return 0 if not errs else 1


def opt(a, name, default):
    if name in a:
        i = a.index(name)
        v = a[i + 1]
        del a[i:i + 2]
        return v
    return default


def main():
    a = sys.argv[1:]
    if a and a[0] == "serve":
        bind = opt(a, "--bind", "0.0.0.0")
        backlog = int(opt(a, "--backlog", "4096"))
        life = float(opt(a, "--life", "300"))
        if len(a) == 2:
            serve(int(a[1]), bind, backlog, life)
            return 0
    elif a and a[0] == "run":
        timeout = float(opt(a, "--timeout", "60"))
        if len(a) == 5:
            return run(a[1], int(a[2]), int(a[3]), int(a[4]), timeout)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
