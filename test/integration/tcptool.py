#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tcptool.py - Small TCP peers for the integration tests

Every payload is a deterministic stream (Python's Mersenne Twister seeded
with a name), so both ends can check integrity without sharing files.

  serve-pattern PORT [--bind A]      for each connection: read a line "SEED SIZE\\n",
                                     send SIZE bytes of stream SEED, close
  fetch HOST PORT SEED SIZE          ask for and verify such a stream
  concurrent HOST PORT N SIZE [CONNECT_S]
                                     N parallel fetches, all verified; each
                                     connect() within CONNECT_S seconds
                                     (default 120), "N connected" printed
                                     before any data is read
  serve-halfclose PORT [--bind A]    read until EOF, then reply with
                                     "GOT <bytes> <sha256>\\n" + 1 MiB pattern
  halfclose HOST PORT SIZE           send SIZE bytes, shutdown(SHUT_WR), check
                                     the reply after our FIN
  serve-hash PORT [--bind A] [--backlog B]
                                     for each connection: read until EOF,
                                     answer "<bytes> <sha256>\\n", close; a
                                     small backlog (default 5, as socat's)
                                     makes the accept queue overflow
  serve-slow-hash PORT FILE [DELAY] [--bind A]
                                     accept one connection, read it 64 KiB
                                     at a time, DELAY s (default 0.006:
                                     about 10 MB/s) after each, until EOF, write "<bytes>
                                     <sha256>" (or "RESET <bytes>") to FILE
  uploads HOST PORT N SIZE           N parallel connections, each sends SIZE
                                     bytes, half-closes and checks the answer
                                     of serve-hash; prints completion times
  serve-rst PORT [--bind A]          accept, read a line, reset (SO_LINGER 0)
  expect-rst HOST PORT               connect, send a line, expect ECONNRESET
  serve-expect-rst PORT [--bind A]   accept, expect ECONNRESET from the client
  send-rst HOST PORT                 connect, send, then reset the connection
  reuse-rst HOST PORT N SPORT        N connections from source port SPORT,
                                     one after the other: echo 1000 bytes
                                     (serve-echo), reset, reconnect at once
                                     with the same 4-tuple; each in 0.5 s
  expect-refused HOST PORT           connect must fail with ECONNREFUSED
  hold HOST PORT N OK [FILE]         open N connections one after the other:
                                     the first OK must connect, the others
                                     must be refused (OK -1: connect until
                                     the first refusal); then each of the OK
                                     must echo a line (serve-echo), and
                                     again once FILE exists
  serve-echo PORT [--bind A]         for each connection: echo until EOF, close
  churn HOST PORT N [PAR]            N short connections, PAR (default 8) at a
                                     time: send 1000 bytes, half-close, check
                                     the echo; every 10th one is reset instead
  serve-source PORT [--bind A]       accept one connection, send until an
                                     error (at most 60 s)
  sink-expect-rst HOST PORT FILE     connect, read, create FILE after 1 MiB;
                                     the stream must end with ECONNRESET,
                                     not with EOF
  trickle HOST PORT FILE             connect, send 16 KiB every 20 ms until
                                     FILE exists (at most 60 s), then 1 MiB
                                     at once, half-close and check the
                                     answer of serve-hash

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


def stream(seed, size):
    """Yield SIZE bytes of the deterministic stream SEED, in chunks."""
    r = random.Random(seed)
    left = size
    while left > 0:
        n = min(left, 1 << 18)
        left -= n
        yield r.randbytes(n)


def stream_digest(seed, size):
    h = hashlib.sha256()
    for c in stream(seed, size):
        h.update(c)
    return h.hexdigest()


def listener(port, bind, backlog=512):
    fam = socket.AF_INET6 if ":" in bind else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if fam == socket.AF_INET6 and bind == "::":
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.bind((bind, port))
    s.listen(backlog)
    return s


def connect(host, port, timeout=30):
    return socket.create_connection((host, port), timeout=timeout)


def readline(c):
    buf = b""
    while not buf.endswith(b"\n"):
        d = c.recv(1)
        if not d:
            break
        buf += d
    return buf.decode().strip()


def recv_all(c):
    h = hashlib.sha256()
    n = 0
    while True:
        d = c.recv(1 << 20)
        if not d:
            return n, h.hexdigest()
        h.update(d)
        n += len(d)


def fail(msg):
    print("tcptool: " + msg, file=sys.stderr)
    sys.exit(1)


def serve_forever(s, handle):
    """Accept on s for ever: each connection handled by handle(c) in a
    thread of its own; OSError ends that connection, which is then closed"""
    def run(c):
        try:
            handle(c)
        except OSError:
            pass
        finally:
            c.close()

    while True:
        c, _ = s.accept()
        threading.Thread(target=run, args=(c,), daemon=True).start()


def serve_pattern(port, bind):
    s = listener(port, bind)

    def one(c):
        seed, size = readline(c).split()
        for chunk in stream(seed, int(size)):
            c.sendall(chunk)

    serve_forever(s, one)


def fetch(host, port, seed, size):
    c = connect(host, port)
    c.sendall(b"%s %d\n" % (seed.encode(), size))
    n, d = recv_all(c)
    c.close()
    if n != size:
        return "stream %s: got %d bytes, expected %d" % (seed, n, size)
    if d != stream_digest(seed, size):
        return "stream %s: sha256 mismatch" % seed
    return None


def concurrent(host, port, n, size, connect_s=120.0):
    errors = []
    socks = []
    for i in range(n):           # all connected before any data flows
        try:
            c = connect(host, port, timeout=connect_s)
        except OSError as e:
            fail("connection %d of %d: connect(): %s" % (i + 1, n, e))
        c.settimeout(120)
        c.sendall(b"c%d %d\n" % (i, size))
        socks.append(c)
    print("%d connected" % n, flush=True)

    def one(i, c):
        try:
            got, d = recv_all(c)
            if got != size or d != stream_digest("c%d" % i, size):
                errors.append("connection %d: %d bytes, digest %s" % (i, got, d[:12]))
        except OSError as e:
            errors.append("connection %d: %s" % (i, e))
        finally:
            c.close()

    ts = [threading.Thread(target=one, args=(i, c)) for i, c in enumerate(socks)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if errors:
        fail("%d of %d connections failed: %s" % (len(errors), n, "; ".join(errors[:5])))
    print("%d connections x %d bytes intact" % (n, size))


def serve_halfclose(port, bind):
    s = listener(port, bind)
    while True:
        c, _ = s.accept()
        c.settimeout(30)
        n, d = recv_all(c)          # until the client's FIN
        c.sendall(b"GOT %d %s\n" % (n, d.encode()))
        for chunk in stream("reply", 1 << 20):
            c.sendall(chunk)
        c.close()


def halfclose(host, port, size):
    c = connect(host, port)
    h = hashlib.sha256()
    for chunk in stream("request", size):
        h.update(chunk)
        c.sendall(chunk)
    c.shutdown(socket.SHUT_WR)
    line = readline(c).split()
    n, d = recv_all(c)
    c.close()
    if line != ["GOT", str(size), h.hexdigest()]:
        fail("server saw %s, expected %d bytes %s" % (line, size, h.hexdigest()[:12]))
    if n != 1 << 20 or d != stream_digest("reply", 1 << 20):
        fail("reply after half-close: %d bytes" % n)
    print("half-close: %d bytes up, 1 MiB reply after our FIN" % size)


def serve_hash(port, bind, backlog):
    s = listener(port, bind, backlog)

    def one(c):
        c.settimeout(60)
        n, d = recv_all(c)          # until the client's FIN
        c.sendall(b"%d %s\n" % (n, d.encode()))

    serve_forever(s, one)


def serve_slow_hash(port, bind, path, delay=0.006):
    s = listener(port, bind, 1)
    c, _ = s.accept()
    h, n, res = hashlib.sha256(), 0, None
    try:
        while True:
            d = c.recv(65536)
            if not d:
                res = "%d %s\n" % (n, h.hexdigest())
                break
            h.update(d)
            n += len(d)
            time.sleep(delay)
    except ConnectionResetError:
        res = "RESET %d\n" % n
    with open(path + ".tmp", "w") as f:
        f.write(res)
    os.rename(path + ".tmp", path)


def uploads(host, port, n, size):
    """N uploads started together; each must be answered with its own size
    and digest.  Prints p50/p99/max completion time, seconds"""
    errors = []
    times = []
    start = threading.Event()

    def one(i):
        seed = "u%d" % i
        try:
            start.wait()
            t0 = time.monotonic()
            c = connect(host, port, timeout=60)
            h = hashlib.sha256()
            for chunk in stream(seed, size):
                h.update(chunk)
                c.sendall(chunk)
            c.shutdown(socket.SHUT_WR)
            line = readline(c).split()
            c.close()
            if line != [str(size), h.hexdigest()]:
                errors.append("upload %d: server saw %s" % (i, line[:1]))
            else:
                times.append(time.monotonic() - t0)
        except OSError as e:
            errors.append("upload %d: %s" % (i, e))

    ts = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in ts:
        t.start()
    start.set()
    for t in ts:
        t.join()
    if errors:
        fail("%d of %d uploads failed: %s" % (len(errors), n, "; ".join(errors[:5])))
    times.sort()
    print("%d uploads x %d bytes intact: p50 %.3f s, p99 %.3f s, max %.3f s" %
          (n, size, times[len(times) // 2], times[min(len(times) - 1, int(len(times) * 0.99))],
           times[-1]))


def linger0(c):
    c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def serve_rst(port, bind):
    s = listener(port, bind)
    while True:
        c, _ = s.accept()
        readline(c)
        linger0(c)
        c.close()


def expect_rst(host, port):
    try:
        # A reset that comes before connect() returns is reported there
        c = connect(host, port, timeout=10)
    except ConnectionResetError:
        print("ECONNRESET as expected (at connect)")
        return
    try:
        c.sendall(b"hello\n")
        d = c.recv(100)
        # Some stacks report the RST on the next call
        if d == b"":
            fail("got EOF (FIN), expected a reset")
        c.recv(100)
    except ConnectionResetError:
        print("ECONNRESET as expected")
        return
    fail("no reset seen")


def serve_expect_rst(port, bind):
    s = listener(port, bind)
    s.settimeout(10)
    try:
        c, _ = s.accept()
    except socket.timeout:
        fail("no connection within 10 s")
    c.settimeout(10)
    try:
        while True:
            d = c.recv(100)
            if not d:
                fail("got EOF (FIN), expected a reset")
    except ConnectionResetError:
        print("server saw ECONNRESET as expected")
        return
    except socket.timeout:
        fail("no reset within 10 s")


def send_rst(host, port):
    c = connect(host, port, timeout=10)
    c.sendall(b"hello\n")
    linger0(c)
    c.close()


def reuse_rst(host, port, n, sport):
    """n connections one after the other, all from source port sport: send
    1000 bytes, read their echo (serve-echo), reset (SO_LINGER 0), and
    connect again at once, with the same 4-tuple.  Each must be done in
    0.5 s: a SYN left unanswered is resent after 1 s (RFC 6298 2.1)."""
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    slow = []
    t0 = time.time()
    for i in range(n):
        c = socket.socket(fam, socket.SOCK_STREAM)
        c.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        c.settimeout(10)
        c.bind(("::" if fam == socket.AF_INET6 else "0.0.0.0", sport))
        t = time.time()
        try:
            c.connect((host, port))
            data = os.urandom(1000)
            c.sendall(data)
            got = b""
            while len(got) < len(data):
                b = c.recv(65536)
                if not b:
                    break
                got += b
        except OSError as e:
            fail("connection %d from port %d: %s" % (i, sport, e))
        if got != data:
            fail("connection %d: echo of %d bytes differs" % (i, len(got)))
        linger0(c)
        c.close()
        if time.time() - t > 0.5:
            slow.append("%d: %.2f s" % (i, time.time() - t))
    if slow:
        fail("%d of %d connections slow (SYN resent?): %s" %
             (len(slow), n, ", ".join(slow[:5])))
    print("%d connections from port %d, each reset and reused at once, "
          "in %.2f s" % (n, sport, time.time() - t0))


def expect_refused(host, port):
    try:
        c = connect(host, port, timeout=10)
    except ConnectionRefusedError:
        print("ECONNREFUSED as expected")
        return
    except socket.timeout:
        fail("connect timed out, expected a refusal")
    c.close()
    fail("connect succeeded, expected a refusal")


def serve_echo(port, bind):
    s = listener(port, bind)

    def one(c):
        while True:
            d = c.recv(65536)
            if not d:
                break
            c.sendall(d)

    serve_forever(s, one)


def hold(host, port, n, ok, wait_file=None):
    held = []
    for i in range(n):
        try:
            c = connect(host, port, timeout=10)
        except ConnectionRefusedError:
            if i < ok:
                fail("connection %d refused, expected %d to connect" % (i, ok))
            if ok < 0:
                ok = i      # the first refusal sets the limit
            continue
        except socket.timeout:
            fail("connection %d: connect timed out" % i)
        if ok >= 0 and i >= ok:
            fail("connection %d connected, expected a refusal after %d"
                 % (i, ok))
        held.append(c)
    def check():
        for i, c in enumerate(held):
            c.settimeout(10)
            c.sendall(b"ping %d\n" % i)
            if readline(c) != "ping %d" % i:
                fail("held connection %d doesn't echo any more" % i)
    check()
    print("%d connected and echo, %d refused" % (len(held), n - len(held)))
    sys.stdout.flush()
    if wait_file:
        for _ in range(600):
            if os.path.exists(wait_file):
                break
            time.sleep(0.1)
        check()
        print("%d still echo" % len(held))


def churn(host, port, n, par):
    errors = []
    lock = threading.Lock()
    todo = iter(range(n))

    def worker():
        while True:
            with lock:
                i = next(todo, None)
            if i is None:
                return
            msg = (b"%08d" % i) * 125
            try:
                c = connect(host, port)
                c.sendall(msg)
                if i % 10 == 9:         # reset with data in flight
                    linger0(c)
                    c.close()
                    continue
                c.shutdown(socket.SHUT_WR)
                got = b""
                while True:
                    d = c.recv(65536)
                    if not d:
                        break
                    got += d
                c.close()
                if got != msg:
                    errors.append("connection %d: %d bytes back" % (i, len(got)))
            except OSError as e:
                errors.append("connection %d: %s" % (i, e))

    ts = [threading.Thread(target=worker) for _ in range(par)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if errors:
        fail("%d of %d connections failed: %s" % (len(errors), n, "; ".join(errors[:5])))
    print("%d connections done" % n)


def serve_source(port, bind):
    s = listener(port, bind)
    c, _ = s.accept()
    buf = bytes(65536)
    end = time.time() + 60
    try:
        while time.time() < end:
            c.sendall(buf)
    except OSError:
        pass


def sink_expect_rst(host, port, ready):
    c = connect(host, port)
    c.settimeout(30)
    n = 0
    marked = False
    try:
        while True:
            d = c.recv(65536)
            if not d:
                fail("EOF after %d bytes: the stream looks complete" % n)
            n += len(d)
            if not marked and n >= 1 << 20:
                open(ready, "w").close()
                marked = True
    except ConnectionResetError:
        print("reset after %d bytes" % n)


def trickle(host, port, stop):
    c = connect(host, port, timeout=60)
    h, n = hashlib.sha256(), 0
    t_end = time.monotonic() + 60
    while not os.path.exists(stop) and time.monotonic() < t_end:
        d = os.urandom(16384)
        h.update(d)
        c.sendall(d)
        n += len(d)
        time.sleep(0.02)
    for d in stream("trickle-end", 1 << 20):
        h.update(d)
        c.sendall(d)
        n += len(d)
    c.shutdown(socket.SHUT_WR)
    line = readline(c).split()
    if line != [str(n), h.hexdigest()]:
        fail("trickle: sent %d bytes, server saw %s" % (n, line[:1]))
    print("trickle: %d bytes intact" % n)


def main():
    a = sys.argv[1:]
    bind = "::"
    if "--bind" in a:
        i = a.index("--bind")
        bind = a[i + 1]
        del a[i:i + 2]
    backlog = 5
    if "--backlog" in a:
        i = a.index("--backlog")
        backlog = int(a[i + 1])
        del a[i:i + 2]
    cmd = a[0]
    if cmd == "serve-pattern":
        serve_pattern(int(a[1]), bind)
    elif cmd == "fetch":
        e = fetch(a[1], int(a[2]), a[3], int(a[4]))
        if e:
            fail(e)
        print("stream %s: %s bytes intact" % (a[3], a[4]))
    elif cmd == "concurrent":
        concurrent(a[1], int(a[2]), int(a[3]), int(a[4]),
                   float(a[5]) if len(a) > 5 else 120.0)
    elif cmd == "serve-halfclose":
        serve_halfclose(int(a[1]), bind)
    elif cmd == "halfclose":
        halfclose(a[1], int(a[2]), int(a[3]))
    elif cmd == "serve-hash":
        serve_hash(int(a[1]), bind, backlog)
    elif cmd == "serve-slow-hash":
        serve_slow_hash(int(a[1]), bind, a[2],
                        float(a[3]) if len(a) > 3 else 0.006)
    elif cmd == "uploads":
        uploads(a[1], int(a[2]), int(a[3]), int(a[4]))
    elif cmd == "serve-rst":
        serve_rst(int(a[1]), bind)
    elif cmd == "expect-rst":
        expect_rst(a[1], int(a[2]))
    elif cmd == "serve-expect-rst":
        serve_expect_rst(int(a[1]), bind)
    elif cmd == "send-rst":
        send_rst(a[1], int(a[2]))
    elif cmd == "reuse-rst":
        reuse_rst(a[1], int(a[2]), int(a[3]), int(a[4]))
    elif cmd == "expect-refused":
        expect_refused(a[1], int(a[2]))
    elif cmd == "serve-echo":
        serve_echo(int(a[1]), bind)
    elif cmd == "hold":
        hold(a[1], int(a[2]), int(a[3]), int(a[4]),
             a[5] if len(a) > 5 else None)
    elif cmd == "serve-source":
        serve_source(int(a[1]), bind)
    elif cmd == "sink-expect-rst":
        sink_expect_rst(a[1], int(a[2]), a[3])
    elif cmd == "trickle":
        trickle(a[1], int(a[2]), a[3])
    elif cmd == "churn":
        churn(a[1], int(a[2]), int(a[3]), int(a[4]) if len(a) > 4 else 8)
    else:
        fail("unknown command " + cmd)


if __name__ == "__main__":
    main()
