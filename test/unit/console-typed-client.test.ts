import fs from 'node:fs';
import path from 'node:path';

/**
 * The consoles are clients of the APIs through the generated typed client (docs/decisions/consoles.md):
 * no page builds a request by hand, and each console's API is the client src/client makes from
 * the API's OpenAPI document (Interface A's for the agencies', the admin API's for the operators').
 */
const ROOT = path.resolve(__dirname, '../..');
const CONSOLE = path.join(ROOT, 'src/console');

const sources = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'assets' ? [] : sources(full);
    return /\.tsx?$/.test(e.name) ? [full] : [];
  });

describe('the consoles call the APIs through the typed client', () => {
  it('build no request by hand', () => {
    const handMade = sources(CONSOLE).filter((f) => /new Request\(|\.request\(/.test(fs.readFileSync(f, 'utf8')));
    expect(handMade.map((f) => path.relative(ROOT, f))).toEqual([]);
  });

  it.each([
    ['agency', 'partnerSessionClient'],
    ['operator', 'adminSessionClient'],
  ])('the %s console reaches its API through %s', (area, client) => {
    const users = sources(path.join(CONSOLE, area)).filter((f) => new RegExp(`\\b${client}\\(`).test(fs.readFileSync(f, 'utf8')));
    expect(users.length).toBeGreaterThan(0);
  });
});
