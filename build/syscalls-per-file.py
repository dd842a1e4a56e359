#!/usr/bin/env python3
"""System calls per file of one Copy, ours or the stock task, counted by `strace -f -c` over a fresh `dotnet msbuild`.

Each count is a run that copies every *.bin of SOURCE into DESTINATION, minus the same run with an empty item list (so
the process's own start-up cancels out), divided by the number of files. The runtime's memory and thread calls
(mprotect, mmap, futex, sched_yield...) are left out of the total: they follow the JIT and the GC, not the files.

Usage: build/syscalls-per-file.py TASK SOURCE DESTINATION CASE [RUNS]
  TASK         a task assembly (its Copy is registered with UsingTask), or "stock" for MSBuild's own Copy
  CASE         new (DESTINATION emptied first), existing (filled first, SkipUnchangedFiles=false) or unchanged
               (filled first, SkipUnchangedFiles=true)
Example: build/syscalls-per-file.py src/Microsoft.Build.CopyOnWrite/bin/Release/net8.0/Microsoft.Build.CopyOnWrite.dll /mnt/xfs/src /mnt/xfs/out existing
"""
import collections
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

PROJECT = """<Project>
  <UsingTask TaskName="Copy" AssemblyFile="$(TaskDll)" Condition="'$(Stock)' != 'true'" />
  <ItemGroup><S Include="$(Src)/*.bin" Condition="'$(N)' != '0'" /></ItemGroup>
  <Target Name="Go"><Copy SourceFiles="@(S)" DestinationFolder="$(Dest)" SkipUnchangedFiles="$(Skip)" /></Target>
</Project>
"""
RUNTIME = {"mprotect", "mmap", "munmap", "futex", "sched_yield", "madvise", "rt_sigprocmask", "sched_getaffinity", "brk",
           "clock_nanosleep", "nanosleep", "getpid", "gettid", "tgkill", "rt_sigreturn", "membarrier"}


def main(task, source, destination, case, runs=2):
    folder = tempfile.mkdtemp(prefix="syscalls-")
    project = os.path.join(folder, "copy.proj")
    with open(project, "w") as f:
        f.write(PROJECT)
    files = len([name for name in os.listdir(source) if name.endswith(".bin")])

    def msbuild(n, trace=None):
        properties = [f"-p:Src={source}", f"-p:Dest={destination}", f"-p:N={n}", f"-p:Skip={'true' if case == 'unchanged' else 'false'}"]
        properties += ["-p:Stock=true"] if task == "stock" else [f"-p:TaskDll={os.path.abspath(task)}", "-p:Stock=false"]
        command = ["dotnet", "msbuild", project, "-t:Go", "-nologo", "-v:q", "-nr:false", *properties]
        subprocess.run((["strace", "-f", "-c", "-o", trace] if trace else []) + command, check=True)

    def count(n):
        shutil.rmtree(destination, ignore_errors=True)
        if case != "new":
            msbuild(files)
        trace = os.path.join(folder, "calls.txt")
        msbuild(n, trace)
        calls = {}
        for line in open(trace):
            parts = line.split()  # % time, seconds, usecs/call, calls, [errors,] syscall
            if len(parts) >= 5 and parts[0][0].isdigit() and parts[-1] != "total":
                calls[parts[-1]] = int(parts[3])
        return calls

    per_file = collections.defaultdict(list)
    for _ in range(runs):
        full, empty = count(files), count(0)
        for call in set(full) | set(empty):
            per_file[call].append((full.get(call, 0) - empty.get(call, 0)) / files)
    totals = [sum(v[i] for call, v in per_file.items() if call not in RUNTIME) for i in range(runs)]
    print(f"{case}, {task}, {source} -> {destination}, {files} files: {', '.join(f'{t:.1f}' for t in totals)} calls per file")
    shown = sorted(((call, statistics.median(v)) for call, v in per_file.items() if call not in RUNTIME and abs(statistics.median(v)) >= 0.05), key=lambda cv: -cv[1])
    print("  " + ", ".join(f"{call} {median:.2f}" for call, median in shown))
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    main(*sys.argv[1:5], *(int(a) for a in sys.argv[5:]))
