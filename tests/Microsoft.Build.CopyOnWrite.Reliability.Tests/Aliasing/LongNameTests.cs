using System;
using System.IO;
using System.Linq;
using System.Text;
using Microsoft.Build.CopyOnWrite.Reliability.Tests.Infrastructure;
using Microsoft.Build.CopyOnWrite.Tests.Infrastructure;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Reliability.Tests.Aliasing;

/// <summary>
/// Destination names near the 255-byte limit, in characters of several UTF-8 bytes: the temporary file
/// beside the destination must fit the limit too, whether the destination is copied, hard-linked or
/// symlinked, so that what the stock task can copy, ours can.
/// </summary>
[TestClass]
public sealed class LongNameTests
{
    [TestMethod]
    [DataRow("ext4", "copy", "漢")]
    [DataRow("xfs", "copy", "漢")]
    [DataRow("btrfs", "copy", "漢")]
    [DataRow("xfs", "copy", "😀")] // 4 bytes and a surrogate pair in .NET: never cut in half
    [DataRow("ext4", "hard link", "漢")]
    [DataRow("ext4", "symbolic link", "漢")]
    public void A_destination_name_of_many_multibyte_characters_within_255_bytes_is_written_as_by_the_stock_task(string kind, string how, string character)
    {
        string folder = LoopFileSystems.Require(kind).NewFolder("long-name");
        string source = TestFiles.Write(folder, "source.bin", 100_000);
        string name = string.Concat(Enumerable.Repeat(character, 250 / Encoding.UTF8.GetByteCount(character)));
        Assert.IsTrue(Encoding.UTF8.GetByteCount(name) is > 240 and <= 255, "the premise: a valid name near the limit");
        var request = new CopyRequest
        {
            Sources = [source],
            Destinations = [Path.Combine(folder, "ours", name)],
            UseHardlinksIfPossible = how == "hard link",
            UseSymboliclinksIfPossible = how == "symbolic link",
        };
        CopyRun stock = StockCopy.Run(new CopyRequest
        {
            Sources = request.Sources,
            Destinations = [Path.Combine(folder, "stock", name)],
            UseHardlinksIfPossible = request.UseHardlinksIfPossible,
            UseSymboliclinksIfPossible = request.UseSymboliclinksIfPossible,
        });

        CopyRun ours = OurCopy.Run(request);

        Assert.IsTrue(stock.Succeeded, $"the stock task copies it (premise):\n{stock}");
        Assert.IsTrue(ours.Succeeded, ours.ToString());
        Assert.AreEqual(0, ours.WarningCodes.Count, ours.ToString());
        Assert.IsTrue(TestFiles.SameBytes(source, Path.Combine(folder, "ours", name)));
        Assert.AreEqual(FileSnapshot.Of(Path.Combine(folder, "stock", name)).Type, FileSnapshot.Of(Path.Combine(folder, "ours", name)).Type, "linked or copied as the stock task did");
        CollectionAssert.AreEqual(Array.Empty<string>(), TestFiles.TemporaryLeftovers(folder));
    }
}
