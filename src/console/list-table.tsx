import type { Child } from 'hono/jsx';

/**
 * A list as a table: a heading per column and a row per item (scrolled sideways on a narrow
 * screen), or, when there is none, the line that says so.
 */
export const ListTable = (props: { headings: string[]; none: string; rows: Child[] }) =>
  props.rows.length === 0 ? (
    <p>{props.none}</p>
  ) : (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            {props.headings.map((h) => (
              <th scope="col">{h}</th>
            ))}
          </tr>
        </thead>
        <tbody>{props.rows}</tbody>
      </table>
    </div>
  );
