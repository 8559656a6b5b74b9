/** One bar: what it is, its size (any unit, compared with the others) and the figure written beside it. */
export interface Bar {
  label: string;
  /** Written after the label and never cut, as a partner's number that tells two of a name apart. */
  tag?: string;
  value: number;
  figure: string;
}

/** Each bar's row: its name and figure on one line, the bar under them. */
const ROW = 44;
const TEXT = 16;
const BAR = 14;
/** Names (with their tags) are cut to this many characters, so that a name and its figure share a phone's line. */
const NAME = 24;

function nameOf({ label, tag }: Bar): string {
  const room = NAME - (tag ? tag.length + 1 : 0);
  const cut = label.length > room ? `${label.slice(0, room - 1)}…` : label;
  return tag ? `${cut} ${tag}` : cut;
}

/**
 * A horizontal bar chart drawn on the server as SVG: no script, no library. It is a picture of
 * the table that follows it (which carries the same figures for screen readers and copying),
 * so it is named as an image with a one-line summary.
 *
 * It is not scaled to fit: its text keeps its size at any width, and its bars are drawn as
 * shares of the width there is, so it reads the same on a phone and on a desk.
 */
export function BarChart({ title, bars }: { title: string; bars: readonly Bar[] }) {
  const most = Math.max(1, ...bars.map((b) => b.value));
  const height = Math.max(1, bars.length) * ROW;
  return (
    <svg class="chart" width="100%" height={height} role="img" aria-label={title} dir="ltr">
      {bars.map((b, i) => {
        const y = i * ROW;
        const share = Math.round((Math.max(0, b.value) / most) * 1000) / 10;
        return (
          <g>
            <text x="0" y={y + TEXT} class="chart-label">
              {nameOf(b)}
            </text>
            <text x="100%" y={y + TEXT} text-anchor="end" class="chart-figure">
              {b.figure}
            </text>
            <rect x="0" y={y + TEXT + 6} width="100%" height={BAR} class="chart-track" />
            <rect x="0" y={y + TEXT + 6} width={`${share}%`} height={BAR} class="chart-bar" />
          </g>
        );
      })}
    </svg>
  );
}
