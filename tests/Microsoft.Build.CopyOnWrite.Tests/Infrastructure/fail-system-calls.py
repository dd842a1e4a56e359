#!/usr/bin/python3
"""Runs a command with chosen system calls made to fail, as unusual file systems, FUSE, network shares and sandboxes
fail them: a seccomp filter (libseccomp's Python binding, Debian's python3-seccomp) installed in this process and
inherited by the command and everything it starts. The calls really reach the filter, so what is tested is the
program's own handling of a real failed call, with no fake in between.

Usage: fail-system-calls.py RULE [RULE...] -- COMMAND [ARGUMENT...]
RULE:  CALL=ERRNO                  every call of CALL fails with ERRNO (a name such as EIO, or a number)
       CALL[N&MASK==VALUE]=ERRNO   only calls whose argument N (from 0), masked, equals VALUE (numbers in C notation)
       ...=ERRNO*COUNT             only the first COUNT such calls of the whole process tree fail; later ones run
       ...=ERRNO*COUNT@N           only the first COUNT such calls into each folder fail: the folder of the file
                                   argument N (a descriptor) names, so that projects writing to folders of their own
                                   in one build each meet the fault as a build of their own would
Example: fail-system-calls.py 'ioctl[1&0xffffffff==0x40049409]=EIO' -- dotnet msbuild copy.proj   (FICLONE fails)
         fail-system-calls.py 'ioctl[1&0xffffffff==0x40049409]=EINTR*1' -- ...   (the first FICLONE is interrupted)

A counted rule cannot be kept by the filter alone (it has no memory), so the filter hands those calls to this
process (seccomp user notification, Linux 5.5+ for letting a call run): the command runs in a child that installs
the filter and passes its listener back, and this process answers each such call, failing the first COUNT and letting
the rest run, until the child ends.

Exit codes: the command's own; 125 for a bad rule or a missing binding (with the reason on standard error).
"""
import errno
import fcntl
import os
import re
import select
import socket
import struct
import sys

RULE = re.compile(r"^(?P<call>[a-z0-9_]+)(?:\[(?P<arg>\d)&(?P<mask>\w+)==(?P<value>\w+)\])?=(?P<errno>\w+)(?:\*(?P<count>\d+)(?:@(?P<per>\d))?)?$")

# From linux/seccomp.h: _IOWR('!', 0, struct seccomp_notif) (80 bytes) and _IOWR('!', 1, struct seccomp_notif_resp)
# (24 bytes); a response flag that lets the call run as if no filter had stopped it.
NOTIFY_RECEIVE = 0xC0502100
NOTIFY_SEND = 0xC0182101
NOTIFY_CONTINUE = 1


def fail(message):
    print(f"fail-system-calls: {message}", file=sys.stderr)
    sys.exit(125)


def errno_of(text):
    if text.isdigit():
        return int(text)
    if not hasattr(errno, text):
        fail(f"unknown errno name {text!r} (use a name from errno.h such as EIO, or a number)")
    return getattr(errno, text)


def main(argv):
    if "--" not in argv:
        fail("usage: fail-system-calls.py RULE [RULE...] -- COMMAND [ARGUMENT...]")
    split = argv.index("--")
    rules, command = argv[:split], argv[split + 1:]
    if not rules or not command:
        fail("at least one rule and a command are needed")
    try:
        import seccomp
    except ImportError:
        fail("the seccomp Python binding is missing: apt-get install python3-seccomp (then run /usr/bin/python3)")

    parsed = []
    for rule in rules:
        match = RULE.match(rule)
        if match is None:
            fail(f"bad rule {rule!r}: CALL=ERRNO, CALL[N&MASK==VALUE]=ERRNO, either with *COUNT or *COUNT@N")
        parsed.append(match)
    counted = [match for match in parsed if match["count"] is not None]
    if not counted:
        install(seccomp, parsed)
        run(command)

    parent_end, child_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    child = os.fork()
    if child == 0:
        parent_end.close()
        listener = install(seccomp, parsed)
        socket.send_fds(child_end, [b"L"], [listener])
        os.close(listener)
        child_end.close()
        run(command)
    child_end.close()
    _, fds, _, _ = socket.recv_fds(parent_end, 1, 1)
    parent_end.close()
    if not fds:
        os.waitpid(child, 0)
        fail("the command's filter did not hand over its listener")
    sys.exit(answer(seccomp, fds[0], counted, child))


def install(seccomp, parsed):
    """Loads the filter into this process (inherited by what it runs); the listener's descriptor when a rule is counted."""
    calls = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    for match in parsed:
        action = seccomp.NOTIFY if match["count"] is not None else seccomp.ERRNO(errno_of(match["errno"]))
        try:
            conditions = [] if match["arg"] is None else [condition_of(seccomp, match)]
            calls.add_rule(action, match["call"], *conditions)
        except (RuntimeError, ValueError) as e:
            fail(f"rule {match.string!r} was refused: {e} (is {match['call']!r} a system call of this machine?)")
    calls.load()
    return calls.get_notify_fd() if any(match["count"] is not None for match in parsed) else -1


def condition_of(seccomp, match):
    return seccomp.Arg(int(match["arg"]), seccomp.MASKED_EQ, int(match["mask"], 0), int(match["value"], 0))


def run(command):
    try:
        os.execvp(command[0], command)
    except OSError as e:
        fail(f"could not start {command[0]!r}: {e}")


def answer(seccomp, listener, counted, child):
    """Answers the counted rules' calls until the child ends; its exit code (128 + signal if a signal ended it)."""
    left = []
    for match in counted:
        number = seccomp.resolve_syscall(seccomp.Arch(), match["call"])
        argument = None if match["arg"] is None else (int(match["arg"]), int(match["mask"], 0), int(match["value"], 0))
        per = None if match["per"] is None else int(match["per"])
        left.append([number, argument, errno_of(match["errno"]), int(match["count"]), per, {}])
    poller = select.poll()
    poller.register(listener, select.POLLIN)
    while True:
        done, status = os.waitpid(child, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)
        for _, events in poller.poll(100):
            if events & select.POLLIN:
                answer_one(listener, left)
            elif events & (select.POLLHUP | select.POLLERR):
                poller.unregister(listener)  # every filtered process has ended; wait for the child's status


def answer_one(listener, left):
    request = bytearray(80)  # struct seccomp_notif, zeroed as the kernel asks
    try:
        fcntl.ioctl(listener, NOTIFY_RECEIVE, request, True)
    except OSError:
        return  # the caller went away (a signal, its end) before it could be received
    call_id, pid, _, number = struct.unpack_from("<QIIi", request, 0)
    arguments = struct.unpack_from("<6Q", request, 32)
    error, flags = 0, NOTIFY_CONTINUE
    for rule in left:
        rule_number, argument, rule_errno, count, per, counts = rule
        if rule_number != number or (argument is not None and arguments[argument[0]] & argument[1] != argument[2]):
            continue
        folder = None if per is None else folder_of(pid, arguments[per] & 0xFFFFFFFF)
        done = counts.get(folder, 0)
        if done < count:
            counts[folder] = done + 1
            error, flags = -rule_errno, 0
            break
    try:
        fcntl.ioctl(listener, NOTIFY_SEND, bytearray(struct.pack("<QqiI", call_id, 0, error, flags)), True)
    except OSError:
        pass  # the caller went away meanwhile


def folder_of(pid, descriptor):
    """The folder of the file a descriptor of the calling process names (an unnamed file's too); None if it is gone."""
    try:
        return os.path.dirname(os.readlink(f"/proc/{pid}/fd/{descriptor}"))
    except OSError:
        return None


if __name__ == "__main__":
    main(sys.argv[1:])
