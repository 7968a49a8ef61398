// core.ts runs the client core (WebAssembly) and its link to the server:
// in a Web Worker (WorkerCore, the page's default), where ticks and
// datagrams keep their pace however long the page takes to draw, and
// input and state cross by postMessage; or on the page's own thread
// (LocalCore, ?worker=0).
//
// What the page draws crosses from the core in two parts: every frame,
// the packed frame (players, hitboxes, projectiles as float32s, see
// packed.ts), copied into one buffer the page keeps; and the info
// (events, the net graph, the scoreboard, settings) as JSON, only when
// events wait, the phase changed, or infoEveryMs passed.
import { open as openHost, type Link } from './net';
import { checkPackVersion, packedLength } from './packed';
import type { Input, Session } from './types';

// infoEveryMs is how often the info is read when no event waits: the net
// graph and the scoreboard are refreshed ten times a second.
const infoEveryMs = 100;

// Pulled is one frame's hand-over: the packed frame, and the info texts
// (JSON of bridge.State without players) read since the last pull,
// oldest first, each to be handled once.
export interface Pulled { f: Float32Array; infos: string[] }

declare const Go: any;

// maxCatchUp bounds the missed ticks one pump issues: 125 ms at 64 Hz.
const maxCatchUp = 8;

// runGapMs is the most one gap in a thread's running counts towards the
// link's silence. A thread the machine starves (a loaded CPU, a long
// frame, a tab in the background) hears nothing while it does not run,
// however well the server sends: the datagrams wait in the browser until
// it runs again. Silence is therefore measured only across the time the
// thread ran: a gap between two of its turns longer than this counts as
// this much. Two seconds of silence then take two seconds on a thread
// that runs, and longer on one that runs seldom, never a single stall.
export const runGapMs = 100;

// Silence measures how long a thread heard nothing, counting only the
// time it ran (runGapMs).
export class Silence {
  private ms = 0;
  private at = -1;
  // ran notes that the thread runs at now.
  ran(now: number): void {
    if (this.at >= 0 && now > this.at) this.ms += Math.min(now - this.at, runGapMs);
    if (now > this.at) this.at = now;
  }
  // heard notes that something came at now.
  heard(now: number): void {
    this.ran(now);
    this.ms = 0;
  }
  // silentMs returns the silence at now.
  silentMs(now: number): number {
    this.ran(now);
    return this.ms;
  }
  // counted returns the silence as of the last ran or heard.
  counted(): number { return this.ms; }
}

// CoreOptions are what a core needs to start.
export interface CoreOptions {
  mapText: string; token: string; name: string; display: string; interpDelayMs: number;
  transport: string | null; // 'ws' or 'wt' forces one
  // rejoinSeat and rejoinTeam ask for the seat and team of the session
  // on a server the page lost (-1: none).
  rejoinSeat: number; rejoinTeam: number;
}

// Core is what the page asks of a running client core.
export interface Core {
  start(o: CoreOptions): Promise<void>;
  // pump issues the commands due with the held input.
  pump(input: Input): void;
  // pull returns what to draw at now, or null when nothing is known yet.
  // The packed frame it returns is valid until the next pull.
  pull(now: number): Pulled | null;
  // reportSBC sends the "shot behind cover" report: '' or why not, as
  // the core answered.
  reportSBC(): Promise<string>;
  linkKind(): string;
  close(reason: string): void;
  // stop ends the core for good: its link, and its worker.
  stop(reason: string): void;
  // stepMs returns the time spent in the core's step and ticks since the
  // last call.
  stepMs(): number;
  // silentMs is how long the core's thread has run without a datagram
  // from the server (Silence), as the core last knew it; quietMs how
  // long the page has drawn without an answer from the core's thread
  // (0 for a core on the page's thread).
  silentMs(): number;
  quietMs(): number;
  // onClosed is called with the reason when the link closes.
  onClosed: (reason: string) => void;
}

// loadCore loads the client core; wasm_exec.js must have defined Go.
export async function loadCore(): Promise<void> {
  const go = new Go();
  const res = await fetch('/lagkit/client.wasm');
  if (!res.ok) throw new Error(`client core: HTTP ${res.status}: ${await res.text()}`);
  const { instance } = await WebAssembly.instantiate(await res.arrayBuffer(), go.importObject);
  go.run(instance); // returns when the core exits, which it never does
  for (let i = 0; i < 100 && !(globalThis as any).lagkitCore; i++) await new Promise((r) => setTimeout(r, 10));
  if (!(globalThis as any).lagkitCore) throw new Error('client core did not start');
}

// Receive takes a datagram and the instant it arrived (performance.now()
// on the page's clock).
type Receive = (b: Uint8Array, at: number) => void;

// Opener opens a link: want 'ws' or 'wt' forces one, null tries
// WebTransport, then WebSocket.
export type Opener = (want: string | null, onData: Receive) => Promise<Link>;

// openLink tries WebTransport, then WebSocket; want 'ws' or 'wt' forces
// one. Each datagram is stamped when its handler runs, on the calling
// thread.
export const openLink: Opener = (want, onData) => openDirect(want, (b) => onData(b, performance.now()));

// openDirect opens the link to the page's own server (net.ts's open).
function openDirect(want: string | null, onData: (b: Uint8Array) => void): Promise<Link> {
  return openHost(location.host, want, onData);
}

// Messages between a page and its link worker (workerLink).
type ToLink =
  | { t: 'open'; want: string | null }
  | { t: 'send'; b: Uint8Array }
  | { t: 'close'; reason: string };
type FromLink =
  | { t: 'opened'; kind?: Link['kind']; error?: string }
  | { t: 'data'; b: Uint8Array; at: number }
  | { t: 'closed'; reason: string };

// workerLink returns an Opener whose links live in a Web Worker of their
// own, started from the page's own script (scriptURL, where runWorker
// answers): the worker reads each datagram as it comes, stamps its
// arrival, and sends each datagram the page hands it at once. A core on
// the page's thread (?worker=0) uses it because that thread is not free
// when datagrams come: in each frame the browser's commit can hold it
// for most of the frame (headless Chromium's software compositing reads
// the WebGL canvas back synchronously: GLES2::ReadPixels under Commit
// took 1.4 s of 2 s traced). Datagrams read there waited for the
// frame's end and were stamped then, so the round trip the core
// measured (its step's time less the command's) and the hold it
// declared with its acknowledgement both grew by the wait: 82 to 86 ms
// on loopback against 6 ms with the core in its worker, and the
// server's estimate 92 to 95 ms against 8 to 9
// (TestRoundTripWithoutWorkerInBrowser). Stamped on arrival, the wait
// is the client's hold (wire.Commands.AckDelay), which both ends take
// off the round trip, as they do for a worker's ticks.
export function workerLink(scriptURL: string): Opener {
  return (want, onData) => new Promise<Link>((resolve, reject) => {
    const w = new Worker(scriptURL, { type: 'module' });
    let closedWith: (reason: string) => void = () => {};
    const closed = new Promise<string>((r) => { closedWith = r; });
    // The worker's clock starts at its own origin: its stamps are
    // moved to the page's (both origins are on the same monotonic clock).
    const shift = performance.timeOrigin;
    let last = -Infinity;
    let open = false;
    w.onmessage = (e: MessageEvent<FromLink>) => {
      const m = e.data;
      switch (m.t) {
        case 'opened':
          if (m.error || !m.kind) {
            w.terminate();
            reject(new Error(m.error ?? 'link worker: no link'));
            return;
          }
          open = true;
          resolve({
            kind: m.kind,
            send: (b) => { if (open) w.postMessage({ t: 'send', b } as ToLink, [b.buffer]); },
            close: (reason) => {
              if (!open) return;
              open = false;
              w.postMessage({ t: 'close', reason } as ToLink);
              // The close goes out before the worker ends.
              setTimeout(() => w.terminate(), 200);
            },
            closed,
          });
          break;
        case 'data': {
          // Never later than now, never before the previous datagram:
          // the core's time runs forwards.
          const at = Math.max(last, Math.min(m.at - shift, performance.now()));
          last = at;
          onData(m.b, at);
          break;
        }
        case 'closed':
          open = false;
          closedWith(m.reason);
          setTimeout(() => w.terminate(), 200);
          break;
      }
    };
    w.onerror = (e) => {
      w.terminate();
      reject(new Error(`link worker: ${e.message}`));
      closedWith(`link worker failed: ${e.message}`);
    };
    w.postMessage({ t: 'open', want } as ToLink);
  });
}

// runLink is a link worker's side of workerLink, once the page asked it
// to open: it opens the link and relays datagrams both ways.
function runLink(first: ToLink): void {
  const post = (m: FromLink, transfer: Transferable[] = []) => (self as any).postMessage(m, transfer);
  let link: Link | null = null;
  self.onmessage = (e: MessageEvent<ToLink>) => {
    const m = e.data;
    if (m.t === 'send') link?.send(m.b);
    if (m.t === 'close') link?.close(m.reason);
  };
  if (first.t !== 'open') return;
  openDirect(first.want, (b) => {
    const at = performance.timeOrigin + performance.now();
    // A datagram that shares its buffer is copied; one that owns it is
    // handed over.
    const own = b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? b : b.slice();
    post({ t: 'data', b: own, at }, [own.buffer]);
  }).then((l) => {
    link = l;
    l.closed.then((reason) => post({ t: 'closed', reason }));
    post({ t: 'opened', kind: l.kind });
  }, (err) => post({ t: 'opened', error: (err as Error).message }));
}

// buttons packs the input's buttons as the core reads them: fire 1, alt
// 2, jump 4, crouch 8, reload 16, sprint 32 (web/wasm).
function buttons(i: Input): number {
  return (i.fire ? 1 : 0) | (i.alt ? 2 : 0) | (i.jump ? 4 : 0) | (i.crouch ? 8 : 0) | (i.reload ? 16 : 0) | (i.sprint ? 32 : 0);
}

// sameInput is whether a and b are the same input.
function sameInput(a: Input, b: Input): boolean {
  return a.forward === b.forward && a.side === b.side && a.up === b.up && a.yaw === b.yaw && a.pitch === b.pitch &&
    buttons(a) === buttons(b) && a.weapon === b.weapon && a.placed === b.placed;
}

// LocalCore runs the core on the calling thread; its link is opened by
// open (openLink: on the calling thread too).
export class LocalCore implements Core {
  session!: Session;
  link!: Link;
  constructor(private open: Opener = openLink) {}
  onClosed: (reason: string) => void = () => {};
  private nextTick = 0;
  private step = 0;
  private buf: Uint8Array | null = null;
  private f32 = new Float32Array(0);
  private lastInfo = -Infinity;
  private lastPhase = -1;
  private pulled: Pulled = { f: this.f32, infos: [] };
  private silence = new Silence();
  // held is the input of the last pump, repeated while start waits.
  private held: Input = {
    forward: 0, side: 0, up: 0, yaw: 0, pitch: 0,
    fire: false, alt: false, jump: false, crouch: false, reload: false, sprint: false, weapon: 0, placed: 0,
  };

  async start(o: CoreOptions): Promise<void> {
    checkPackVersion((globalThis as any).lagkitCore.packVersion);
    const s = (globalThis as any).lagkitCore.create({
      map: o.mapText, token: o.token, name: o.name, display: o.display, interpDelayMs: o.interpDelayMs,
      rejoinSeat: o.rejoinSeat, rejoinTeam: o.rejoinTeam,
    });
    if (s.error) throw new Error(s.error);
    this.session = s as Session;
    this.link = this.watch(await this.open(o.transport, (b, at) => this.receive(b, at)));
    this.session.connect(performance.now());
    this.flush();
    this.silence.heard(performance.now());
    if (this.link.kind !== 'webtransport' || o.transport === 'wt') return;
    // A WebTransport session that the server takes but no match answers
    // on within three seconds is dropped for WebSocket.
    const t0 = performance.now();
    while (performance.now() - t0 < 3000 && this.phase() === 'connecting') {
      await new Promise((r) => setTimeout(r, 50));
      this.pump(this.held); // the core repeats its Connect from its ticks
    }
    if (this.phase() === 'connecting') {
      this.link.close('no answer');
      console.info('lagkit: no answer over WebTransport; using WebSocket');
      this.link = this.watch(await this.open('ws', (b, at) => this.receive(b, at)));
    }
    // The link's silence counts from when it is settled.
    this.silence.heard(performance.now());
  }

  // watch reports why link closed, unless another link replaced it.
  private watch(link: Link): Link {
    link.closed.then((reason) => { if (this.link === link) this.onClosed(reason); });
    return link;
  }

  // pack packs the frame at now into the kept buffer; false when it
  // could not.
  private pack(now: number): boolean {
    if (!this.buf) {
      this.buf = new Uint8Array(this.session.packSize());
      this.f32 = new Float32Array(this.buf.buffer);
    }
    return this.session.pack(now, this.buf) > 0;
  }

  private phase(): string {
    return this.pack(performance.now()) ? ['idle', 'connecting', 'connected', 'closed'][this.f32[4]] : 'idle';
  }

  // receive steps the core with datagram b, which arrived at at.
  receive(b: Uint8Array, at: number): void {
    if (!this.session) return;
    const t0 = performance.now();
    this.silence.heard(t0);
    const err = this.session.step(at, b);
    if (err) console.debug(`lagkit: ${err}`);
    this.step += performance.now() - t0;
    // The ticks due go out once the datagrams that came meanwhile are
    // read (a message posted now runs after those already queued),
    // acknowledging the newest: a thread held up by a frame's commit
    // reads several at once, and would otherwise wait for its next
    // timer or frame to send. A packet sent between two of them, not
    // acknowledging the later one, tells the server that it had not
    // arrived, which bounds the hold the next packet may declare
    // (server.rttSample): the round trip the server measures would grow
    // by that wait.
    if (!this.pumpSoon) {
      this.pumpSoon = true;
      this.soon.port2.postMessage(null);
    }
  }

  private pumpSoon = false;
  private soon = (() => {
    const ch = new MessageChannel();
    ch.port1.onmessage = () => {
      this.pumpSoon = false;
      this.pump(this.held);
    };
    return ch;
  })();

  private flush(): void {
    if (!this.link) return;
    for (const b of this.session.outbox()) this.link.send(b);
  }

  // pump issues the commands due, one per server tick. A page that
  // draws slower than the tick rate issues the ticks it missed at once
  // (as a Source client sends several commands per frame), so movement
  // keeps its speed; after a longer stall, such as a hidden tab, it
  // skips rather than bursts.
  pump(input: Input): void {
    this.held = input;
    if (!this.session || !this.link) return;
    const now = performance.now();
    this.silence.ran(now);
    // The frame comes first: a fire press since the last pump rides the
    // next command with this instant and aim (sub-tick input).
    const i = input, b = buttons(i);
    this.session.frame(now, i.forward, i.side, i.up, i.yaw, i.pitch, b, i.weapon, i.placed);
    const dt = this.session.tickMs() || 1000 / 64;
    for (let n = 0; now >= this.nextTick; n++) {
      if (n === maxCatchUp) {
        this.nextTick = now + dt;
        break;
      }
      this.session.tick(now, i.forward, i.side, i.up, i.yaw, i.pitch, b, i.weapon, i.placed);
      this.nextTick += dt;
    }
    this.flush();
    this.step += performance.now() - now;
  }

  pull(now: number): Pulled | null {
    if (!this.session || !this.pack(now)) return null;
    const p = this.pulled, f = this.f32;
    p.f = f;
    p.infos.length = 0;
    if (f[5] > 0 || f[4] !== this.lastPhase || now - this.lastInfo >= infoEveryMs) {
      p.infos.push(this.session.info(now));
      this.lastInfo = now;
      this.lastPhase = f[4];
    }
    return p;
  }

  reportSBC(): Promise<string> { return Promise.resolve(this.report()); }

  report(): string {
    if (!this.session) return 'not started';
    const err = this.session.reportSBC();
    this.flush();
    return err;
  }

  linkKind(): string { return this.link?.kind ?? ''; }
  close(reason: string): void { this.link?.close(reason); }

  stop(reason: string): void {
    if (this.session) this.session.disconnect(reason);
    this.flush();
    this.close(reason);
  }

  stepMs(): number {
    const s = this.step;
    this.step = 0;
    return s;
  }

  silentMs(): number { return this.silence.silentMs(performance.now()); }
  quietMs(): number { return 0; }
}

// Messages between the page and the worker.
type ToWorker =
  | { t: 'start'; o: CoreOptions }
  | { t: 'input'; input: Input }
  | { t: 'state' }
  | { t: 'report'; id: number }
  | { t: 'close'; reason: string };
type FromWorker =
  | { t: 'started'; error?: string }
  | { t: 'state'; packed: ArrayBuffer | null; infos: string[]; link: string; stepMs: number; silentMs: number }
  | { t: 'closed'; reason: string }
  | { t: 'reported'; id: number; err: string };

// WorkerCore runs the core in a Web Worker started from the page's own
// script (scriptURL), which runs runWorker there.
export class WorkerCore implements Core {
  private w: Worker;
  private pulled: Pulled | null = null;
  private infos: string[] = [];
  private link = '';
  private step = 0;
  private sent: Input | null = null;
  private asked = false;
  // silent is the core's silence as the worker last said; quiet counts
  // the page's frames since the worker last answered, as Silence does.
  private silent = 0;
  private quiet = new Silence();
  onClosed: (reason: string) => void = () => {};
  private started: ((error?: string) => void) | null = null;
  private reports = new Map<number, (err: string) => void>();
  private nreports = 0;

  constructor(scriptURL: string) {
    this.w = new Worker(scriptURL, { type: 'module' });
    this.w.onmessage = (e: MessageEvent<FromWorker>) => {
      const m = e.data;
      switch (m.t) {
        case 'started': this.started?.(m.error); break;
        case 'state':
          if (m.packed) this.pulled = { f: new Float32Array(m.packed), infos: [] };
          this.infos.push(...m.infos);
          this.link = m.link;
          this.step += m.stepMs;
          this.silent = m.silentMs;
          this.quiet.heard(performance.now());
          this.asked = false;
          break;
        case 'closed': this.onClosed(m.reason); break;
        case 'reported': this.reports.get(m.id)?.(m.err); this.reports.delete(m.id); break;
      }
    };
    this.w.onerror = (e) => console.error(`lagkit worker: ${e.message}`);
  }

  private post(m: ToWorker): void { this.w.postMessage(m); }

  start(o: CoreOptions): Promise<void> {
    return new Promise((resolve, reject) => {
      this.started = (error) => (error ? reject(new Error(error)) : resolve());
      this.post({ t: 'start', o });
    });
  }

  // pump sends the held input when it changed: the worker ticks on its
  // own. The input is compared field by field with a copy of the last
  // sent: its JSON, made to compare, was a string a frame.
  pump(input: Input): void {
    const s = this.sent;
    if (s && sameInput(s, input)) return;
    this.sent = { ...input };
    this.post({ t: 'input', input: this.sent });
  }

  // pull returns the newest frame the worker sent, with the infos not
  // yet handed over, and asks for the next: the page draws one message
  // behind the core.
  pull(now: number): Pulled | null {
    this.quiet.ran(now);
    if (!this.asked) {
      this.asked = true;
      this.post({ t: 'state' });
    }
    if (!this.pulled) return null;
    this.pulled.infos = this.infos;
    this.infos = [];
    return this.pulled;
  }

  // reportSBC asks the worker's core and resolves to its answer.
  reportSBC(): Promise<string> {
    const id = ++this.nreports;
    return new Promise((resolve) => {
      this.reports.set(id, resolve);
      this.post({ t: 'report', id });
    });
  }

  linkKind(): string { return this.link; }
  close(reason: string): void { this.post({ t: 'close', reason }); }

  stop(reason: string): void {
    this.close(reason);
    // The close goes out before the worker ends.
    setTimeout(() => this.w.terminate(), 200);
    for (const r of this.reports.values()) r('not connected');
    this.reports.clear();
  }

  stepMs(): number {
    const s = this.step;
    this.step = 0;
    return s;
  }

  // silentMs is the worker's word: a worker the machine starves says
  // nothing until it runs, and then counts only the time it ran.
  silentMs(): number { return this.silent; }
  // quietMs counts only frames the page drew (pull), so a page that is
  // not drawing (a hidden tab) does not give up on its worker.
  quietMs(): number { return this.quiet.counted(); }
}

// runWorker is the worker's side of WorkerCore: it loads wasm_exec.js and
// the core, and runs a LocalCore, ticking every 4 ms; or, asked to open
// a link first, a link worker's (runLink).
export function runWorker(): void {
  const core = new LocalCore();
  let input: Input | null = null;
  const post = (m: FromWorker) => (self as any).postMessage(m);
  core.onClosed = (reason) => post({ t: 'closed', reason });
  self.onmessage = async (e: MessageEvent<ToWorker | ToLink>) => {
    const m = e.data;
    switch (m.t) {
      // A link worker (workerLink) is asked to open first.
      case 'open': runLink(m); break;
      case 'start':
        try {
          const res = await fetch('/lagkit/wasm_exec.js');
          if (!res.ok) throw new Error(`wasm_exec.js: HTTP ${res.status}`);
          (0, eval)(await res.text()); // defines Go, as the page's script tag does
          await loadCore();
          await core.start(m.o);
          setInterval(() => { if (input) core.pump(input); else core.silentMs(); }, 4);
          post({ t: 'started' });
        } catch (err) {
          post({ t: 'started', error: (err as Error).message });
        }
        break;
      case 'input': input = m.input; if (core.session) core.pump(input); break;
      case 'state': {
        // The packed frame is copied out of the core's buffer and its
        // copy handed over, not cloned again.
        const p = core.pull(performance.now());
        const packed = p ? p.f.slice(0, packedLength(p.f)).buffer : null;
        const m: FromWorker = {
          t: 'state', packed, infos: p ? [...p.infos] : [], link: core.linkKind(), stepMs: core.stepMs(), silentMs: core.silentMs(),
        };
        (self as any).postMessage(m, packed ? [packed] : []);
        break;
      }
      case 'report': post({ t: 'reported', id: m.id, err: core.report() }); break;
      case 'close': core.stop(m.reason); break;
    }
  };
}
