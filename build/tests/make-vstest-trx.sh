#!/usr/bin/env bash
# Makes the vstest TRX files in build/tests/trx/ again, from real runs of a throwaway MSTest project in a temporary
# folder: a run that completed with a failed test, a test host killed by Environment.FailFast, and one killed by
# `dotnet test --blame-hang-timeout`. Long texts (stack traces, output) are cut to their first two lines and local
# paths replaced. Not part of build/test.sh (it takes about a minute); run it when vstest or MSTest changes.
#   build/tests/make-vstest-trx.sh
# vstest-completed.trx is a real run of this repository's suite, cut the same way:
#   dotnet test tests/Microsoft.Build.CopyOnWrite.Tests -c Release --filter "FullyQualifiedName~FileSizeText" --logger trx
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
fixtures="$repo/build/tests/trx"
work="$(mktemp -d -t cow-vstest-trx-XXXXXX)"
trap 'rm -rf "$work"' EXIT
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 MSBUILDTERMINALLOGGER=off
versions() { sed -n "s/.*PackageVersion Include=\"$1\" Version=\"\([^\"]*\)\".*/\1/p" "$repo/Directory.Packages.props"; }

cat > "$work/Probe.csproj" <<EOF
<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup><TargetFramework>net10.0</TargetFramework><IsTestProject>true</IsTestProject></PropertyGroup>
  <ItemGroup>
    <PackageReference Include="Microsoft.NET.Test.Sdk" Version="$(versions Microsoft.NET.Test.Sdk)" />
    <PackageReference Include="MSTest.TestAdapter" Version="$(versions MSTest.TestAdapter)" />
    <PackageReference Include="MSTest.TestFramework" Version="$(versions MSTest.TestFramework)" />
  </ItemGroup>
</Project>
EOF
cat > "$work/Tests.cs" <<'EOF'
using System;
using Microsoft.VisualStudio.TestTools.UnitTesting;

[TestClass] public class A_Before
{
    [TestMethod] public void Passes() { }
    [TestMethod] public void Fails() => Assert.Fail("fails on purpose");
}
[TestClass] public class B_Crash
{
    [TestMethod] public void Dies() { if (Environment.GetEnvironmentVariable("PROBE_CRASH") == "1") Environment.FailFast("probe: the test host dies here"); }
}
[TestClass] public class C_After
{
    [TestMethod] public void NeverRuns() { }
}
[TestClass] public class D_Hang
{
    [TestMethod] public void Hangs() { if (Environment.GetEnvironmentVariable("PROBE_HANG") == "1") System.Threading.Thread.Sleep(TimeSpan.FromMinutes(5)); }
}
EOF
dotnet build "$work/Probe.csproj" -c Release -nologo -v:q
# Each run fails on purpose (a failed test, a crash, a hang); the TRX files are what matters.
dotnet test "$work/Probe.csproj" -c Release --no-build --logger trx --results-directory "$work/completed-with-a-failure" || true
PROBE_CRASH=1 dotnet test "$work/Probe.csproj" -c Release --no-build --logger trx --results-directory "$work/crashed" || true
PROBE_HANG=1 dotnet test "$work/Probe.csproj" -c Release --no-build --logger trx --results-directory "$work/hang-killed" \
  --blame-hang-timeout 10s --blame-hang-dump-type none || true

for run in completed-with-a-failure crashed hang-killed; do
  python3 - "$work/$run"/*.trx "$fixtures/vstest-$run.trx" "$work/" <<'EOF'
import re, sys
source, target, work = sys.argv[1:]
text = re.sub(re.escape(work), "/probe/", open(source, encoding="utf-8-sig").read(), flags=re.I)  # storage= is lower-cased
cut = lambda m: m.group(1) + "\n".join(m.group(2).split("\n")[:2]) + m.group(3)
text = re.sub(r"(<(?:StdOut|Text|StackTrace|Message)>)(.*?)(</(?:StdOut|Text|StackTrace|Message)>)", cut, text, flags=re.S)
open(target, "w", encoding="utf-8").write(text)
EOF
  echo "wrote $fixtures/vstest-$run.trx"
done
