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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Draws the pending-count curve (cost of schedule + cancel against the number of pending tasks, log x axis, one line
 * per implementation) into a PNG with plain Java 2D, headless, so the picture is reproducible from the harness alone.
 */
final class Chart {

    private static final int WIDTH = 900;
    private static final int HEIGHT = 540;
    private static final int LEFT = 90;
    private static final int RIGHT = 200;
    private static final int TOP = 76;
    private static final int BOTTOM = 70;

    private static final Color[] COLORS = {
        new Color(0xd62728), new Color(0x1f77b4), new Color(0x2ca02c), new Color(0xff7f0e), new Color(0x9467bd),
        new Color(0x8c564b),
    };

    private Chart() {
    }

    /**
     * Writes the chart.
     *
     * @param file   the PNG to write (its directory is created)
     * @param title  the line above the plot
     * @param subtitle  one or two lines under the title, separated by a newline
     * @param lines  per label (in legend order), the points {pending count, ns per operation}
     */
    static void write(Path file, String title, String subtitle, Map<String, List<double[]>> lines) throws IOException {
        System.setProperty("java.awt.headless", "true");
        double minX = Double.MAX_VALUE;
        double maxX = 0;
        double maxY = 0;
        for (List<double[]> points : lines.values()) {
            for (double[] p : points) {
                minX = Math.min(minX, p[0]);
                maxX = Math.max(maxX, p[0]);
                maxY = Math.max(maxY, p[1]);
            }
        }
        if (maxX == 0) {
            throw new IllegalArgumentException("no points to draw");
        }
        double logMin = Math.floor(Math.log10(minX));
        double logMax = Math.ceil(Math.log10(maxX));
        if (logMax == logMin) {
            logMax++;
        }
        double yTop = niceCeiling(maxY * 1.08);

        BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, WIDTH, HEIGHT);

        int plotW = WIDTH - LEFT - RIGHT;
        int plotH = HEIGHT - TOP - BOTTOM;
        Font font = new Font(Font.SANS_SERIF, Font.PLAIN, 13);
        g.setFont(font);
        FontMetrics fm = g.getFontMetrics();

        // grid and axes
        g.setStroke(new BasicStroke(1f));
        for (int i = 0; i <= 5; i++) {
            double y = yTop * i / 5;
            int py = TOP + plotH - (int) Math.round(plotH * y / yTop);
            g.setColor(new Color(0xe6e6e6));
            g.drawLine(LEFT, py, LEFT + plotW, py);
            g.setColor(Color.DARK_GRAY);
            String label = format(y);
            g.drawString(label, LEFT - 8 - fm.stringWidth(label), py + fm.getAscent() / 2 - 1);
        }
        for (double e = logMin; e <= logMax; e++) {
            int px = LEFT + (int) Math.round(plotW * (e - logMin) / (logMax - logMin));
            g.setColor(new Color(0xe6e6e6));
            g.drawLine(px, TOP, px, TOP + plotH);
            g.setColor(Color.DARK_GRAY);
            String label = String.format(Locale.ROOT, "%,d", (long) Math.pow(10, e));
            g.drawString(label, px - fm.stringWidth(label) / 2, TOP + plotH + fm.getAscent() + 6);
        }
        g.setColor(Color.BLACK);
        g.drawRect(LEFT, TOP, plotW, plotH);
        String xLabel = "pending tasks (log scale)";
        g.drawString(xLabel, LEFT + (plotW - fm.stringWidth(xLabel)) / 2, HEIGHT - 22);
        Graphics2D rotated = (Graphics2D) g.create();
        rotated.rotate(-Math.PI / 2);
        String yLabel = "CPU ns per schedule + cancel (lower is better)";
        rotated.drawString(yLabel, -(TOP + (plotH + fm.stringWidth(yLabel)) / 2), 24);
        rotated.dispose();

        g.setFont(font.deriveFont(Font.BOLD, 16f));
        g.drawString(title, LEFT, 28);
        g.setFont(font.deriveFont(12f));
        g.setColor(Color.DARK_GRAY);
        int subtitleY = 46;
        for (String line : subtitle.split("\n")) {
            g.drawString(line, LEFT, subtitleY);
            subtitleY += 16;
        }
        g.setFont(font);

        // lines and legend
        int c = 0;
        int legendY = TOP + 10;
        for (Map.Entry<String, List<double[]>> line : lines.entrySet()) {
            Color color = COLORS[c++ % COLORS.length];
            g.setColor(color);
            g.setStroke(new BasicStroke(2.5f));
            int prevX = -1;
            int prevY = -1;
            for (double[] p : line.getValue()) {
                int px = LEFT + (int) Math.round(plotW * (Math.log10(p[0]) - logMin) / (logMax - logMin));
                int py = TOP + plotH - (int) Math.round(plotH * p[1] / yTop);
                if (prevX >= 0) {
                    g.drawLine(prevX, prevY, px, py);
                }
                g.fillOval(px - 4, py - 4, 8, 8);
                prevX = px;
                prevY = py;
            }
            g.fillRect(LEFT + plotW + 16, legendY - 6, 22, 4);
            g.setColor(Color.BLACK);
            g.drawString(line.getKey(), LEFT + plotW + 44, legendY);
            legendY += 22;
        }
        g.dispose();

        Path dir = file.toAbsolutePath().getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        ImageIO.write(image, "png", file.toFile());
    }

    /** The smallest of 1, 2, 5 times a power of ten that is at least {@code value}. */
    private static double niceCeiling(double value) {
        double magnitude = Math.pow(10, Math.floor(Math.log10(value)));
        for (double step : new double[] {1, 2, 2.5, 5, 10}) {
            if (step * magnitude >= value) {
                return step * magnitude;
            }
        }
        return 10 * magnitude;
    }

    private static String format(double value) {
        return value == Math.rint(value) ? String.format(Locale.ROOT, "%d", (long) value)
                : String.format(Locale.ROOT, "%.1f", value);
    }
}
