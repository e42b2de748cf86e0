"""GS502 concurrent-pool-replay, fix: each graph gets its own pool, so concurrent replays on three
streams touch disjoint memory."""
# probe: run-alone
import json
import os
from pathlib import Path

import torch

CASE = "/".join(Path(__file__).resolve().parts[-3:])
RULE, KIND = "GS502", "fix"


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


N = 1 << 28  # 1 GiB of float32 per tensor, so the replays overlap for milliseconds
ROUNDS = 50


def f1(x):
    return x ** 2 + 2 * x + 1


def f2(x):
    return x ** 2 + 2 * x + 2


def f3(x):
    return x ** 2 + 2 * x + 3


x1 = torch.full((N,), 1.0, device="cuda")
x2 = torch.full((N,), 2.0, device="cuda")
x3 = torch.full((N,), 3.0, device="cuda")
expected = [4.0, 4.0, 10.0, 10.0, 18.0, 18.0]  # min and max of each output

side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    y1, y2, y3 = f1(x1), f2(x2), f3(x3)
torch.cuda.current_stream().wait_stream(side)
del y1, y2, y3
torch.cuda.synchronize()

g1, g2, g3 = torch.cuda.CUDAGraph(), torch.cuda.CUDAGraph(), torch.cuda.CUDAGraph()
try:
    with torch.cuda.graph(g1):
        y1 = f1(x1)
    with torch.cuda.graph(g2):
        y2 = f2(x2)
    with torch.cuda.graph(g3):
        y3 = f3(x3)
except Exception as exc:  # the error text is the measurement
    emit(None, expected, describe(exc))

s1, s2, s3 = torch.cuda.Stream(), torch.cuda.Stream(), torch.cuda.Stream()
for s in (s1, s2, s3):
    s.wait_stream(torch.cuda.current_stream())
for _ in range(ROUNDS):
    with torch.cuda.stream(s1):
        g1.replay()
    with torch.cuda.stream(s2):
        g2.replay()
    with torch.cuda.stream(s3):
        g3.replay()
for s in (s1, s2, s3):
    torch.cuda.current_stream().wait_stream(s)
torch.cuda.synchronize()
observed = []
for y in (y1, y2, y3):
    observed += [y.min().item(), y.max().item()]
emit(observed, expected)
