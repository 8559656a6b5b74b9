import { openDatabase, type Database } from '../../src/db/client';
import { operatorActions } from '../../src/db/schema';
import { listAudit } from '../../src/domain/audit';

/**
 * `admin audit --target PREFIX` matches the start of the target, taken literally
 * (docs/operations.md, "Close the month"): a markup rule set is recorded as `markups`, a removal
 * as `markups/<id>`, and `--target markups` lists both.
 */
describe('the audit narrowed by target', () => {
  let database: Database;
  beforeAll(async () => {
    database = await openDatabase({});
    await database.db
      .insert(operatorActions)
      .values(
        ['markups', 'markups/4', 'markups/12', 'partners/7/topup', 'partners/70/topup', 'fx'].map((target) => ({ operator: 'omid', action: target, target })),
      );
  });
  afterAll(() => database.close());

  const targets = async (targetPrefix: string) => (await listAudit(database.db, { targetPrefix }, { page: 1, pageSize: 100 })).rows.map((r) => r.target).sort();

  it('lists the rules set and removed under markups, only removals under markups/, one removal under markups/4', async () => {
    expect(await targets('markups')).toEqual(['markups', 'markups/12', 'markups/4']);
    expect(await targets('markups/')).toEqual(['markups/12', 'markups/4']);
    expect(await targets('markups/4')).toEqual(['markups/4']);
  });

  it('takes the prefix literally: partners/7/ is partner 7 alone, and % or _ match only themselves', async () => {
    expect(await targets('partners/7/')).toEqual(['partners/7/topup']);
    expect(await targets('%')).toEqual([]);
    expect(await targets('f_')).toEqual([]);
  });
});
