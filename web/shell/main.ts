// main.ts is lagkit's browser shell: it loads the client core
// (WebAssembly), the server's map, opens the link (WebTransport, else
// WebSocket), ticks the core at the server's rate with the held input,
// and draws what the core says each frame. Prediction, reconciliation
// and interpolation all happen in the core; this file only moves bytes,
// keys and pixels.
import { openWebSocket, openWebTransport, type Link } from './net';
import { View } from './view';
import { Controls } from './controls';
import { Hud } from './hud';
import { Minimap } from './minimap';
import type { CoreState, Input, MapFile, Session } from './types';

declare const Go: any;

const params = new URLSearchParams(location.search);
const defaultMap = 'metro';
// maxCatchUp bounds the missed ticks one pump issues: 125 ms at 64 Hz.
const maxCatchUp = 8;
const hud = new Hud();
const minimap = new Minimap(document.getElementById('minimap') as HTMLCanvasElement);

async function loadCore(): Promise<void> {
  const go = new Go();
  const res = await fetch('/lagkit/client.wasm');
  if (!res.ok) throw new Error(`client core: HTTP ${res.status}: ${await res.text()}`);
  const { instance } = await WebAssembly.instantiate(await res.arrayBuffer(), go.importObject);
  go.run(instance); // returns when the core exits, which it never does
  for (let i = 0; i < 100 && !(globalThis as any).lagkitCore; i++) await new Promise((r) => setTimeout(r, 10));
  if (!(globalThis as any).lagkitCore) throw new Error('client core did not start');
}

async function loadMap(name: string): Promise<string> {
  const res = await fetch(`/lagkit/map/${encodeURIComponent(name)}`);
  if (!res.ok) throw new Error(`map ${name}: HTTP ${res.status}: ${(await res.text()).trim()}`);
  return res.text();
}

function newSession(mapText: string): Session {
  const s = (globalThis as any).lagkitCore.create({
    map: mapText,
    name: params.get('name') ?? 'browser',
    display: params.get('display') ?? '',
    interpDelayMs: Number(params.get('interp') ?? 0),
  });
  if (s.error) throw new Error(s.error);
  return s as Session;
}

// openLink tries WebTransport, then WebSocket. ?transport=ws or
// ?transport=wt forces one.
async function openLink(onData: (b: Uint8Array) => void): Promise<Link> {
  const want = params.get('transport');
  if (want !== 'ws') {
    try {
      return await openWebTransport(location.host, onData);
    } catch (e) {
      if (want === 'wt') throw e;
      console.info(`lagkit: WebTransport unavailable (${(e as Error).message}); using WebSocket`);
    }
  }
  return openWebSocket(location.host, onData);
}

class Game {
  session!: Session;
  link!: Link;
  view: View;
  controls: Controls;
  latest: CoreState | null = null;
  recent: CoreState['events'] = [];
  frames = 0;
  private nextTick = 0;
  private mapName = '';

  constructor() {
    this.view = new View(document.getElementById('view')!);
    this.controls = new Controls(this.view.renderer.domElement);
  }

  async start(mapName: string, link?: Link): Promise<void> {
    const text = await loadMap(mapName);
    this.mapName = mapName;
    const m = JSON.parse(text) as MapFile;
    this.view.setMap(m);
    minimap.setMap(m);
    this.session = newSession(text);
    if (link) {
      this.link = link;
      this.session.connect(performance.now());
      this.flush();
      return;
    }
    hud.status('connecting…');
    this.link = await openLink((b) => this.receive(b));
    this.session.connect(performance.now());
    this.flush();
    if (this.link.kind !== 'webtransport' || params.get('transport') === 'wt') return;
    // A WebTransport session that the server takes but no match answers
    // on within three seconds is dropped for WebSocket.
    const t0 = performance.now();
    while (performance.now() - t0 < 3000 && this.phase() === 'connecting') {
      await new Promise((r) => setTimeout(r, 50));
      this.pump();
    }
    if (this.phase() === 'connecting') {
      this.link.close('no answer');
      console.info('lagkit: no answer over WebTransport; using WebSocket');
      this.link = await openWebSocket(location.host, (b) => this.receive(b));
    }
  }

  private phase(): string {
    return (JSON.parse(this.session.state(performance.now())) as CoreState).phase;
  }

  receive(b: Uint8Array): void {
    if (!this.session) return;
    const err = this.session.step(performance.now(), b);
    if (err) console.debug(`lagkit: ${err}`);
    this.flush();
  }

  flush(): void {
    if (!this.link) return;
    for (const b of this.session.outbox()) this.link.send(b);
  }

  // pump issues the commands due, one per server tick. A page that
  // draws slower than the tick rate issues the ticks it missed at once
  // (as a Source client sends several commands per frame), so movement
  // keeps its speed; after a longer stall, such as a hidden tab, it
  // skips rather than bursts.
  pump(): void {
    if (!this.session || !this.link) return;
    const now = performance.now();
    const dt = this.session.tickMs() || 1000 / 64;
    for (let n = 0; now >= this.nextTick; n++) {
      if (n === maxCatchUp) {
        this.nextTick = now + dt;
        break;
      }
      this.session.tick(now, this.controls.input);
      this.nextTick += dt;
    }
    this.flush();
  }

  frame(): void {
    if (!this.session) return;
    const now = performance.now();
    const st = JSON.parse(this.session.state(now)) as CoreState;
    this.latest = st;
    this.frames++;
    if (st.events.length > 0) this.recent = [...this.recent, ...st.events].slice(-32);
    if (st.phase === 'closed' && st.serverMap && st.serverMap !== this.mapName) {
      // The server plays another map: load it and connect again on the
      // same link (the server repeats its Accept to a known peer).
      const link = this.link;
      this.latest = null;
      this.start(st.serverMap, link).catch((e) => hud.status(`error: ${e.message}`));
      return;
    }
    if (!this.controls.aimed && st.phase === 'connected' && st.net.snapshots > 0) {
      // Look where the spawn faces until the player turns.
      this.controls.input.yaw = st.self.yaw;
    }
    this.view.setPlayers(st.players);
    const fov = st.fov && st.fov > 0 ? st.fov : 90;
    // The horizontal field of view the server mandates, as a vertical one.
    const vfov = 2 * Math.atan(Math.tan((fov * Math.PI) / 360) / this.view.camera.aspect) * 180 / Math.PI;
    const input = this.controls.input;
    this.view.render(st.eye, input.yaw, input.pitch, vfov);
    hud.update(st, this.link?.kind ?? '');
    minimap.draw(st);
    hud.board(st, this.controls.scoreboard);
  }
}

async function main(): Promise<void> {
  const game = new Game();
  const w = window as any;
  w.lagkit = {
    // state returns the newest drawn state, the link in use, the frames
    // drawn, and the last 32 events.
    state: () => (game.latest ? { ...game.latest, transport: game.link?.kind ?? '', frames: game.frames, recentEvents: game.recent } : null),
    // input sets the held input: any of forward, side, up (-1..1), yaw,
    // pitch (radians), fire, alt, jump, crouch, reload, sprint, weapon.
    input: (i: Partial<Input>) => game.controls.set(i),
  };
  hud.status('loading the client core…');
  await loadCore();
  await game.start(params.get('map') ?? defaultMap);
  hud.status('');
  game.link.closed.then((reason) => hud.status(reason));
  setInterval(() => game.pump(), 4);
  const loop = () => { game.pump(); game.frame(); requestAnimationFrame(loop); };
  requestAnimationFrame(loop);
}

main().catch((e) => {
  console.error(e);
  hud.status(`error: ${e?.message ?? e}`);
});
