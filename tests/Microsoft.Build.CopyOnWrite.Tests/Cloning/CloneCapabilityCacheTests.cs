using System;
using System.Diagnostics;
using Microsoft.Build.CopyOnWrite.Cloning;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Microsoft.Build.CopyOnWrite.Tests.Cloning;

/// <summary>The memory of refused volume pairs, on a clock the tests move by hand.</summary>
[TestClass]
public sealed class CloneCapabilityCacheTests
{
    private static readonly TimeSpan Lifetime = TimeSpan.FromSeconds(30);
    private static readonly VolumePair Ext4ToExt4 = new(SourceVolume: 0x801, DestinationVolume: 0x801, DestinationFileSystemType: 0xEF53);

    private long _nowTicks = 1_000_000;

    private CloneCapabilityCache NewCache() => new(Lifetime, () => _nowTicks);

    private void Wait(TimeSpan span) => _nowTicks += (long)(span.TotalSeconds * Stopwatch.Frequency);

    [TestMethod]
    public void A_pair_never_refused_has_nothing_remembered()
    {
        CloneCapabilityCache cache = NewCache();

        Assert.IsNull(cache.RememberedRefusal(Ext4ToExt4));
    }

    [TestMethod]
    public void A_source_volume_has_refusals_only_once_one_from_it_is_remembered_and_keeps_saying_so_after_Forget()
    {
        CloneCapabilityCache cache = NewCache();
        Assert.IsFalse(cache.HasRefusalsFrom(Ext4ToExt4.SourceVolume));

        cache.RememberRefusal(Ext4ToExt4, FallbackReason.FileSystemCannotClone, "ext4");
        cache.Forget(Ext4ToExt4);

        Assert.IsTrue(cache.HasRefusalsFrom(Ext4ToExt4.SourceVolume), "may be stale: it only makes the engine look the pair up");
        Assert.IsFalse(cache.HasRefusalsFrom(Ext4ToExt4.SourceVolume + 1));
        Assert.IsNull(cache.RememberedRefusal(Ext4ToExt4));
    }

    [TestMethod]
    public void A_refusal_is_remembered_with_its_reason_and_detail()
    {
        CloneCapabilityCache cache = NewCache();

        cache.RememberRefusal(Ext4ToExt4, FallbackReason.FileSystemCannotClone, "ext4");
        CloneCapabilityCache.Refusal? refusal = cache.RememberedRefusal(Ext4ToExt4);

        Assert.IsNotNull(refusal);
        Assert.AreEqual(FallbackReason.FileSystemCannotClone, refusal.Value.Reason);
        Assert.AreEqual("ext4", refusal.Value.Detail);
    }

    [TestMethod]
    public void A_refused_kernel_copy_is_remembered_with_the_clone_refusal_and_forgotten_with_it()
    {
        CloneCapabilityCache cache = NewCache();
        cache.RememberInKernelCopyRefused(Ext4ToExt4);
        Assert.IsNull(cache.RememberedRefusal(Ext4ToExt4), "nothing is remembered where no clone refusal is");

        cache.RememberRefusal(Ext4ToExt4, FallbackReason.DifferentVolumes, null);
        Assert.IsFalse(cache.RememberedRefusal(Ext4ToExt4)!.Value.InKernelCopyRefused);
        Wait(TimeSpan.FromSeconds(10));
        cache.RememberInKernelCopyRefused(Ext4ToExt4);

        CloneCapabilityCache.Refusal refusal = cache.RememberedRefusal(Ext4ToExt4)!.Value;
        Assert.IsTrue(refusal.InKernelCopyRefused);
        Assert.AreEqual(FallbackReason.DifferentVolumes, refusal.Reason, "the clone refusal is kept as it was");
        Wait(TimeSpan.FromSeconds(21));
        Assert.IsNull(cache.RememberedRefusal(Ext4ToExt4), "gone with the clone refusal, 30 s after it was learnt");
        cache.RememberRefusal(Ext4ToExt4, FallbackReason.DifferentVolumes, null);
        Assert.IsFalse(cache.RememberedRefusal(Ext4ToExt4)!.Value.InKernelCopyRefused, "learnt again, both");
    }

    [TestMethod]
    public void A_refusal_is_believed_for_its_whole_lifetime()
    {
        CloneCapabilityCache cache = NewCache();
        cache.RememberRefusal(Ext4ToExt4, FallbackReason.FileSystemCannotClone, "ext4");

        Wait(Lifetime);

        Assert.IsNotNull(cache.RememberedRefusal(Ext4ToExt4));
    }

    [TestMethod]
    public void A_refusal_expires_after_its_lifetime_so_a_remounted_volume_is_tried_again()
    {
        CloneCapabilityCache cache = NewCache();
        cache.RememberRefusal(Ext4ToExt4, FallbackReason.FileSystemCannotClone, "ext4");

        Wait(Lifetime + TimeSpan.FromSeconds(1));

        Assert.IsNull(cache.RememberedRefusal(Ext4ToExt4));
    }

    [TestMethod]
    public void Remembering_again_restarts_the_lifetime_with_the_new_reason()
    {
        CloneCapabilityCache cache = NewCache();
        cache.RememberRefusal(Ext4ToExt4, FallbackReason.FileSystemCannotClone, "ext4");
        Wait(TimeSpan.FromSeconds(20));

        cache.RememberRefusal(Ext4ToExt4, FallbackReason.DifferentVolumes, null);
        Wait(TimeSpan.FromSeconds(20));
        CloneCapabilityCache.Refusal? refusal = cache.RememberedRefusal(Ext4ToExt4);

        Assert.IsNotNull(refusal);
        Assert.AreEqual(FallbackReason.DifferentVolumes, refusal.Value.Reason);
    }

    [TestMethod]
    public void Forget_clears_a_refusal_at_once()
    {
        CloneCapabilityCache cache = NewCache();
        cache.RememberRefusal(Ext4ToExt4, FallbackReason.FileSystemCannotClone, "ext4");

        cache.Forget(Ext4ToExt4);

        Assert.IsNull(cache.RememberedRefusal(Ext4ToExt4));
    }

    [TestMethod]
    public void Pairs_are_independent_in_direction_device_and_file_system_type()
    {
        CloneCapabilityCache cache = NewCache();
        var sourceToOther = new VolumePair(0x801, 0x802, 0xEF53);
        var otherToSource = new VolumePair(0x802, 0x801, 0xEF53);
        var sameDevicesReusedByXfs = new VolumePair(0x801, 0x801, 0x58465342);

        cache.RememberRefusal(sourceToOther, FallbackReason.DifferentVolumes, null);

        Assert.IsNotNull(cache.RememberedRefusal(sourceToOther));
        Assert.IsNull(cache.RememberedRefusal(otherToSource));
        Assert.IsNull(cache.RememberedRefusal(Ext4ToExt4));
        Assert.IsNull(cache.RememberedRefusal(sameDevicesReusedByXfs));
    }

    [TestMethod]
    public void Forgetting_one_pair_leaves_the_others_remembered()
    {
        CloneCapabilityCache cache = NewCache();
        var other = new VolumePair(0x802, 0x802, 0xEF53);
        cache.RememberRefusal(Ext4ToExt4, FallbackReason.FileSystemCannotClone, "ext4");
        cache.RememberRefusal(other, FallbackReason.FileSystemCannotClone, "ext4");

        cache.Forget(Ext4ToExt4);

        Assert.IsNull(cache.RememberedRefusal(Ext4ToExt4));
        Assert.IsNotNull(cache.RememberedRefusal(other));
    }

    [TestMethod]
    public void The_default_cache_believes_a_refusal_for_30_seconds()
    {
        Assert.AreEqual(TimeSpan.FromSeconds(30), new CloneCapabilityCache().RefusalLifetime);
    }
}
