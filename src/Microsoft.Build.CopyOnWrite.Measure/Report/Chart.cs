using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Net;
using System.Text;

namespace Microsoft.Build.CopyOnWrite.Measure;

/// <summary>A self-contained SVG bar chart of the clean builds: three panels, one group of bars per volume.</summary>
internal static class Chart
{
    private const string OursColor = "#1b9e77";
    private const string StockColor = "#9e9e9e";

    private sealed record Panel(string Title, string Unit, Func<Aggregate, Stat> Value, double Scale, string Format);

    public static string Svg(MeasurementReport report)
    {
        var panels = new[]
        {
            new Panel("Time in Copy tasks", "ms", a => a.CopyMilliseconds, 1, "0"),
            new Panel("Disk space used by the outputs", "MiB", a => a.DiskUsedBytes, 1.0 / 1048576, "0"),
            new Panel("Build time", "s", a => a.WallSeconds, 1, "0.0"),
            new Panel("Flush after the build", "s", a => a.FlushSeconds, 1, "0.00"),
        };
        IReadOnlyList<string> volumes = report.Volumes;
        const int panelWidth = 300, panelHeight = 300, top = 70, left = 20, gap = 25, plotTop = 40, plotBottom = 40;
        int width = left * 2 + panels.Length * panelWidth + (panels.Length - 1) * gap;
        int height = top + panelHeight + 50;
        var svg = new StringBuilder();
        svg.AppendLine(Inv($"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">"));
        svg.AppendLine(Inv($"<rect width=\"{width}\" height=\"{height}\" fill=\"white\"/>"));
        svg.AppendLine(Inv($"<text x=\"{left}\" y=\"28\" font-size=\"18\" font-weight=\"bold\" fill=\"#222\">{Escape(report.Title)}</text>"));
        svg.AppendLine(Inv($"<text x=\"{left}\" y=\"50\" font-size=\"12\" fill=\"#555\">Bars: median; whiskers: min–max. Lower is better.</text>"));
        int legendX = width - 330;
        svg.AppendLine(Inv($"<rect x=\"{legendX}\" y=\"38\" width=\"14\" height=\"14\" fill=\"{OursColor}\"/><text x=\"{legendX + 20}\" y=\"50\" font-size=\"13\" fill=\"#222\">copy-on-write (our Copy)</text>"));
        svg.AppendLine(Inv($"<rect x=\"{legendX + 190}\" y=\"38\" width=\"14\" height=\"14\" fill=\"{StockColor}\"/><text x=\"{legendX + 210}\" y=\"50\" font-size=\"13\" fill=\"#222\">stock Copy</text>"));

        for (int p = 0; p < panels.Length; p++)
        {
            Panel panel = panels[p];
            double x0 = left + p * (panelWidth + gap);
            double plotHeight = panelHeight - plotTop - plotBottom;
            double baseY = top + panelHeight - plotBottom;
            svg.AppendLine(Inv($"<rect x=\"{x0}\" y=\"{top}\" width=\"{panelWidth}\" height=\"{panelHeight}\" fill=\"#fafafa\" stroke=\"#ddd\"/>"));
            svg.AppendLine(Inv($"<text x=\"{x0 + panelWidth / 2.0}\" y=\"{top + 24}\" font-size=\"14\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"#222\">{Escape(panel.Title)} ({panel.Unit})</text>"));

            var values = volumes.SelectMany(v => new[] { Builds.OurVariant, Builds.StockVariant }.Select(variant => report.Aggregates.FirstOrDefault(a => a.Volume == v && a.Variant == variant && a.Kind == "clean")))
                .Where(a => a is not null).Select(a => panel.Value(a!)).Where(s => s.Count > 0).ToList();
            double max = values.Count == 0 ? 1 : values.Max(s => s.Max * panel.Scale);
            string format = max < 10 ? "0.0" : panel.Format;
            max = max <= 0 ? 1 : max * 1.15;
            svg.AppendLine(Inv($"<line x1=\"{x0 + 10}\" y1=\"{baseY}\" x2=\"{x0 + panelWidth - 10}\" y2=\"{baseY}\" stroke=\"#888\"/>"));

            double groupWidth = (panelWidth - 20.0) / Math.Max(1, volumes.Count);
            double barWidth = Math.Min(40, groupWidth / 3);
            for (int v = 0; v < volumes.Count; v++)
            {
                double groupX = x0 + 10 + v * groupWidth;
                svg.AppendLine(Inv($"<text x=\"{groupX + groupWidth / 2}\" y=\"{baseY + 20}\" font-size=\"13\" text-anchor=\"middle\" fill=\"#222\">{Escape(volumes[v])}</text>"));
                string[] variants = [Builds.OurVariant, Builds.StockVariant];
                for (int i = 0; i < variants.Length; i++)
                {
                    Aggregate? aggregate = report.Aggregates.FirstOrDefault(a => a.Volume == volumes[v] && a.Variant == variants[i] && a.Kind == "clean");
                    if (aggregate is null || panel.Value(aggregate).Count == 0)
                    {
                        continue;
                    }

                    Stat stat = panel.Value(aggregate);
                    double median = Math.Max(0, stat.Median * panel.Scale);
                    double barX = groupX + groupWidth / 2 - barWidth - 2 + i * (barWidth + 4);
                    double barHeight = plotHeight * median / max;
                    svg.AppendLine(Inv($"<rect x=\"{barX:0.0}\" y=\"{baseY - barHeight:0.0}\" width=\"{barWidth:0.0}\" height=\"{Math.Max(0.5, barHeight):0.0}\" fill=\"{(i == 0 ? OursColor : StockColor)}\"><title>{Escape(volumes[v])}, {variants[i]}: {median.ToString(format, CultureInfo.InvariantCulture)} {panel.Unit}</title></rect>"));
                    double lowY = baseY - plotHeight * Math.Max(0, stat.Min * panel.Scale) / max;
                    double highY = baseY - plotHeight * Math.Max(0, stat.Max * panel.Scale) / max;
                    double centerX = barX + barWidth / 2;
                    if (stat.Count > 1 && stat.Max > stat.Min)
                    {
                        svg.AppendLine(Inv($"<path d=\"M{centerX:0.0},{lowY:0.0}V{highY:0.0}M{centerX - 5:0.0},{lowY:0.0}h10M{centerX - 5:0.0},{highY:0.0}h10\" stroke=\"#333\" stroke-width=\"1.2\" fill=\"none\"/>"));
                    }

                    svg.AppendLine(Inv($"<text x=\"{centerX:0.0}\" y=\"{Math.Min(highY, baseY - barHeight) - 5:0.0}\" font-size=\"11\" text-anchor=\"middle\" fill=\"#222\">{median.ToString(format, CultureInfo.InvariantCulture)}</text>"));
                }
            }
        }

        svg.AppendLine("</svg>");
        return svg.ToString();
    }

    private static string Escape(string text) => WebUtility.HtmlEncode(text);

    private static string Inv(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
