"""torch.distributed.breakpoint: a debugger on one rank while the others wait for it."""

import pdb
import sys
from datetime import timedelta

from .distributed_c10d import _state, barrier, get_rank

_calls = {}  # call site -> how many times it was reached


class _TerminalPdb(pdb.Pdb):
    """pdb reading the terminal: a launched worker's stdin is not the user's."""

    def interaction(self, *args, **kwargs):
        saved = sys.stdin
        try:
            with open("/dev/tty") as tty:
                sys.stdin = self.stdin = tty
                pdb.Pdb.interaction(self, *args, **kwargs)
        finally:
            sys.stdin = self.stdin = saved


def breakpoint(rank=0, skip=0, timeout_s=3600):
    """Stop in the debugger on `rank` (after `skip` passes through this call site); every rank waits
    in a barrier until it continues, their groups' timeouts raised to `timeout_s` meanwhile."""
    caller = sys._getframe(1)
    if skip > 0:
        site = (caller.f_code.co_filename, caller.f_lineno)
        _calls[site] = _calls.get(site, 0) + 1
        if _calls[site] <= skip:
            return
    if timeout_s is not None:
        for g in [_state["world"], *_state["groups"]]:
            if g is not None:
                g.timeout = timedelta(seconds=timeout_s).total_seconds()
                if g.engine is not None and hasattr(g.engine, "timeout"):
                    g.engine.timeout = g.timeout
    if get_rank() == rank:
        debugger = _TerminalPdb()
        debugger.message(
            f"\n!!! ATTENTION !!!\n\nType 'up' to get to the frame that called dist.breakpoint(rank={rank})\n"
        )
        debugger.set_trace(caller)
    barrier()
