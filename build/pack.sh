#!/usr/bin/env bash
# Both packages of this repository, of one version, into one folder: the SDK (src/Microsoft.Build.CopyOnWrite)
# and its measurement tool dotnet cow-measure (src/Microsoft.Build.CopyOnWrite.Measure), into artifacts/packages/
# or the folder given first; further arguments go to both dotnet pack commands. It is the release command
# (CONTRIBUTING.md, "Releasing") and the README's "Get it" command, and it ends by printing the folder, the
# NuGet.config that makes it a package source, and the tool's install line.
# A clean, deterministic build (ContinuousIntegrationBuild: no build machine's paths in the DLLs and PDBs) in
# artifacts/pack-build/: apart from the working tree's bin/ and obj/, which may hold a local, non-deterministic
# build, and inside the repository, so that its own paths map to /_/ like the sources'.
# The SDK is packed once. The tool carries that very .nupkg (sdk/ beside it): it is packed with
# BuildProjectReferences=false, so its project reference does not pack the SDK a second time (with other
# bytes) over the first.
# The package's repository URL, project URL, README links and the PDBs' SourceLink come from the clone's origin
# remote when it is a URL; otherwise the package names only the commit.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
output="$(realpath -m "${1:-$repo/artifacts/packages}")"
shift || true
build="$repo/artifacts/pack-build"
# One version is one set of bytes: every file in the .nupkg gets the packed commit's time (NuGet's
# DeterministicTimestamp; SOURCE_DATE_EPOCH when set wins), not the time of packing, so packing the same commit
# twice gives the same sha256. NuGet also names the package's metadata part without a random GUID (Deterministic).
epoch="${SOURCE_DATE_EPOCH:-$(git -C "$repo" log -1 --format=%ct 2>/dev/null || true)}"
deterministic=(-p:ContinuousIntegrationBuild=true -p:Deterministic=true)
if [ -n "$epoch" ]; then
  deterministic+=(-p:DeterministicTimestamp="$epoch")
fi
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1

rm -rf "$build"
dotnet pack "$repo/src/Microsoft.Build.CopyOnWrite/Microsoft.Build.CopyOnWrite.csproj" -c Release -nologo -nr:false \
  --artifacts-path "$build" -o "$output" "${deterministic[@]}" "$@"
# The version as packed: the properties given (-p:CopyOnWriteVersion=...) count, other pack arguments do not apply.
properties=()
for argument in "$@"; do
  case "$argument" in -p:*|/p:*|-property:*|--property:*) properties+=("$argument") ;; esac
done
version=$(dotnet msbuild "$repo/src/Microsoft.Build.CopyOnWrite/Microsoft.Build.CopyOnWrite.csproj" -nologo -getProperty:PackageVersion "${properties[@]}")
sdk="$output/Microsoft.Build.CopyOnWrite.$version.nupkg"
dotnet pack "$repo/src/Microsoft.Build.CopyOnWrite.Measure/Microsoft.Build.CopyOnWrite.Measure.csproj" -c Release -nologo -nr:false \
  --artifacts-path "$build" -o "$output" "${deterministic[@]}" -p:BuildProjectReferences=false "$@"
tool="$output/Microsoft.Build.CopyOnWrite.Measure.$version.nupkg"
ls "$sdk" "$tool" >/dev/null

cat <<EOF

Packed version $version into $output:
  Microsoft.Build.CopyOnWrite.$version.nupkg           the SDK
  Microsoft.Build.CopyOnWrite.Measure.$version.nupkg   dotnet cow-measure, the tool

Make that folder a package source: a NuGet.config beside your repository's global.json (or add the <add> line to yours):

<?xml version="1.0" encoding="utf-8"?>
<configuration>
  <packageSources>
    <add key="copy-on-write" value="$output" />
  </packageSources>
</configuration>

With packageSourceMapping, every package comes only from the sources mapped to it; map ours to that folder:

<?xml version="1.0" encoding="utf-8"?>
<configuration>
  <packageSources>
    <add key="copy-on-write" value="$output" />
  </packageSources>
  <packageSourceMapping>
    <packageSource key="nuget.org">
      <package pattern="*" />
    </packageSource>
    <packageSource key="copy-on-write">
      <package pattern="Microsoft.Build.CopyOnWrite" />
      <package pattern="Microsoft.Build.CopyOnWrite.Measure" />
    </packageSource>
  </packageSourceMapping>
</configuration>

The tool, from the same folder, as a local tool of your repository (in its root; on CI, dotnet tool restore):

dotnet new tool-manifest
dotnet tool install --local Microsoft.Build.CopyOnWrite.Measure --version $version --add-source $output
EOF
