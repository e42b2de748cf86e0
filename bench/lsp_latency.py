#!/usr/bin/env python3
"""Time from textDocument/didChange to the matching textDocument/publishDiagnostics.

Starts `graphsafe lsp`, opens a generated Python file of about 5,000 lines with many capture
regions (and a GS401 hazard in each), then edits one line at a time, each edit flipping a
hazard on or off, and measures how long the server takes to publish the diagnostics of that
document version. Standard library only; run by hand:

    python3 bench/lsp_latency.py build/graphsafe [--lines 5000] [--edits 30] [--debounce-ms 0]

With --debounce-ms 0 the number is the analysis itself (parse, lower, check, convert); with the
default quiet time the server waits that long after the last change before analyzing.

With --workspace DIR --file PATH the server is started on a real tree instead: PATH (relative to
DIR) is opened with its text on disk and edited by adding and removing a comment line at its
end, while the server analyzes the whole workspace. The baseline, run in the same invocation, is
`graphsafe check --no-cache` on DIR:

    python3 bench/lsp_latency.py build/graphsafe --workspace /tmp/real/NVIDIA+Megatron-LM \
        --file megatron/core/transformer/cuda_graphs.py --edits 10
"""

import argparse
import json
import os
import select
import statistics
import subprocess
import sys
import tempfile
import time


def make_source(lines):
    out = ["import torch", "", "x = torch.ones(4, device='cuda')", ""]
    block = 0
    while len(out) < lines:
        out += [
            f"def helper_{block}(t):",
            f"    s = t * {block}",
            "    return s + 1",
            "",
            f"g_{block} = torch.cuda.CUDAGraph()",
            f"with torch.cuda.graph(g_{block}):",
            f"    y_{block} = helper_{block}(x)",
            f"    v_{block} = y_{block}.sum().item()",
            f"    if flag_{block}:",
            f"        z_{block} = y_{block} * 2",
            "",
        ]
        block += 1
    return "\n".join(out[:lines]) + "\n", block


class Server:
    def __init__(self, binary):
        self.process = subprocess.Popen([binary, "lsp"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE)
        self.buffer = b""

    def send(self, message):
        body = json.dumps(message).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def receive(self, timeout=60.0):
        deadline = time.monotonic() + timeout
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end >= 0:
                headers = self.buffer[:end].decode()
                length = int(headers.split("Content-Length:")[1].split("\r\n")[0])
                if len(self.buffer) >= end + 4 + length:
                    body = self.buffer[end + 4:end + 4 + length]
                    self.buffer = self.buffer[end + 4 + length:]
                    return json.loads(body)
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no message from the server")
            ready, _, _ = select.select([self.process.stdout], [], [], left)
            if ready:
                chunk = os.read(self.process.stdout.fileno(), 1 << 16)
                if not chunk:
                    raise EOFError("the server closed its output")
                self.buffer += chunk

    def wait_for_diagnostics(self, uri, version, timeout=60.0):
        while True:
            message = self.receive(timeout)
            if (message.get("method") == "textDocument/publishDiagnostics"
                    and message["params"]["uri"] == uri
                    and message["params"].get("version") == version):
                return message["params"]["diagnostics"]


def start_server(binary, root, debounce_ms):
    server = Server(binary)
    server.send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                 "params": {"processId": os.getpid(), "rootUri": "file://" + root,
                            "capabilities": {"general": {"positionEncodings": ["utf-8"]}},
                            "initializationOptions": {"debounceMs": debounce_ms}}})
    while server.receive().get("id") != 1:
        pass
    server.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    return server


def stop_server(server):
    server.send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    while server.receive(timeout=600).get("id") != 2:
        pass
    server.send({"jsonrpc": "2.0", "method": "exit"})
    _, _, usage = os.wait4(server.process.pid, 0)
    return (usage.ru_utime + usage.ru_stime) * 1000


def workspace(args):
    root = os.path.abspath(args.workspace)
    args.binary = os.path.abspath(args.binary)
    path = os.path.join(root, args.file)
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    uri = "file://" + path

    start = time.perf_counter()
    subprocess.run([args.binary, "check", "--no-cache", "--quiet", "."], cwd=root,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    check_ms = (time.perf_counter() - start) * 1000

    start = time.perf_counter()
    server = start_server(args.binary, root, args.debounce_ms)
    server.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                 "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                             "text": text}}})
    first = server.wait_for_diagnostics(uri, 1, timeout=600)
    open_ms = (time.perf_counter() - start) * 1000

    end_line = text.count("\n")
    timings = []
    for edit in range(args.edits):
        version = edit + 2
        if edit % 2 == 0:  # add a comment line at the end
            change = {"range": {"start": {"line": end_line, "character": 0},
                                "end": {"line": end_line, "character": 0}},
                      "text": f"# edit {edit}\n"}
        else:  # and take it out again
            change = {"range": {"start": {"line": end_line, "character": 0},
                                "end": {"line": end_line + 1, "character": 0}},
                      "text": ""}
        start = time.perf_counter()
        server.send({"jsonrpc": "2.0", "method": "textDocument/didChange",
                     "params": {"textDocument": {"uri": uri, "version": version},
                                "contentChanges": [change]}})
        server.wait_for_diagnostics(uri, version, timeout=600)
        timings.append((time.perf_counter() - start) * 1000)
    cpu_ms = stop_server(server)

    timings.sort()
    print(f"workspace: {root}, opened {args.file}: {len(first)} diagnostics")
    print(f"graphsafe check --no-cache (baseline): {check_ms:.0f} ms")
    print(f"start + didOpen -> publishDiagnostics: {open_ms:.0f} ms "
          f"({open_ms / check_ms:.2f} x check)")
    if timings:
        median = statistics.median(timings)
        print(f"didChange -> publishDiagnostics over {len(timings)} edits: median {median:.0f} ms "
              f"({median / check_ms:.2f} x check), max {timings[-1]:.0f} ms")
    print(f"server CPU time, whole session: {cpu_ms:.0f} ms")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary")
    parser.add_argument("--lines", type=int, default=5000)
    parser.add_argument("--edits", type=int, default=30)
    parser.add_argument("--debounce-ms", type=int, default=0)
    parser.add_argument("--workspace", help="a real tree to serve instead of a generated file")
    parser.add_argument("--file", help="with --workspace: the file to open and edit")
    args = parser.parse_args()
    if args.workspace:
        return workspace(args)

    text, regions = make_source(args.lines)
    directory = tempfile.mkdtemp(prefix="graphsafe-bench-")
    path = os.path.join(directory, "big_module.py")
    with open(path, "w") as handle:
        handle.write(text)
    uri = "file://" + path

    server = Server(args.binary)
    server.send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                 "params": {"processId": os.getpid(), "rootUri": "file://" + directory,
                            "capabilities": {"general": {"positionEncodings": ["utf-8"]}},
                            "initializationOptions": {"debounceMs": args.debounce_ms}}})
    while server.receive().get("id") != 1:
        pass
    server.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})

    start = time.perf_counter()
    server.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                 "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                             "text": text}}})
    first = server.wait_for_diagnostics(uri, 1)
    open_ms = (time.perf_counter() - start) * 1000

    # Each edit rewrites one `.item()` line: `.item()` <-> `.float()`, so the count changes.
    lines = text.split("\n")
    item_lines = [i for i, line in enumerate(lines) if ".sum().item()" in line]
    timings = []
    for edit in range(args.edits):
        line = item_lines[(edit * 7) % len(item_lines)]
        column = lines[line].index(".sum().") + len(".sum().")
        old, new = ("item", "float") if lines[line][column:].startswith("item") else ("float",
                                                                                      "item")
        lines[line] = lines[line][:column] + new + lines[line][column + len(old):]
        version = edit + 2
        start = time.perf_counter()
        server.send({"jsonrpc": "2.0", "method": "textDocument/didChange",
                     "params": {"textDocument": {"uri": uri, "version": version},
                                "contentChanges": [{
                                    "range": {"start": {"line": line, "character": column},
                                              "end": {"line": line,
                                                      "character": column + len(old)}},
                                    "text": new}]}})
        server.wait_for_diagnostics(uri, version)
        timings.append((time.perf_counter() - start) * 1000)

    server.send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    while server.receive().get("id") != 2:
        pass
    server.send({"jsonrpc": "2.0", "method": "exit"})
    # The server's own CPU time, which a busy machine does not inflate the way it does wall time.
    _, _, usage = os.wait4(server.process.pid, 0)
    cpu_ms = (usage.ru_utime + usage.ru_stime) * 1000

    timings.sort()
    print(f"file: {args.lines} lines, {regions} capture regions, {len(first)} diagnostics at open")
    print(f"debounce: {args.debounce_ms} ms")
    print(f"didOpen -> publishDiagnostics: {open_ms:.1f} ms")
    print(f"didChange -> publishDiagnostics over {len(timings)} edits: "
          f"median {statistics.median(timings):.1f} ms, "
          f"p90 {timings[int(len(timings) * 0.9) - 1]:.1f} ms, max {timings[-1]:.1f} ms")
    print(f"server CPU time, whole session: {cpu_ms:.0f} ms "
          f"({cpu_ms / (len(timings) + 1):.1f} ms per analysis)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
