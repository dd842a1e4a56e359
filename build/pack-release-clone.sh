#!/usr/bin/env bash
# The release command (build/pack.sh) as a release runs it: in a clone of this repository whose origin remote is
# ORIGIN (a URL), holding the working tree as it is (committed or not, as one new commit).
#   build/pack-release-clone.sh FOLDER ORIGIN   the clone into FOLDER/repository, both packages into FOLDER/packages
# The test suite's one pack (build/test.sh): every test that reads a package reads these, and ReleasePackageTests
# checks what the origin and the commit put in them.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ $# -eq 2 ] || { echo "usage: build/pack-release-clone.sh FOLDER ORIGIN" >&2; exit 2; }
folder="$(realpath -m "$1")" origin="$2"
clone="$folder/repository"
git clone --quiet "$repo" "$clone"
# Tracked and untracked files that git does not ignore, as they are now; tracked files deleted are deleted.
git -C "$repo" -c core.quotePath=false ls-files -z --cached --others --exclude-standard | sort -zu |
  while IFS= read -r -d '' path; do
    if [ -f "$repo/$path" ]; then
      mkdir -p "$(dirname "$clone/$path")" && cp -p "$repo/$path" "$clone/$path"
    else
      rm -f "$clone/$path"
    fi
  done
git -C "$clone" add --all
git -C "$clone" -c user.name="Release clone" -c user.email=release-clone@example.invalid \
  commit --quiet --allow-empty -m "The working tree under test"
git -C "$clone" remote set-url origin "$origin"
"$clone/build/pack.sh" "$folder/packages"
