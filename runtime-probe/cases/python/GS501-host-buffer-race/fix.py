"""GS501 host-buffer-race, fix: an event recorded after each replay is waited on before the CPU
writes the pinned input again."""
# probe: run-alone
import json
import os
from pathlib import Path

import torch

CASE = "/".join(Path(__file__).resolve().parts[-3:])
RULE, KIND = "GS501", "fix"


def emit(observed, expected, capture_error=None):
    # One result line, then leave at once: a failed capture can leave the CUDA context unusable.
    line = {"case": CASE, "rule": RULE, "kind": KIND, "observed": observed,
            "expected": expected, "capture_error": capture_error}
    print(json.dumps(line), flush=True)
    os._exit(0)


def describe(exc):
    # The error and the errors it interrupted, first line of each; where the raise happened when
    # there is no message to tell it apart.
    parts = []
    while exc is not None and len(parts) < 3:
        text = str(exc).strip().splitlines()
        where = exc.__traceback__
        while where is not None and where.tb_next is not None:
            where = where.tb_next
        if not text and where is not None:
            code = where.tb_frame.f_code
            text = [f"(raised in {Path(code.co_filename).name}:{where.tb_lineno}, {code.co_name})"]
        parts.append(f"{type(exc).__name__}: {text[0] if text else ''}")
        exc = exc.__context__
    return " <- ".join(parts)


SLEEP_CYCLES = 100_000_000  # about 50 ms of GPU time before the copy


def step(x_host):
    torch.cuda._sleep(SLEEP_CYCLES)
    x_dev = x_host.to("cuda", non_blocking=True)
    return x_dev ** 2


x_host = torch.zeros(1, pin_memory=True)
values = [0.0, 1.0, 2.0, 3.0]
expected = [v * v for v in values]

side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    y = step(x_host)
torch.cuda.current_stream().wait_stream(side)
torch.cuda.synchronize()

g = torch.cuda.CUDAGraph()
try:
    with torch.cuda.graph(g):
        y = step(x_host)
except Exception as exc:  # the error text is the measurement
    emit(None, expected, describe(exc))

copied = torch.cuda.Event()
copied.record()
outputs = []
for v in values:
    copied.synchronize()  # the previous replay has read the buffer
    x_host.fill_(v)
    g.replay()
    copied.record()
    outputs.append(y.clone())
torch.cuda.synchronize()
emit([t.item() for t in outputs], expected)
