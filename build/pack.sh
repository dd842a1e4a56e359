#!/usr/bin/env bash
# The release package, as CONTRIBUTING.md ("Releasing") describes: a clean, deterministic build of
# src/Microsoft.Build.CopyOnWrite (ContinuousIntegrationBuild: no build machine's paths in the DLLs and PDBs),
# packed into artifacts/packages/ or the folder given first; further arguments go to dotnet pack.
# The package's repository URL, project URL, README links and the PDBs' SourceLink come from the clone's origin
# remote when it is a URL; otherwise the package names only the commit.
# The build goes to artifacts/pack-build/: apart from the working tree's bin/ and obj/, which may hold a local,
# non-deterministic build, and inside the repository, so that its own paths map to /_/ like the sources'.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
output="$(realpath -m "${1:-$repo/artifacts/packages}")"
shift || true
build="$repo/artifacts/pack-build"

rm -rf "$build"
dotnet pack "$repo/src/Microsoft.Build.CopyOnWrite/Microsoft.Build.CopyOnWrite.csproj" -c Release -nologo -nr:false \
  --artifacts-path "$build" -o "$output" -p:ContinuousIntegrationBuild=true "$@"
