import { duration } from './format.js';
import { html, type Html } from './html.js';
import { toneOf } from './layout.js';
import type { UnitRow } from './read-run.js';

/** Width of the drawing in SVG units; it scales to its box. */
const WIDTH = 1000;
const LABEL = 230;
const ROW = 22;
const AXIS = 26;

/** A lane of the timeline: a stream's scope (its properties), whose units run in order. */
function laneOf(unit: UnitRow): string {
  const ids = unit.propertyIds;
  const scope = ids.length <= 3 ? ids.join(',') : `${ids.slice(0, 3).join(',')} +${ids.length - 3}`;
  return `${unit.stream} · ${scope || 'all'}`;
}

/**
 * A run's units as a Gantt chart: one row per lane (stream and properties), one bar per unit
 * from its start to its end, coloured by how it ended, its numbers in the bar's tooltip. SVG
 * drawn here (no script): its attributes are not styles, so the page's policy stays strict.
 */
export function unitTimeline(units: readonly UnitRow[], runStart: Date, runEnd: Date | null): Html {
  const started = units.filter((unit) => unit.startedAt);
  if (started.length === 0) return html`<p class="empty">No unit of this run started.</p>`;
  const from = Math.min(runStart.getTime(), ...started.map((unit) => unit.startedAt!.getTime()));
  const ends = started.map((unit) => (unit.finishedAt ?? runEnd ?? new Date()).getTime());
  const to = Math.max(from + 1, runEnd?.getTime() ?? 0, ...ends);
  const lanes = [...new Set(units.map(laneOf))];
  const height = AXIS + lanes.length * ROW + 4;
  const x = (ms: number) => LABEL + ((ms - from) / (to - from)) * (WIDTH - LABEL - 10);
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((share) => ({
    at: x(from + share * (to - from)),
    label: duration(share * (to - from)),
    anchor: share === 1 ? 'end' : share === 0 ? 'start' : 'middle',
  }));
  return html`<svg
    class="timeline"
    role="img"
    aria-label="Timeline of the run's ${units.length} units"
    viewBox="0 0 ${WIDTH} ${height}"
    width="${WIDTH}"
    height="${height}"
  >
    ${ticks.map(
      (tick) =>
        html`<line
            class="tick"
            x1="${tick.at.toFixed(1)}"
            x2="${tick.at.toFixed(1)}"
            y1="${AXIS - 6}"
            y2="${height}"
          ></line
          ><text class="axis" x="${tick.at.toFixed(1)}" y="${AXIS - 10}" text-anchor="${tick.anchor}"
            >+${tick.label}</text
          >`,
    )}
    ${lanes.map(
      (lane, index) =>
        html`<text class="lane" x="4" y="${AXIS + index * ROW + 15}"
          >${lane.length > 34 ? `${lane.slice(0, 33)}…` : lane}</text
        >`,
    )}
    ${started.map((unit) => {
      const row = lanes.indexOf(laneOf(unit));
      const start = x(unit.startedAt!.getTime());
      const end = x((unit.finishedAt ?? runEnd ?? new Date()).getTime());
      const tip = [
        `unit #${unit.workUnitId} ${unit.kind} ${unit.window ?? ''}`.trim(),
        `${unit.status} after ${duration((unit.finishedAt ?? new Date()).getTime() - unit.startedAt!.getTime())}`,
        `${unit.pages} pages, ${unit.calls} calls, ${unit.records} records, ${unit.rows} rows`,
        unit.error ? `error: ${unit.error.split('\n')[0]}` : '',
      ]
        .filter(Boolean)
        .join('\n');
      return html`<rect
        class="unit ${toneOf(unit.status)}"
        data-unit="${unit.workUnitId}"
        data-status="${unit.status}"
        x="${start.toFixed(1)}"
        y="${AXIS + row * ROW + 3}"
        width="${Math.max(2, end - start).toFixed(1)}"
        height="${ROW - 6}"
        rx="2"
        ><title>${tip}</title></rect
      >`;
    })}
  </svg>`;
}
