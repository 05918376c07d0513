package io.chsink.it.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.geom.Rectangle2D;
import java.io.IOException;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.labels.StandardCategoryItemLabelGenerator;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.CombinedDomainCategoryPlot;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.CategoryItemRenderer;
import org.jfree.chart.renderer.category.LineAndShapeRenderer;
import org.jfree.chart.renderer.category.StackedBarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.svg.SVGGraphics2D;
import org.jfree.svg.SVGUtils;

/**
 * The figures of a {@link SinkBenchReport} as SVG charts next to its JSON file ({@code bench.json} gives
 * {@code bench-paths.svg}, {@code bench-many-tables.svg}, {@code bench-guarantees.svg}), drawn by JFreeChart into
 * JFreeSVG's Graphics2D. Each chart has two panels over the same categories: rows/s above, CPU per row below. A
 * chart is written only when its figures were measured in the run.
 */
final class BenchCharts {
    private static final int WIDTH = 900;
    private static final Color CLIENT = new Color(0x4C72B0);
    private static final Color SERVER = new Color(0xDD8452);
    private static final Color RATE = new Color(0x55A868);
    private static final Color OFFICIAL = new Color(0x8172B3);
    private static final DecimalFormat WHOLE = new DecimalFormat("#,##0");
    private static final DecimalFormat TENTHS = new DecimalFormat("#,##0.0");

    private BenchCharts() {
    }

    /** Writes every chart whose figures the report holds; returns the files written. */
    static List<Path> write(SinkBenchReport report, Path json) throws IOException {
        System.setProperty("java.awt.headless", "true");
        // Rotated labels (value axes, slanted path ids) as SVG text in a rotated group, not as glyph outlines.
        org.jfree.chart.text.TextUtils.setUseDrawRotatedStringWorkaround(false);
        String base = json.getFileName().toString().replaceFirst("\\.json$", "");
        Path dir = json.toAbsolutePath().getParent();
        String subtitle = subtitle(report);
        List<Path> written = new ArrayList<>();
        if (!report.paths.isEmpty()) {
            written.add(save(paths(report, subtitle), dir.resolve(base + "-paths.svg"), 560));
        }
        if (!report.many.isEmpty()) {
            written.add(save(manyTables(report, subtitle), dir.resolve(base + "-many-tables.svg"), 560));
        }
        JFreeChart guarantees = guarantees(report, subtitle);
        if (guarantees != null) {
            written.add(save(guarantees, dir.resolve(base + "-guarantees.svg"), 480));
        }
        return written;
    }

    /**
     * Every path: rows/s; CPU microseconds per row of the client process and of ClickHouse side by side. Both on log
     * scales: the paths span three orders of magnitude (per-row JDBC against pre-encoded blocks).
     */
    static JFreeChart paths(SinkBenchReport report, String subtitle) {
        DefaultCategoryDataset rate = new DefaultCategoryDataset();
        DefaultCategoryDataset cpu = new DefaultCategoryDataset();
        for (SinkBenchReport.Path p : report.paths) {
            rate.addValue(p.rowsPerSecond(), "rows/s", p.id);
            cpu.addValue(p.clientCpu.seconds() * 1e6 / p.rows, "client (this JVM, or the Connect worker)", p.id);
            cpu.addValue(p.serverCpu.seconds() * 1e6 / p.rows, "ClickHouse", p.id);
        }
        CategoryAxis axis = new CategoryAxis("path (see the run's table for what each is)");
        if (report.paths.size() > 6) {
            axis.setCategoryLabelPositions(CategoryLabelPositions.UP_45);
        }
        return chart("Rows/s and CPU per path", subtitle, axis, log(bars(rate, "rows/s (log scale)", RATE, WHOLE)),
                log(bars(cpu, "CPU µs per row (log scale)", CLIENT, TENTHS)));
    }

    /** Path M: rows/s and worker CPU per row against the number of tables, one line per sink (means of the rounds). */
    static JFreeChart manyTables(SinkBenchReport report, String subtitle) {
        DefaultCategoryDataset rate = new DefaultCategoryDataset();
        DefaultCategoryDataset cpu = new DefaultCategoryDataset();
        TreeSet<Integer> ks = new TreeSet<>();
        report.many.forEach(r -> ks.add(r.tables()));
        for (ManyTablesPath.Sink sink : ManyTablesPath.Sink.values()) {
            for (int k : ks) {
                double[] m = report.mean(sink, k);
                if (!Double.isNaN(m[0])) {
                    rate.addValue(m[0], sink.label, Integer.toString(k));
                    cpu.addValue(m[1], sink.label, Integer.toString(k));
                }
            }
        }
        CategoryAxis axis = new CategoryAxis("tables (K topics x 2 partitions, topic i -> table i)");
        return chart(String.format(Locale.ROOT, "Many tables: %,d events over K tables", report.manyRows), subtitle,
                axis, lines(rate, "rows/s", WHOLE), lines(cpu, "worker CPU µs per row", TENTHS));
    }

    /** Path B under at_least_once against Bx, the same events under exactly_once; null when Bx did not run. */
    static JFreeChart guarantees(SinkBenchReport report, String subtitle) {
        SinkBenchReport.Path b = report.path("B");
        SinkBenchReport.Path bx = report.path("Bx");
        if (b == null || bx == null) {
            return null;
        }
        DefaultCategoryDataset rate = new DefaultCategoryDataset();
        DefaultCategoryDataset cpu = new DefaultCategoryDataset();
        for (SinkBenchReport.Path p : List.of(b, bx)) {
            String c = p == b ? "at_least_once (B)" : "exactly_once (Bx)";
            rate.addValue(p.rowsPerSecond(), "rows/s", c);
            cpu.addValue(p.clientCpu.seconds() * 1e6 / p.rows, "Connect worker", c);
            cpu.addValue(p.serverCpu.seconds() * 1e6 / p.rows, "ClickHouse", c);
        }
        return chart(String.format(Locale.ROOT, "Delivery guarantees: %,d events of JSON with schemas end to end",
                b.rows), subtitle, new CategoryAxis("delivery.guarantee"), bars(rate, "rows/s", RATE, WHOLE),
                stacked(cpu, "CPU µs per row"));
    }

    /** When, on what and from which commit the figures come, and the command's arguments. */
    static String subtitle(SinkBenchReport report) {
        return String.format(Locale.ROOT, "%s, commit %s, %s cores (%s); args: %s", report.machine.get("date"),
                report.machine.get("commit"), report.machine.get("cores"), report.machine.get("cpu"),
                report.machine.get("args"));
    }

    /** Bars of each series side by side; the first series in {@code color}, a second one in ClickHouse's. */
    private static CategoryPlot bars(DefaultCategoryDataset data, String label, Color color, DecimalFormat format) {
        BarRenderer r = new BarRenderer();
        r.setBarPainter(new StandardBarPainter());
        r.setShadowVisible(false);
        r.setSeriesPaint(0, color);
        r.setSeriesPaint(1, SERVER);
        r.setMaximumBarWidth(0.12);
        r.setItemMargin(0.02);
        labelled(r, format);
        return plot(data, label, r);
    }

    /** The plot's value axis made logarithmic (base 10), its bars drawn up from below the smallest value. */
    private static CategoryPlot log(CategoryPlot p) {
        LogAxis axis = new LogAxis(p.getRangeAxis().getLabel());
        axis.setBase(10);
        axis.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
        axis.setNumberFormatOverride(new DecimalFormat("#,##0.###"));
        axis.setUpperMargin(0.25);
        p.setRangeAxis(axis);
        BarRenderer r = (BarRenderer) p.getRenderer();
        double smallest = Double.MAX_VALUE;
        for (int row = 0; row < p.getDataset().getRowCount(); row++) {
            for (int col = 0; col < p.getDataset().getColumnCount(); col++) {
                Number n = p.getDataset().getValue(row, col);
                if (n != null && n.doubleValue() > 0) {
                    smallest = Math.min(smallest, n.doubleValue());
                }
            }
        }
        double floor = Math.pow(10, Math.floor(Math.log10(smallest == Double.MAX_VALUE ? 1 : smallest)));
        r.setBase(floor);
        r.setIncludeBaseInRange(true);
        return p;
    }

    private static CategoryPlot stacked(DefaultCategoryDataset data, String label) {
        StackedBarRenderer r = new StackedBarRenderer();
        r.setBarPainter(new StandardBarPainter());
        r.setShadowVisible(false);
        r.setSeriesPaint(0, CLIENT);
        r.setSeriesPaint(1, SERVER);
        r.setMaximumBarWidth(0.12);
        labelled(r, TENTHS);
        return plot(data, label, r);
    }

    private static CategoryPlot lines(DefaultCategoryDataset data, String label, DecimalFormat format) {
        LineAndShapeRenderer r = new LineAndShapeRenderer(true, true);
        r.setSeriesPaint(0, CLIENT);
        r.setSeriesPaint(1, OFFICIAL);
        for (int i = 0; i < 2; i++) {
            r.setSeriesStroke(i, new BasicStroke(2f));
        }
        labelled(r, format);
        return plot(data, label, r);
    }

    private static void labelled(CategoryItemRenderer r, DecimalFormat format) {
        r.setDefaultItemLabelGenerator(new StandardCategoryItemLabelGenerator("{2}", format));
        r.setDefaultItemLabelsVisible(true);
        r.setDefaultItemLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
    }

    private static CategoryPlot plot(DefaultCategoryDataset data, String label, CategoryItemRenderer r) {
        NumberAxis values = new NumberAxis(label);
        values.setNumberFormatOverride(WHOLE);
        values.setUpperMargin(0.15); // room for the item labels above the highest bar
        CategoryPlot p = new CategoryPlot(data, null, values, r);
        p.setBackgroundPaint(Color.WHITE);
        p.setRangeGridlinePaint(Color.LIGHT_GRAY);
        return p;
    }

    private static JFreeChart chart(String title, String subtitle, CategoryAxis axis, CategoryPlot... panels) {
        CombinedDomainCategoryPlot combined = new CombinedDomainCategoryPlot(axis);
        for (CategoryPlot p : panels) {
            combined.add(p, 1);
        }
        combined.setGap(12);
        // One legend entry per series: panels that share series (many tables: a line per sink in each) list them once.
        org.jfree.chart.LegendItemCollection legend = new org.jfree.chart.LegendItemCollection();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (CategoryPlot p : panels) {
            org.jfree.chart.LegendItemCollection items = p.getLegendItems();
            for (int i = 0; i < items.getItemCount(); i++) {
                org.jfree.chart.LegendItem item = items.get(i);
                if (seen.add(item.getLabel())) {
                    legend.add(item);
                }
            }
        }
        combined.setFixedLegendItems(legend);
        JFreeChart c = new JFreeChart(title, new Font(Font.SANS_SERIF, Font.BOLD, 15), combined, true);
        c.addSubtitle(new TextTitle(subtitle, new Font(Font.SANS_SERIF, Font.PLAIN, 10)));
        c.setBackgroundPaint(Color.WHITE);
        return c;
    }

    private static Path save(JFreeChart chart, Path file, int height) throws IOException {
        SVGGraphics2D g = new SVGGraphics2D(WIDTH, height);
        chart.draw(g, new Rectangle2D.Double(0, 0, WIDTH, height));
        SVGUtils.writeToSVG(file.toFile(), g.getSVGElement());
        return file;
    }
}
