#!/usr/bin/env python3
"""Tests of build/summarize-test-results.py over TRX files: real ones from vstest (trx/vstest-*.trx, made by
build/tests/make-vstest-trx.sh from a throwaway MSTest project: completed, completed with a failed test, a test host
killed by Environment.FailFast, one killed by --blame-hang-timeout; long texts cut to two lines), the shapes our
own two writers produce, and small made-up ones.

    python3 build/tests/test_summarize_test_results.py [--trx FILE]

--trx FILE also writes the results as a TRX file, so build/test.sh counts these tests in its closing line."""
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import uuid
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
BUILD = HERE.parent
FIXTURES = HERE / "trx"
_spec = importlib.util.spec_from_file_location("summarize_test_results", BUILD / "summarize-test-results.py")
summarizer = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(summarizer)
NS = "http://microsoft.com/schemas/VisualStudio/TeamTest/2010"


def made_up_trx(outcome=None, run_infos=(), results=(("OnlyTest", "Passed"),)):
    """A minimal TRX: the given test results, and a ResultSummary with this outcome (None: no ResultSummary)."""
    tests = "".join(f'<UnitTestResult testName="{name}" outcome="{result}" />' for name, result in results)
    infos = "".join(f'<RunInfo computerName="vm" outcome="{o}"><Text>{text}</Text></RunInfo>' for o, text in run_infos)
    summary = "" if outcome is None else (
        f'<ResultSummary outcome="{outcome}"><Counters total="{len(results)}" />'
        + (f"<RunInfos>{infos}</RunInfos>" if infos else "") + "</ResultSummary>")
    return f'<?xml version="1.0" encoding="utf-8"?><TestRun xmlns="{NS}"><Results>{tests}</Results>{summary}</TestRun>'


class SummaryTests(unittest.TestCase):
    def setUp(self):
        self.results = Path(tempfile.mkdtemp(prefix="summarize-test-results-"))
        self.addCleanup(shutil.rmtree, self.results)

    def put(self, project, name, text=None, fixture=None):
        folder = self.results / project
        folder.mkdir(parents=True, exist_ok=True)
        if fixture:
            shutil.copy(FIXTURES / fixture, folder / name)
        else:
            (folder / name).write_text(text, encoding="utf-8")

    def summarize(self, *projects, times=()):
        lines, counts = summarizer.summarize(self.results, list(projects), list(times))
        return "\n".join(lines), counts

    def failure_lines(self, text):
        return [line for line in text.splitlines() if line.startswith("  FAILED")]

    # Runs that completed

    def test_a_completed_vstest_run_counts_its_tests_and_nothing_more(self):
        self.put("Suite.Tests", "a.trx", fixture="vstest-completed.trx")
        text, counts = self.summarize("Suite.Tests")
        self.assertEqual((14, 0, 0), counts)
        self.assertEqual([], self.failure_lines(text))

    def test_a_completed_run_with_a_failed_test_counts_the_test_once_not_the_run(self):
        # vstest writes the run's outcome "Failed" when a test failed; the run itself completed.
        self.put("Suite.Tests", "a.trx", fixture="vstest-completed-with-a-failure.trx")
        text, counts = self.summarize("Suite.Tests")
        self.assertEqual((4, 1, 0), counts)
        self.assertEqual(["  FAILED  Fails: Assertion failed."], self.failure_lines(text))

    def test_the_windows_parity_programs_trx_is_a_completed_run(self):
        self.put("Microsoft.Build.CopyOnWrite.Windows.Parity", "windows-parity.trx", fixture="windows-parity-program.trx")
        text, counts = self.summarize("Microsoft.Build.CopyOnWrite.Windows.Parity")
        self.assertEqual((1, 1, 1), counts)
        self.assertEqual(["  FAILED  Scenarios.ReadOnlyDestination: the stock Copy failed and ours did not"], self.failure_lines(text))

    def test_completed_and_warning_outcomes_with_only_warnings_are_completed_runs(self):
        for outcome in ("Completed", "Passed", "Warning"):
            with self.subTest(outcome=outcome):
                self.put("S", "a.trx", made_up_trx(outcome, run_infos=[("Warning", "No test matches the given filter")]))
                self.assertEqual((1, 0, 0), self.summarize("S")[1])

    # Runs that did not complete

    def test_a_test_host_that_crashed_is_a_failure_naming_the_project_and_the_reason(self):
        # Environment.FailFast in a test: vstest's TRX has no results, outcome "Failed" and an Error RunInfo.
        self.put("Crashing.Tests", "a.trx", fixture="vstest-crashed.trx")
        text, counts = self.summarize("Crashing.Tests")
        self.assertEqual((0, 1, 0), counts)
        [line] = self.failure_lines(text)
        self.assertIn("Crashing.Tests: its test run did not complete", line)
        self.assertIn("The active test run was aborted. Reason: Test host process crashed", line)
        self.assertTrue(text.endswith("tests: 0 passed, 1 failed, 0 skipped"))

    def test_a_test_host_killed_for_hanging_keeps_its_finished_tests_and_fails_the_run(self):
        # dotnet test --blame-hang-timeout: the tests finished before the hang are in the file, the hung one is not.
        self.put("Hanging.Tests", "a.trx", fixture="vstest-hang-killed.trx")
        text, counts = self.summarize("Hanging.Tests")
        self.assertEqual((3, 2, 0), counts)
        self.assertEqual(2, len(self.failure_lines(text)))
        self.assertIn("  FAILED  Hanging.Tests: its test run did not complete (a.trx: The active test run was aborted. Reason: Test host process crashed)", text)
        self.assertTrue(text.endswith("tests: 3 passed, 2 failed, 0 skipped"))

    def test_every_outcome_of_a_run_that_did_not_complete_is_a_failure(self):
        for outcome in ("Aborted", "Error", "Timeout", "InProgress", "Pending", "Disconnected", "NotExecuted", "Inconclusive"):
            with self.subTest(outcome=outcome):
                self.put("S", "a.trx", made_up_trx(outcome))
                text, counts = self.summarize("S")
                self.assertEqual((1, 1, 0), counts)
                self.assertIn(f"  FAILED  S: its test run did not complete (a.trx: run outcome '{outcome}')", text)

    def test_a_run_level_error_fails_a_run_whose_outcome_says_completed(self):
        self.put("S", "a.trx", made_up_trx("Completed", run_infos=[("Error", "Data collector 'Blame' failed\nmore")]))
        text, counts = self.summarize("S")
        self.assertEqual((1, 1, 0), counts)
        self.assertIn("(a.trx: Data collector 'Blame' failed)", text)

    def test_a_file_without_a_result_summary_is_a_run_cut_short(self):
        self.put("S", "a.trx", made_up_trx(None))
        text, counts = self.summarize("S")
        self.assertEqual((1, 1, 0), counts)
        self.assertIn("a.trx: the file has no ResultSummary", text)

    def test_a_file_that_is_not_readable_xml_is_a_failure_not_a_crash_of_the_summary(self):
        self.put("S", "a.trx", made_up_trx("Completed")[:120])
        text, counts = self.summarize("S")
        self.assertEqual((0, 1, 0), counts)
        self.assertIn("  FAILED  S: its result file a.trx is not readable", text)

    def test_a_project_without_any_result_file_is_a_failure(self):
        self.put("Present", "a.trx", fixture="vstest-completed.trx")
        text, counts = self.summarize("Present", "Absent")
        self.assertEqual((14, 1, 0), counts)
        self.assertEqual(["  FAILED  Absent: wrote no test results (its test host crashed or was stopped; see its output above)"], self.failure_lines(text))

    # The Wine script's own reports

    def report_only(self, outcome, name, message):
        """Runs report_only from build/test-windows-under-wine.sh on its own, writing into our results folder."""
        folder = self.results / "Microsoft.Build.CopyOnWrite.Windows.Parity"
        folder.mkdir()
        script = BUILD / "test-windows-under-wine.sh"
        subprocess.run(["bash", "-c", f'results="$1"; eval "$(sed -n \'/^report_only() {{/,/^}}/p\' "$2")"; report_only "$3" "$4" "$5"',
                        "bash", str(folder), str(script), outcome, name, message], check=True, capture_output=True)

    def test_the_wine_scripts_failed_report_is_one_failure_not_two(self):
        self.report_only("Failed", "WindowsUnderWine.Run", "The program ended without its closing line <&>")
        text, counts = self.summarize("Microsoft.Build.CopyOnWrite.Windows.Parity")
        self.assertEqual((0, 1, 0), counts)
        self.assertEqual(["  FAILED  WindowsUnderWine.Run: The program ended without its closing line <&>"], self.failure_lines(text))

    def test_the_wine_scripts_report_without_wine_is_one_skip(self):
        env = dict(os.environ, COW_WINE="/nonexistent/wine64")
        folder = self.results / "Microsoft.Build.CopyOnWrite.Windows.Parity"
        subprocess.run([str(BUILD / "test-windows-under-wine.sh"), str(folder)], env=env, check=True, capture_output=True)
        text, counts = self.summarize("Microsoft.Build.CopyOnWrite.Windows.Parity")
        self.assertEqual((0, 0, 1), counts)
        self.assertIn("  SKIPPED WindowsUnderWine.Suite: SKIPPED: Wine is not installed", text)

    # The closing lines

    def test_suite_times_are_printed_with_counts_then_the_total_and_the_closing_line_is_last(self):
        self.put("A.Tests", "a.trx", fixture="vstest-completed.trx")
        self.put("B.Tests", "b.trx", fixture="vstest-crashed.trx")
        text, _ = self.summarize("A.Tests", "B.Tests", times=[("build", 40.0), ("A.Tests", 12.25), ("B.Tests", 3.0)])
        lines = text.splitlines()
        self.assertEqual("tests: 14 passed, 1 failed, 0 skipped", lines[-1])
        times = lines[lines.index("suite times:") + 1:-2]
        self.assertEqual(4, len(times))
        self.assertRegex(times[0], r"^  build\s+40\.0 s$")
        self.assertRegex(times[1], r"^  A\.Tests\s+14 passed, 0 failed, 0 skipped\s+12\.2 s$")
        self.assertRegex(times[2], r"^  B\.Tests\s+0 passed, 1 failed, 0 skipped\s+3\.0 s$")
        self.assertRegex(times[3], r"^  total\s+55\.2 s$")

    def test_where_the_time_goes_adds_up_each_class_and_lists_the_slowest_tests_before_the_suite_times(self):
        self.put("A.Tests", "a.trx", fixture="vstest-completed.trx")  # 14 tests of one class, from its test definitions
        self.put("W.Parity", "w.trx", fixture="windows-parity-program.trx")  # no definitions: the class is the name's first part
        text, _ = self.summarize("A.Tests", "W.Parity", times=[("A.Tests", 1.0)])
        lines = text.splitlines()
        classes = lines[lines.index(next(line for line in lines if line.startswith("where the time goes"))) + 1:]
        classes = classes[:classes.index("")]
        self.assertRegex(classes[0], r"^\s+1\.5 s\s+1 tests  EngineTests  \[W\.Parity\]$")
        self.assertRegex(classes[1], r"^\s+0\.2 s\s+1 tests  Scenarios  \[W\.Parity\]$")
        self.assertRegex(classes[2], r"^\s+0\.2 s\s+14 tests  Microsoft\.Build\.CopyOnWrite\.Tests\.Task\.FileSizeTextTests  \[A\.Tests\]$")
        slowest = lines[lines.index("the 30 slowest tests:") + 1:]
        slowest = slowest[:slowest.index("")]
        self.assertEqual(17, len(slowest), "every test when there are fewer than 30")
        self.assertRegex(slowest[0], r"^\s+1\.5 s  EngineTests: EngineTests\.CopiesAFile$")
        self.assertRegex(slowest[2], r"^\s+0\.2 s  FileSizeTextTests: Reads_as_the_0_point_hash_format")
        self.assertLess(lines.index("the 30 slowest tests:"), lines.index("suite times:"))
        self.assertTrue(lines[-1].startswith("tests: "))

    def test_only_the_30_slowest_tests_are_listed_and_the_wall_clock_follows_the_total(self):
        results = [(f"T{i:02}", "Passed") for i in range(40)]
        text = made_up_trx("Completed", results=results)
        for i in range(40):
            text = text.replace(f'testName="T{i:02}"', f'testName="C.T{i:02}" duration="00:00:{i:02}.0000000"')
        self.put("A.Tests", "a.trx", text)
        lines, _ = summarizer.summarize(self.results, ["A.Tests"], [("A.Tests", 50.0), ("B.Tests", 30.0)], wall=55.0)
        slowest = lines[lines.index("the 30 slowest tests:") + 1:]
        slowest = slowest[:slowest.index("")]
        self.assertEqual(30, len(slowest))
        self.assertRegex(slowest[0], r"^\s+39\.0 s  C: C\.T39$")
        self.assertRegex(slowest[-1], r"^\s+10\.0 s  C: C\.T10$")
        self.assertRegex(lines[-4], r"^  total\s+80\.0 s$")
        self.assertRegex(lines[-3], r"^  wall clock\s+\(suites side by side\)\s+55\.0 s$")
        self.assertEqual("tests: 40 passed, 0 failed, 0 skipped", lines[-1])

    def test_the_build_processes_are_counted_by_subcommand_after_the_wall_clock(self):
        self.put("A.Tests", "a.trx", fixture="vstest-completed.trx")
        commands = ["build App.sln -nologo", "msbuild p.proj", "msbuild q.proj", "--version", "exec testhost.dll", "restore", "tool restore"]
        lines, _ = summarizer.summarize(self.results, ["A.Tests"], [("A.Tests", 1.0)], wall=2.0, commands=commands)
        self.assertRegex(lines[-4], r"^  wall clock")
        self.assertEqual("  4 build processes (msbuild 2, build 1, restore 1)", lines[-3])

    def test_the_command_reads_the_times_file_and_exits_1_on_a_failure(self):
        self.put("A.Tests", "a.trx", fixture="vstest-hang-killed.trx")
        times = self.results / "times"
        times.write_text("build 10.5\nA.Tests 2\n")
        run = subprocess.run([sys.executable, str(BUILD / "summarize-test-results.py"), str(self.results), "--times", str(times), "A.Tests"],
                             capture_output=True, text=True)
        self.assertEqual(1, run.returncode)
        self.assertIn("  total", run.stdout)
        self.assertEqual("tests: 3 passed, 2 failed, 0 skipped", run.stdout.splitlines()[-1])


def write_trx(path, outcomes):
    """outcomes: (test name, 'Passed' | 'Failed' | 'NotExecuted', message); with a ResultSummary, as vstest writes."""
    ET.register_namespace("", NS)
    run = ET.Element(f"{{{NS}}}TestRun", id=str(uuid.uuid4()), name="build/tests (summarize-test-results.py)")
    results = ET.SubElement(run, f"{{{NS}}}Results")
    for name, outcome, message in outcomes:
        result = ET.SubElement(results, f"{{{NS}}}UnitTestResult", testName=name, outcome=outcome,
                               executionId=str(uuid.uuid4()), testId=str(uuid.uuid4()))
        if message:
            error = ET.SubElement(ET.SubElement(result, f"{{{NS}}}Output"), f"{{{NS}}}ErrorInfo")
            ET.SubElement(error, f"{{{NS}}}Message").text = message
    count = lambda o: str(sum(1 for _, outcome, _ in outcomes if outcome == o))
    summary = ET.SubElement(run, f"{{{NS}}}ResultSummary", outcome="Failed" if count("Failed") != "0" else "Completed")
    ET.SubElement(summary, f"{{{NS}}}Counters", total=str(len(outcomes)), passed=count("Passed"), failed=count("Failed"), notExecuted=count("NotExecuted"))
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(run).write(path, encoding="utf-8", xml_declaration=True)


def error_line(traceback):
    """The exception's line of a traceback ('AssertionError: ...'), not the diff under it."""
    lines = traceback.strip().splitlines()
    return next((line for line in lines if re.match(r"^[\w.]+(Error|Exception)\b", line)), lines[-1])


def main(argv):
    trx = argv[argv.index("--trx") + 1] if "--trx" in argv else None
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__])

    def ids(s):
        for t in s:
            yield from ids(t) if isinstance(t, unittest.TestSuite) else [t.id()]
    names = list(ids(suite))  # before the run: a suite lets go of its tests as it runs them
    result = unittest.TextTestRunner(verbosity=1).run(suite)
    if trx:
        # A failed subTest is reported under its own id; it fails the test it belongs to.
        case = lambda test: getattr(test, "test_case", test).id()
        failed = {case(test): text for test, text in result.failures + result.errors}
        skipped = {case(test): reason for test, reason in result.skipped}
        outcomes = []
        for name in names:
            if name in failed:
                outcomes.append((name.removeprefix("__main__."), "Failed", error_line(failed[name])))
            elif name in skipped:
                outcomes.append((name.removeprefix("__main__."), "NotExecuted", skipped[name]))
            else:
                outcomes.append((name.removeprefix("__main__."), "Passed", ""))
        write_trx(trx, outcomes)
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
