#!/usr/bin/env python3
"""Reads the TRX files of a test run and prints what a person needs at the end of it: every failed and
skipped test with its message, then one closing line 'tests: N passed, N failed, N skipped'.

    summarize-test-results.py RESULTS [PROJECT...]

Each PROJECT named is expected to have written at least one TRX under RESULTS/PROJECT. One that did not (its test
host crashed or was killed before writing results) is counted as a failure and named, so a run that lost a whole
project can never close with '0 failed'."""
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

NS = {"t": "http://microsoft.com/schemas/VisualStudio/TeamTest/2010"}
passed = failed = skipped = 0
failures, skips = [], []
results = Path(sys.argv[1])
for project in sys.argv[2:]:
    if not any((results / project).rglob("*.trx")):
        failed += 1
        failures.append(f"  FAILED  {project}: wrote no test results (its test host crashed or was stopped; see its output above)")
for trx in sorted(results.rglob("*.trx")):
    for result in ET.parse(trx).getroot().iterfind(".//t:UnitTestResult", NS):
        outcome = result.get("outcome")
        name = result.get("testName")
        message = (result.findtext(".//t:Message", default="", namespaces=NS) or "").strip().splitlines()
        first_line = message[0] if message else ""
        if outcome == "Passed":
            passed += 1
        elif outcome in ("Failed", "Error", "Timeout", "Aborted"):
            failed += 1
            failures.append(f"  FAILED  {name}: {first_line}")
        else:  # NotExecuted, Inconclusive: a test that could not run here says why
            skipped += 1
            skips.append(f"  SKIPPED {name}: {first_line}")

if skips:
    print(f"\n{len(skips)} test(s) skipped, each with its reason:")
    print("\n".join(skips))
if failures:
    print(f"\n{len(failures)} test(s) failed:")
    print("\n".join(failures))
print()
print(f"tests: {passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed or passed == 0 else 0)
