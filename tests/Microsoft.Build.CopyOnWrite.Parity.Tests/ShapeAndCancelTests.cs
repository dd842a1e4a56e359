using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Threading;
using Microsoft.Build.CopyOnWrite.TestKit.Parity;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Parity.Tests;

[TestClass]
public sealed class ShapeAndCancelTests
{
    /// <summary>Same parameters, types, [Output]s, no [Required]; the same interfaces the engine looks for.</summary>
    [TestMethod]
    public void ParametersAndInterfacesMatchTheStockTask()
    {
        Type stock = TaskDriver.StockType;
        Type ours = typeof(Copy);
        var stockParameters = TaskDriver.DescribeParameters(stock).Where(p => !p.StartsWith("TaskEnvironment:", StringComparison.Ordinal)).ToList();
        CollectionAssert.AreEqual(stockParameters, TaskDriver.DescribeParameters(ours).ToList(),
            $"Stock: {string.Join("; ", stockParameters)}{Environment.NewLine}Ours: {string.Join("; ", TaskDriver.DescribeParameters(ours))}");
        foreach (string name in new[] { "Microsoft.Build.Framework.IIncrementalTask", "Microsoft.Build.Framework.ICancelableTask" })
        {
            Assert.IsNotNull(stock.GetInterface(name), $"stock lacks {name}");
            Assert.IsNotNull(ours.GetInterface(name), $"ours lacks {name}");
        }

        // Defaults, read from fresh instances.
        object stockTask = TaskDriver.CreateStockCopy();
        var ourTask = new Copy();
        foreach (string property in new[] { "Retries", "RetryDelayMilliseconds", "UseHardlinksIfPossible", "UseSymboliclinksIfPossible", "ErrorIfLinkFails", "SkipUnchangedFiles", "OverwriteReadOnlyFiles", "FailIfNotIncremental", "SourceFiles", "SourceFolders", "DestinationFolder", "DestinationFiles", "CopiedFiles", "WroteAtLeastOneFile" })
        {
            Assert.AreEqual(stock.GetProperty(property)!.GetValue(stockTask), ours.GetProperty(property)!.GetValue(ourTask), $"default of {property}");
        }
    }

    /// <summary>Cancel() during a retry wait: ours returns at once (false) instead of sleeping out the delay.</summary>
    [TestMethod]
    public void CancelDuringARetryWaitReturnsPromptly()
    {
        string folder = Path.Combine(Scratch.Root, "cancel");
        var tree = new Tree(folder, null);
        tree.File("src/a.txt").File("block");
        var task = new Copy(engine: null, environment: Environment.GetEnvironmentVariable);
        var parameters = new Dictionary<string, object?>
        {
            ["SourceFiles"] = new[] { new ParityItem(Path.Combine(folder, "src/a.txt")) },
            ["DestinationFiles"] = new[] { new ParityItem(Path.Combine(folder, "block/a.txt")) },
            ["Retries"] = 5,
            ["RetryDelayMilliseconds"] = 30_000,
        };
        bool retryWaitBegan = false;
        Stopwatch? sinceCancel = null;
        TaskRunResult result = TaskDriver.Run(task, parameters, whileRunning: t =>
        {
            // Cancel once the first retry wait has begun: its warning is logged just before the wait.
            new Thread(() =>
            {
                retryWaitBegan = TaskDriver.WaitForWarning(t, "MSB3026", TimeSpan.FromMinutes(2));
                sinceCancel = Stopwatch.StartNew();
                TaskDriver.Cancel(t);
            }) { IsBackground = true }.Start();
        });
        TimeSpan? cancelToReturn = sinceCancel?.Elapsed;
        Assert.IsTrue(retryWaitBegan, "no retry wait began (no MSB3026): " + string.Join(Environment.NewLine, result.Events));
        Assert.IsFalse(result.Success, "a cancelled copy that did not copy must fail");
        Assert.IsTrue(cancelToReturn < TimeSpan.FromSeconds(5), $"Execute returned {cancelToReturn} after Cancel during a 30 s retry wait");
        Assert.IsTrue(result.Events.Any(e => e.Code == "MSB3026"), string.Join(Environment.NewLine, result.Events));
        Assert.IsFalse(result.Events.Any(e => e.Code == "MSB3027"), "no 'exceeded retry count' after a cancel: " + string.Join(Environment.NewLine, result.Events));
    }
}
