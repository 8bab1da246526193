/**
 * CQL2 text filters (OGC 21-065, the `cql2-text` encoding) for OGC API – Features Part 3: the Basic CQL2 class
 * (comparisons of a property with a literal, `AND`, `OR`, `NOT`, `IS [NOT] NULL`, boolean literals, parentheses)
 * and the Advanced Comparison Operators class (`LIKE`, `BETWEEN`, `IN`, each with `NOT`). No CQL2 parser is
 * published on npm, so this one is the service's own, written from the standard's grammar.
 *
 * A filter is parsed against a collection's queryables (a name and a type each): a property that is not one, or a
 * literal of another type than the property it is compared with, is refused with the place in the text where it
 * was found, as is anything that does not parse. Keywords are case-insensitive; a property name is an identifier
 * or a double-quoted one. Literals: strings in single quotes (`''` or `\'` is a quote), numbers, `TRUE`/`FALSE`,
 * `DATE('2026-05-01')` and `TIMESTAMP('2026-05-01T10:00:00Z')`.
 *
 * Evaluation follows SQL's three-valued logic, as CQL2 does: a comparison with a property that has no value is
 * unknown, `NOT` of unknown is unknown, and a feature is selected only when its filter is true. Strings compare by
 * their code units, case and accents included; `LIKE` patterns take `%` (any run of characters) and `_` (one),
 * and `\` before either makes it literal.
 */

/** The type of a queryable, as its JSON Schema states it. */
export type QueryableType = 'string' | 'number' | 'integer' | 'boolean' | 'date-time' | 'date';

/** A value a feature's property has: strings, numbers, booleans, a date-time as epoch ms, or none. */
export type PropertyValue = string | number | boolean | null | undefined;

/** A literal of a filter, already of its property's type (date-times as epoch ms, dates as `YYYY-MM-DD`). */
type Literal = string | number | boolean;

/** A parsed filter. */
export type Cql2Filter =
  | { op: 'and' | 'or'; args: Cql2Filter[] }
  | { op: 'not'; arg: Cql2Filter }
  | { op: 'const'; value: boolean }
  | { op: '=' | '<>' | '<' | '>' | '<=' | '>='; property: string; value: Literal }
  | { op: 'like'; not: boolean; property: string; pattern: LikePart[] }
  | { op: 'between'; not: boolean; property: string; low: Literal; high: Literal }
  | { op: 'in'; not: boolean; property: string; values: Literal[] }
  | { op: 'isNull'; not: boolean; property: string };

/** A filter that could not be read: what went wrong and at which character (1-based) of the text. */
export class Cql2Error extends Error {
  readonly position: number;
  constructor(message: string, position: number) {
    super(`${message} (at character ${position})`);
    this.position = position;
  }
}

/** The longest filter text read. */
export const MAX_FILTER_LENGTH = 4096;
/** The deepest nesting of parentheses and NOTs read. */
const MAX_DEPTH = 64;

type TokenKind = 'string' | 'number' | 'word' | 'quoted' | 'symbol' | 'end';
interface Token { kind: TokenKind; text: string; at: number }

const KEYWORDS = new Set(['AND', 'OR', 'NOT', 'IS', 'NULL', 'LIKE', 'BETWEEN', 'IN', 'TRUE', 'FALSE', 'DATE', 'TIMESTAMP']);
const COMPARISONS = new Set(['=', '<>', '<', '>', '<=', '>=']);

/** The text as tokens; throws a Cql2Error at the first character that begins none. */
function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const at = i + 1;
    if (c === "'") {
      let value = '';
      i++;
      for (;;) {
        if (i >= text.length) throw new Cql2Error('a string that is never closed (strings are in single quotes; write \'\' for a quote inside one)', at);
        // A quote inside is written '' or \' (CQL2's escapeQuote).
        if (text[i] === '\\' && text[i + 1] === "'") {
          value += "'";
          i += 2;
          continue;
        }
        if (text[i] === "'") {
          if (text[i + 1] === "'") {
            value += "'";
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += text[i++];
      }
      tokens.push({ kind: 'string', text: value, at });
    } else if (c === '"') {
      const end = text.indexOf('"', i + 1);
      if (end < 0) throw new Cql2Error('a property name in double quotes that is never closed', at);
      tokens.push({ kind: 'quoted', text: text.slice(i + 1, end), at });
      i = end + 1;
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(text[i + 1] ?? ''))) {
      const m = /^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?/.exec(text.slice(i))!;
      tokens.push({ kind: 'number', text: m[0], at });
      i += m[0].length;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_.:]*/.exec(text.slice(i))!;
      tokens.push({ kind: 'word', text: m[0], at });
      i += m[0].length;
    } else {
      const two = text.slice(i, i + 2);
      const symbol = two === '<>' || two === '<=' || two === '>=' ? two : '=<>(),+-'.includes(c) ? c : null;
      if (!symbol) throw new Cql2Error(`an unexpected character ${JSON.stringify(c)}`, at);
      tokens.push({ kind: 'symbol', text: symbol, at });
      i += symbol.length;
    }
  }
  tokens.push({ kind: 'end', text: '', at: text.length + 1 });
  return tokens;
}

/** How a token reads in an error message. */
function shown(t: Token): string {
  if (t.kind === 'end') return 'the end of the filter';
  if (t.kind === 'string') return `the string '${t.text}'`;
  if (t.kind === 'quoted') return `"${t.text}"`;
  return `"${t.text}"`;
}

/**
 * Parses a cql2-text filter against the queryables (name → type); throws a Cql2Error saying what was expected where,
 * or which property or literal does not fit.
 */
export function parseCql2(text: string, queryables: Readonly<Record<string, QueryableType>>): Cql2Filter {
  if (text.length > MAX_FILTER_LENGTH) throw new Cql2Error(`a filter longer than ${MAX_FILTER_LENGTH} characters`, MAX_FILTER_LENGTH + 1);
  const tokens = tokenize(text);
  let k = 0;
  let depth = 0;
  const peek = () => tokens[k];
  const isWord = (t: Token, word: string) => t.kind === 'word' && t.text.toUpperCase() === word;
  const accept = (word: string) => {
    if (isWord(peek(), word)) {
      k++;
      return true;
    }
    return false;
  };
  const expect = (what: string, ok: (t: Token) => boolean): Token => {
    const t = peek();
    if (!ok(t)) throw new Cql2Error(`expected ${what} but found ${shown(t)}`, t.at);
    k++;
    return t;
  };
  const symbol = (s: string) => (t: Token) => t.kind === 'symbol' && t.text === s;

  function orExpression(): Cql2Filter {
    const args = [andExpression()];
    while (accept('OR')) args.push(andExpression());
    return args.length === 1 ? args[0] : { op: 'or', args };
  }
  function andExpression(): Cql2Filter {
    const args = [factor()];
    while (accept('AND')) args.push(factor());
    return args.length === 1 ? args[0] : { op: 'and', args };
  }
  function nested<T>(read: () => T): T {
    if (++depth > MAX_DEPTH) throw new Cql2Error(`parentheses and NOTs nested deeper than ${MAX_DEPTH}`, peek().at);
    const out = read();
    depth--;
    return out;
  }
  function factor(): Cql2Filter {
    if (accept('NOT')) return nested(() => ({ op: 'not' as const, arg: factor() }));
    return primary();
  }
  function primary(): Cql2Filter {
    const t = peek();
    if (t.kind === 'symbol' && t.text === '(') {
      k++;
      const inner = nested(orExpression);
      expect('")"', symbol(')'));
      return inner;
    }
    if (accept('TRUE')) return { op: 'const', value: true };
    if (accept('FALSE')) return { op: 'const', value: false };
    return predicate();
  }
  /** A property name, checked to be a queryable. */
  function property(): { name: string; type: QueryableType; at: number } {
    const t = peek();
    if (t.kind === 'quoted' || (t.kind === 'word' && !KEYWORDS.has(t.text.toUpperCase()))) {
      k++;
      if (!Object.hasOwn(queryables, t.text)) {
        throw new Cql2Error(`"${t.text}" is not a queryable of this collection (it has ${Object.keys(queryables).join(', ')})`, t.at);
      }
      return { name: t.text, type: queryables[t.text], at: t.at };
    }
    throw new Cql2Error(`expected a property name, a parenthesis, NOT, TRUE or FALSE but found ${shown(t)}`, t.at);
  }
  function predicate(): Cql2Filter {
    const prop = property();
    if (accept('IS')) {
      const not = accept('NOT');
      expect('NULL', (t) => isWord(t, 'NULL'));
      return { op: 'isNull', not, property: prop.name };
    }
    const not = accept('NOT');
    if (accept('LIKE')) {
      if (prop.type !== 'string') throw new Cql2Error(`LIKE compares text, and "${prop.name}" is ${typeName(prop.type)}`, prop.at);
      const t = expect('a string pattern in single quotes', (x) => x.kind === 'string');
      return { op: 'like', not, property: prop.name, pattern: likePattern(t.text) };
    }
    if (accept('BETWEEN')) {
      const low = literal(prop);
      expect('AND', (t) => isWord(t, 'AND'));
      return { op: 'between', not, property: prop.name, low, high: literal(prop) };
    }
    if (accept('IN')) {
      expect('"("', symbol('('));
      const values = [literal(prop)];
      while (peek().kind === 'symbol' && peek().text === ',') {
        k++;
        values.push(literal(prop));
      }
      expect('")" or ","', symbol(')'));
      return { op: 'in', not, property: prop.name, values };
    }
    if (not) throw new Cql2Error(`expected LIKE, BETWEEN or IN after NOT but found ${shown(peek())}`, peek().at);
    const t = peek();
    if (t.kind !== 'symbol' || !COMPARISONS.has(t.text)) {
      throw new Cql2Error(`expected a comparison (=, <>, <, >, <=, >=), LIKE, BETWEEN, IN or IS after "${prop.name}" but found ${shown(t)}`, t.at);
    }
    k++;
    return { op: t.text as '=', property: prop.name, value: literal(prop) };
  }
  /** A literal of the property's type. */
  function literal(prop: { name: string; type: QueryableType }): Literal {
    const t = peek();
    const mismatch = (what: string) => new Cql2Error(`"${prop.name}" is ${typeName(prop.type)}, and is compared with ${what}`, t.at);
    if (t.kind === 'string') {
      k++;
      if (prop.type !== 'string') throw mismatch('a string');
      return t.text;
    }
    if (t.kind === 'number' || (t.kind === 'symbol' && (t.text === '-' || t.text === '+'))) {
      let sign = 1;
      if (t.kind === 'symbol') {
        k++;
        sign = t.text === '-' ? -1 : 1;
        if (peek().kind !== 'number') throw new Cql2Error(`expected a number after "${t.text}" but found ${shown(peek())}`, peek().at);
      }
      const n = sign * Number(tokens[k++].text);
      if (prop.type !== 'number' && prop.type !== 'integer') throw mismatch('a number');
      return n;
    }
    if (isWord(t, 'TRUE') || isWord(t, 'FALSE')) {
      k++;
      if (prop.type !== 'boolean') throw mismatch('a boolean');
      return isWord(t, 'TRUE');
    }
    if (isWord(t, 'TIMESTAMP') || isWord(t, 'DATE')) {
      k++;
      const timestamp = isWord(t, 'TIMESTAMP');
      expect('"("', symbol('('));
      const s = expect(timestamp ? "a date-time in single quotes, such as '2026-05-01T10:00:00Z'" : "a date in single quotes, such as '2026-05-01'",
        (x) => x.kind === 'string');
      expect('")"', symbol(')'));
      if (timestamp) {
        const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(s.text) ? parseUtc(s.text) : null;
        if (ms === null) throw new Cql2Error(`'${s.text}' is not a UTC date-time such as '2026-05-01T10:00:00Z'`, s.at);
        if (prop.type !== 'date-time') throw mismatch('a TIMESTAMP');
        return ms;
      }
      if (!/^\d{4}-\d{2}-\d{2}$/.test(s.text) || parseUtc(`${s.text}T00:00:00Z`) === null) throw new Cql2Error(`'${s.text}' is not a date such as '2026-05-01'`, s.at);
      if (prop.type !== 'date') throw mismatch(prop.type === 'date-time' ? 'a DATE (compare a date-time with a TIMESTAMP)' : 'a DATE');
      return s.text;
    }
    throw new Cql2Error(`expected a value to compare "${prop.name}" with but found ${shown(t)}`, t.at);
  }

  if (peek().kind === 'end') throw new Cql2Error('an empty filter', 1);
  const filter = orExpression();
  if (peek().kind !== 'end') throw new Cql2Error(`expected AND, OR or the end of the filter but found ${shown(peek())}`, peek().at);
  return filter;
}

/** A strictly valid UTC date-time (no 30 February) as epoch ms, or null. */
function parseUtc(s: string): number | null {
  const ms = Date.parse(s);
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 19) !== s.slice(0, 19) ? null : ms;
}

function typeName(type: QueryableType): string {
  return { string: 'text', number: 'a number', integer: 'a number', boolean: 'a boolean', 'date-time': 'a date-time', date: 'a date' }[type];
}

/** What a LIKE pattern is made of: characters (code points) to match as they are, `%` (any run) and `_` (one). */
const ANY_RUN = Symbol('%');
const ONE_CHARACTER = Symbol('_');
type LikePart = string | typeof ANY_RUN | typeof ONE_CHARACTER;

/** A LIKE pattern's parts: `%` any run, `_` one character, `\` makes the next one literal; runs of `%` are one. */
function likePattern(pattern: string): LikePart[] {
  const parts: LikePart[] = [];
  const chars = Array.from(pattern);
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (c === '\\' && i + 1 < chars.length) parts.push(chars[++i]);
    else if (c === '%') {
      if (parts.at(-1) !== ANY_RUN) parts.push(ANY_RUN);
    } else parts.push(c === '_' ? ONE_CHARACTER : c);
  }
  return parts;
}

/**
 * Whether `text` matches a LIKE pattern, whole. Not a regular expression: a pattern of many `%` would make one
 * backtrack over every way of splitting the text (seconds for a short value). This walks the text once, going back
 * only to the last `%` met, so it takes at most the text's length times the pattern's.
 */
function likeMatches(parts: readonly LikePart[], text: string): boolean {
  const chars = Array.from(text);
  let p = 0;
  let i = 0;
  let star = -1; // the part after the last `%` met, and where the text stood then
  let mark = 0;
  while (i < chars.length) {
    if (p < parts.length && (parts[p] === ONE_CHARACTER || parts[p] === chars[i])) {
      p++;
      i++;
    } else if (p < parts.length && parts[p] === ANY_RUN) {
      star = ++p;
      mark = i;
    } else if (star >= 0) {
      p = star;
      i = ++mark;
    } else return false;
  }
  while (p < parts.length && parts[p] === ANY_RUN) p++;
  return p === parts.length;
}

/** Whether a feature with these properties is selected: true only when the filter is true (not false, not unknown). */
export function matchesCql2(filter: Cql2Filter, get: (property: string) => PropertyValue): boolean {
  return evaluate(filter, get) === true;
}

/** The filter's value: true, false, or null for unknown. */
function evaluate(f: Cql2Filter, get: (property: string) => PropertyValue): boolean | null {
  switch (f.op) {
    case 'const':
      return f.value;
    case 'and':
    case 'or': {
      // One false decides AND, one true decides OR; otherwise an unknown leaves it unknown.
      const decisive = f.op === 'or';
      let unknown = false;
      for (const arg of f.args) {
        const v = evaluate(arg, get);
        if (v === decisive) return decisive;
        if (v === null) unknown = true;
      }
      return unknown ? null : !decisive;
    }
    case 'not': {
      const v = evaluate(f.arg, get);
      return v === null ? null : !v;
    }
    case 'isNull': {
      const value = get(f.property);
      return (value === null || value === undefined) !== f.not;
    }
  }
  const value = get(f.property);
  if (value === null || value === undefined) return null;
  switch (f.op) {
    case 'like':
      return likeMatches(f.pattern, String(value)) !== f.not;
    case 'between':
      return (compare(value, f.low) >= 0 && compare(value, f.high) <= 0) !== f.not;
    case 'in':
      return f.values.some((v) => compare(value, v) === 0) !== f.not;
    default: {
      const c = compare(value, f.value);
      switch (f.op) {
        case '=': return c === 0;
        case '<>': return c !== 0;
        case '<': return c < 0;
        case '>': return c > 0;
        case '<=': return c <= 0;
        default: return c >= 0;
      }
    }
  }
}

/** Orders two values of one type (the parser saw to that): numbers, strings by code unit, false before true. */
function compare(a: string | number | boolean, b: string | number | boolean): number {
  if (typeof a === 'boolean') return Number(a) - Number(b as boolean);
  if (typeof a === 'number') return a - (b as number);
  return a < (b as string) ? -1 : a > (b as string) ? 1 : 0;
}
