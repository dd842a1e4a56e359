#!/usr/bin/env python3
"""Reads the TRX files of a test run and prints what a person needs at the end of it: every failed and
skipped test with its message, each suite's counts and wall time, then one closing line
'tests: N passed, N failed, N skipped' (CI reads that line; it is always the last one).

    summarize-test-results.py RESULTS [--times FILE] [--wall SECONDS] [PROJECT...]

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
its time, any other (the solution's build) only its time; then the total (the suites' times added up).
--wall SECONDS: the run's wall-clock time, printed after the total (build/test.sh runs suites side by side, so
the wall clock is less than the total).
--commands FILE: the `dotnet` command lines the run started, one a line (build/test.sh records them); printed as
'N build processes' (the MSBuild processes: build, msbuild, restore, pack, publish, new, test, clean) with the count of
each, after the wall clock: the budget of CONTRIBUTING.md, "Testing".

Where the minutes go, before the suite times: the test classes by the time their tests took (each TRX result's
duration, added up per class; the class comes from the TRX's test definitions, else from the test's name up to its
first dot) and the slowest tests. A class's set-up outside its tests (ClassInitialize) is in no result's duration,
so the suite's wall time can be more than its classes add up to."""
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


SLOWEST_TESTS = 30
SLOWEST_CLASSES = 20
BUILD_COMMANDS = ("build", "msbuild", "restore", "pack", "publish", "new", "test", "clean")


def seconds_of(duration):
    """A TRX duration (hh:mm:ss.fffffff) in seconds; 0 when absent or not of that shape."""
    try:
        hours, minutes, seconds = (duration or "").split(":")
        return int(hours) * 3600 + int(minutes) * 60 + float(seconds)
    except ValueError:
        return 0.0


def test_classes(root):
    """testId -> the test's class, from the TRX's test definitions (vstest writes them; our Wine writer does not)."""
    classes = {}
    for test in root.iterfind(".//t:TestDefinitions/t:UnitTest", NS):
        method = test.find("t:TestMethod", NS)
        if method is not None and method.get("className"):
            classes[test.get("id")] = method.get("className")
    return classes


def where_the_time_goes(timings):
    """Lines for the classes that took longest and the slowest tests; timings are (suite, class, test, seconds)."""
    if not timings:
        return []
    per_class = {}
    for suite, cls, _, seconds in timings:
        total, count = per_class.get((suite, cls), (0.0, 0))
        per_class[(suite, cls)] = (total + seconds, count + 1)
    lines = ["", f"where the time goes: the {SLOWEST_CLASSES} test classes that took longest (their tests' durations added up)"]
    for (suite, cls), (total, count) in sorted(per_class.items(), key=lambda item: (-item[1][0], item[0]))[:SLOWEST_CLASSES]:
        lines.append(f"  {total:8.1f} s  {count:4} tests  {cls}  [{suite}]")
    lines += ["", f"the {SLOWEST_TESTS} slowest tests:"]
    for suite, cls, test, seconds in sorted(timings, key=lambda item: (-item[3], item[2]))[:SLOWEST_TESTS]:
        lines.append(f"  {seconds:8.1f} s  {cls.rsplit('.', 1)[-1]}: {test}")
    return lines


class Suite:
    def __init__(self):
        self.passed = self.failed = self.skipped = 0


def build_processes(command_lines):
    """The line counting the MSBuild processes among the `dotnet` command lines, each subcommand's count beside it."""
    counts = {}
    for line in command_lines:
        words = line.split()
        if words and words[0] in BUILD_COMMANDS:
            counts[words[0]] = counts.get(words[0], 0) + 1
    detail = ", ".join(f"{name} {count}" for name, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])))
    return f"{sum(counts.values())} build processes" + (f" ({detail})" if detail else "")


def summarize(results, projects, times=(), wall=None, commands=None):
    """The lines to print and the (passed, failed, skipped) counts."""
    results = Path(results)
    suites = {project: Suite() for project in projects}
    failures, skips, timings = [], [], []

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
        classes = test_classes(root)
        for result in root.iterfind(".//t:UnitTestResult", NS):
            outcome = result.get("outcome")
            test = result.get("testName")
            cls = classes.get(result.get("testId")) or (test.split(".", 1)[0] if test and "." in test else name)
            timings.append((name, cls, test, seconds_of(result.get("duration"))))
            message = first_line(result.findtext(".//t:Message", default="", namespaces=NS))
            if outcome in PASSED:
                suite.passed += 1
            elif outcome in FAILED:
                suite.failed += 1
                failures.append(f"  FAILED  {test}: {message}")
            else:  # NotExecuted, Inconclusive, NotRunnable: a test that could not run here says why
                suite.skipped += 1
                skips.append(f"  SKIPPED {test}: {message}")

    lines = where_the_time_goes(timings)
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
    if wall is not None:
        width = max([len(name) for name, _ in times] + [len("wall clock")])
        lines.append(f"  {'wall clock':<{width}}  {'(suites side by side)':<36} {wall:8.1f} s")
    if commands is not None:
        lines.append("  " + build_processes(commands))
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
    times, wall, commands = [], None, None
    if "--times" in args:
        i = args.index("--times")
        times = read_times(args[i + 1])
        del args[i:i + 2]
    if "--wall" in args:
        i = args.index("--wall")
        wall = float(args[i + 1])
        del args[i:i + 2]
    if "--commands" in args:
        i = args.index("--commands")
        path = Path(args[i + 1])
        commands = path.read_text().splitlines() if path.exists() else []
        del args[i:i + 2]
    lines, (passed, failed, _) = summarize(args[0], args[1:], times, wall, commands)
    print("\n".join(lines))
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
