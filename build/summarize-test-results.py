#!/usr/bin/env python3
"""Reads the TRX files of a test run and prints what a person needs at the end of it: every failed and
skipped test with its message, each suite's counts and wall time, then one closing line
'tests: N passed, N failed, N skipped' (CI reads that line; it is always the last one).

    summarize-test-results.py RESULTS [--times FILE] [PROJECT...]

A run can lose tests without any test failing, and the summary counts each such loss as a failure that names the
project, so it can never close with '0 failed' after one:
- a PROJECT named that wrote no TRX under RESULTS/PROJECT (its test host crashed or was stopped before writing);
- a TRX whose run did not complete: a test host that crashes, or is killed by `dotnet test --blame-hang-timeout`,
  still gets a TRX with the tests it finished, and only its ResultSummary says so. vstest marks such a run with a
  RunInfo of outcome "Error" ("The active test run was aborted. Reason: Test host process crashed") and an
  outcome of "Failed" (build/tests/trx/ holds real ones). A run completed when its ResultSummary's outcome is
  Completed, Failed (tests failed; they are counted one by one, not again here), Passed or Warning, and no
  RunInfo reports an error. Any other outcome (Aborted, Error, Timeout, InProgress, Pending, ...), a run-level
  error, a file without a ResultSummary (vstest and our own writers always write one, at the end) and a file that
  is not readable XML count as one failure each.

--times FILE: lines 'NAME SECONDS' (build/test.sh writes them); a NAME that is a PROJECT gets its counts beside
its time, any other (the solution's build) only its time; then the total."""
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

NS = {"t": "http://microsoft.com/schemas/VisualStudio/TeamTest/2010"}
PASSED = {"Passed", "PassedButRunAborted"}  # the second: the test passed; the aborted run is failed on its own
FAILED = {"Failed", "Error", "Timeout", "Aborted", "Disconnected", "InProgress", "Pending"}
COMPLETED_RUN = {"Completed", "Failed", "Passed", "Warning"}


def first_line(text):
    lines = (text or "").strip().splitlines()
    return lines[0].strip() if lines else ""


def incomplete_run(root):
    """Why the run this TRX records did not complete, or None when it did."""
    summary = root.find("t:ResultSummary", NS)
    if summary is None:
        return "the file has no ResultSummary (whatever wrote it stopped before the end of the run)"
    reasons = []
    outcome = summary.get("outcome")
    if outcome not in COMPLETED_RUN:
        reasons.append(f"run outcome {outcome!r}")
    for info in summary.iterfind("t:RunInfos/t:RunInfo", NS):
        if info.get("outcome") == "Error":
            reasons.append(first_line(info.findtext("t:Text", default="", namespaces=NS)) or "a run-level error")
    return "; ".join(reasons) or None


class Suite:
    def __init__(self):
        self.passed = self.failed = self.skipped = 0


def summarize(results, projects, times=()):
    """The lines to print and the (passed, failed, skipped) counts."""
    results = Path(results)
    suites = {project: Suite() for project in projects}
    failures, skips = [], []

    def suite_of(trx):
        relative = trx.relative_to(results)
        name = relative.parts[0] if len(relative.parts) > 1 else trx.name
        return name, suites.setdefault(name, Suite())

    for project in projects:
        if not any((results / project).rglob("*.trx")):
            suites[project].failed += 1
            failures.append(f"  FAILED  {project}: wrote no test results (its test host crashed or was stopped; see its output above)")
    for trx in sorted(results.rglob("*.trx")):
        name, suite = suite_of(trx)
        try:
            root = ET.parse(trx).getroot()
        except ET.ParseError as e:
            suite.failed += 1
            failures.append(f"  FAILED  {name}: its result file {trx.name} is not readable ({e}); its run did not complete")
            continue
        reason = incomplete_run(root)
        if reason:
            suite.failed += 1
            failures.append(f"  FAILED  {name}: its test run did not complete ({trx.name}: {reason}); the tests it did not finish are not counted")
        for result in root.iterfind(".//t:UnitTestResult", NS):
            outcome = result.get("outcome")
            test = result.get("testName")
            message = first_line(result.findtext(".//t:Message", default="", namespaces=NS))
            if outcome in PASSED:
                suite.passed += 1
            elif outcome in FAILED:
                suite.failed += 1
                failures.append(f"  FAILED  {test}: {message}")
            else:  # NotExecuted, Inconclusive, NotRunnable: a test that could not run here says why
                suite.skipped += 1
                skips.append(f"  SKIPPED {test}: {message}")

    lines = []
    if skips:
        lines += ["", f"{len(skips)} test(s) skipped, each with its reason:", *skips]
    if failures:
        lines += ["", f"{len(failures)} failure(s):", *failures]
    if times:
        width = max(len(name) for name, _ in times)
        lines += ["", "suite times:"]
        for name, seconds in times:
            counts = ""
            if name in suites:
                s = suites[name]
                counts = f"{s.passed} passed, {s.failed} failed, {s.skipped} skipped"
            lines.append(f"  {name:<{width}}  {counts:<36} {seconds:8.1f} s")
        lines.append(f"  {'total':<{width}}  {'':<36} {sum(seconds for _, seconds in times):8.1f} s")
    totals = tuple(sum(getattr(s, field) for s in suites.values()) for field in ("passed", "failed", "skipped"))
    lines += ["", "tests: {} passed, {} failed, {} skipped".format(*totals)]
    return lines, totals


def read_times(path):
    times = []
    for line in Path(path).read_text().splitlines():
        if line.strip():
            name, seconds = line.rsplit(maxsplit=1)
            times.append((name.strip(), float(seconds)))
    return times


def main(argv):
    args = list(argv)
    times = []
    if "--times" in args:
        i = args.index("--times")
        times = read_times(args[i + 1])
        del args[i:i + 2]
    lines, (passed, failed, _) = summarize(args[0], args[1:], times)
    print("\n".join(lines))
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
