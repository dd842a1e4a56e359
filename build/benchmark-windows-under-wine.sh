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
wineserver="$(dirname "$wine")/wineserver"
user="${COW_WINE_USER:-cow-wine}"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 MSBUILDTERMINALLOGGER=off
if [ ! -x "$wine" ]; then
  echo "Wine is not installed ($wine not found): apt-get install wine wine64" >&2
  exit 2
fi

out="$(mktemp -d -t cow-windows-benchmark-XXXXXX)"
trap 'rm -rf "$out"' EXIT
if ! dotnet publish "$repo/tests/Microsoft.Build.CopyOnWrite.Windows.Parity/Microsoft.Build.CopyOnWrite.Windows.Parity.csproj" \
    -c Release -nologo -nr:false -v:q -o "$out/program" > "$out/publish.log" 2>&1; then
  cat "$out/publish.log"
  exit 1
fi
mkdir -p "$out/a" "$out/b" "$out/result"
chmod 755 "$out"

# The same unprivileged user and prefix as build/test-windows-under-wine.sh (root under Wine writes read-only files).
if [ "$(id -u)" = 0 ]; then
  if ! id "$user" >/dev/null 2>&1; then
    useradd --system --create-home --home-dir "/var/lib/$user" --shell /usr/sbin/nologin "$user"
  fi
  home="$(getent passwd "$user" | cut -d: -f6)"
  chown -R "$user:" "$out/a" "$out/b" "$out/result"
  as_user() { setpriv --reuid="$user" --regid="$user" --init-groups env -i HOME="$home" USER="$user" PATH=/usr/bin:/bin "$@"; }
else
  home="$HOME"
  as_user() { env -i HOME="$home" USER="$(id -un)" PATH=/usr/bin:/bin "$@"; }
fi
prefix="${COW_WINE_PREFIX:-$home/.cache/cow-wine/prefix}"
wine_env=(WINEPREFIX="$prefix" WINEDEBUG=-all DISPLAY= WAYLAND_DISPLAY=)
as_user mkdir -p "$(dirname "$prefix")"
exec 9>>"$(dirname "$prefix")/.make-prefix.lock"
flock 9
if [ ! -f "$prefix/system.reg" ]; then
  as_user env "${wine_env[@]}" WINEDLLOVERRIDES="mscoree,mshtml=" "$wine" wineboot --init > "$out/wineboot.log" 2>&1
  as_user env "${wine_env[@]}" "$wine" reg add 'HKCU\Software\Wine' /v Version /t REG_SZ /d win10 /f >> "$out/wineboot.log" 2>&1
  as_user env "${wine_env[@]}" "$wineserver" -w
fi
flock -u 9

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
