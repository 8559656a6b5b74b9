import type { Child } from 'hono/jsx';
import { Notice } from '../layout';
import { errorOf, pageStatusOf } from './answers';
import type { PageStatus } from './kit';
import type { ConsoleRequest } from './request';

/** The date `days` from today (UTC), as a date input takes it: a search form's default. */
export const dayAfter = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/** The sandbox scenario asked for in the query ('' for none): the only one the console offers is a changed price. */
export const scenarioOf = (q: Record<string, string>) => (q.scenario === 'price_changed' ? 'price_changed' : '');

/** The options 1 to `max`, `chosen` selected. */
export const CountOptions = (props: { max: number; chosen: number }) => (
  <>
    {Array.from({ length: props.max }, (_, i) => i + 1).map((n) => (
      <option value={String(n)} selected={n === props.chosen}>
        {String(n)}
      </option>
    ))}
  </>
);

/**
 * A booking search page: a GET form (a search is a link, kept and sent as one) with the sandbox
 * scenario to try at the check that follows; once the form was sent (its `sentWith` field is in
 * the query), the search, and its results or the error it met, the page answering with its status.
 */
export async function searchPage<Asked extends { scenario: string }, Found>(
  r: ConsoleRequest,
  page: {
    action: string;
    askedOf: (q: Record<string, string>) => Asked;
    sentWith: string;
    search: (asked: Asked) => Promise<{ data?: { data: Found }; error?: unknown; response: Response }>;
    fields: (asked: Asked) => Child;
    scenarioLabel: string;
    resultsTitle: string;
    results: (found: Found, asked: Asked) => Child;
  },
): Promise<{ body: Child; status: PageStatus }> {
  const { t } = r;
  const q = r.c.req.query();
  const asked = page.askedOf(q);
  const searched = q[page.sentWith] !== undefined ? await page.search(asked) : undefined;
  const found = searched?.data?.data;
  const body = (
    <>
      {searched && !found && <Notice kind="error">{errorOf(searched)}</Notice>}
      <form class="stack search-form" method="get" action={page.action}>
        {page.fields(asked)}
        <label>
          {page.scenarioLabel}
          <select name="scenario">
            <option value="">{t('hotels.scenario_none')}</option>
            <option value="price_changed" selected={asked.scenario === 'price_changed'}>
              price_changed
            </option>
          </select>
        </label>
        <button type="submit">{t('hotels.submit')}</button>
      </form>
      {found && (
        <section aria-labelledby="results-heading">
          <h2 id="results-heading">{page.resultsTitle}</h2>
          {page.results(found, asked)}
        </section>
      )}
    </>
  );
  return { body, status: searched && !found ? pageStatusOf(searched) : 200 };
}
