"""Waits on a condition with a deadline, failing with what did not happen: the one place tests poll."""
import time

POLL_SECONDS = 0.01  # short against the deadlines, long enough not to spin a core


def wait_until(what, condition, timeout=10.0):
    """``condition()``'s value once it is true; an AssertionError naming ``what`` (the event waited
    for) if it is still false after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting until {what}")
        time.sleep(POLL_SECONDS)
