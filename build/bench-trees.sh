# Sourced by the scripts that time builds of samples/Snowball (build-wall-time.sh, incremental-copy-time.sh); needs
# $vol (the folder on the volume to measure) and $repo.
#   bench_tree NAME PKG    samples/ copied to $vol/NAME with its own package cache $vol/nuget-NAME and PKG (a folder
#                          build/pack.sh made) as its only package source, restored; PKG "none" leaves our SDK out
#                          (Directory.Build.props imports nothing): the build as it is without us
#   bench_floor            $vol/floor/Floor.targets: MSBuild's own Copy registered as any drop-in is, a class deriving
#                          from it in an assembly of its own (<UsingTask TaskName="Copy" AssemblyFile=...>); what no
#                          drop-in can do better than. Given as -p:CustomBeforeMicrosoftCommonTargets=$floor_targets
bench_tree() {
  local tree="$vol/$1" package="$2"
  rm -rf "$tree" "$vol/nuget-$1"; mkdir -p "$tree"; cp -r "$repo/samples/." "$tree/"
  rm -rf "$tree/Snowball"/*/bin "$tree/Snowball"/*/obj
  if [ "$package" = none ]; then
    echo '<Project />' > "$tree/Directory.Build.props"
    printf '<configuration><packageSources><clear /></packageSources></configuration>\n' > "$tree/NuGet.config"
  else
    printf '<configuration><packageSources><clear /><add key="local" value="%s" /></packageSources></configuration>\n' "$package" > "$tree/NuGet.config"
  fi
  NUGET_PACKAGES="$vol/nuget-$1" dotnet restore "$tree/Snowball/Snowball.sln" -v:q >/dev/null
}

bench_floor() {
  local floor="$vol/floor"
  rm -rf "$floor"; mkdir -p "$floor"
  cat > "$floor/Floor.csproj" <<'XML'
<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup><TargetFramework>net$(BundledNETCoreAppTargetFrameworkVersion)</TargetFramework></PropertyGroup>
  <ItemGroup>
    <Reference Include="$(MSBuildBinPath)/Microsoft.Build.Tasks.Core.dll" Private="false" />
    <Reference Include="$(MSBuildBinPath)/Microsoft.Build.Framework.dll" Private="false" />
    <Reference Include="$(MSBuildBinPath)/Microsoft.Build.Utilities.Core.dll" Private="false" />
  </ItemGroup>
</Project>
XML
  echo 'namespace Floor; public class Copy : Microsoft.Build.Tasks.Copy { }' > "$floor/Copy.cs"
  dotnet build "$floor/Floor.csproj" -c Release -o "$floor/out" -v:q -nologo >/dev/null
  printf '<Project><UsingTask TaskName="Copy" AssemblyFile="%s" /></Project>\n' "$floor/out/Floor.dll" > "$floor/Floor.targets"
  floor_targets="$floor/Floor.targets"
}

# The machine and the volume, for a report's head: CPU, cores, memory, kernel, file system, .NET SDK, load.
bench_machine() {
  printf '%s, %s cores, %s GiB, Linux %s, %s on %s, .NET SDK %s, load before: %s\n' \
    "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')" "$(nproc)" \
    "$(awk '/MemTotal/ {printf "%d", $2 / 1048576}' /proc/meminfo)" "$(uname -r)" \
    "$(stat -f -c %T "$vol")" "$vol" "$(dotnet --version)" "$(cut -d' ' -f1-3 /proc/loadavg)"
}
