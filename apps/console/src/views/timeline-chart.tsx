import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Schemas } from '../api/client';
import { humanize } from '../presentation/format';

type Timeline = Schemas['ConversationStats']['timeline'];
const SERIES = [
  ['completed', '#1a7f37'],
  ['failed', '#b3261e'],
  ['abandoned', '#6e7781'],
  ['in_progress', '#8a5300'],
] as const;

/** Calls per bucket by status; the same figures are in the table under it for screen readers and keyboard users. */
export function TimelineChart({ timeline }: { timeline: Timeline }) {
  const holder = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = holder.current;
    if (!element) return;
    const xs = timeline.points.map((p) => Date.parse(p.start) / 1000);
    // Stacked bars: each status is drawn as the running total up to it, tallest first, so every status shows;
    // the legend and cursor still report each status's own count.
    const raw = SERIES.map(([status]) => timeline.points.map((p) => p[status]));
    const stacked = raw.map((_, k) => timeline.points.map((_p, i) => raw.slice(0, k + 1).reduce((sum, r) => sum + r[i], 0)));
    const order = SERIES.map((_, k) => k).reverse();
    const data: uPlot.AlignedData = [xs, ...order.map((k) => stacked[k])];
    const bars = uPlot.paths.bars?.({ size: [0.7, 40] });
    const chart = new uPlot(
      {
        width: Math.max(element.clientWidth, 280),
        height: 260,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        // Bars start at zero: a y-axis starting at the smallest count would cut every bar short.
        scales: { y: { range: (_u, _min, max) => [0, Math.max(1, Math.ceil(max * 1.1))] } },
        series: [
          {
            // Without the pointer over a bar, the legend gives the whole range's totals (not "--").
            label: timeline.bucket === 'hour' ? 'Hour (UTC)' : 'Day (UTC)',
            value: (_u: uPlot, v: number | null) => (v === null || v === undefined ? 'whole range' : new Date(v * 1000).toISOString().slice(0, timeline.bucket === 'hour' ? 16 : 10).replace('T', ' ')),
          },
          ...order.map((k) => ({
            label: humanize(SERIES[k][0]),
            stroke: SERIES[k][1],
            fill: SERIES[k][1],
            width: 0,
            paths: bars,
            points: { show: false },
            value: (_u: uPlot, _v: number | null, _s: number, index: number | null) => String(index === null ? raw[k].reduce((a, b) => a + b, 0) : raw[k][index]),
          })),
        ],
        axes: [{}, { label: 'Calls' }],
        legend: { show: true },
        // The y scale's lowest value, on the element, where a test (or a curious reader) can check it.
        hooks: { setScale: [(u, key) => void (key === 'y' && (element.dataset.yMin = String(u.scales.y.min)))] },
      },
      data,
      element,
    );
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(element.clientWidth, 280), height: 260 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [timeline]);
  return <div ref={holder} className="chart" role="img" aria-label={`Calls per ${timeline.bucket} by status; the table below has the figures`} />;
}
