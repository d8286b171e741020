"""Fault injection: a test seam that kills (or stops) the process at a named step.

The write phase, recovery and the format stage call ``checkpoint(step)`` at every point where a
crash leaves a different state on disk. In normal use ``DSV41GEN_FAULT_AT`` is unset and a
checkpoint is one dictionary lookup. The crash tests set

- ``DSV41GEN_FAULT_AT=<step name>`` or ``=<N>`` (the N-th checkpoint reached, counting from 1),
  and the process sends itself ``DSV41GEN_FAULT_SIGNAL`` (default ``SIGKILL``) there;
- with ``DSV41GEN_FAULT_SIGNAL=SIGSTOP`` the process freezes at that step (holding whatever it
  holds, e.g. the output lock) until the test sends ``SIGCONT``: how the concurrency tests make
  a race happen at a chosen point instead of by chance.

Enumerating N = 1, 2, ... until a run completes visits every step without the tests keeping a
list of them; each injected fault names its step on stderr first.
"""

from __future__ import annotations

import os
import signal
import sys

FAULT_AT = "DSV41GEN_FAULT_AT"
FAULT_SIGNAL = "DSV41GEN_FAULT_SIGNAL"


class _Counter:
    reached = 0


def checkpoint(step: str) -> None:
    wanted = os.environ.get(FAULT_AT)
    if not wanted:
        return
    _Counter.reached += 1
    if wanted not in (step, str(_Counter.reached)):
        return
    name = os.environ.get(FAULT_SIGNAL, "SIGKILL")
    sys.stderr.write(f"dsv41gen: fault injected at step {_Counter.reached} ({step}): {name}\n")
    sys.stderr.flush()
    os.kill(os.getpid(), signal.Signals[name])
