// main.ts is lagkit's browser shell: it loads the client core
// (WebAssembly), the server's map, opens the link (WebTransport, else
// WebSocket), ticks the core at the server's rate with the held input,
// and draws what the core says each frame. Prediction, reconciliation
// and interpolation all happen in the core; this file only moves bytes,
// keys and pixels. After a death the camera looks at the killer until the
// respawn (the death camera).
import { LocalCore, WorkerCore, loadCore, runWorker, type Core } from './core';
import { View } from './view';
import { Controls } from './controls';
import { Hud } from './hud';
import { Minimap } from './minimap';
import { Effects } from './effects';
import { Study } from './study';
import { Dead, Packed } from './packed';
import type { CoreState, Input, MapFile, Projectile, Rewind } from './types';

const params = new URLSearchParams(location.search);
const defaultMap = 'metro';
const hud = new Hud();

async function loadMap(name: string): Promise<string> {
  const res = await fetch(`/lagkit/map/${encodeURIComponent(name)}`);
  if (!res.ok) throw new Error(`map ${name}: HTTP ${res.status}: ${(await res.text()).trim()}`);
  return res.text();
}

const playerName = params.get('name') ?? 'browser';

// useWorker is whether the client core runs in a Web Worker, off the
// drawing thread (the default: ticks and datagrams keep their pace
// however long a frame takes to draw); ?worker=0 runs it on the page's
// thread.
function useWorker(): boolean {
  return params.get('worker') !== '0' && typeof Worker !== 'undefined';
}

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

// Perf sums the time spent per frame in the client core's step
// (datagrams in, commands out), in its state (interpolation, the packed
// frame's copy and the info's JSON when read) and in drawing (three.js,
// the HUD), between two reads.
// frameMs is the page's own thread: with the core in a worker, its step
// is not.
class Perf {
  frames = 0; step = 0; state = 0; draw = 0;
  stepInPage = true;
  read(): { frames: number; stepMs: number; stateMs: number; drawMs: number; frameMs: number } {
    const n = Math.max(1, this.frames);
    const page = (this.stepInPage ? this.step : 0) + this.state + this.draw;
    const out = { frames: this.frames, stepMs: this.step / n, stateMs: this.state / n, drawMs: this.draw / n, frameMs: page / n };
    this.frames = this.step = this.state = this.draw = 0;
    return out;
  }
}

class Game {
  perf = new Perf();
  core: Core | null = null;
  view: View;
  effects: Effects;
  controls: Controls;
  // rewindOn is whether the rewind view is shown (V, ?rewind=1);
  // lastRewind the newest hit it can show.
  rewindOn = params.get('rewind') === '1';
  lastRewind: Rewind | null = null;
  deathCam = false;
  private restarting = false;
  // info is the newest info (JSON, without the players), packed the
  // newest packed frame: together, what the page draws.
  info: CoreState | null = null;
  packed = new Packed();
  recent: CoreState['events'] = [];
  frames = 0;
  private mapName = '';

  private minimap = new Minimap(document.getElementById('minimap') as HTMLCanvasElement);

  constructor() {
    this.view = new View(document.getElementById('view')!);
    this.controls = new Controls(this.view.renderer.domElement);
    this.effects = new Effects(this.view.scene);
    this.controls.onFire = () => this.pump();
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
    return this.core ? this.core.reportSBC() : 'not started';
  }

  // credentials returns the connect token and the player's name for a
  // new link: from the token URL, or in a study from joining by code.
  credentials: () => Promise<{ token: string; name: string }> = async () => ({ token: await fetchToken(), name: playerName });
  // quietClose keeps a closed link's reason off the status line (a
  // study's overlay says what happens between rounds).
  quietClose = false;
  // linkDown is set when the link of the running core closes; snapAt is
  // when the frames last saw a new snapshot (or the core started), and
  // frameAt when the last frame was drawn.
  linkDown = false;
  snapAt = 0;
  frameAt = 0;
  private snaps = 0;

  // lost reports whether the running core has lost its match: its link
  // closed, the server closed its session, or, while frames are drawn,
  // no snapshot came for silentMs.
  lost(silentMs: number): boolean {
    if (!this.core) return false;
    const now = performance.now();
    return this.linkDown || this.info?.phase === 'closed' || (now - this.frameAt < 250 && now - this.snapAt > silentMs);
  }

  async start(mapName: string, creds?: { token: string; name: string }): Promise<void> {
    const text = await loadMap(mapName);
    this.mapName = mapName;
    const m = JSON.parse(text) as MapFile;
    this.view.setMap(m);
    this.minimap.setMap(m);
    const { token, name } = creds ?? await this.credentials();
    hud.status('connecting…');
    const inWorker = useWorker();
    this.core = inWorker ? new WorkerCore(import.meta.url) : new LocalCore();
    this.perf.stepInPage = !inWorker;
    const core = this.core;
    this.linkDown = false;
    this.snapAt = performance.now();
    this.snaps = 0;
    core.onClosed = (reason) => {
      if (this.core !== core) return;
      this.linkDown = true;
      if (!this.quietClose) hud.status(reason);
    };
    await core.start({
      mapText: text, token, name, display: params.get('display') ?? '',
      interpDelayMs: Number(params.get('interp') ?? 0), transport: params.get('transport'),
    });
  }

  pump(): void { this.core?.pump(this.controls.input); }

  frame(): void {
    if (!this.core) return;
    const now = performance.now();
    const p = this.core.pull(now);
    if (!p) return;
    this.packed.f = p.f;
    const infos = p.infos.length > 0 ? p.infos.map((t) => JSON.parse(t) as CoreState) : noInfos;
    this.frameAt = now;
    this.frames++;
    this.perf.frames++;
    this.perf.step += this.core.stepMs();
    const drawStart = performance.now();
    this.perf.state += drawStart - now;
    for (const st of infos) {
      if (!this.takeInfo(st, now)) return;
    }
    if (this.info) this.draw(this.info, now);
    this.perf.draw += performance.now() - drawStart;
  }

  // takeInfo handles a new info: its events, tracers, rewinds and
  // explosions, and the HUD's text. It returns false when the page starts
  // again on the server's map.
  private takeInfo(st: CoreState, now: number): boolean {
    this.info = st;
    if (st.net.snapshots !== this.snaps) {
      this.snaps = st.net.snapshots;
      this.snapAt = now;
    }
    if (st.events.length > 0) this.recent = [...this.recent, ...st.events].slice(-32);
    if (st.phase === 'closed' && st.serverMap && st.serverMap !== this.mapName) {
      // The server plays another map: load it and connect again, once,
      // on a new link (the server closes a link whose session ended).
      if (this.restarting) return false;
      this.restarting = true;
      this.core?.close('loading the server\'s map');
      this.info = null;
      this.start(st.serverMap)
        .then(() => hud.status(''), (e) => hud.status(`error: ${e.message}`))
        .finally(() => { this.restarting = false; });
      return false;
    }
    if (st.rewinds.length > 0) this.lastRewind = st.rewinds[st.rewinds.length - 1];
    this.effects.addTracers(st.tracers, now);
    this.effects.addExplosions(st.explosions, now);
    const pk = this.packed;
    hud.update(st, this.core?.linkKind() ?? '', (id) => {
      const i = pk.find(id);
      return i < 0 ? null : [pk.x(i), pk.y(i)];
    });
    return true;
  }

  // draw draws the frame: the packed frame's players, projectiles and
  // eye, with st the newest info.
  private draw(st: CoreState, now: number): void {
    const pk = this.packed;
    if (!this.controls.aimed && pk.phase === 'connected' && st.net.snapshots > 0) {
      // Look where the spawn faces until the player turns.
      this.controls.input.yaw = pk.yaw(-1);
    }
    this.effects.showRewind(this.lastRewind, this.rewindOn);
    this.effects.setProjectiles(pk.projectiles > 0 ? pk.projectileList() : noProjectiles);
    this.effects.update(now);
    hud.rewind(this.lastRewind, this.rewindOn);
    const fov = st.fov && st.fov > 0 ? st.fov : 90;
    // The horizontal field of view the server mandates, as a vertical one.
    const vfov = 2 * Math.atan(Math.tan((fov * Math.PI) / 360) / this.view.camera.aspect) * 180 / Math.PI;
    const input = this.controls.input;
    let [yaw, pitch] = [input.yaw, input.pitch];
    // The death camera: dead, look at the killer until the respawn.
    const dead = (pk.flags(-1) & Dead) !== 0;
    const killer = dead && st.killer >= 0 && st.killer !== pk.id ? pk.find(st.killer) : -2;
    this.deathCam = killer >= 0;
    const eye = pk.eye;
    if (killer >= 0) {
      const d = [pk.x(killer) - eye[0], pk.y(killer) - eye[1], pk.z(killer) + 1.2 - eye[2]];
      yaw = Math.atan2(d[1], d[0]);
      pitch = Math.atan2(d[2], Math.hypot(d[0], d[1]));
    }
    this.view.aim(eye, yaw, pitch, vfov);
    this.drawPlayers();
    this.view.render(eye, yaw, pitch, vfov);
    hud.tick(now);
    this.minimap.draw(pk, st);
    hud.board(st, this.controls.scoreboard);
  }

  // drawPlayers hands the view the remote players' hitboxes straight
  // from the packed frame.
  private drawPlayers(): void {
    const pk = this.packed, f = pk.f, v = this.view, parts = pk.parts();
    v.beginParts();
    for (let i = 0; i < pk.players; i++) {
      const flags = pk.flags(i);
      if (flags & Dead) continue;
      const team = pk.team(i), prot = (flags & 4) !== 0;
      for (let k = 0; k < parts; k++) {
        const o = pk.part(i, k);
        v.part(team, prot, f[o] === 0, f[o + 1], f[o + 2], f[o + 3], f[o + 4], f[o + 5], f[o + 6], f[o + 7]);
      }
    }
    v.endParts();
  }

  // snapshot is what window.lagkit.state() returns, built when asked:
  // the newest info with the packed frame's players, and the fields of
  // the page's automation API (connected, transport, tick, rtt_ms, pos,
  // yaw, pitch, health, team, alive, kills, deaths, prediction_error_m).
  snapshot(): Record<string, unknown> | null {
    const st = this.info, pk = this.packed;
    if (!st || pk.f.length <= 16) return null;
    const self = { ...st.self, ...pk.self() };
    const transport = this.core?.linkKind() ?? '';
    return {
      ...st, phase: pk.phase, id: pk.id, self, players: pk.playerList(), eye: pk.eye, ammo: pk.ammo,
      projectiles: pk.projectileList(), tick: pk.tick,
      transport, frames: this.frames, recentEvents: this.recent,
      rewindView: { on: this.rewindOn, drawn: this.effects.shown !== null, last: this.lastRewind },
      deathCam: this.deathCam,
      connected: pk.phase === 'connected', rtt_ms: st.net.rttMs, pos: self.pos, yaw: self.yaw, pitch: self.pitch,
      health: self.health, team: st.team, alive: !self.dead, kills: st.score.kills, deaths: st.score.deaths,
      prediction_error_m: st.net.predictionErrorM,
    };
  }
}

const noInfos: CoreState[] = [];
const noProjectiles: Projectile[] = [];

// startStudy plays the page as a study's participant holding code: it
// joins each round's match by code and shows the study's overlay between
// rounds (study.ts), polling the study's status every half second.
async function startStudy(game: Game, code: string, api: Record<string, unknown>): Promise<void> {
  const study = new Study(code);
  game.quietClose = true;
  game.credentials = async () => {
    const a = await study.join();
    return { token: a.token, name: a.name };
  };
  study.linkClosed = () => game.lost(5000);
  study.onRound = async (a) => {
    game.core?.close('the next round');
    game.info = null;
    await game.start(study.status?.map || defaultMap, { token: a.token, name: a.name });
    hud.status('');
  };
  // study returns the participant's state: the study's status, the
  // seat, the overlay shown (questions, thanks, ready, countdown, wait or
  // ''), the questionnaire and the values chosen, the rounds answered;
  // choose(question, value) picks a button, answer() submits the form
  // (or the answers given) and resolves to the HTTP status; ready()
  // presses the ready button.
  api.study = () => study.state();
  api.choose = (id: string, value: number) => study.choose(id, value);
  api.answer = (answers?: Parameters<Study['submit']>[0]) => study.submit(answers);
  api.ready = () => study.ready();
  await study.poll();
  let busy = false;
  setInterval(() => {
    if (busy) return;
    busy = true;
    study.poll().catch((e) => console.warn(`study: ${e?.message ?? e}`)).finally(() => { busy = false; });
  }, 500);
}

function hideHelp(): void { document.getElementById('help')!.style.display = 'none'; }

async function main(): Promise<void> {
  const game = new Game();
  const w = window as any;
  w.lagkit = {
    // state returns the newest drawn state (bridge.State: phase, self,
    // players, net, score, ...), the link in use, the frames drawn, and
    // the last 32 events, with connected, transport, tick, rtt_ms, pos,
    // yaw, pitch, health, team, alive, kills, deaths and
    // prediction_error_m at the top; null before the core says anything.
    // rewindView is {on, drawn: whether a hit's hitboxes are drawn, last:
    // the hit it shows}; deathCam whether the camera follows the killer.
    state: () => game.snapshot(),
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
  if (!useWorker()) await loadCore();
  const code = params.get('code');
  if (code) {
    await startStudy(game, code, w.lagkit);
  } else {
    await game.start(params.get('map') ?? defaultMap);
  }
  hud.status('');
  // The key help makes way for the game after a while, or at the first
  // key pressed.
  setTimeout(hideHelp, 6000);
  window.addEventListener('keydown', hideHelp, { once: true });
  setInterval(() => game.pump(), 4);
  const loop = () => { game.pump(); game.frame(); requestAnimationFrame(loop); };
  requestAnimationFrame(loop);
}

// The same script runs the core in a Web Worker (the default), where there
// is no document.
if (typeof document === 'undefined') {
  runWorker();
} else {
  main().catch((e) => {
    console.error(e);
    hud.status(`error: ${e?.message ?? e}`);
  });
}
