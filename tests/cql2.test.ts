/**
 * The CQL2 text parser (src/http/cql2.ts), with cases of our own written from the standard's grammar: precedence,
 * three-valued logic, each operator, literals of every type, and errors that say where the text went wrong. Random
 * filters, written as text from a tree and judged by a plain evaluator of that tree, select exactly what the parser's
 * reading of the text selects over random features.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mulberry32 } from '../scripts/demo/ids.ts';
import { Cql2Error, matchesCql2, MAX_FILTER_LENGTH, parseCql2, type PropertyValue, type QueryableType } from '../src/http/cql2.ts';

const QUERYABLES: Record<string, QueryableType> = {
  name: 'string', category_names: 'string', website: 'string', rank: 'integer', score: 'number', free: 'boolean',
  updated_at: 'date-time', opened_on: 'date', 'name.pt': 'string',
};

type Props = Record<string, PropertyValue>;
const select = (filter: string, props: Props) => matchesCql2(parseCql2(filter, QUERYABLES), (p) => props[p]);

/** The error a filter gets: its message and position. */
function errorOf(filter: string): { message: string; position: number } {
  try {
    parseCql2(filter, QUERYABLES);
  } catch (err) {
    assert.ok(err instanceof Cql2Error, `${filter}: ${String(err)}`);
    return { message: err.message, position: err.position };
  }
  assert.fail(`${filter} parsed`);
}

const MUSEUM: Props = { name: 'Museu do Azulejo', category_names: 'Museums, Culture', website: null, rank: 3, score: 4.5, free: false,
  updated_at: Date.parse('2026-05-01T10:00:00Z'), opened_on: '1965-01-01', 'name.pt': 'Museu' };

test('comparisons of each type of queryable with a literal of its type', () => {
  assert.equal(select("name = 'Museu do Azulejo'", MUSEUM), true);
  assert.equal(select("name <> 'Museu do Azulejo'", MUSEUM), false);
  assert.equal(select("name < 'N'", MUSEUM), true, 'strings by code unit');
  assert.equal(select("name > 'm'", MUSEUM), false, 'upper case before lower case: no collation');
  assert.equal(select('rank >= 3 AND rank <= 3 AND rank > 2 AND rank < 4', MUSEUM), true);
  assert.equal(select('score = 4.5 AND score > -1 AND score < 1e1', MUSEUM), true);
  assert.equal(select('free = FALSE', MUSEUM), true);
  assert.equal(select('free = true', MUSEUM), false, 'keywords in any case');
  assert.equal(select("updated_at > TIMESTAMP('2026-05-01T09:59:59Z')", MUSEUM), true);
  assert.equal(select("updated_at = TIMESTAMP('2026-05-01T10:00:00.000Z')", MUSEUM), true);
  assert.equal(select("opened_on < DATE('1970-01-01')", MUSEUM), true);
  assert.equal(select("\"name.pt\" = 'Museu' and name.pt = 'Museu'", MUSEUM), true, 'quoted and dotted names');
});

test('AND binds tighter than OR; NOT and parentheses', () => {
  assert.equal(select('rank = 1 AND rank = 2 OR rank = 3', MUSEUM), true);
  assert.equal(select('rank = 1 AND (rank = 2 OR rank = 3)', MUSEUM), false);
  assert.equal(select('rank = 3 OR rank = 2 AND rank = 1', MUSEUM), true);
  assert.equal(select('NOT rank = 3', MUSEUM), false);
  assert.equal(select('NOT (rank = 1 OR rank = 2)', MUSEUM), true);
  assert.equal(select('not not rank = 3', MUSEUM), true);
  assert.equal(select('TRUE', MUSEUM), true);
  assert.equal(select('FALSE OR (((rank = 3)))', MUSEUM), true);
});

test('a property without a value: comparisons are unknown, NOT of unknown is unknown, IS NULL is true', () => {
  assert.equal(select("website = 'x'", MUSEUM), false);
  assert.equal(select("website <> 'x'", MUSEUM), false, 'unknown, not true');
  assert.equal(select("NOT website = 'x'", MUSEUM), false, 'NOT unknown stays unknown');
  assert.equal(select("website = 'x' OR rank = 3", MUSEUM), true, 'unknown OR true');
  assert.equal(select("website = 'x' AND rank = 3", MUSEUM), false, 'unknown AND true');
  assert.equal(select('website IS NULL', MUSEUM), true);
  assert.equal(select('website IS NOT NULL', MUSEUM), false);
  assert.equal(select('name IS NOT NULL', MUSEUM), true);
  assert.equal(select("website LIKE '%'", MUSEUM), false);
  assert.equal(select("website NOT LIKE '%'", MUSEUM), false);
  assert.equal(select('rank IN (1, 2)', { rank: undefined }), false);
  assert.equal(select('rank NOT IN (1, 2)', { rank: undefined }), false);
});

test('LIKE, BETWEEN and IN, each with NOT', () => {
  assert.equal(select("name LIKE 'Museu%'", MUSEUM), true);
  assert.equal(select("name LIKE 'museu%'", MUSEUM), false, 'case counts');
  assert.equal(select("name LIKE '%Azulej_'", MUSEUM), true);
  assert.equal(select("name LIKE 'Museu'", MUSEUM), false, 'the whole text');
  assert.equal(select("name NOT LIKE '%do%'", MUSEUM), false);
  assert.equal(select("name LIKE '100\\%'", { name: '100%' }), true, 'an escaped %');
  assert.equal(select("name LIKE '100\\%'", { name: '1000' }), false);
  assert.equal(select("name LIKE 'a\\_b'", { name: 'axb' }), false, 'an escaped _');
  assert.equal(select("name LIKE 'a.c(d)*'", { name: 'a.c(d)*' }), true, 'regular-expression characters are plain');
  assert.equal(select("name LIKE 'a.c'", { name: 'abc' }), false);
  assert.equal(select("name LIKE 'It''s%'", { name: "It's here" }), true, 'a quote in a pattern');
  assert.equal(select("name LIKE 'It\\'s%'", { name: "It's here" }), true, 'a quote written \\\' as CQL2 allows too');
  assert.equal(select("name LIKE '%Saint-Jean%'", { name: 'Rue Saint-Jean' }), true, 'a hyphen, and other punctuation, is plain');
  assert.equal(select("name LIKE '[a-z]^$|{2}/'", { name: '[a-z]^$|{2}/' }), true);
  assert.equal(select("name LIKE '__-é_'", { name: 'ab-éc' }), true, '_ is one character, an accented one too');
  assert.equal(select("name LIKE '%%a%%'", { name: 'bab' }), true, 'runs of % are one');
  assert.equal(select("name LIKE '%a%b'", { name: 'aab' }), true, 'a % goes back to try later places');
  assert.equal(select("name LIKE '%a%b'", { name: 'aaba' }), false);
  // Many % over a long text that does not match: a backtracking regular expression takes seconds to minutes here;
  // the matcher's time grows with the text times the pattern (the test's time limit would catch the other).
  const long = '0'.repeat(5_000);
  assert.equal(select(`name LIKE '${'%0'.repeat(40)}%b'`, { name: long }), false);
  assert.equal(select(`name LIKE '${'%0'.repeat(40)}%'`, { name: long }), true);
  assert.equal(select('rank BETWEEN 3 AND 5', MUSEUM), true, 'inclusive');
  assert.equal(select('rank BETWEEN 4 AND 5', MUSEUM), false);
  assert.equal(select('rank NOT BETWEEN 4 AND 5 AND free = FALSE', MUSEUM), true, 'the AND of BETWEEN is its own');
  assert.equal(select("updated_at BETWEEN TIMESTAMP('2026-01-01T00:00:00Z') AND TIMESTAMP('2026-12-31T23:59:59Z')", MUSEUM), true);
  assert.equal(select("name IN ('A', 'Museu do Azulejo')", MUSEUM), true);
  assert.equal(select("name NOT IN ('A', 'Museu do Azulejo')", MUSEUM), false);
  assert.equal(select('rank IN (3)', MUSEUM), true);
});

test('errors say what was expected where', () => {
  const cases: [string, RegExp, number][] = [
    ['', /empty filter/, 1],
    ['   ', /empty filter/, 1],
    ["nmae = 'x'", /"nmae" is not a queryable of this collection \(it has name, /, 1],
    ["name = 'x", /never closed/, 8],
    ['rank = ', /expected a value to compare "rank" with but found the end of the filter/, 8],
    ["name = 'a' AND", /expected a property name.* but found the end of the filter/, 15],
    ["name = 'a' rank = 1", /expected AND, OR or the end of the filter but found "rank"/, 12],
    ["(name = 'a'", /expected "\)" but found the end/, 12],
    ["name == 'a'", /expected a value to compare "name" with but found "="/, 7],
    ["name ~ 'a'", /unexpected character "~"/, 6],
    ['rank = \'3\'', /"rank" is a number, and is compared with a string/, 8],
    ["name = 3", /"name" is text, and is compared with a number/, 8],
    ["updated_at > DATE('2026-01-01')", /compare a date-time with a TIMESTAMP/, 14],
    ["updated_at > TIMESTAMP('2026-02-30T00:00:00Z')", /not a UTC date-time/, 24],
    ["updated_at > TIMESTAMP('2026-02-01T00:00:00+01:00')", /not a UTC date-time/, 24],
    ["opened_on = DATE('2026-13-01')", /not a date/, 18],
    ['rank LIKE 3', /LIKE compares text, and "rank" is a number/, 1],
    ['name LIKE name', /expected a string pattern/, 11],
    ['rank NOT = 3', /expected LIKE, BETWEEN or IN after NOT but found "="/, 10],
    ['rank BETWEEN 1 OR 2', /expected AND but found "OR"/, 16],
    ['rank IN (1 2)', /expected "\)" or ","/, 12],
    ['rank IS 3', /expected NULL but found "3"/, 9],
    ['AND rank = 1', /expected a property name, a parenthesis, NOT, TRUE or FALSE but found "AND"/, 1],
    ['rank = - x', /expected a number after "-"/, 10],
    ['"name = 1', /double quotes that is never closed/, 1],
  ];
  for (const [filter, message, position] of cases) {
    const error = errorOf(filter);
    assert.match(error.message, message, filter);
    assert.equal(error.position, position, `${filter}: ${error.message}`);
    assert.match(error.message, new RegExp(`\\(at character ${position}\\)$`));
  }
  assert.match(errorOf(`${'('.repeat(100)}rank = 1${')'.repeat(100)}`).message, /nested deeper than 64/);
  assert.match(errorOf(`${'NOT '.repeat(100)}rank = 1`).message, /nested deeper than 64/);
  assert.match(errorOf(`name = '${'x'.repeat(MAX_FILTER_LENGTH)}'`).message, /longer than 4096 characters/);
});

/** A random filter as a tree: its text, and its value over features as a plain evaluator sees it. */
interface Tree { text: string; value(p: Props): boolean | null }

function randomTree(random: () => number, depth: number): Tree {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
  const r = random();
  if (depth > 0 && r < 0.3) {
    const [a, b] = [randomTree(random, depth - 1), randomTree(random, depth - 1)];
    const and = random() < 0.5;
    return {
      text: `(${a.text}) ${and ? 'AND' : 'or'} (${b.text})`,
      value: (p) => {
        const [x, y] = [a.value(p), b.value(p)];
        if (and) return x === false || y === false ? false : x === null || y === null ? null : true;
        return x === true || y === true ? true : x === null || y === null ? null : false;
      },
    };
  }
  if (depth > 0 && r < 0.4) {
    const a = randomTree(random, depth - 1);
    return { text: `NOT (${a.text})`, value: (p) => { const x = a.value(p); return x === null ? null : !x; } };
  }
  const prop = pick(['rank', 'name', 'free']);
  const raw = (p: Props) => p[prop];
  if (random() < 0.15) {
    const not = random() < 0.5;
    return { text: `${prop} IS ${not ? 'NOT ' : ''}NULL`, value: (p) => (raw(p) == null) !== not };
  }
  const op = pick(['=', '<>', '<', '>', '<=', '>='] as const);
  const literal = prop === 'rank' ? Math.floor(random() * 5) : prop === 'name' ? pick(['a', 'b', 'c']) : random() < 0.5;
  const text = typeof literal === 'string' ? `'${literal}'` : String(literal).toUpperCase();
  return {
    text: `${prop} ${op} ${text}`,
    value: (p) => {
      const x = raw(p);
      if (x == null) return null;
      const [a, b] = typeof x === 'boolean' ? [Number(x), Number(literal)] : [x, literal];
      return { '=': a === b, '<>': a !== b, '<': a < b, '>': a > b, '<=': a <= b, '>=': a >= b }[op];
    },
  };
}

test('random filters select what a plain evaluation of their tree selects', () => {
  const random = mulberry32(2026);
  const features: Props[] = Array.from({ length: 60 }, () => ({
    rank: random() < 0.2 ? null : Math.floor(random() * 5),
    name: random() < 0.2 ? undefined : ['a', 'b', 'c'][Math.floor(random() * 3)],
    free: random() < 0.2 ? null : random() < 0.5,
  }));
  for (let n = 0; n < 300; n++) {
    const tree = randomTree(random, 4);
    const filter = parseCql2(tree.text, QUERYABLES);
    for (const p of features) assert.equal(matchesCql2(filter, (name) => p[name]), tree.value(p) === true, `${tree.text} over ${JSON.stringify(p)}`);
  }
});
