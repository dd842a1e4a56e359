#!/usr/bin/env python3
"""The task assembly's line coverage over one test run: every coverage.cobertura.xml under RESULTS (coverlet.collector,
one per test process that build/test.sh started with COW_COVERAGE=1) merged, a line counted as reached when any
process ran it. Prints the total, then each file's lines that no test reached, as 'path: count (line ranges)'.

Only in-process calls count: the consumer builds load the packed task assembly, which is not instrumented, so their
reach shows up only where an in-process test goes the same way (docs/test-strength.md, "Coverage").

  build/coverage.py RESULTS [--out FILE]   (FILE: the same listing, for a note or a diff between two runs)
"""
import argparse
import collections
import pathlib
import sys
import xml.etree.ElementTree as ElementTree


def merge(results: pathlib.Path) -> dict[str, dict[int, bool]]:
    reached: dict[str, dict[int, bool]] = collections.defaultdict(dict)
    reports = sorted(results.rglob("coverage.cobertura.xml"))
    if not reports:
        sys.exit(f"no coverage.cobertura.xml under {results}: was the run started with COW_COVERAGE=1?")
    for report in reports:
        root = ElementTree.parse(report).getroot()
        sources = [source.text or "" for source in root.iter("source")]
        for cls in root.iter("class"):
            name = cls.get("filename", "")
            if "/obj/" in "/" + name.replace("\\", "/"):
                continue  # generated at build time (the P/Invoke marshalling stubs): not ours to test
            path = next((str(pathlib.Path(s) / name) for s in sources if (pathlib.Path(s) / name).exists()), name)
            lines = reached[path]
            for line in cls.iter("line"):
                number = int(line.get("number", "0"))
                lines[number] = lines.get(number, False) or int(line.get("hits", "0")) > 0
    return reached


def ranges(numbers: list[int]) -> str:
    spans, start, previous = [], None, None
    for number in numbers:
        if start is None:
            start = previous = number
        elif number == previous + 1:
            previous = number
        else:
            spans.append(f"{start}" if start == previous else f"{start}-{previous}")
            start = previous = number
    if start is not None:
        spans.append(f"{start}" if start == previous else f"{start}-{previous}")
    return ", ".join(spans)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results")
    parser.add_argument("--out")
    args = parser.parse_args()
    reached = merge(pathlib.Path(args.results))
    total = sum(len(lines) for lines in reached.values())
    covered = sum(sum(lines.values()) for lines in reached.values())
    listing = []
    for path in sorted(reached, key=lambda p: p.split("/src/")[-1]):
        missed = sorted(number for number, hit in reached[path].items() if not hit)
        if missed:
            listing.append(f"{path.split('/src/')[-1]}: {len(missed)} of {len(reached[path])} ({ranges(missed)})")
    summary = f"task assembly coverage: {covered} of {total} coverable lines reached ({100.0 * covered / total:.1f}%), {len(listing)} files with lines no test reached"
    print(summary)
    print("\n".join(listing))
    if args.out:
        pathlib.Path(args.out).write_text(summary + "\n" + "\n".join(listing) + "\n")


if __name__ == "__main__":
    main()
