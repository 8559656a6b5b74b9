/** One bar: what it is, its size (any unit, compared with the others) and the figure written beside it. */
export interface Bar {
  label: string;
  value: number;
  figure: string;
}

const ROW = 28;
const LABEL = 220;
const WIDTH = 640;

/**
 * A horizontal bar chart drawn on the server as SVG: no script, no library. It is a picture of
 * the table that follows it (which carries the same figures for screen readers and copying),
 * so it is named as an image with a one-line summary.
 */
export function BarChart({ title, bars }: { title: string; bars: readonly Bar[] }) {
  const most = Math.max(1, ...bars.map((b) => b.value));
  const room = WIDTH - LABEL - 120;
  const height = Math.max(ROW, bars.length * ROW) + 8;
  return (
    <svg class="chart" viewBox={`0 0 ${WIDTH} ${height}`} width="100%" role="img" aria-label={title} dir="ltr">
      {bars.map((b, i) => {
        const y = 4 + i * ROW;
        const length = Math.max(0, Math.round((Math.max(0, b.value) / most) * room));
        return (
          <g>
            <text x={LABEL - 8} y={y + ROW / 2 + 5} text-anchor="end" class="chart-label">
              {b.label.length > 30 ? `${b.label.slice(0, 29)}…` : b.label}
            </text>
            <rect x={LABEL} y={y + 4} width={length} height={ROW - 8} class="chart-bar" />
            <text x={LABEL + length + 6} y={y + ROW / 2 + 5} class="chart-figure">
              {b.figure}
            </text>
          </g>
        );
      })}
    </svg>
  );
}
