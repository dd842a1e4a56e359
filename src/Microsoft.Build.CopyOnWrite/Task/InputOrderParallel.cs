using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Runtime.ExceptionServices;
using System.Threading;

namespace Microsoft.Build.CopyOnWrite;

/// <summary>
/// Runs a body for every item on the calling thread and up to <c>parallelism - 1</c> thread-pool threads, handing
/// the items out one at a time in list order (so work starts in the order the stock task starts it).
/// </summary>
/// <remarks>
/// Not Parallel.ForEach, whose first use in a node is costly (docs/precompiled-task.md). An exception stops the handing
/// out and is thrown, as itself, on the calling thread once the items already started have finished.
/// </remarks>
internal static class InputOrderParallel
{
    public static void ForEach<T>(IReadOnlyList<T> items, int parallelism, Action<T> body)
    {
        var run = new Run<T>(items, body);
        int helpers = Math.Min(parallelism, items.Count) - 1;
        if (helpers > 0)
        {
            QueueHelpers(run, helpers);
        }

        run.Work();
        run.WaitUntilAllFinished();
        run.Failure?.Throw();
    }

    // Apart and never inlined: its ThreadPool reference loads a facade assembly, which a Copy of one destination never needs.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void QueueHelpers<T>(Run<T> run, int helpers)
    {
        for (int i = 0; i < helpers; i++)
        {
            ThreadPool.QueueUserWorkItem(static state => ((Run<T>)state!).Work(), run);
        }
    }

    private sealed class Run<T>
    {
        private readonly IReadOnlyList<T> _items;
        private readonly Action<T> _body;
        private readonly object _finished = new();
        private int _next = -1;
        private int _unfinished;
        private ExceptionDispatchInfo? _failure;

        public Run(IReadOnlyList<T> items, Action<T> body)
        {
            _items = items;
            _body = body;
            _unfinished = items.Count;
        }

        public ExceptionDispatchInfo? Failure => Volatile.Read(ref _failure);

        public void Work()
        {
            int index;
            while ((index = Interlocked.Increment(ref _next)) < _items.Count)
            {
                try
                {
                    if (Failure is null)
                    {
                        _body(_items[index]);
                    }
                }
                catch (Exception e)
                {
                    Interlocked.CompareExchange(ref _failure, ExceptionDispatchInfo.Capture(e), null);
                }
                finally
                {
                    if (Interlocked.Decrement(ref _unfinished) == 0)
                    {
                        lock (_finished)
                        {
                            Monitor.PulseAll(_finished);
                        }
                    }
                }
            }
        }

        public void WaitUntilAllFinished()
        {
            lock (_finished)
            {
                while (Volatile.Read(ref _unfinished) > 0)
                {
                    Monitor.Wait(_finished);
                }
            }
        }
    }
}
