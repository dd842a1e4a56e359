using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Net.Sockets;
using Microsoft.Build.CopyOnWrite.Reliability.Tests.Infrastructure;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;

namespace Microsoft.Build.CopyOnWrite.Reliability.Tests.BadInput;

/// <summary>
/// One real project with every bad input as its own &lt;Copy&gt; line (ContinueOnError="ErrorAndContinue",
/// so one failure does not hide the next), run once with our task and once with the stock one per file
/// system. Diagnostics are matched to cases by the project line MSBuild prints. The inputs that make the
/// stock task hang (a FIFO) or fill the disk (/dev/zero) run for it only in <see cref="StockHazards"/>,
/// with a time limit and onto a tiny file system.
/// </summary>
public sealed class BadInputProject
{
    public static readonly IReadOnlyList<(string Name, string Copy, bool StockToo)> Cases =
    [
        ("empty item specs", """<Copy SourceFiles="" DestinationFiles="" />""", true),
        ("whitespace item specs", """<Copy SourceFiles="   " DestinationFiles="  " />""", true),
        ("escaped whitespace source", """<Copy SourceFiles="%20" DestinationFiles="$(Out)/from-space.txt" />""", true),
        ("source with an empty destination list", """<Copy SourceFiles="$(Src)" DestinationFiles="" />""", true),
        ("control characters in the destination name", """<Copy SourceFiles="$(Src)" DestinationFiles="$(Out)/tab%09newline%0Abell%07.txt" />""", true),
        ("NUL in the destination (escaped)", """<Copy SourceFiles="$(Src)" DestinationFiles="$(Out)/nul%00.txt" />""", true),
        ("NUL in the source (escaped)", """<Copy SourceFiles="$(In)/src%00.txt" DestinationFiles="$(Out)/from-nul.txt" />""", true),
        ("wildcard characters", """<Copy SourceFiles="$(In)/*.nothing?" DestinationFiles="$(Out)/star.txt" />""", true),
        ("a file name over 255 bytes", """<Copy SourceFiles="$(Src)" DestinationFiles="$(Out)/$(LongName).txt" />""", true),
        ("a destination path over PATH_MAX", """<Copy SourceFiles="$(Src)" DestinationFiles="$(Out)/$(DeepPath)/f.txt" />""", true),
        ("a source path over PATH_MAX", """<Copy SourceFiles="$(In)/$(DeepPath)/f.txt" DestinationFiles="$(Out)/from-deep.txt" />""", true),
        ("a destination that is an existing folder", """<Copy SourceFiles="$(Src)" DestinationFiles="$(Folder)" />""", true),
        ("a DestinationFolder that is a file", """<Copy SourceFiles="$(Src)" DestinationFolder="$(ExistingFile)" />""", true),
        ("a source that is a folder", """<Copy SourceFiles="$(Folder)" DestinationFiles="$(Out)/from-folder.txt" />""", true),
        ("a dangling symlink source", """<Copy SourceFiles="$(In)/dangling" DestinationFiles="$(Out)/from-dangling.txt" />""", true),
        ("a symlink loop source", """<Copy SourceFiles="$(In)/loop-a" DestinationFiles="$(Out)/from-loop.txt" />""", true),
        ("a 244-byte destination name of 80 three-byte characters", """<Copy SourceFiles="$(Src)" DestinationFiles="$(Out)/$(WideName).dll" />""", true),
        ("/dev/null", """<Copy SourceFiles="/dev/null" DestinationFiles="$(Out)/from-null.txt" />""", true),
        ("a socket", """<Copy SourceFiles="$(In)/socket" DestinationFiles="$(Out)/from-socket.txt" />""", true),
        ("/dev/zero", """<Copy SourceFiles="/dev/zero" DestinationFiles="$(Small)/from-zero-$(Kind).bin" />""", false),
        ("/dev/urandom", """<Copy SourceFiles="/dev/urandom" DestinationFiles="$(Small)/from-urandom-$(Kind).bin" />""", false),
        ("a FIFO", """<Copy SourceFiles="$(In)/fifo" DestinationFiles="$(Out)/from-fifo.txt" />""", false),
        ("a symlink to a FIFO", """<Copy SourceFiles="$(In)/link-to-fifo" DestinationFiles="$(Out)/from-link-to-fifo.txt" />""", false),
    ];

    private static readonly ConcurrentDictionary<string, Lazy<BadInputProject>> PerKind = new();

    private BadInputProject(string kind)
    {
        Kind = kind;
        string root = LoopFileSystems.Require(kind).NewFolder("bad-input");
        In = Path.Combine(root, "in");
        Out = Path.Combine(root, "out");
        Directory.CreateDirectory(Out);
        Source = TestFiles.Write(In, "src.txt", 1000);
        Folder = Path.Combine(In, "a-folder");
        Directory.CreateDirectory(Folder);
        ExistingFile = TestFiles.Write(In, "existing-file.txt", 10);
        File.CreateSymbolicLink(Path.Combine(In, "dangling"), Path.Combine(In, "nowhere"));
        File.CreateSymbolicLink(Path.Combine(In, "loop-a"), Path.Combine(In, "loop-b"));
        File.CreateSymbolicLink(Path.Combine(In, "loop-b"), Path.Combine(In, "loop-a"));
        Fault.Must("mkfifo", Path.Combine(In, "fifo"));
        File.CreateSymbolicLink(Path.Combine(In, "link-to-fifo"), Path.Combine(In, "fifo"));
        using (var socket = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified))
        {
            socket.Bind(new UnixDomainSocketEndPoint(Path.Combine(In, "socket")));
        }

        // Devices would fill a disk if a task read them to the end: their destinations are on a tiny one.
        Small = SmallFileSystem.Value.NewFolder("devices-" + kind);

        string text = MSBuildProjects.Compose(Body());
        ProjectPath = Path.Combine(root, "bad-input.proj");
        File.WriteAllText(ProjectPath, text);
        Lines = Cases.ToDictionary(c => c.Name, c => MSBuildProjects.LineOf(text, $"case: {c.Name} "));
        Ours = MSBuildProjects.Run(ProjectPath, stock: false, TimeSpan.FromSeconds(90));
        Stock = MSBuildProjects.Run(ProjectPath, stock: true, TimeSpan.FromSeconds(90));
    }

    public static readonly Lazy<LoopFileSystem> SmallFileSystem = new(() => LoopFileSystems.RequireNew("ext4", 16));

    /// <summary>80 characters, 240 bytes of UTF-8: with ".dll", a valid name of 244 bytes (the limit is 255).</summary>
    public static readonly string WideName = new('漢', 80);

    public string Kind { get; }

    public string In { get; }

    public string Out { get; }

    public string Source { get; }

    public string Folder { get; }

    public string ExistingFile { get; }

    public string Small { get; }

    public string ProjectPath { get; }

    public IReadOnlyDictionary<string, int> Lines { get; }

    public BuildRun Ours { get; }

    public BuildRun Stock { get; }

    public static BadInputProject For(string kind) => PerKind.GetOrAdd(kind, k => new Lazy<BadInputProject>(() => new BadInputProject(k))).Value;

    public IReadOnlyList<Diagnostic> DiagnosticsOf(BuildRun run, string caseName) => run.Diagnostics.Where(d => d.Line == Lines[caseName]).ToList();

    /// <summary>The stock task on the inputs it cannot survive, each alone, time-limited, onto a tiny disk.</summary>
    public static StockHazardRuns StockHazards => Hazards.Value;

    private static readonly Lazy<StockHazardRuns> Hazards = new(() =>
    {
        string folder = SmallFileSystem.Value.NewFolder("stock-hazards");
        string fifo = Path.Combine(folder, "fifo");
        Fault.Must("mkfifo", fifo);
        string zeroDestination = Path.Combine(folder, "from-zero.bin");
        string zeroProject = MSBuildProjects.Write(folder, "zero.proj", $"""
              <Target Name="Build">
                <Copy SourceFiles="/dev/zero" DestinationFiles="{zeroDestination}" Retries="1" RetryDelayMilliseconds="0" />
              </Target>
            """);
        string fifoProject = MSBuildProjects.Write(folder, "fifo.proj", $"""
              <Target Name="Build">
                <Copy SourceFiles="{fifo}" DestinationFiles="{Path.Combine(folder, "from-fifo.txt")}" Retries="1" RetryDelayMilliseconds="0" />
              </Target>
            """);
        BuildRun zero = MSBuildProjects.Run(zeroProject, stock: true, TimeSpan.FromSeconds(60));
        long zeroLeft = File.Exists(zeroDestination) ? new FileInfo(zeroDestination).Length : -1;
        File.Delete(zeroDestination);
        BuildRun fifoRun = MSBuildProjects.Run(fifoProject, stock: true, StockHazardRuns.FifoPatience);
        return new StockHazardRuns(zero, zeroLeft, fifoRun);
    });

    private string Body()
    {
        string longName = new('n', 300);
        string deepPath = string.Join('/', Enumerable.Repeat(new string('d', 200), 25)); // 5,025 characters
        var lines = new List<string>
        {
            "  <PropertyGroup>",
            $"    <Kind>{Kind}</Kind>",
            $"    <In>{In}</In>",
            $"    <Out>{Out}</Out>",
            $"    <Src>{Source}</Src>",
            $"    <Folder>{Folder}</Folder>",
            $"    <ExistingFile>{ExistingFile}</ExistingFile>",
            $"    <Small>{Small}</Small>",
            $"    <LongName>{longName}</LongName>",
            $"    <WideName>{WideName}</WideName>",
            $"    <DeepPath>{deepPath}</DeepPath>",
            "  </PropertyGroup>",
            "  <Target Name=\"Build\">",
            // A copy that works, so the log shows which task ran (ours prints a "CopyOnWrite:" line).
            "    <Copy SourceFiles=\"$(Src)\" DestinationFiles=\"$(Out)/canary.txt\" />",
        };
        foreach ((string name, string copy, bool stockToo) in Cases)
        {
            string attributes = " Retries=\"1\" RetryDelayMilliseconds=\"0\" ContinueOnError=\"ErrorAndContinue\"" + (stockToo ? string.Empty : $" Condition=\"'$({MSBuildProjects.StockProperty})' != 'true'\"");
            lines.Add("    " + copy.Replace(" />", attributes + " />", StringComparison.Ordinal) + $" <!-- case: {name} -->");
        }

        lines.Add("  </Target>");
        return string.Join('\n', lines);
    }
}

/// <summary>What the stock task did with /dev/zero (onto a 16 MiB disk) and with a FIFO (given <see cref="FifoPatience"/>).</summary>
public sealed record StockHazardRuns(BuildRun Zero, long ZeroBytesLeftBehind, BuildRun Fifo)
{
    public static readonly TimeSpan FifoPatience = TimeSpan.FromSeconds(5);
}
