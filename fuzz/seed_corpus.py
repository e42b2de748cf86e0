#!/usr/bin/env python3
"""Builds the seed corpus of one fuzz target from the repository's own inputs.

    seed_corpus.py TARGET REPO_ROOT OUT_DIR

Seeds are the fixtures, the examples and the runtime probe's cases (real code of the kind
graphsafe analyzes), plus the hand-written seeds in fuzz/seeds/TARGET. Nothing here is committed:
the corpus is rebuilt from the current sources on every run.
"""

import hashlib
import json
import pathlib
import sys


def python_sources(root):
    for folder in ("fixtures", "examples", "runtime-probe/cases"):
        yield from sorted((root / folder).rglob("*.py"))


def cuda_sources(root):
    for folder in ("fixtures", "examples", "runtime-probe/cases"):
        for pattern in ("*.cu", "*.cuh", "*.cpp", "*.h"):
            yield from sorted((root / folder).rglob(pattern))


def comment_lines(text):
    lines = []
    for line in text.splitlines():
        for marker in ("#", "//"):
            at = line.find(marker)
            if at >= 0:
                lines.append(line[at:])
                break
    return "\n".join(lines)


def frame(message, header="Content-Length"):
    body = json.dumps(message).encode()
    return f"{header}: {len(body)}\r\n\r\n".encode() + body


def lsp_session(uri, text, header):
    """An editor session on one file: open, two edits, requests, close, shutdown."""
    doc = {"uri": uri}
    lines = text.splitlines() or [""]
    last = len(lines) - 1
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"capabilities": {"general": {"positionEncodings": ["utf-8", "utf-16"]}},
                    "rootUri": "file:///work"}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "method": "textDocument/didOpen",
         "params": {"textDocument": dict(doc, languageId="python", version=1, text=text)}},
        {"jsonrpc": "2.0", "method": "textDocument/didChange",
         "params": {"textDocument": dict(doc, version=2),
                    "contentChanges": [
                        {"range": {"start": {"line": 0, "character": 0},
                                   "end": {"line": 0, "character": 0}},
                         "text": "import torch  # é 😀\n"},
                        {"range": {"start": {"line": last, "character": 2},
                                   "end": {"line": last + 5, "character": 99}},
                         "text": ""}]}},
        {"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover",
         "params": {"textDocument": doc, "position": {"line": 1, "character": 4}}},
        {"jsonrpc": "2.0", "id": "3", "method": "textDocument/codeAction",
         "params": {"textDocument": doc,
                    "range": {"start": {"line": 0, "character": 0},
                              "end": {"line": 2, "character": 0}},
                    "context": {"diagnostics": []}}},
        {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 2}},
        {"jsonrpc": "2.0", "method": "textDocument/didChange",
         "params": {"textDocument": dict(doc, version=3), "contentChanges": [{"text": text}]}},
        {"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {"textDocument": doc}},
        {"jsonrpc": "2.0", "id": 4, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    return b"".join(frame(m, header) for m in messages)


def write(out, name, data):
    if isinstance(data, str):
        data = data.encode()
    digest = hashlib.sha1(data).hexdigest()[:12]
    (out / f"{name}-{digest}").write_bytes(data)


def main():
    target, root, out = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
    out.mkdir(parents=True, exist_ok=True)
    hand_written = root / "fuzz" / "seeds" / target
    if hand_written.is_dir():
        for seed in sorted(hand_written.iterdir()):
            write(out, seed.name, seed.read_bytes())

    if target == "python_analysis":
        sources = list(python_sources(root))
        for source in sources:
            write(out, source.stem, source.read_bytes())
        # Pairs of files (split on NUL by the target) for calls across files.
        for first, second in zip(sources, sources[1:]):
            write(out, "pair", first.read_bytes() + b"\0" + second.read_bytes())
    elif target in ("cuda_prefilter", "cuda_unit"):
        for source in cuda_sources(root):
            write(out, source.stem, source.read_bytes())
    elif target == "suppression_comment":
        for source in list(python_sources(root)) + list(cuda_sources(root)):
            comments = comment_lines(source.read_text(errors="replace"))
            if comments:
                write(out, source.stem, comments)
    elif target == "lsp_reader":
        headers = ["Content-Length", "content-length", "Accept: */*\r\nContent-Length"]
        for index, source in enumerate(list(python_sources(root))[:12]):
            text = source.read_text(errors="replace")
            session = lsp_session(f"file:///work/{source.name}", text, headers[index % 3])
            write(out, source.stem, session)
        write(out, "garbage", b"junk\r\nContent-Length: 2\r\n\r\n{}" +
              b"Content-Length: x\r\n\r\n" + frame({"jsonrpc": "2.0", "id": [], "method": 1}))
    elif target == "text_output":
        # The first byte is the number of findings cut out of the rest.
        for index, source in enumerate(python_sources(root)):
            write(out, source.stem, bytes([index % 48]) + source.read_bytes())
        write(out, "escapes", b"\x05s = '\x1b]52;c;ZWNobw==\x07'; \x1b[2J\r\x85 \xc2\x9b \xff\n")
        write(out, "minified", b"\x2f" + b"torch.cuda.synchronize();" * 4000)
    elif target == "cache_entry":
        # Splices into the real entry at a few places (form 1), whole payloads (form 0) and
        # unit entries (form 2).
        for at in (0, 1, 8, 40, 200, 1000, 4000):
            for text in (b"[", b"{", b'"x":' + b"[" * 64, b"null", b"]]]", b"\xff\xfe", b"1e999"):
                write(out, "splice", b"\x01" + at.to_bytes(4, "little") + b"\x08\x00" + text)
        for payload in (b"{}", b"[]", b'{"key": 1}', b"[" * 100000):
            write(out, "whole", b"\x00" + payload)
        for payload in (b'{"key": 1}\n', b"{}\ngraphsafe-model 4\n", b"\n" + bytes(range(256))):
            write(out, "unit", b"\x02" + payload)
    elif target not in ("config_yaml", "config_toml"):
        sys.exit(f"seed_corpus.py: unknown target {target}")


if __name__ == "__main__":
    main()
