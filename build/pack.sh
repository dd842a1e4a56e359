#!/usr/bin/env bash
# Both packages of this repository, of one version, into one folder: the SDK (src/Microsoft.Build.CopyOnWrite)
# and its measurement tool dotnet cow-measure (src/Microsoft.Build.CopyOnWrite.Measure), into artifacts/packages/
# or the folder given first; further arguments go to both dotnet pack commands. It is the release command
# (CONTRIBUTING.md, "Releasing") and the README's "Get it" command, and it ends by printing the folder, how to make
# the packages a source of a repository (a folder inside it, named relative to its NuGet.config; the mapping to add
# under packageSourceMapping, whatever the repository's other sources are called) and the tool's install line.
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

Make them a package source of your repository without naming a folder of your machine in what you commit: copy them
into a folder inside the repository and commit them there, so that the team and CI restore them until the package is
published (dotnet cow-measure doctor --require-clone says whether a fresh clone would), from the repository's root:

mkdir -p eng/packages && cp '$sdk' '$tool' eng/packages/
git add -f eng/packages   # past .gitignore (.NET's ignores *.nupkg and packages/), or CI's clone has no SDK; again for a new version

A NuGet.config beside your repository's global.json names that folder relative to itself (or add the <add> line to yours):

<?xml version="1.0" encoding="utf-8"?>
<configuration>
  <packageSources>
    <add key="copy-on-write" value="eng/packages" />
  </packageSources>
</configuration>

If your NuGet.config has a <packageSourceMapping>, every package comes only from the sources mapped to it: keep your
entries as they are (whatever your sources' keys) and add this one inside it:

    <packageSource key="copy-on-write">
      <package pattern="Microsoft.Build.CopyOnWrite" />
      <package pattern="Microsoft.Build.CopyOnWrite.Measure" />
    </packageSource>

The tool, as a local tool of your repository, from that source (in the repository's root: it is added to its
.config/dotnet-tools.json, else to a dotnet-tools.json made there; on CI, dotnet tool restore):

dotnet tool install --local Microsoft.Build.CopyOnWrite.Measure --version $version
EOF
