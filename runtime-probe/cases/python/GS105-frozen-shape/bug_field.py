"""GS105 frozen-shape, bug: the decode step writes its key/value into a cache slice whose start
offset is a field of the decoding state, which the decode loop advances between replays. The
capture baked in the offset it read, so every replay writes the same cache position."""
import json
import os
from pathlib import Path

import torch

CASE = "/".join(Path(__file__).resolve().parts[-3:])
RULE, KIND = "GS105", "bug"


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


class DecodeState:
    def __init__(self):
        self.offset = 0


def write_step(cache, kv, state):
    start = state.offset
    cache[start : start + 1] = kv  # hazard: GS105


cache = torch.zeros(4, device="cuda")
kv = torch.zeros(1, device="cuda")
state = DecodeState()
expected = [[1.0, 0.0, 0.0, 0.0], [1.0, 2.0, 0.0, 0.0], [1.0, 2.0, 3.0, 0.0],
            [1.0, 2.0, 3.0, 4.0]]

side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    for _ in range(3):
        write_step(cache, kv, state)
torch.cuda.current_stream().wait_stream(side)
cache.zero_()

g = torch.cuda.CUDAGraph()
try:
    with torch.cuda.graph(g):
        write_step(cache, kv, state)
except Exception as exc:  # the error text is the measurement
    emit(None, expected, describe(exc))

observed = []
for token in range(4):
    kv.fill_(token + 1.0)
    g.replay()
    observed.append(cache.tolist())
    state.offset += 1  # the next step's position: the graph still writes position 0
emit(observed, expected)
