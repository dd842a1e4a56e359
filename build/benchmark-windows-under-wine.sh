#!/usr/bin/env bash
# Smoke run of the Windows benchmark (the parity program's --benchmark mode) under Wine: proves the mode works end
# to end and the table comes out with every column filled or marked why not. Wine's drives cannot clone and its
# timings say nothing about Windows, so the numbers are not worth quoting; .github/workflows/windows.yml runs the
# real thing on a Dev Drive and NTFS.
#   build/benchmark-windows-under-wine.sh [OUT.md] [more benchmark options, e.g. --rounds 3]
# Default: --smoke (2 rounds, no warm-up) in two folders of one Wine drive, table to artifacts/windows-benchmark-wine.md.
# Judged by the program's own last line, never by wine's exit code (see build/test-windows-under-wine.sh).
# Not part of build/test.sh: publishing alone takes about a minute.
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
table="$(realpath -m "${1:-$repo/artifacts/windows-benchmark-wine.md}")"
shift || true
wine="${COW_WINE:-/usr/lib/wine/wine64}"
user="${COW_WINE_USER:-cow-wine}"
# shellcheck source=build/wine-env.sh
. "$repo/build/wine-env.sh"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 MSBUILDTERMINALLOGGER=off
if [ ! -x "$wine" ]; then
  echo "Wine is not installed ($wine not found): apt-get install wine wine64" >&2
  exit 2
fi

out="$(mktemp -d -t cow-windows-benchmark-XXXXXX)"
trap 'rm -rf "$out"' EXIT
if ! publish_windows_program "$out"; then
  cat "$out/publish.log"
  exit 1
fi
mkdir -p "$out/a" "$out/b" "$out/result"
chmod 755 "$out"

# The same unprivileged user and prefix as build/test-windows-under-wine.sh (root under Wine writes read-only files).
use_wine_user "$out/a" "$out/b" "$out/result"
make_wine_prefix "$out/wineboot.log" || true

windows_out="Z:${out//\//\\}"
options=("$@")
[ ${#options[@]} -eq 0 ] && options=(--smoke)
as_user env "${wine_env[@]}" timeout 1200 "$wine" "$out/program/Microsoft.Build.CopyOnWrite.Windows.Parity.exe" \
    --benchmark --folder "$windows_out\\a" --folder "$windows_out\\b" --out "$windows_out\\result\\table.md" "${options[@]}" 2>&1 \
  | tr -d '\r' | tee "$out/output.log"
last="$(tail -n 1 "$out/output.log")"
if [ ! -f "$out/result/table.md" ] || [ "$last" != "benchmark: every timed copy arrived whole" ]; then
  echo "the benchmark did not finish cleanly under Wine (last line: $last)" >&2
  exit 1
fi
mkdir -p "$(dirname "$table")"
cp "$out/result/table.md" "$table"
echo "table: $table"
