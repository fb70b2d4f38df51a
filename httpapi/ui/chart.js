// The trend chart: red and green (left axis) and net (right axis) of a flag
// at each UTC day, drawn with uPlot (vendor/uplot, a global script).
import { t, lang, num, compact, day } from './i18n.js';

const css = (name, fallback) => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
const DAY = 86400;

// drawTrend draws trend.snapshots into el (replacing what was there) and
// returns the uPlot instance; el.dataset.points is the number of days drawn.
export function drawTrend(el, trend) {
  el.replaceChildren();
  const snaps = trend.snapshots || [];
  el.dataset.points = String(snaps.length);
  const data = [
    snaps.map((s) => Date.parse(s.at) / 1000),
    snaps.map((s) => s.red),
    snaps.map((s) => s.green),
    snaps.map((s) => s.net),
  ];
  const last = snaps.length - 1;
  const red = css('--red', '#e5484d');
  const green = css('--green', '#30a46c');
  const net = css('--net', '#6e56cf');
  const ink = css('--muted', '#667085');
  const grid = css('--grid', '#eaecf0');
  const tick = new Intl.DateTimeFormat(lang(), { month: 'short', day: 'numeric', timeZone: 'UTC' });
  const value = (u, v) => (v == null ? '–' : num(v));
  const few = snaps.length <= 31;
  const line = (label, scale, stroke, extra) => ({
    label, scale, stroke, width: 2, value,
    points: { show: few, size: 5, fill: stroke, stroke },
    ...extra,
  });
  const yAxis = (scale, side) => ({
    scale, side, stroke: ink, size: 60, gap: 6,
    grid: { show: side === 3, stroke: grid, width: 1 },
    ticks: { show: false },
    // Compact labels (2.1K) unless rounding would make two of them equal.
    values: (u, vals) => {
      const short = vals.map((v) => compact(v));
      return new Set(short).size === short.length ? short : vals.map((v) => num(v));
    },
  });
  // Out of the chart, the legend shows the last day rather than dashes.
  const legendAtLast = (u) => {
    if (u.cursor.idx == null && last >= 0) u.setLegend({ idx: last });
  };
  const opts = {
    width: Math.max(280, el.clientWidth),
    height: 300,
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1e3), 'Etc/UTC'),
    cursor: { drag: { x: false, y: false }, points: { size: 8 } },
    legend: { live: true },
    scales: { x: { time: true }, votes: { auto: true }, net: { auto: true } },
    series: [
      { label: t('chart.day'), value: (u, v) => (v == null ? '–' : day(v * 1e3)) },
      line(t('chart.red'), 'votes', red),
      line(t('chart.green'), 'votes', green),
      line(t('chart.net'), 'net', net, { dash: [6, 4] }),
    ],
    axes: [
      {
        stroke: ink, grid: { show: false }, ticks: { show: false }, space: 56,
        incrs: [DAY, 2 * DAY, 3 * DAY, 7 * DAY, 14 * DAY, 28 * DAY],
        values: (u, splits) => splits.map((ts) => tick.format(ts * 1e3)),
      },
      yAxis('votes', 3),
      yAxis('net', 1),
    ],
    hooks: { ready: [legendAtLast], setCursor: [legendAtLast] },
  };
  return new uPlot(opts, data, el);
}
