using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Task;

/// <summary>
/// How the Copy task spreads its destinations over threads: every item once, the calling thread working too, items
/// handed out in list order, and a failure surfacing on the calling thread after the work already started has ended.
/// </summary>
[TestClass]
public sealed class InputOrderParallelTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(30);

    [TestMethod]
    public void Every_item_runs_exactly_once()
    {
        int[] items = Enumerable.Range(0, 1000).ToArray();
        int[] runs = new int[items.Length];

        InputOrderParallel.ForEach(items, parallelism: 4, item => Interlocked.Increment(ref runs[item]));

        CollectionAssert.AreEqual(Enumerable.Repeat(1, items.Length).ToArray(), runs);
    }

    [TestMethod]
    public void With_parallelism_one_everything_runs_on_the_calling_thread_in_list_order()
    {
        var seen = new List<(int Item, int Thread)>();

        InputOrderParallel.ForEach(new[] { 0, 1, 2, 3, 4 }, parallelism: 1, item => seen.Add((item, Environment.CurrentManagedThreadId)));

        CollectionAssert.AreEqual(new[] { 0, 1, 2, 3, 4 }, seen.Select(entry => entry.Item).ToArray());
        Assert.IsTrue(seen.All(entry => entry.Thread == Environment.CurrentManagedThreadId));
    }

    [TestMethod]
    public void Items_run_at_the_same_time_on_the_calling_thread_and_a_helper()
    {
        // Both items wait for each other: this only finishes if two threads run them at once.
        using var bothStarted = new Barrier(2);
        var threads = new ConcurrentBag<int>();

        InputOrderParallel.ForEach(new[] { 0, 1 }, parallelism: 4, _ =>
        {
            threads.Add(Environment.CurrentManagedThreadId);
            Assert.IsTrue(bothStarted.SignalAndWait(Patience), "the second item never ran beside the first");
        });

        Assert.AreEqual(2, threads.Distinct().Count());
        Assert.IsTrue(threads.Contains(Environment.CurrentManagedThreadId), "the calling thread did not take an item");
    }

    [TestMethod]
    public void Items_are_handed_out_in_list_order_while_one_is_still_running()
    {
        // Item 0 holds one of the two threads until all the others have run: the other thread then took them one
        // at a time as they were handed out, so the order it ran them in is the order of handing out.
        int[] items = Enumerable.Range(0, 200).ToArray();
        var order = new List<int>();
        using var othersDone = new ManualResetEventSlim();

        InputOrderParallel.ForEach(items, parallelism: 2, item =>
        {
            if (item == 0)
            {
                Assert.IsTrue(othersDone.Wait(Patience), "the other items did not run while item 0 waited");
                return;
            }

            lock (order)
            {
                order.Add(item);
                if (order.Count == items.Length - 1)
                {
                    othersDone.Set();
                }
            }
        });

        CollectionAssert.AreEqual(items.Skip(1).ToArray(), order);
    }

    [TestMethod]
    public void A_failure_is_thrown_as_itself_on_the_calling_thread_and_later_items_are_not_started()
    {
        var started = new List<int>();

        var thrown = Assert.ThrowsExactly<InvalidOperationException>(() => InputOrderParallel.ForEach(new[] { 0, 1, 2, 3 }, parallelism: 1, item =>
        {
            started.Add(item);
            if (item == 1)
            {
                throw new InvalidOperationException("item 1 failed");
            }
        }));

        Assert.AreEqual("item 1 failed", thrown.Message);
        CollectionAssert.AreEqual(new[] { 0, 1 }, started);
    }

    [TestMethod]
    public void A_failure_on_a_helper_waits_for_the_items_already_running_before_it_is_thrown()
    {
        // Item 0 runs on one thread and is still busy when item 1 fails on the other: ForEach must not return
        // (and the task must not report) while item 0 is still writing.
        using var failed = new ManualResetEventSlim();
        int finished = 0;

        Assert.ThrowsExactly<InvalidOperationException>(() => InputOrderParallel.ForEach(new[] { 0, 1 }, parallelism: 2, item =>
        {
            if (item == 1)
            {
                failed.Set();
                throw new InvalidOperationException("item 1 failed");
            }

            Assert.IsTrue(failed.Wait(Patience), "item 1 never ran");
            Thread.Sleep(200);
            Interlocked.Increment(ref finished);
        }));

        Assert.AreEqual(1, Volatile.Read(ref finished));
    }

    [TestMethod]
    public void An_empty_list_runs_nothing()
    {
        InputOrderParallel.ForEach(Array.Empty<int>(), parallelism: 4, _ => Assert.Fail("no item to run"));
    }
}
