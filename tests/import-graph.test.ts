/**
 * The import graph of src/, read from the sources (type-only imports included): no cycle anywhere, no import from a
 * layer to one above it (LAYERS), and the ground floor (src/utils) imports nothing of the service but itself, so
 * any layer may use it and it never pulls one in.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { test } from 'node:test';

const SRC = 'src';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Each source file's imports of other source files (static, dynamic and type-only; `export … from` too). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources(SRC)) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm)]
      .map((m) => normalize(join(dirname(file), m[1])))
      .filter((target) => target.endsWith('.ts') && target.startsWith(SRC));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The cycles of a graph, each as its files in order (Tarjan's strongly connected components of more than one file, or a file importing itself). */
function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    order.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!order.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, order.get(w)!));
    }
    if (low.get(v) === order.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!order.has(v)) visit(v);
  return found;
}

test('src/ has no import cycle, not even of types', () => {
  const graph = importGraph();
  assert.ok(graph.size > 50, `read the sources (${graph.size} files)`);
  assert.ok([...graph.values()].flat().length > 100, 'and their imports');
  assert.deepEqual(cycles(graph), []);
});

test('the cycle finder finds a cycle when there is one', () => {
  const graph = new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']], ['e', ['e']]]);
  assert.deepEqual(cycles(graph).sort(), [['a', 'b', 'c'], ['e']]);
});

test('the ground floor (src/utils) imports nothing of the service but itself', () => {
  const upward = [...importGraph()].filter(([file]) => file.startsWith(join(SRC, 'utils')))
    .flatMap(([file, targets]) => targets.filter((t) => !t.startsWith(join(SRC, 'utils'))).map((t) => `${relative(SRC, file)} imports ${relative(SRC, t)}`));
  assert.deepEqual(upward, []);
});

/**
 * The layers of src/, lowest first: a file may import its own layer and those below it. The ground floor; points
 * and shapes; the database; the content (bundles, the store, the model, publishing); HTTP's mechanics; the routes
 * (and the OpenAPI document made from them); the pages; the app that puts them together; the entry points.
 */
const LAYERS = ['utils', 'geo', 'db', 'content', 'http', 'routes', 'pages', 'app.ts', 'serve'];

/** The layer of a file of src/: its first directory, or its own name at the top. */
function layerOf(file: string): number {
  const rank = LAYERS.indexOf(relative(SRC, file).split('/')[0]);
  assert.ok(rank >= 0, `${file} is in no layer: add its directory to LAYERS`);
  return rank;
}

test('no file imports from a layer above its own', () => {
  const upward = [...importGraph()].flatMap(([file, targets]) => targets.filter((t) => layerOf(t) > layerOf(file))
    .map((t) => `${relative(SRC, file)} imports ${relative(SRC, t)}`));
  assert.deepEqual(upward, []);
});
