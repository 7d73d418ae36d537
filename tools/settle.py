"""Waiting with a deadline instead of sleeping a guessed time, for every test layer (stdlib only).

    text = settled(read, flush=flush)   # flush(), then read() until it stops changing
    until(check, "what was waited for")   # check() until it returns something true

Nginx buffers the access log: a test that counts lines has it written out first, then reads until
the file stops changing.
"""
import time

TIMEOUT = 15.0   # a deadline, not a wait: reached only when something is wrong
QUIET = 0.5      # unchanged this long after the flush: the writers are done
STEP = 0.1


def settled(read, flush=None, timeout=TIMEOUT, quiet=QUIET, step=STEP, what="the logs"):
    """Call flush() (if given), then read() every `step` seconds until it has returned the same value
    for `quiet` seconds; return that value. AssertionError if it is still changing after `timeout`."""
    if flush:
        flush()
    deadline = time.monotonic() + timeout
    last, since = read(), time.monotonic()
    while True:
        time.sleep(step)
        now, t = read(), time.monotonic()
        if now != last:
            last, since = now, t
        elif t - since >= quiet:
            return now
        if t > deadline:
            raise AssertionError(f"{what} still changing after {timeout} s")


def until(check, what, timeout=TIMEOUT, step=STEP):
    """check() every `step` seconds until it returns something true; return that. AssertionError
    naming `what` if it has not within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        time.sleep(step)
