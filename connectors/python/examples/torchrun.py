"""torch's own launcher, ``python -m torch.distributed.run``, usable on Debian's torch 1.13 with Python 3.11.

That pair's launcher fails before starting any worker (``'NoneType' object has no attribute 'get'``): its
``Std.from_str`` compares enum members with ints, which Python 3.11's enums no longer allow, and returns None. This
script mends that one function when it is broken and then runs ``torch.distributed.run`` unchanged, with the
same arguments; on a torch whose launcher works it only runs the launcher:

    /usr/bin/python3 examples/torchrun.py --nproc_per_node 2 examples/train_graphsage_ddp.py --epochs 40
"""

import re
import runpy
import sys

from torch.distributed.elastic.multiprocessing import api


def _from_str(cls, vm: str):
    """``0``..``3`` for every local rank, or ``rank:value,...`` (what torch's own parser accepts)."""
    if re.fullmatch(r"[0-3]", vm):
        return cls(int(vm))
    if re.fullmatch(r"(\d+:[0-3],)*\d+:[0-3]", vm):
        return {int(rank): cls(int(value)) for rank, value in (m.split(":") for m in vm.split(","))}
    raise ValueError(f"{vm} is not 0..3 or rank:value,... (torch.distributed.run --redirects/--tee)")


if api.Std.from_str("0") is None:
    api.Std.from_str = classmethod(_from_str)

if __name__ == "__main__":
    sys.argv[0] = "torch.distributed.run"
    runpy.run_module("torch.distributed.run", run_name="__main__", alter_sys=True)
