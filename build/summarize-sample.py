#!/usr/bin/env python3
"""The main job's closing lines: what cloning saved on this machine, in numbers, and the forecast beside it.

Reads dotnet cow-measure's measurement.json and predict's forecast.json (run-sample.sh writes both) and prints, for
each volume that cloned, what our Copy task cloned and the disk the build took there against the baseline volume,
and the forecast made from a stock build before anything was measured. Nothing is printed that was not measured.
"""
import json
import sys


def mib(value):
    return f"{value / 1048576:.1f} MiB"


def median(aggregate, key):
    value = aggregate.get(key, {}).get("median")
    return None if value in (None, "NaN") else value


def main(measurement_path, forecast_path):
    measurement = json.load(open(measurement_path))
    forecast = json.load(open(forecast_path))
    ours = {a["volume"]: a for a in measurement["aggregates"] if a["variant"] == "copy-on-write" and a["kind"] == "clean"}
    baseline = ours.get(measurement.get("baseline"))
    would = forecast["wouldClone"]
    print(f"Forecast (predict, from a stock build on this checkout): {would['files']} files ({mib(would['bytes'])}) would clone; "
          f"at most {forecast['ceilingMilliseconds'] / 1000:.2f} s of build time is Copy on the critical path.")
    cloned_somewhere = False
    for volume, aggregate in ours.items():
        files, cloned = median(aggregate, "clonedFiles"), median(aggregate, "clonedBytes")
        if not files:
            continue
        cloned_somewhere = True
        line = f"Measured on {volume}: our Copy task cloned {int(files)} files ({mib(cloned)}) of a clean build"
        here = median(aggregate, "diskUsedBytes")
        if here is not None:
            line += f"; the build's {mib(median(aggregate, 'bytesWritten') or cloned)} of outputs took {mib(here)} of new disk space there"
            there = median(baseline, "diskUsedBytes") if baseline is not None else None
            line += (f" against {mib(there)} on {measurement['baseline']} ({(1 - here / there) * 100:.1f}% less)" if there
                     else f" ({measurement['baseline']}'s disk use could not be measured in this run; see the report's notes)")
        copy_here, copy_there = median(aggregate, "copyMilliseconds"), median(baseline, "copyMilliseconds") if baseline else None
        if copy_here is not None and copy_there:
            line += f"; time in Copy {copy_here / 1000:.2f} s there against {copy_there / 1000:.2f} s on {measurement['baseline']}"
        print(line + ".")
        print(f"Forecast against measurement: {would['files']} files / {would['bytes']:,} bytes forecast, "
              f"{int(files)} files / {int(cloned):,} bytes cloned.")
    if not cloned_somewhere:
        print("Nothing was cloned on this machine: no measured volume could clone (see the doctor's findings above for what to do).")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: summarize-sample.py MEASUREMENT.json FORECAST.json")
    main(sys.argv[1], sys.argv[2])
