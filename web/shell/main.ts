// main.ts is lagkit's browser shell: it loads the client core
// (WebAssembly), the server's map, opens the link (WebTransport, else
// WebSocket), ticks the core at the server's rate with the held input,
// and draws what the core says each frame. Prediction, reconciliation
// and interpolation all happen in the core; this file only moves bytes,
// keys and pixels. After a death the camera looks at the killer until the
// respawn (the death camera).
import { openWebSocket, openWebTransport, type Link } from './net';
import { View } from './view';
import { Controls } from './controls';
import { Hud } from './hud';
import { Minimap } from './minimap';
import { Effects } from './effects';
import type { CoreState, Input, MapFile, Rewind, Session } from './types';

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

const playerName = params.get('name') ?? 'browser';

// fetchToken gets a connect token for a server that requires one: from
// ?token=BASE64, else from the token URL (?token_url=, default the
// server's /lagkit/token), which answers an empty token when the server
// wants none (as does a token URL that is not there: 404).
async function fetchToken(): Promise<string> {
  const given = params.get('token');
  if (given) return given;
  const res = await fetch(params.get('token_url') ?? '/lagkit/token', {
    method: 'POST', cache: 'no-store', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ player: playerName }),
  });
  if (res.status === 404) return '';
  if (!res.ok) throw new Error(`connect token: HTTP ${res.status}: ${(await res.text()).trim()}`);
  const body = await res.json();
  if (typeof body?.token !== 'string') throw new Error('connect token: no token field');
  return body.token;
}

function newSession(mapText: string, token: string): Session {
  const s = (globalThis as any).lagkitCore.create({
    map: mapText,
    token,
    name: playerName,
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

// Perf sums the time the page spends per frame in the client core's step
// (datagrams in, commands out), in its state (interpolation and the JSON
// hand-over) and in drawing (three.js, the HUD), between two reads.
class Perf {
  frames = 0; step = 0; state = 0; draw = 0;
  read(): { frames: number; stepMs: number; stateMs: number; drawMs: number; frameMs: number } {
    const n = Math.max(1, this.frames);
    const out = { frames: this.frames, stepMs: this.step / n, stateMs: this.state / n, drawMs: this.draw / n, frameMs: (this.step + this.state + this.draw) / n };
    this.frames = this.step = this.state = this.draw = 0;
    return out;
  }
}

class Game {
  perf = new Perf();
  session!: Session;
  link!: Link;
  view: View;
  effects: Effects;
  controls: Controls;
  // rewindOn is whether the rewind view is shown (V, ?rewind=1);
  // lastRewind the newest hit it can show.
  rewindOn = params.get('rewind') === '1';
  lastRewind: Rewind | null = null;
  deathCam = false;
  private restarting = false;
  latest: CoreState | null = null;
  recent: CoreState['events'] = [];
  frames = 0;
  private nextTick = 0;
  private mapName = '';

  constructor() {
    this.view = new View(document.getElementById('view')!);
    this.controls = new Controls(this.view.renderer.domElement);
    this.effects = new Effects(this.view.scene);
    this.controls.onKey('KeyV', () => this.toggleRewind());
    this.controls.onKey('KeyB', () => {
      const err = this.reportSBC();
      hud.note(err ? `report not sent: ${err}` : 'reported: shot behind cover');
    });
  }

  toggleRewind(on = !this.rewindOn): void { this.rewindOn = on; }

  // reportSBC sends the "shot behind cover" report and returns an error
  // text, or '' when sent.
  reportSBC(): string {
    if (!this.session) return 'not started';
    const err = this.session.reportSBC();
    this.flush();
    return err;
  }

  // watch shows why link closed, unless another link replaced it.
  private watch(link: Link): Link {
    link.closed.then((reason) => { if (this.link === link) hud.status(reason); });
    return link;
  }

  async start(mapName: string): Promise<void> {
    const text = await loadMap(mapName);
    this.mapName = mapName;
    const m = JSON.parse(text) as MapFile;
    this.view.setMap(m);
    minimap.setMap(m);
    this.session = newSession(text, await fetchToken());
    hud.status('connecting…');
    this.link = this.watch(await openLink((b) => this.receive(b)));
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
      this.link = this.watch(await openWebSocket(location.host, (b) => this.receive(b)));
    }
  }

  private phase(): string {
    return (JSON.parse(this.session.state(performance.now())) as CoreState).phase;
  }

  receive(b: Uint8Array): void {
    if (!this.session) return;
    const t0 = performance.now();
    const err = this.session.step(t0, b);
    if (err) console.debug(`lagkit: ${err}`);
    this.flush();
    this.perf.step += performance.now() - t0;
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
    this.pumpTicks(now);
    this.perf.step += performance.now() - now;
  }

  private pumpTicks(now: number): void {
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
    this.perf.frames++;
    const drawStart = performance.now();
    this.perf.state += drawStart - now;
    this.draw(st, now);
    this.perf.draw += performance.now() - drawStart;
  }

  private draw(st: CoreState, now: number): void {
    if (st.events.length > 0) this.recent = [...this.recent, ...st.events].slice(-32);
    if (st.phase === 'closed' && st.serverMap && st.serverMap !== this.mapName) {
      // The server plays another map: load it and connect again, once,
      // on a new link (the server closes a link whose session ended).
      if (this.restarting) return;
      this.restarting = true;
      this.link.close('loading the server\'s map');
      this.latest = null;
      this.start(st.serverMap)
        .then(() => hud.status(''), (e) => hud.status(`error: ${e.message}`))
        .finally(() => { this.restarting = false; });
      return;
    }
    if (!this.controls.aimed && st.phase === 'connected' && st.net.snapshots > 0) {
      // Look where the spawn faces until the player turns.
      this.controls.input.yaw = st.self.yaw;
    }
    this.view.setPlayers(st.players);
    if (st.rewinds.length > 0) this.lastRewind = st.rewinds[st.rewinds.length - 1];
    this.effects.showRewind(this.lastRewind, this.rewindOn);
    this.effects.addTracers(st.tracers, now);
    this.effects.addExplosions(st.explosions, now);
    this.effects.setProjectiles(st.projectiles);
    this.effects.update(now);
    hud.rewind(this.lastRewind, this.rewindOn);
    const fov = st.fov && st.fov > 0 ? st.fov : 90;
    // The horizontal field of view the server mandates, as a vertical one.
    const vfov = 2 * Math.atan(Math.tan((fov * Math.PI) / 360) / this.view.camera.aspect) * 180 / Math.PI;
    const input = this.controls.input;
    let [yaw, pitch] = [input.yaw, input.pitch];
    // The death camera: dead, look at the killer until the respawn.
    const killer = st.self.dead && st.killer >= 0 && st.killer !== st.id ? st.players.find((p) => p.id === st.killer) : undefined;
    this.deathCam = killer !== undefined;
    if (killer) {
      const d = [killer.pos[0] - st.eye[0], killer.pos[1] - st.eye[1], killer.pos[2] + 1.2 - st.eye[2]];
      yaw = Math.atan2(d[1], d[0]);
      pitch = Math.atan2(d[2], Math.hypot(d[0], d[1]));
    }
    this.view.render(st.eye, yaw, pitch, vfov);
    hud.update(st, this.link?.kind ?? '');
    minimap.draw(st);
    hud.board(st, this.controls.scoreboard);
  }
}

function hideHelp(): void { document.getElementById('help')!.style.display = 'none'; }

async function main(): Promise<void> {
  const game = new Game();
  const w = window as any;
  w.lagkit = {
    // state returns the newest drawn state, the link in use, the frames
    // drawn, and the last 32 events.
    // rewindView is {on, drawn: whether a hit's hitboxes are drawn, last:
    // the hit it shows}; deathCam whether the camera follows the killer.
    state: () => (game.latest ? {
      ...game.latest, transport: game.link?.kind ?? '', frames: game.frames, recentEvents: game.recent,
      rewindView: { on: game.rewindOn, drawn: game.effects.shown !== null, last: game.lastRewind },
      deathCam: game.deathCam,
    } : null),
    // rewindView turns the rewind view on or off (toggles without an
    // argument); reportSBC sends the "shot behind cover" report and
    // returns '' or why it was not sent.
    rewindView: (on?: boolean) => game.toggleRewind(on),
    reportSBC: () => game.reportSBC(),
    // input sets the held input: any of forward, side, up (-1..1), yaw,
    // pitch (radians), fire, alt, jump, crouch, reload, sprint, weapon.
    input: (i: Partial<Input>) => { hideHelp(); game.controls.set(i); },
    // perf returns the mean time per frame in ms spent in the client
    // core's step, its state (interpolation) and drawing since the last
    // call, and the frames drawn.
    perf: () => game.perf.read(),
  };
  hud.status('loading the client core…');
  await loadCore();
  await game.start(params.get('map') ?? defaultMap);
  hud.status('');
  // The key help makes way for the game after a while, or at the first
  // key pressed.
  setTimeout(hideHelp, 6000);
  window.addEventListener('keydown', hideHelp, { once: true });
  setInterval(() => game.pump(), 4);
  const loop = () => { game.pump(); game.frame(); requestAnimationFrame(loop); };
  requestAnimationFrame(loop);
}

main().catch((e) => {
  console.error(e);
  hud.status(`error: ${e?.message ?? e}`);
});
