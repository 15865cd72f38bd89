#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""sdlisten_exec.py - Start a command the way systemd's socket activation does

  sdlisten_exec.py [--pid self|parent|unset] [--fds N] [--wait] KIND ADDR
                   -- CMD...

Opens descriptor 3 as KIND says, then forks; the child moves it to 3 and
sets LISTEN_FDS (default 1) and LISTEN_PID (default its own PID, as
sd_listen_fds(3) requires; "parent": ours, "unset": none), then execs CMD.
As systemd does, we keep our copy of the socket while CMD runs.  KIND:

  unix      AF_UNIX SOCK_STREAM bound at ADDR, listening (ListenStream=)
  unbound   AF_UNIX SOCK_STREAM, not listening (ADDR unused)
  dgram     AF_UNIX SOCK_DGRAM bound at ADDR (ListenDatagram=)
  inet      TCP socket listening on 127.0.0.1, any port (ADDR unused)
  file      the regular file ADDR, opened read-only
  none      nothing: descriptor 3 is closed

--wait: exec CMD only once a client has connected (the socket is
readable), as systemd starts the service on the first connection.
Prints "child PID" when CMD starts and "exit RC" when it ends.
"""
import os
import select
import socket
import sys


def main():
    a = sys.argv[1:]
    pid_mode, fds, wait = "self", "1", False
    while a and a[0].startswith("--"):
        if a[0] == "--pid":
            pid_mode = a[1]
            a = a[2:]
        elif a[0] == "--fds":
            fds = a[1]
            a = a[2:]
        elif a[0] == "--wait":
            wait = True
            a = a[1:]
        else:
            break
    kind, addr, sep, cmd = a[0], a[1], a[2], a[3:]
    assert sep == "--" and cmd, __doc__

    keep = None
    if kind == "unix":
        keep = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        keep.bind(addr)
        keep.listen(16)
    elif kind == "unbound":
        keep = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    elif kind == "dgram":
        keep = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        keep.bind(addr)
    elif kind == "inet":
        keep = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        keep.bind(("127.0.0.1", 0))
        keep.listen(16)
    elif kind == "file":
        keep = open(addr, "rb")
    elif kind != "none":
        sys.exit("unknown kind " + kind)

    if wait:
        select.select([keep], [], [], 30)

    parent = os.getpid()
    pid = os.fork()
    if pid == 0:
        if keep is not None:
            if keep.fileno() != 3:
                os.dup2(keep.fileno(), 3)
            os.set_inheritable(3, True)
            if fds == "2":
                os.dup2(3, 4)
        else:
            try:
                os.close(3)
            except OSError:
                pass
        env = dict(os.environ)
        env["LISTEN_FDS"] = fds
        if pid_mode == "self":
            env["LISTEN_PID"] = str(os.getpid())
        elif pid_mode == "parent":
            env["LISTEN_PID"] = str(parent)
        else:
            env.pop("LISTEN_PID", None)
        os.execve(cmd[0], cmd, env)
    print("child", pid, flush=True)
    _, status = os.waitpid(pid, 0)
    print("exit", os.waitstatus_to_exitcode(status), flush=True)


if __name__ == "__main__":
    main()
