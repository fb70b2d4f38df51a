// The trend chart of a flag, drawn with uPlot (vendor/uplot, a global
// script), in two panels that share their days and cursor:
//
// - votes: the red and the green running totals of each daily snapshot, on
//   one axis titled as such;
// - net (red − green) in a panel of its own below, with its zero line, so it
//   never crosses the red and green lines on a scale of theirs.
//
// The caption above says which day the legends show: the last snapshot at
// rest (the live count is in the page's header, labelled live), the day
// under the cursor while pointing.
import { t, lang, num, compact, day } from './i18n.js';
import { h } from './dom.js';

const css = (name, fallback) => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
const DAY = 86400;
const VOTES_HEIGHT = 260;
const NET_HEIGHT = 150;

// drawTrend draws trend.snapshots into el (replacing what was there) and
// returns {resize(width), destroy()}; el.dataset.points is the number of
// days drawn.
export function drawTrend(el, trend) {
  el.replaceChildren();
  const snaps = trend.snapshots || [];
  el.dataset.points = String(snaps.length);
  const xs = snaps.map((s) => Date.parse(s.at) / 1000);
  const last = snaps.length - 1;
  const red = css('--red', '#e5484d');
  const green = css('--green', '#30a46c');
  const net = css('--net', '#6e56cf');
  const ink = css('--muted', '#667085');
  const grid = css('--grid', '#eaecf0');
  const font = `12px ${css('--font', 'sans-serif')}`;
  const titleFont = `600 12px ${css('--font', 'sans-serif')}`;
  const tick = new Intl.DateTimeFormat(lang(), { month: 'short', day: 'numeric', timeZone: 'UTC' });
  const value = (u, v) => (v == null ? '–' : num(v));
  const few = snaps.length <= 31;
  const width = Math.max(280, el.clientWidth);

  const caption = h('p', { class: 'chart-caption', id: 'chart-caption', 'aria-live': 'off' });
  const votesEl = h('div', { class: 'chart-panel', id: 'chart-votes' });
  const netEl = h('div', { class: 'chart-panel net', id: 'chart-net' });
  el.append(caption, votesEl, h('p', { class: 'chart-subtitle' }, t('chart.netTitle')), netEl);

  const line = (label, stroke, extra) => ({
    label, stroke, width: 2, value,
    points: { show: few, size: 5, fill: stroke, stroke },
    ...extra,
  });
  const yAxis = (label) => ({
    label, labelFont: titleFont, labelSize: 20, font, stroke: ink, size: 56, gap: 6,
    grid: { show: true, stroke: grid, width: 1 },
    ticks: { show: false },
    // Compact labels (2.1K) unless rounding would make two of them equal.
    values: (u, vals) => {
      const short = vals.map((v) => compact(v));
      return new Set(short).size === short.length ? short : vals.map((v) => num(v));
    },
  });
  const xAxis = (label) => ({
    label, labelFont: titleFont, labelSize: label ? 20 : 0, font,
    stroke: ink, grid: { show: false }, ticks: { show: false }, space: 56,
    incrs: [DAY, 2 * DAY, 3 * DAY, 7 * DAY, 14 * DAY, 28 * DAY],
    values: (u, splits) => splits.map((ts) => tick.format(ts * 1e3)),
  });
  const daySeries = { label: t('chart.day'), value: (u, v) => (v == null ? '–' : day(v * 1e3)) };

  // At rest the legends show the last snapshot, and the caption says so.
  const atRest = (u) => {
    const idx = u.cursor.idx;
    if (idx == null && last >= 0) {
      u.setLegend({ idx: last });
      caption.textContent = t('chart.snapshot', { day: day(xs[last] * 1e3) });
      caption.dataset.state = 'rest';
    } else if (idx != null) {
      caption.textContent = day(xs[idx] * 1e3);
      caption.dataset.state = 'hover';
    }
  };
  const common = {
    width,
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1e3), 'Etc/UTC'),
    cursor: { drag: { x: false, y: false }, points: { size: 8 }, sync: { key: 'flagpole-trend' } },
    legend: { live: true },
    hooks: { ready: [atRest], setCursor: [atRest] },
  };

  const votes = new uPlot({
    ...common,
    height: VOTES_HEIGHT,
    scales: { x: { time: true } },
    series: [daySeries, line(t('chart.red'), red), line(t('chart.green'), green)],
    axes: [xAxis(''), yAxis(t('chart.axisVotes'))],
  }, [xs, snaps.map((s) => s.red), snaps.map((s) => s.green)], votesEl);

  const zeroLine = (u) => {
    const [min, max] = [u.scales.y.min, u.scales.y.max];
    if (!(min < 0 && max > 0)) return;
    const y = Math.round(u.valToPos(0, 'y', true));
    const { ctx, bbox } = u;
    ctx.save();
    ctx.strokeStyle = ink;
    ctx.lineWidth = 1;
    ctx.setLineDash([4, 4]);
    ctx.beginPath();
    ctx.moveTo(bbox.left, y);
    ctx.lineTo(bbox.left + bbox.width, y);
    ctx.stroke();
    ctx.restore();
  };
  const netChart = new uPlot({
    ...common,
    height: NET_HEIGHT,
    hooks: { ...common.hooks, draw: [zeroLine] },
    scales: { x: { time: true } },
    series: [daySeries, line(t('chart.net'), net)],
    axes: [xAxis(t('chart.axisDay')), yAxis(t('chart.net'))],
  }, [xs, snaps.map((s) => s.net)], netEl);

  // The canvases are pictures: name them with their axes, for people who
  // cannot see them (the legends below them are text).
  const name = (u, what) => {
    const c = u.root.querySelector('canvas');
    c.setAttribute('role', 'img');
    c.setAttribute('aria-label', what);
  };
  name(votes, `${t('chart.axisVotes')}, ${t('chart.red')} / ${t('chart.green')} · ${t('chart.axisDay')}`);
  name(netChart, `${t('chart.net')} · ${t('chart.axisDay')}`);

  return {
    resize(w) {
      const cw = Math.max(280, w);
      votes.setSize({ width: cw, height: VOTES_HEIGHT });
      netChart.setSize({ width: cw, height: NET_HEIGHT });
    },
    destroy() { votes.destroy(); netChart.destroy(); },
  };
}
