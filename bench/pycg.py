#!/usr/bin/env python3
"""Measures graphsafe's call resolution against PyCG's micro-benchmark.

The suite is vitsalis/PyCG's `micro-benchmark/snippets/<category>/<case>/`: a small program and
the call graph it should have (`callgraph.json`, caller -> callees). This script runs
`graphsafe callgraph .` in each case's directory and compares edges: precision is the share of
the edges graphsafe reports that the expected graph has, recall the share of the expected edges
graphsafe reports. Nothing of the suite is part of this repository: point --suite at a checkout.

    python3 bench/pycg.py --graphsafe build/graphsafe --suite /path/to/PyCG/micro-benchmark
"""

import argparse
import json
import os
import subprocess
import sys
from collections import defaultdict


def edges(graph):
    return {(caller, callee) for caller, callees in graph.items() for callee in callees}


def strip_package(graph, directory):
    """PyCG names modules from the case's directory, even when it is itself a package (has an
    __init__.py); graphsafe names them as Python would. Drop that package's name."""
    if not os.path.isfile(os.path.join(directory, "__init__.py")):
        return graph
    prefix = os.path.basename(directory) + "."

    def strip(name):
        return name[len(prefix):] if name.startswith(prefix) else name

    return {strip(caller): [strip(callee) for callee in callees] for caller, callees in graph.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphsafe", required=True, help="the graphsafe binary")
    parser.add_argument("--suite", required=True, help="PyCG's micro-benchmark directory")
    parser.add_argument("--verbose", action="store_true", help="print every missed and extra edge")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()

    graphsafe = os.path.abspath(args.graphsafe)
    snippets = os.path.join(args.suite, "snippets")
    if not os.path.isdir(snippets):
        sys.exit(f"{snippets}: not a directory (expected PyCG's micro-benchmark)")
    per_category = defaultdict(lambda: {"cases": 0, "expected": 0, "found": 0, "correct": 0})
    failures = []
    for category in sorted(os.listdir(snippets)):
        for case in sorted(os.listdir(os.path.join(snippets, category))):
            directory = os.path.join(snippets, category, case)
            expected_path = os.path.join(directory, "callgraph.json")
            if not os.path.isfile(expected_path):
                continue
            with open(expected_path) as f:
                expected = edges(json.load(f))
            run = subprocess.run([graphsafe, "callgraph", "."], cwd=directory, capture_output=True,
                                 text=True, timeout=60)
            if run.returncode != 0:
                failures.append(f"{category}/{case}: exit {run.returncode}: {run.stderr.strip()}")
                found = set()
            else:
                found = edges(strip_package(json.loads(run.stdout), directory))
            stats = per_category[category]
            stats["cases"] += 1
            stats["expected"] += len(expected)
            stats["found"] += len(found)
            stats["correct"] += len(expected & found)
            if args.verbose:
                for edge in sorted(expected - found):
                    print(f"  missed {category}/{case}: {edge[0]} -> {edge[1]}")
                for edge in sorted(found - expected):
                    print(f"  extra  {category}/{case}: {edge[0]} -> {edge[1]}")

    def ratio(a, b):
        return a / b if b else 1.0

    total = {"cases": 0, "expected": 0, "found": 0, "correct": 0}
    print(f"{'category':<14} {'cases':>5} {'expected':>8} {'found':>6} {'precision':>9} {'recall':>7}")
    rows = {}
    for category, stats in sorted(per_category.items()):
        for key in total:
            total[key] += stats[key]
        rows[category] = stats
        print(f"{category:<14} {stats['cases']:>5} {stats['expected']:>8} {stats['found']:>6} "
              f"{ratio(stats['correct'], stats['found']):>9.3f} "
              f"{ratio(stats['correct'], stats['expected']):>7.3f}")
    print(f"{'total':<14} {total['cases']:>5} {total['expected']:>8} {total['found']:>6} "
          f"{ratio(total['correct'], total['found']):>9.3f} "
          f"{ratio(total['correct'], total['expected']):>7.3f}")
    for failure in failures:
        print("failed:", failure, file=sys.stderr)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"categories": rows, "total": total}, f, indent=2)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
