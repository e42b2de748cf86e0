#!/usr/bin/env python3
"""Runs the commands README.md and docs/ tell a user to type, so that a page cannot drift from
the tool: every `graphsafe ...` line of a shell block and every `graphsafe ...` code span in the
prose runs in a scratch project (a copy of examples/, with the files the pages name) and must
exit 0 or 1 (findings), never 2 (a usage error: an option that does not exist, a path the page
invented). A block preceded by `<!-- output of: COMMAND -->` is that command's output: every line
of it must appear in what the command prints, in order.

    docs_commands.py GRAPHSAFE_BINARY SOURCE_DIR

Not run, and why (each is checked to still be in the pages, so the list cannot go stale):
synopses (a placeholder such as FILE, PATH, I/N, [...], A|B), a command's name alone in a
sentence (`graphsafe merge`), commands for a tree the scratch
project cannot stand for (ILLUSTRATIVE below), and docs/real-code.md, a record of runs on other
projects.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

# Commands that need what a scratch copy of examples/ is not, with the reason.
ILLUSTRATIVE = {
    "graphsafe check --shard 1/4 --format sarif -o shard-1.sarif":
        "one of four CI jobs; run below as part of the merge",
    "graphsafe lsp": "an editor starts it; tests/lsp_*_test.cpp and tests/e2e/neovim_lsp.sh drive it",
    "graphsafe merge $(find bazel-bin -name '*.graphsafe.sarif') -o graphsafe.sarif":
        "after a Bazel build with the lint aspect",
}
# Pages that record runs on other projects rather than tell a user what to type.
REPORTS = {"docs/real-code.md"}
PLACEHOLDER = re.compile(r"\b(FILE|PATH|DIR|ROOT|ID|RULE|CODES|PATTERNS|SIZE|ARG|SHELL|FORMAT|N|OUT)\b|"
                         r"\bI/N\b|\[|\.\.\.|\||<[a-z ]+>")


def pages(source):
    yield "README.md"
    for name in sorted(os.listdir(os.path.join(source, "docs"))):
        if name.endswith(".md"):
            yield f"docs/{name}"


def commands_of(text):
    """(line, command, expected output lines or None) of a page."""
    found = []
    in_block, language, output_of, block = False, "", None, []
    pending_output = None
    for number, line in enumerate(text.splitlines(), 1):
        marker = re.match(r"<!-- output of: (.+) -->", line.strip())
        if marker:
            pending_output = marker.group(1)
            continue
        if line.startswith("```"):
            if not in_block:
                in_block, language, block = True, line[3:].strip(), []
                output_of, pending_output = pending_output, None
            else:
                if output_of:
                    found.append((number, output_of, block))
                in_block = False
            continue
        if in_block:
            block.append(line)
            if language in ("sh", "bash", "console", "shell"):
                command = re.sub(r"\s+#.*$", "", line.strip())
                if command.startswith("graphsafe "):
                    found.append((number, command, None))
            continue
        for span in re.findall(r"`(graphsafe [^`]+)`", line):
            # `graphsafe merge` in a sentence names the command; a command has arguments.
            if len(span.split()) > 2 or span.split()[1] in ("check", "rules"):
                found.append((number, span, None))
    return found


def scratch_project(source, binary, root):
    shutil.copytree(os.path.join(source, "examples"), os.path.join(root, "examples"))
    shutil.copytree(os.path.join(source, "examples"), os.path.join(root, "src"))
    os.makedirs(os.path.join(root, "tests"))
    for name in ("model.py", "a.py", "b.py"):
        shutil.copy(os.path.join(source, "examples", "train_step.py"), os.path.join(root, name))
    shutil.copy(os.path.join(source, "examples", "train_step.py"), os.path.join(root, "--output=x.py"))
    home = os.path.join(root, "home")
    for directory in (".local/share/bash-completion/completions", ".zfunc",
                      ".config/fish/completions"):
        os.makedirs(os.path.join(home, directory))
    for name, args in (("a.sarif", ["src/"]), ("b.sarif", ["examples/"])):
        subprocess.run([binary, "check", "--format", "sarif", "-o", name, "--exit-zero"] + args,
                       cwd=root, capture_output=True, check=True)
    for shard in (1, 2):
        subprocess.run([binary, "check", "--shard", f"{shard}/2", "--format", "sarif", "-o",
                        f"shard-{shard}.sarif", "--exit-zero"], cwd=root, capture_output=True,
                       check=True)
    subprocess.run([binary, "check", "--write-baseline", ".graphsafe-baseline.json"], cwd=root,
                   capture_output=True, check=True)
    return home


def run(binary, root, home, command):
    bin_dir = os.path.join(root, "bin")
    os.makedirs(bin_dir, exist_ok=True)
    link = os.path.join(bin_dir, "graphsafe")
    if not os.path.exists(link):
        os.symlink(binary, link)
    env = dict(os.environ, HOME=home, PATH=bin_dir + os.pathsep + os.environ["PATH"],
               GRAPHSAFE_NO_CACHE="1", NO_COLOR="1")
    return subprocess.run(["sh", "-c", command], cwd=root, env=env, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=120)


def main():
    binary, source = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    problems, ran, skipped, seen_illustrative = [], 0, 0, set()
    with tempfile.TemporaryDirectory() as scratch:
        home = scratch_project(source, binary, scratch)
        for page in pages(source):
            with open(os.path.join(source, page), encoding="utf-8") as f:
                text = f.read()
            for line, command, output in commands_of(text):
                where = f"{page}:{line}"
                if command in ILLUSTRATIVE:
                    seen_illustrative.add(command)
                    skipped += 1
                    continue
                if page in REPORTS or (output is None and PLACEHOLDER.search(command)):
                    skipped += 1
                    continue
                result = run(binary, scratch, home, command)
                ran += 1
                if result.returncode not in (0, 1):
                    problems.append(f"{where}: `{command}` exits {result.returncode}: "
                                    f"{(result.stderr or result.stdout).strip()[:300]}")
                    continue
                if output is not None:
                    printed = (result.stdout + result.stderr).splitlines()
                    at = 0
                    for expected in (l for l in output if l.strip()):
                        while at < len(printed) and printed[at].rstrip() != expected.rstrip():
                            at += 1
                        if at == len(printed):
                            problems.append(f"{where}: `{command}` does not print: {expected}")
                            break
                        at += 1
    for command in sorted(set(ILLUSTRATIVE) - seen_illustrative):
        problems.append(f"ILLUSTRATIVE lists `{command}`, which no page has any more")
    for problem in problems:
        print("FAIL:", problem)
    if ran < 20:
        problems.append(f"only {ran} commands ran: the pages were not read")
        print("FAIL:", problems[-1])
    if problems:
        sys.exit(1)
    print(f"ok: {ran} commands of README.md and docs/ ran as the pages say ({skipped} synopses, "
          "illustrative or reports)")


if __name__ == "__main__":
    main()
