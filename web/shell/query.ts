// query.ts reads the page's query parameters that change how it plays,
// and says what is wrong with any it cannot honour: a page that
// silently ignored ?transport=websocket, or joined as a player on
// ?spectate=abc and pushed a bot out of its seat, misled the person
// who wrote the address. docs/playing.md lists the accepted values.

// maxNameBytes is the longest name the server takes (wire.MaxNameLen).
export const maxNameBytes = 32;

// Query is what the parameters ask for; errors says what is wrong, one
// sentence a parameter, and is empty when the page may start.
export interface Query {
  name: string;
  spectate: boolean;
  transport: 'ws' | 'wt' | null;
  interpMs: number;
  worker: boolean;
  errors: string[];
}

const yes = ['1', 'true', 'yes', 'on'];
const no = ['0', 'false', 'no', 'off'];

// flag reads a yes/no parameter: absent is dflt.
function flag(p: URLSearchParams, key: string, dflt: boolean, errors: string[]): boolean {
  const v = p.get(key);
  if (v === null) return dflt;
  const l = v.toLowerCase();
  if (yes.includes(l)) return true;
  if (no.includes(l)) return false;
  errors.push(`?${key}=${show(v)}: want 1 or 0 (true/false, yes/no, on/off)`);
  return dflt;
}

// show quotes a value for an error, its control characters escaped.
function show(v: string): string {
  return JSON.stringify(v);
}

// readQuery checks p.
export function readQuery(p: URLSearchParams): Query {
  const errors: string[] = [];
  let name = 'browser';
  const n = p.get('name');
  if (n !== null) {
    const bytes = new TextEncoder().encode(n).length;
    if (bytes === 0) errors.push('?name= is empty: want a name of 1 to 32 bytes, or no name parameter');
    else if (bytes > maxNameBytes) errors.push(`?name=${show(n)} has ${bytes} bytes: want at most ${maxNameBytes}`);
    else if (/[\u0000-\u001f\u007f-\u009f]/.test(n)) errors.push(`?name=${show(n)} has a control character: want letters, digits, spaces and punctuation`);
    else name = n;
  }
  const spectate = flag(p, 'spectate', false, errors);
  let transport: Query['transport'] = null;
  const t = p.get('transport');
  if (t !== null && t !== '') {
    const l = t.toLowerCase();
    if (l === 'ws' || l === 'websocket') transport = 'ws';
    else if (l === 'wt' || l === 'webtransport') transport = 'wt';
    else errors.push(`?transport=${show(t)}: want ws (websocket) or wt (webtransport), or none to try WebTransport first`);
  }
  let interpMs = 0;
  const i = p.get('interp');
  if (i !== null) {
    const v = Number(i);
    if (i.trim() === '' || !Number.isFinite(v) || v < 0 || v > 1000) errors.push(`?interp=${show(i)}: want an interpolation delay in ms from 0 to 1000 (0: the client's default)`);
    else interpMs = v;
  }
  const worker = flag(p, 'worker', true, errors);
  return { name, spectate, transport, interpMs, worker, errors };
}

// showFatal puts errors where they cannot be missed: over everything,
// the menu's "Click to play" hidden (it would do nothing).
export function showFatal(title: string, errors: string[]): void {
  document.getElementById('menu')?.setAttribute('hidden', '');
  const el = document.getElementById('fatal');
  if (!el) return;
  el.replaceChildren();
  const h = document.createElement('h2');
  h.textContent = title;
  el.append(h);
  for (const e of errors) {
    const d = document.createElement('div');
    d.textContent = e;
    el.append(d);
  }
  el.hidden = false;
}
