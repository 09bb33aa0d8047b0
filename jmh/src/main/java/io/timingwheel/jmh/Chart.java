package io.timingwheel.jmh;

import javax.imageio.ImageIO;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * Draws line charts into a PNG with plain Java 2D, headless, so that a picture is reproducible from the harness alone
 * and needs no plotting library: one or more plots in a grid (each with its own axes, one line per implementation),
 * one title block above them and one legend beside them. The pending-count curve is one plot with a log-10 x axis;
 * the scaling chart is a grid of plots with the producer count on a log-2 x axis.
 *
 * <p>The y axis always starts at zero, so that the height of a line compares with the others honestly.
 */
final class Chart {

    /** How the x axis places values: logarithmic in both cases, the ticks differ. */
    static final class XAxis {
        final String label;
        /** true: log 10 with a tick per decade (1 000, 10 000, ...); false: log 2 with a tick at every x value. */
        final boolean decades;

        private XAxis(String label, boolean decades) {
            this.label = label;
            this.decades = decades;
        }

        static XAxis decades(String label) {
            return new XAxis(label, true);
        }

        static XAxis powersOfTwo(String label) {
            return new XAxis(label, false);
        }

        double position(double x) {
            return decades ? Math.log10(x) : Math.log(x) / Math.log(2);
        }
    }

    /** One plot: a small title, its axes, and its lines. */
    static final class Plot {
        final String title;
        final XAxis xAxis;
        final String yLabel;
        /** Per label (in legend order), the points {x, y}; a NaN y (a failed measurement) breaks the line. */
        final Map<String, List<double[]>> lines;
        /** The top of the y axis, or 0 to fit the plot's own points (plots that should be compared share one). */
        double yTop;

        Plot(String title, XAxis xAxis, String yLabel, Map<String, List<double[]>> lines) {
            this.title = title;
            this.xAxis = xAxis;
            this.yLabel = yLabel;
            this.lines = lines;
        }

        double maxY() {
            double max = 0;
            for (List<double[]> points : lines.values()) {
                for (double[] p : points) {
                    if (!Double.isNaN(p[1])) {
                        max = Math.max(max, p[1]);
                    }
                }
            }
            return max;
        }
    }

    // Layout, in pixels. A cell holds one plot and its axis labels; the legend is one column right of the grid.
    private static final int MARGIN = 20;
    private static final int TITLE_Y = 28;
    private static final int SUBTITLE_LINE = 16;
    private static final int LEGEND_WIDTH = 190;
    private static final int PLOT_LEFT = 80;     // room for the y tick labels and the rotated y label
    private static final int PLOT_RIGHT = 20;
    private static final int PLOT_TOP = 30;      // room for the plot's own title
    private static final int PLOT_BOTTOM = 56;   // room for the x tick labels and the x label
    private static final int SINGLE_WIDTH = 700; // one plot alone: the size of the original curve chart
    private static final int SINGLE_HEIGHT = 470;
    private static final int CELL_WIDTH = 470;   // a plot in a grid
    private static final int CELL_HEIGHT = 330;

    private static final Color GRID = new Color(0xe6e6e6);

    /**
     * One colour per implementation, by its place in {@link Subject#ALL}, so that an implementation keeps its colour
     * across charts (TW blue, STPE(1) red, Netty 1 ms green, as the first charts had them).
     */
    private static final Color[] COLORS = {
        new Color(0xd62728), new Color(0x8c564b), new Color(0x9467bd), new Color(0x1f77b4), new Color(0x17becf),
        new Color(0x2ca02c), new Color(0xff7f0e),
    };

    private Chart() {
    }

    /**
     * Writes the chart.
     *
     * @param file     the PNG to write (its directory is created)
     * @param title    the line above the plots
     * @param subtitle one or more lines under the title, separated by newlines
     * @param plots    the plots, row by row
     * @param columns  plots per row
     */
    static void write(Path file, String title, String subtitle, List<Plot> plots, int columns) throws IOException {
        System.setProperty("java.awt.headless", "true");
        if (plots.stream().allMatch(plot -> plot.maxY() == 0)) {
            throw new IllegalArgumentException("no points to draw");
        }
        String[] subtitleLines = subtitle.split("\n");
        int header = TITLE_Y + SUBTITLE_LINE * subtitleLines.length + 12;
        boolean single = plots.size() == 1;
        int cellWidth = single ? SINGLE_WIDTH : CELL_WIDTH;
        int cellHeight = single ? SINGLE_HEIGHT : CELL_HEIGHT;
        int rows = (plots.size() + columns - 1) / columns;
        int width = MARGIN + columns * cellWidth + LEGEND_WIDTH;
        int height = header + rows * cellHeight + MARGIN;

        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, width, height);
            Font font = new Font(Font.SANS_SERIF, Font.PLAIN, 13);
            drawHeader(g, font, title, subtitleLines);
            for (int i = 0; i < plots.size(); i++) {
                int x = MARGIN + (i % columns) * cellWidth;
                int y = header + (i / columns) * cellHeight;
                drawPlot(g, font, plots.get(i), x + PLOT_LEFT, y + PLOT_TOP,
                        cellWidth - PLOT_LEFT - PLOT_RIGHT, cellHeight - PLOT_TOP - PLOT_BOTTOM);
            }
            drawLegend(g, font, legendLabels(plots), MARGIN + columns * cellWidth + 10, header + PLOT_TOP + 10);
        } finally {
            g.dispose();
        }
        save(image, file);
    }

    private static void drawHeader(Graphics2D g, Font font, String title, String[] subtitleLines) {
        g.setColor(Color.BLACK);
        g.setFont(font.deriveFont(Font.BOLD, 16f));
        g.drawString(title, MARGIN + PLOT_LEFT, TITLE_Y);
        g.setFont(font.deriveFont(12f));
        g.setColor(Color.DARK_GRAY);
        int y = TITLE_Y + 18;
        for (String line : subtitleLines) {
            g.drawString(line, MARGIN + PLOT_LEFT, y);
            y += SUBTITLE_LINE;
        }
    }

    /** Draws one plot with its top left corner of the plot area at (left, top). */
    private static void drawPlot(Graphics2D g, Font font, Plot plot, int left, int top, int plotWidth,
                                 int plotHeight) {
        g.setFont(font);
        FontMetrics fm = g.getFontMetrics();
        double yTop = plot.yTop > 0 ? plot.yTop : niceCeiling(Math.max(plot.maxY(), 1e-9) * 1.08);
        double[] xRange = xRange(plot);
        Frame frame = new Frame(left, top, plotWidth, plotHeight, plot.xAxis, xRange[0], xRange[1], yTop);

        drawYGrid(g, fm, frame);
        drawXGrid(g, fm, frame, xTicks(plot, xRange));
        g.setColor(Color.BLACK);
        g.setStroke(new BasicStroke(1f));
        g.drawRect(left, top, plotWidth, plotHeight);
        g.drawString(plot.xAxis.label, left + (plotWidth - fm.stringWidth(plot.xAxis.label)) / 2,
                top + plotHeight + 2 * fm.getHeight() + 6);
        Graphics2D rotated = (Graphics2D) g.create();
        rotated.rotate(-Math.PI / 2);
        rotated.drawString(plot.yLabel, -(top + (plotHeight + fm.stringWidth(plot.yLabel)) / 2),
                left - PLOT_LEFT + 16);
        rotated.dispose();
        if (!plot.title.isEmpty()) {
            g.setFont(font.deriveFont(Font.BOLD, 13f));
            g.drawString(plot.title, left, top - 10);
            g.setFont(font);
        }
        for (Map.Entry<String, List<double[]>> line : plot.lines.entrySet()) {
            drawLine(g, frame, colorOf(line.getKey()), line.getValue());
        }
    }

    /** The plot area and the mapping from values to pixels. */
    private static final class Frame {
        final int left;
        final int top;
        final int width;
        final int height;
        final XAxis xAxis;
        final double xMin;
        final double xMax;
        final double yTop;

        Frame(int left, int top, int width, int height, XAxis xAxis, double xMin, double xMax, double yTop) {
            this.left = left;
            this.top = top;
            this.width = width;
            this.height = height;
            this.xAxis = xAxis;
            this.xMin = xMin;
            this.xMax = xMax;
            this.yTop = yTop;
        }

        int px(double x) {
            return left + (int) Math.round(width * (xAxis.position(x) - xMin) / (xMax - xMin));
        }

        int py(double y) {
            return top + height - (int) Math.round(height * y / yTop);
        }
    }

    private static void drawYGrid(Graphics2D g, FontMetrics fm, Frame frame) {
        g.setStroke(new BasicStroke(1f));
        for (int i = 0; i <= 5; i++) {
            double y = frame.yTop * i / 5;
            int py = frame.py(y);
            g.setColor(GRID);
            g.drawLine(frame.left, py, frame.left + frame.width, py);
            g.setColor(Color.DARK_GRAY);
            String label = format(y);
            g.drawString(label, frame.left - 8 - fm.stringWidth(label), py + fm.getAscent() / 2 - 1);
        }
    }

    private static void drawXGrid(Graphics2D g, FontMetrics fm, Frame frame, List<Double> ticks) {
        for (double x : ticks) {
            int px = frame.px(x);
            g.setColor(GRID);
            g.drawLine(px, frame.top, px, frame.top + frame.height);
            g.setColor(Color.DARK_GRAY);
            String label = String.format(Locale.ROOT, "%,d", Math.round(x));
            g.drawString(label, px - fm.stringWidth(label) / 2, frame.top + frame.height + fm.getAscent() + 6);
        }
    }

    /** The x axis's ends, as positions: whole decades around the points, or the points' own range with a margin. */
    private static double[] xRange(Plot plot) {
        double min = Double.MAX_VALUE;
        double max = -Double.MAX_VALUE;
        for (List<double[]> points : plot.lines.values()) {
            for (double[] p : points) {
                min = Math.min(min, plot.xAxis.position(p[0]));
                max = Math.max(max, plot.xAxis.position(p[0]));
            }
        }
        if (min > max) { // no points at all: an empty frame
            return new double[] {0, 1};
        }
        if (plot.xAxis.decades) {
            double low = Math.floor(min);
            double high = Math.ceil(max);
            return new double[] {low, high == low ? low + 1 : high};
        }
        double pad = Math.max(0.25, (max - min) * 0.05); // keeps the end points off the frame
        return new double[] {min - pad, max + pad};
    }

    /** The labelled x values: every decade in the range, or every x value of the points. */
    private static List<Double> xTicks(Plot plot, double[] range) {
        List<Double> ticks = new ArrayList<>();
        if (plot.xAxis.decades) {
            for (double e = range[0]; e <= range[1]; e++) {
                ticks.add(Math.pow(10, e));
            }
            return ticks;
        }
        TreeSet<Double> values = new TreeSet<>();
        for (List<double[]> points : plot.lines.values()) {
            for (double[] p : points) {
                values.add(p[0]);
            }
        }
        ticks.addAll(values);
        return ticks;
    }

    /** A line through the points, with a dot at each; a NaN breaks it. */
    private static void drawLine(Graphics2D g, Frame frame, Color color, List<double[]> points) {
        g.setColor(color);
        g.setStroke(new BasicStroke(2.5f));
        int prevX = -1;
        int prevY = -1;
        for (double[] p : points) {
            if (Double.isNaN(p[1])) {
                prevX = -1;
                continue;
            }
            int px = frame.px(p[0]);
            int py = frame.py(p[1]);
            if (prevX >= 0) {
                g.drawLine(prevX, prevY, px, py);
            }
            g.fillOval(px - 4, py - 4, 8, 8);
            prevX = px;
            prevY = py;
        }
    }

    /** Every label of every plot, once, in the order of first appearance. */
    private static List<String> legendLabels(List<Plot> plots) {
        List<String> labels = new ArrayList<>();
        for (Plot plot : plots) {
            for (String label : plot.lines.keySet()) {
                if (!labels.contains(label)) {
                    labels.add(label);
                }
            }
        }
        return labels;
    }

    private static void drawLegend(Graphics2D g, Font font, List<String> labels, int x, int y) {
        g.setFont(font);
        for (String label : labels) {
            g.setColor(colorOf(label));
            g.fillRect(x, y - 6, 22, 4);
            g.setColor(Color.BLACK);
            g.drawString(label, x + 28, y);
            y += 22;
        }
    }

    /** The colour of an implementation's title (see {@link #COLORS}); grey for anything else. */
    private static Color colorOf(String label) {
        int index = new ArrayList<>(Subject.TITLES.values()).indexOf(label);
        return index >= 0 ? COLORS[index % COLORS.length] : Color.GRAY;
    }

    private static void save(BufferedImage image, Path file) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        ImageIO.write(image, "png", file.toFile());
    }

    /**
     * The smallest of 1, 2, 2.5, 3, 4, 5, 6, 8 times a power of ten that is at least {@code value}: a top of the y axis
     * whose fifths (the grid lines) are round numbers.
     */
    static double niceCeiling(double value) {
        double magnitude = Math.pow(10, Math.floor(Math.log10(value)));
        for (double step : new double[] {1, 2, 2.5, 3, 4, 5, 6, 8, 10}) {
            if (step * magnitude >= value) {
                return step * magnitude;
            }
        }
        return 10 * magnitude;
    }

    /** A tick label: at most three significant digits, no trailing zeros (0.05, 2.5, 40, 1200). */
    private static String format(double value) {
        return new BigDecimal(value).round(new MathContext(3)).stripTrailingZeros().toPlainString();
    }
}
