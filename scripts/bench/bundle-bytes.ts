/**
 * A bundle's bytes, read without parsing them: a 300+ MB bundle is edited for a publish where its bytes are
 * (scripts/bench/publish.ts and scripts/bench/fleet.ts append to the first event's title).
 */

/** The first event of a bundle, found in its bytes: its id, and where its title's JSON string text begins and ends. */
export function firstEventTitle(bytes: Buffer): { id: string; start: number; end: number; title: string } {
  const events = bytes.indexOf('"events":[');
  if (events < 0) throw new Error('no "events":[ in the bundle');
  const idAt = bytes.indexOf('"id":"', events);
  const titleAt = bytes.indexOf('"title":"', events);
  const nextId = bytes.indexOf('"id":"', idAt + 6);
  if (idAt < 0 || titleAt < 0 || (nextId >= 0 && titleAt > nextId)) throw new Error('cannot find the first event\'s id and title');
  const id = bytes.toString('utf8', idAt + 6, idAt + 6 + 36);
  const start = titleAt + '"title":"'.length;
  let end = start;
  while (bytes[end] !== 0x22) end += bytes[end] === 0x5c ? 2 : 1;
  return { id, start, end, title: JSON.parse(`"${bytes.toString('utf8', start, end)}"`) as string };
}

/**
 * Where the titles of one in `every` of a bundle's single events end (the events after its series, which come first
 * and carry `"recurrence"`), in order, with how many single events there are: a publish that edits them changes those
 * events alone. The events array is found as firstEventTitle finds it; each event's title is its one `"title":"`.
 */
export function singleEventTitleEnds(bytes: Buffer, every: number): { ends: number[]; singles: number } {
  const events = bytes.indexOf('"events":[');
  const eventsEnd = bytes.indexOf('],"lists":[', events);
  if (events < 0 || eventsEnd < 0) throw new Error('no "events":[ ... ],"lists":[ in the bundle');
  // Series come first: every title after the last "recurrence" of the array is a single event's.
  const lastSeries = bytes.lastIndexOf('"recurrence":', eventsEnd);
  const ends: number[] = [];
  let singles = 0;
  for (let at = bytes.indexOf('"title":"', Math.max(events, lastSeries)); at >= 0 && at < eventsEnd; at = bytes.indexOf('"title":"', at + 9)) {
    if (singles++ % every !== 0) continue;
    let end = at + 9;
    while (bytes[end] !== 0x22) end += bytes[end] === 0x5c ? 2 : 1;
    ends.push(end);
  }
  return { ends, singles };
}
