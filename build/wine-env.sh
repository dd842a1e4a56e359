# Sourced by build/test-windows-under-wine.sh and build/benchmark-windows-under-wine.sh: how this repository runs the
# Windows parity program under Wine. Needs $repo, $wine and $user set; defines $wineserver and the functions below.
# shellcheck shell=bash
wineserver="$(dirname "$wine")/wineserver"

# publish_windows_program FOLDER: the program, self-contained win-x64, into FOLDER/program; its log in FOLDER/publish.log.
publish_windows_program() {
  dotnet publish "$repo/tests/Microsoft.Build.CopyOnWrite.Windows.Parity/Microsoft.Build.CopyOnWrite.Windows.Parity.csproj" \
    -c Release -nologo -nr:false -v:q -o "$1/program" > "$1/publish.log" 2>&1
}

# use_wine_user FOLDER...: who runs Wine. An unprivileged user when we are root (root writes read-only files, so the
# read-only cases would pass for the wrong reason), made when missing and given the FOLDERs; otherwise this user.
# Defines as_user COMMAND..., $prefix (made once and kept: the first boot takes a while) and $wine_env.
use_wine_user() {
  if [ "$(id -u)" = 0 ]; then
    if ! id "$user" >/dev/null 2>&1; then
      useradd --system --create-home --home-dir "/var/lib/$user" --shell /usr/sbin/nologin "$user"
    fi
    home="$(getent passwd "$user" | cut -d: -f6)"
    chown -R "$user:" "$@"
    as_user() { setpriv --reuid="$user" --regid="$user" --init-groups env -i HOME="$home" USER="$user" PATH=/usr/bin:/bin "$@"; }
  else
    home="$HOME"
    as_user() { env -i HOME="$home" USER="$(id -un)" PATH=/usr/bin:/bin "$@"; }
  fi
  prefix="${COW_WINE_PREFIX:-$home/.cache/cow-wine/prefix}"
  wine_env=(WINEPREFIX="$prefix" WINEDEBUG=-all DISPLAY= WAYLAND_DISPLAY=)
}

# make_wine_prefix LOG: the prefix, once. Runs from other worktrees may share it (Wine runs several programs in one
# prefix), so only its making is serialised. Returns 0 when it made one now, 1 when it was there.
make_wine_prefix() {
  local made=1
  as_user mkdir -p "$(dirname "$prefix")"
  exec 9>>"$(dirname "$prefix")/.make-prefix.lock"
  flock 9
  if [ ! -f "$prefix/system.reg" ]; then
    # Without Mono and Gecko: there is nothing to download them from, and .NET brings its own runtime.
    as_user env "${wine_env[@]}" WINEDLLOVERRIDES="mscoree,mshtml=" "$wine" wineboot --init > "$1" 2>&1
    # .NET 10 supports Windows 10 and later; Wine 8 imitates Windows 7 unless told otherwise.
    as_user env "${wine_env[@]}" "$wine" reg add 'HKCU\Software\Wine' /v Version /t REG_SZ /d win10 /f >> "$1" 2>&1
    as_user env "${wine_env[@]}" "$wineserver" -w
    made=0
  fi
  flock -u 9
  return $made
}
