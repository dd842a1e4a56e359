#!/usr/bin/python3
"""Runs a command with chosen system calls made to fail, as unusual file systems, FUSE, network shares and sandboxes
fail them: a seccomp filter (libseccomp's Python binding, Debian's python3-seccomp) installed in this process and
inherited by the command and everything it starts. The calls really reach the filter, so what is tested is the
program's own handling of a real failed call, with no fake in between.

Usage: fail-system-calls.py RULE [RULE...] -- COMMAND [ARGUMENT...]
RULE:  CALL=ERRNO                  every call of CALL fails with ERRNO (a name such as EIO, or a number)
       CALL[N&MASK==VALUE]=ERRNO   only calls whose argument N (from 0), masked, equals VALUE (numbers in C notation)
Example: fail-system-calls.py 'ioctl[1&0xffffffff==0x40049409]=EIO' -- dotnet msbuild copy.proj   (FICLONE fails)

Exit codes: the command's own; 125 for a bad rule or a missing binding (with the reason on standard error).
"""
import errno
import os
import re
import sys

RULE = re.compile(r"^(?P<call>[a-z0-9_]+)(?:\[(?P<arg>\d)&(?P<mask>\w+)==(?P<value>\w+)\])?=(?P<errno>\w+)$")


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

    calls = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    for rule in rules:
        match = RULE.match(rule)
        if match is None:
            fail(f"bad rule {rule!r}: CALL=ERRNO or CALL[N&MASK==VALUE]=ERRNO")
        action = seccomp.ERRNO(errno_of(match["errno"]))
        try:
            if match["arg"] is None:
                calls.add_rule(action, match["call"])
            else:
                condition = seccomp.Arg(int(match["arg"]), seccomp.MASKED_EQ, int(match["mask"], 0), int(match["value"], 0))
                calls.add_rule(action, match["call"], condition)
        except (RuntimeError, ValueError) as e:
            fail(f"rule {rule!r} was refused: {e} (is {match['call']!r} a system call of this machine?)")
    calls.load()
    try:
        os.execvp(command[0], command)
    except OSError as e:
        fail(f"could not start {command[0]!r}: {e}")


if __name__ == "__main__":
    main(sys.argv[1:])
