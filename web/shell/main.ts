// main.ts is lagkit's browser shell: it loads the client core
// (WebAssembly), the server's map, opens the link (WebTransport, else
// WebSocket), ticks the core at the server's rate with the held input,
// and draws what the core says each frame. Prediction, reconciliation
// and interpolation all happen in the core; this file only moves bytes,
// keys and pixels. After a death the camera looks at the killer until the
// respawn (the death camera).
import { LocalCore, WorkerCore, loadCore, openLink, runWorker, workerLink, type Core } from './core';
import { View } from './view';
import { Controls } from './controls';
import { Hud } from './hud';
import { Minimap } from './minimap';
import { Effects, vantage } from './effects';
import { Menu } from './settings';
import { Sound } from './sound';
import { Labels } from './labels';
import { Study } from './study';
import { startSpectator } from './spectate';
import { Dead, Packed } from './packed';
import { readQuery, showFatal } from './query';
import type { CoreState, Input, MapFile, Projectile, Rewind, Vec3 } from './types';

const params = new URLSearchParams(location.search);
const defaultMap = 'metro';
const hud = new Hud();

async function loadMap(name: string): Promise<string> {
  const res = await fetch(`/lagkit/map/${encodeURIComponent(name)}`);
  if (!res.ok) throw new Error(`map ${name}: HTTP ${res.status}: ${(await res.text()).trim()}`);
  return res.text();
}

// query is what the page's parameters ask for (query.ts), checked
// before anything starts.
const query = readQuery(params);
const playerName = query.name;

// useWorker is whether the client core runs in a Web Worker, off the
// drawing thread (the default: ticks and datagrams keep their pace
// however long a frame takes to draw); ?worker=0 runs it on the page's
// thread.
function useWorker(): boolean {
  return query.worker && typeof Worker !== 'undefined';
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
// is not, but the page's hand-over of the input to it (pump) is.
// Of the drawing, render is three.js's (the scene and the inset) and
// info the handling of new infos (events, sounds, the HUD's text and net
// graph); the rest is the page's own per-frame work (players, labels,
// footsteps, minimap).
// samples holds each frame's time on the page's thread (ms): the frame's
// own work and the step or pumps since the frame before, at most
// maxSamples between two reads (the newest kept).
const maxSamples = 4096;
class Perf {
  frames = 0; step = 0; state = 0; draw = 0; render = 0; info = 0; pump = 0;
  // tracers is the most tracers a frame drew.
  tracers = 0;
  stepInPage = true;
  samples: number[] = [];
  // between is the page's thread's time in steps or pumps since the
  // last frame.
  private between = 0;
  // pumped notes ms spent handing the input over to a core in a worker.
  pumped(ms: number): void {
    this.pump += ms;
    this.between += ms;
  }
  // stepped notes ms of the core's step, on the page's thread or not.
  stepped(ms: number): void {
    this.step += ms;
    if (this.stepInPage) this.between += ms;
  }
  // framed notes a frame that took ms of its own.
  framed(ms: number): void {
    if (this.samples.length >= maxSamples) this.samples.shift();
    this.samples.push(this.between + ms);
    this.between = 0;
  }
  read(): { frames: number; stepMs: number; stateMs: number; drawMs: number; renderMs: number; infoMs: number; pumpMs: number; frameMs: number; samples: number[]; tracers: number } {
    const n = Math.max(1, this.frames);
    const page = (this.stepInPage ? this.step : this.pump) + this.state + this.draw;
    const out = {
      frames: this.frames, stepMs: this.step / n, stateMs: this.state / n, drawMs: this.draw / n,
      renderMs: this.render / n, infoMs: this.info / n, pumpMs: this.pump / n, frameMs: page / n, samples: this.samples,
      tracers: this.tracers,
    };
    this.frames = this.step = this.state = this.draw = this.render = this.info = this.pump = this.tracers = 0;
    this.samples = [];
    return out;
  }
}

// lostAfterMs is how long a link may hear nothing before the page calls
// the connection lost, and reconnectMs the waits between attempts to
// connect again (the last repeated).
const lostAfterMs = 2000;
// workerQuietMs is how long the page may draw without a word from the
// core's worker before it starts another (a worker that hangs is as good
// as a lost link; one the machine merely starves answers within it).
const workerQuietMs = 10000;
const reconnectMs = [500, 1000, 2000, 4000];
// historyLength is how many rewinds the rewind view keeps each way.
const historyLength = 16;

type Box = MapFile['boxes'][number];

class Game {
  perf = new Perf();
  core: Core | null = null;
  view: View;
  effects: Effects;
  controls: Controls;
  menu = new Menu();
  // rewindOn is whether the rewind view is shown (V, ?rewind=1); history
  // the last rewinds of the player's own shots (mine) and of shots on
  // the player (onMe), oldest first; list and back which is shown (back
  // 0: the newest of list).
  rewindOn = params.get('rewind') === '1';
  history: { mine: Rewind[]; onMe: Rewind[] } = { mine: [], onMe: [] };
  list: 'mine' | 'onMe' = 'mine';
  back = 0;
  // conn counts the page's connections (start): each rewind is marked
  // with the one it came on (Rewind.conn).
  conn = 0;
  deathCam = false;
  deathView: { pos: Vec3; target: Vec3 } | null = null;
  // view is the camera as last drawn: where, which way, how wide.
  viewAt = { pos: [0, 0, 0] as Vec3, yaw: 0, pitch: 0, fov: 90 };
  private deadAt = -1;
  respawnIn = 0;
  private placeCount = 0;
  private restarting = false;
  // info is the newest info (JSON, without the players), packed the
  // newest packed frame: together, what the page draws.
  info: CoreState | null = null;
  packed = new Packed();
  recent: CoreState['events'] = [];
  notes: string[] = [];
  frames = 0;
  // onFrame, when set, gets the time (ms) since the last frame drawn and
  // the client's round-trip estimate (ms; 0 while unknown or lost).
  onFrame: ((dt: number, rttMs: number) => void) | null = null;
  private mapName = '';
  // name is the player's name on the current link.
  name = playerName;
  private boxes: Box[] = [];

  private minimap = new Minimap(document.getElementById('minimap') as HTMLCanvasElement);
  sound: Sound;
  // lastShot is the newest own shot shown: the frame and instant
  // (performance.now()) its muzzle flash was drawn in and its sound
  // started in.
  lastShot: { flashFrame: number; flashAt: number; soundFrame: number; soundAt: number } | null = null;
  private reloading = false;
  private others = new Float32Array(3 * 256).fill(NaN);

  constructor() {
    this.view = new View(document.getElementById('view')!);
    this.sound = new Sound(this.view.camera, this.menu.settings.volume, params.get('sound') !== '0');
    this.controls = new Controls(this.view.renderer.domElement, this.menu.settings);
    this.controls.paused = () => this.menu.rebinding;
    this.menu.onChange = (s) => { this.controls.settings = s; this.sound.setVolume(s.volume); };
    this.menu.onResume = () => { this.menu.force(null); this.controls.lock(); };
    this.effects = new Effects(this.view.scene);
    this.controls.onFire = () => this.pump();
    this.controls.onAction('rewind', () => this.toggleRewind());
    this.controls.onAction('older', () => this.stepRewind(1));
    this.controls.onAction('newer', () => this.stepRewind(-1));
    this.controls.onAction('flip', () => this.flipRewind());
    this.controls.onAction('report', () => { void this.report(); });
    this.controls.onAction('netgraph', () => this.lens({ netgraph: !this.netgraphOn }));
    this.controls.onAction('impacts', () => this.lens({ impacts: !this.effects.impactsOn }));
  }

  // netgraphOn is whether the net graph is shown (N; ?netgraph=0 hides
  // it); the impacts (I, ?impacts=1) are the effects'.
  netgraphOn = params.get('netgraph') !== '0';

  // lens switches the researcher's lens: the net graph, the impacts.
  lens(o: { netgraph?: boolean; impacts?: boolean }): { netgraph: boolean; impacts: boolean } {
    if (o.netgraph !== undefined) {
      this.netgraphOn = o.netgraph;
      hud.netGraph(o.netgraph);
    }
    if (o.impacts !== undefined) this.effects.impactsOn = o.impacts;
    return { netgraph: this.netgraphOn, impacts: this.effects.impactsOn };
  }

  toggleRewind(on = !this.rewindOn): void { this.rewindOn = on; }

  // stepRewind shows an older (n > 0) or newer rewind of the list shown.
  stepRewind(n: number): void {
    const l = this.history[this.list];
    this.back = Math.max(0, Math.min(l.length - 1, this.back + n));
    this.rewindOn = true;
  }

  // flipRewind switches between the player's own shots and shots on it.
  flipRewind(list?: 'mine' | 'onMe'): void {
    this.list = list ?? (this.list === 'mine' ? 'onMe' : 'mine');
    this.back = 0;
    this.rewindOn = true;
  }

  // shownRewind is the rewind the view shows (whether on or not).
  shownRewind(): Rewind | null {
    const l = this.history[this.list];
    return l.length > 0 ? l[Math.max(0, l.length - 1 - this.back)] : null;
  }

  // report sends the "shot behind cover" report, notes the core's
  // answer and resolves to it: '' when sent, else why not.
  async report(): Promise<string> {
    const err = this.core ? await this.core.reportSBC() : 'not connected';
    this.note(err ? `report not sent: ${err}` : 'reported: shot behind cover');
    return err;
  }

  note(text: string): void {
    hud.note(text);
    this.notes = [...this.notes, text].slice(-8);
  }

  // credentials returns the connect token and the player's name for a
  // new link: from the token URL, or in a study from joining by code.
  credentials: () => Promise<{ token: string; name: string }> = async () => ({ token: await fetchToken(), name: playerName });
  // quietClose keeps a closed link's reason off the status line (a
  // study's overlay says what happens between rounds); reconnects
  // whether the page connects again by itself when the link is lost (a
  // study joins again through its own status instead).
  quietClose = false;
  reconnects = true;
  // linkDown is set when the link of the running core closes, coreReady
  // once the running core has started; frameAt is when the last frame
  // was drawn.
  linkDown = false;
  // closing is set once the page closes the link of a session the server
  // ended.
  private closing = false;
  coreReady = false;
  // linkDownAt is when the link closed, infoAt when the last info came.
  private linkDownAt = 0;
  private infoAt = 0;
  frameAt = 0;
  private snaps = 0;
  // isLost is set while the connection is lost; attempts counts the
  // attempts to connect again since, and rejoined the times it came back.
  isLost = false;
  attempts = 0;
  rejoined = 0;
  private reconnecting = false;
  // lostLead is what the status says of the loss: "connection lost", or
  // the server's reason when it closed the session.
  private lostLead = 'connection lost';
  // lostCore is the core whose link was lost: only another brings the
  // page back.
  private lostCore: Core | null = null;

  // lost reports whether the running core has lost its match: its link
  // closed, the server closed its session, its thread ran for silentMs
  // without a datagram from the server, or the page drew for
  // workerQuietMs without an answer from the core's worker. Only time a
  // thread ran counts (core.ts's Silence): a page or worker that the
  // machine starves for seconds hears nothing meanwhile however well the
  // server sends, and is not a lost server.
  lost(silentMs: number): boolean { return this.lostWhy(silentMs) !== ''; }

  // lostWhy says why lost is true, or ''.
  lostWhy(silentMs: number): string {
    const core = this.core;
    if (!core || !this.coreReady) return '';
    if (this.linkDown) {
      // A server that closes the link says why first, in a datagram
      // the core has read: the page waits for the info after the close
      // (half a second at most) to tell that reason, not a loss.
      if (this.infoAt < this.linkDownAt && performance.now() - this.linkDownAt < 500) return '';
      return this.info?.phase === 'closed' ? 'the server closed the session' : 'the link closed';
    }
    if (this.info?.phase === 'closed') return 'the server closed the session';
    const silent = core.silentMs(), quiet = core.quietMs();
    if (silent > silentMs) return `nothing heard for ${silent.toFixed(0)} ms`;
    if (quiet > workerQuietMs) return `no answer from the client core's worker for ${quiet.toFixed(0)} ms`;
    return '';
  }

  // watch runs a few times a second: a link that heard nothing for
  // lostAfterMs is lost, which the page says, and (reconnects) it
  // connects again, waiting longer after each failed attempt.
  watch(): void {
    if (this.restarting || this.reconnecting) return;
    if (!this.core) {
      if (this.isLost && this.reconnects) void this.reconnect();
      return;
    }
    if (this.info?.phase === 'closed' && this.info.serverMap) return;
    const why = this.lostWhy(lostAfterMs);
    if (!why) return;
    if (!this.isLost) {
      this.isLost = true;
      this.lostCore = this.core;
      // A server that ended the session said why (a shutdown, a kick):
      // that is what the player is told, not a loss.
      const reason = this.info?.phase === 'closed' ? serverSaid(this.info.reason) : '';
      this.lostLead = reason ? `the server closed the connection: ${reason}` : 'connection lost';
      hud.status(this.reconnects ? `${this.lostLead} — reconnecting…` : this.lostLead);
      hud.lost(true);
      console.info(`lagkit: connection lost: ${why}`);
    }
    // A new link that hears nothing either is tried again, later.
    if (this.reconnects) void this.reconnect();
  }

  // rejoinAs is the seat and team the page had before it lost its
  // server: a reconnect asks for them (a restarted server knows nothing
  // of the page).
  private rejoinAs = { seat: -1, team: -1 };

  private async reconnect(): Promise<void> {
    this.reconnecting = true;
    const was = this.info;
    if (was && was.id >= 0) this.rejoinAs = { seat: was.id, team: was.team };
    try {
      for (;;) {
        const wait = reconnectMs[Math.min(this.attempts, reconnectMs.length - 1)];
        this.attempts++;
        // The wait counts down, a tenth of a second at a time.
        const until = performance.now() + wait;
        for (let left = wait; left > 0; left = until - performance.now()) {
          hud.status(`${this.lostLead} — reconnecting in ${(Math.ceil(left / 100) / 10).toFixed(1)} s (attempt ${this.attempts})`);
          await new Promise((r) => setTimeout(r, Math.min(100, left)));
        }
        hud.status(`${this.lostLead} — reconnecting (attempt ${this.attempts})…`);
        this.core?.stop('reconnecting');
        this.core = null;
        try {
          await this.start(this.mapName || defaultMap);
          return; // watch judges the new link: snapshots end isLost
        } catch (e) {
          hud.status(`${this.lostLead} — ${(e as Error).message}`);
          console.info(`lagkit: reconnect: ${(e as Error).message}`);
        }
      }
    } finally {
      this.reconnecting = false;
    }
  }

  async start(mapName: string, creds?: { token: string; name: string }): Promise<void> {
    const text = await loadMap(mapName);
    this.mapName = mapName;
    const m = JSON.parse(text) as MapFile;
    this.view.setMap(m);
    this.minimap.setMap(m);
    this.boxes = m.boxes;
    const { token, name } = creds ?? await this.credentials();
    hud.name = this.name = name;
    this.conn++;
    console.info(`lagkit: connection ${this.conn} to ${mapName}${this.isLost ? ' after a loss' : ''}`);
    hud.names.clear(); // the server names every player again
    if (!this.isLost) hud.status('connecting…');
    const inWorker = useWorker();
    // A core on the page's thread keeps its link in a worker where the
    // browser has them, so that datagrams are stamped as they arrive
    // (workerLink).
    this.core = inWorker ? new WorkerCore(import.meta.url)
      : new LocalCore(typeof Worker !== 'undefined' ? workerLink(import.meta.url) : openLink);
    this.perf.stepInPage = !inWorker;
    const core = this.core;
    this.linkDown = false;
    this.closing = false;
    this.coreReady = false;
    this.snaps = 0;
    this.placeCount = 0;
    this.controls.input.placed = 0;
    core.onClosed = (reason) => {
      if (this.core !== core) return;
      this.linkDown = true;
      this.linkDownAt = performance.now();
      // A link closed after the server said why tells nothing more.
      if (!this.quietClose && !this.isLost && !this.closing) hud.status(reason);
    };
    try {
      await core.start({
        mapText: text, token, name, display: params.get('display') ?? '',
        interpDelayMs: query.interpMs, transport: query.transport,
        rejoinSeat: this.isLost ? this.rejoinAs.seat : -1, rejoinTeam: this.isLost ? this.rejoinAs.team : -1,
      });
    } catch (e) {
      if (this.core === core) {
        core.stop('failed to start');
        this.core = null;
      }
      throw e;
    }
    if (this.core === core) this.coreReady = true;
  }

  pump(): void {
    if (!this.core) return;
    const t0 = performance.now();
    this.core.pump(this.controls.input);
    // A core on the page's thread counts its pumps in its step.
    if (!this.perf.stepInPage) this.perf.pumped(performance.now() - t0);
  }

  frame(): void {
    this.menu.update(this.controls.locked);
    if (!this.core) return;
    const now = performance.now();
    const p = this.core.pull(now);
    if (!p) return;
    this.packed.f = p.f;
    const infos = p.infos.length > 0 ? p.infos.map((t) => this.parseInfo(t)) : noInfos;
    if (this.frameAt > 0) {
      const dt = now - this.frameAt;
      hud.fps = hud.fps * 0.9 + (dt > 0 ? 1000 / dt : 0) * 0.1;
      this.onFrame?.(dt, this.info && !this.isLost ? this.info.net.rttMs : 0);
    }
    this.frameAt = now;
    this.frames++;
    this.perf.frames++;
    this.perf.stepped(this.core.stepMs());
    const drawStart = performance.now();
    this.perf.state += drawStart - now;
    for (const st of infos) {
      if (!this.takeInfo(st, now)) return;
    }
    this.perf.info += performance.now() - drawStart;
    if (this.info) this.draw(this.info, now);
    this.perf.tracers = Math.max(this.perf.tracers, this.effects.tracerCount);
    const end = performance.now();
    this.perf.draw += end - drawStart;
    this.perf.framed(end - now);
    hud.frameMs = hud.frameMs * 0.9 + (end - now) * 0.1;
  }

  // parseInfo parses an info's JSON. The core leaves the scoreboard's
  // rows out (null) when they did not change since its last info: they
  // are the last info's.
  private rows: CoreState['score']['rows'] = [];
  private parseInfo(text: string): CoreState {
    const st = JSON.parse(text) as CoreState;
    if (st.score.rows) this.rows = st.score.rows;
    else st.score.rows = this.rows;
    return st;
  }

  // takeInfo handles a new info: its events, tracers, rewinds and
  // explosions, and the HUD's text. It returns false when the page starts
  // again on the server's map.
  private takeInfo(st: CoreState, now: number): boolean {
    this.info = st;
    this.infoAt = now;
    if (st.net.snapshots !== this.snaps) {
      this.snaps = st.net.snapshots;
      if (this.isLost && st.phase === 'connected' && this.core !== this.lostCore) {
        this.isLost = false;
        this.attempts = 0;
        this.rejoined++;
        hud.status('');
        this.note('reconnected');
      }
    }
    if (st.phase === 'closed' && !this.linkDown && !this.closing) {
      // The server ended the session: the page closes its end, which
      // tells a server that waits for it (repeating its goodbye in case
      // it was not read) that the goodbye was read.
      this.closing = true;
      this.core?.close('session ended by the server');
    }
    if (this.isLost && st.phase === 'closed' && st.reason && this.core === this.lostCore) {
      // The server's reason may come after its link closed.
      this.lostLead = `the server closed the connection: ${serverSaid(st.reason)}`;
    }
    if (st.events.length > 0) this.recent = [...this.recent, ...st.events].slice(-32);
    if (st.phase === 'closed' && st.serverMap && st.serverMap !== this.mapName) {
      // The server plays another map: load it and connect again, once,
      // on a new link (the server closes a link whose session ended).
      if (this.restarting) return false;
      this.restarting = true;
      this.core?.stop('loading the server\'s map');
      this.info = null;
      this.start(st.serverMap)
        .then(() => hud.status(''), (e) => hud.status(`error: ${e.message}`))
        .finally(() => { this.restarting = false; });
      return false;
    }
    this.effects.addImpacts(st.tracers, st.rewinds, now);
    for (const r of st.rewinds) {
      const list = r.mine ? 'mine' : 'onMe';
      const shown = this.shownRewind();
      // In the order fired: a miss is known only after a hit fired later.
      // Shot ticks are the server's, which start again with a restarted
      // server: the connection orders first, so a new connection's shots
      // are the newest, and the oldest go when the history is full.
      r.conn = this.conn;
      const l = [...this.history[list], r].sort((a, b) => a.conn! - b.conn! || a.shotTick - b.shotTick);
      this.history[list] = l.slice(-historyLength);
      if (this.back === 0) {
        // A new rewind shows unless the player is looking back ...
        this.list = list;
      } else if (list === this.list && shown) {
        // ... and then the one looked at stays.
        const i = this.history[list].indexOf(shown);
        this.back = i < 0 ? 0 : this.history[list].length - 1 - i;
      }
    }
    if (st.loadout?.length) {
      this.controls.weapons = st.loadout.length;
      this.menu.setLoadout(st.loadout);
    }
    this.menu.setFovMax(st.fov && st.fov > 0 ? st.fov : 90);
    this.effects.addTracers(st.tracers, now);
    this.sounds(st, now);
    this.effects.addExplosions(st.explosions, now);
    const pk = this.packed;
    hud.update(st, this.core?.linkKind() ?? '', this.isLost, (id) => {
      const i = pk.find(id);
      return i < 0 ? null : [pk.x(i), pk.y(i)];
    });
    return true;
  }

  // sounds plays what a new info brings, in the frame that shows it: a
  // shot's sound with its muzzle flash, impacts where shots land, the
  // hit confirmation, deaths and the reload.
  private sounds(st: CoreState, now: number): void {
    const f = this.frames, pk = this.packed;
    for (const t of st.tracers) {
      if (t.kind === 'own') {
        const flashAt = hud.flash(now);
        this.sound.play('shot', null, f);
        this.lastShot = { flashFrame: f, flashAt, soundFrame: this.sound.last!.frame, soundAt: this.sound.last!.at };
        this.sound.play('impact', t.to, f, 0.5);
      } else if (t.kind === 'shot') {
        this.effects.muzzle(t.from, t.to, now);
        this.sound.play('distantShot', t.from, f);
      } else {
        this.sound.play('impact', t.to, f);
      }
    }
    for (const e of st.events) {
      if (e.kind === 'hit') this.sound.play('hit', null, f, 0.8);
      if (e.kind === 'kill') {
        const i = e.other === pk.id ? -1 : pk.find(e.other);
        this.sound.play('death', i === -1 || i < -1 ? null : [pk.x(i), pk.y(i), pk.z(i) + 1], f, 0.8);
      }
    }
    const reloading = st.self.reloading;
    if (reloading && !this.reloading) this.sound.play('reload', null, f, 0.7);
    this.reloading = reloading;
  }

  // footsteps plays a step each 1.6 m a player on the ground walks: the
  // player's own, and those of others within 12 m.
  private footsteps(): void {
    const pk = this.packed, f = this.frames;
    const step = (x: number, y: number, z: number, dead: boolean, o: Float32Array, k: number, pos: Vec3 | null, gain: number) => {
      const dx = x - o[k], dy = y - o[k + 1];
      o[k] = x;
      o[k + 1] = y;
      const d = Math.hypot(dx, dy);
      if (dead || !(d < 1) || Math.abs(z - Math.round(z * 4) / 4) > 0.02) return; // airborne, teleported, or just seen
      if (!(o[k + 2] >= 0)) o[k + 2] = 0;
      o[k + 2] += d;
      if (o[k + 2] > 1.6) {
        o[k + 2] = 0;
        this.sound.play('step', pos, f, gain);
      }
    };
    const self = this.othersSelf;
    step(pk.x(-1), pk.y(-1), pk.z(-1), (pk.flags(-1) & Dead) !== 0, self, 0, null, 0.35);
    const e = pk.eye;
    for (let i = 0; i < pk.players; i++) {
      const id = pk.playerID(i), x = pk.x(i), y = pk.y(i);
      if (id < 0 || id > 255) continue;
      if (Math.hypot(x - e[0], y - e[1]) > 12) {
        this.others[3 * id] = NaN;
        continue;
      }
      step(x, y, pk.z(i), (pk.flags(i) & Dead) !== 0, this.others, 3 * id, [x, y, pk.z(i)], 0.6);
    }
  }
  private othersSelf = new Float32Array(3).fill(NaN);
  private labels = new Labels(document.getElementById('labels')!);

  // draw draws the frame: the packed frame's players, projectiles and
  // eye, with st the newest info.
  private draw(st: CoreState, now: number): void {
    const pk = this.packed;
    if (pk.phase === 'connected' && pk.f[12] !== this.placeCount) {
      // The server placed the player (spawn, respawn, teleport): the
      // view turns the way it faces.
      this.placeCount = pk.f[12];
      if (this.placeCount > 0) this.controls.face(pk.f[13], pk.f[14]);
      this.controls.input.placed = this.placeCount;
    }
    const shown = this.shownRewind();
    this.effects.showRewind(shown, this.rewindOn);
    this.effects.setProjectiles(pk.projectiles > 0 ? pk.projectileList() : noProjectiles);
    this.effects.update(now);
    hud.rewind(this.effects.shown, this.rewindOn, this.list, this.back, this.history, this.conn);
    const fov = this.menu.fov();
    // The horizontal field of view, as a vertical one.
    const vfov = 2 * Math.atan(Math.tan((fov * Math.PI) / 360) / this.view.camera.aspect) * 180 / Math.PI;
    const input = this.controls.input;
    let [yaw, pitch] = [input.yaw, input.pitch];
    let eye = pk.eye;
    // The death camera: dead, look at the killer from near it until the
    // respawn, with a countdown.
    const dead = (pk.flags(-1) & Dead) !== 0;
    if (dead && this.deadAt < 0) this.deadAt = now;
    if (!dead) this.deadAt = -1;
    this.respawnIn = dead ? Math.max(0, (this.deadAt + st.respawnMs - now) / 1000) : 0;
    hud.dead(dead, this.respawnIn);
    // No crosshair over the death camera: nothing aims from there.
    hud.crosshair(!dead);
    const killer = dead && st.killer >= 0 && st.killer !== pk.id ? pk.find(st.killer) : -2;
    this.deathCam = killer >= 0;
    this.deathView = null;
    if (killer >= 0) {
      const v = deathView([pk.x(killer), pk.y(killer), pk.z(killer)], eye, this.boxes);
      this.deathView = v;
      eye = v.pos;
      const d = [v.target[0] - eye[0], v.target[1] - eye[1], v.target[2] - eye[2]];
      yaw = Math.atan2(d[1], d[0]);
      pitch = Math.atan2(d[2], Math.hypot(d[0], d[1]));
    }
    this.viewAt = { pos: eye, yaw, pitch, fov };
    this.view.aim(eye, yaw, pitch, vfov);
    this.drawPlayers();
    // The rewind view of the player's own shot is drawn in the first
    // person view; of a shot on the player, in the inset, seen from
    // behind the shooter.
    const r = this.effects.shown;
    const renderStart = performance.now();
    this.view.render(eye, yaw, pitch, vfov, r && r.mine ? Effects.rewindLayer : 0);
    if (r && !r.mine) {
      const v = vantage(r);
      this.view.renderInset(v.pos, v.target, Effects.rewindLayer);
    } else {
      this.view.renderInset(null, eye, 0);
    }
    this.perf.render += performance.now() - renderStart;
    this.footsteps();
    // The view's size as three.js keeps it: reading the canvas's would
    // force a layout every frame.
    const size = this.view.size;
    this.labels.draw(pk, this.view.camera, size[0], size[1], (id) => (id === pk.id ? this.name : hud.names.get(id) ?? ''), dead ? st.killer : -1,
      st.team, (x, y, z) => firstHit(this.boxes, eye, [x, y, z]) >= 1);
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

  // rewindState is state().rewindView: on, drawn, the list shown, its
  // position, the lists' lengths, the rewind drawn (last), where it is
  // seen from (camera: the first-person eye for the player's own shots,
  // the inset's vantage for shots on the player) and how close its
  // wireframes come to that camera (nearestM).
  private rewindState(): Record<string, unknown> {
    const r = this.effects.shown;
    const camera: Vec3 = r && !r.mine ? vantage(r).pos : this.viewAt.pos;
    return {
      on: this.rewindOn, drawn: r !== null, last: this.shownRewind(), list: this.list, back: this.back,
      mine: this.history.mine.length, onMe: this.history.onMe.length, inset: this.view.insetRect,
      conn: this.conn, shots: this.history[this.list].map((x) => ({ conn: x.conn, shotTick: x.shotTick, outcome: x.outcome })),
      panel: document.getElementById('rewind')!.textContent,
      camera, nearestM: r ? this.effects.clearance(camera) : null,
    };
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
    const el = (id: string) => document.getElementById(id)!;
    return {
      ...st, phase: pk.phase, id: pk.id, self, players: pk.playerList(), eye: pk.eye, ammo: pk.ammo,
      projectiles: pk.projectileList(), tick: pk.tick,
      transport, frames: this.frames, recentEvents: this.recent,
      rewindView: this.rewindState(), lens: { netgraph: this.netgraphOn, impacts: this.effects.impactsOn, impactsDrawn: this.effects.impactCount, tracersDrawn: this.effects.tracerCount },
      labels: { ...this.labels.resolved }, deathCam: this.deathCam, deathView: this.deathView, respawnIn: this.respawnIn,
      name: this.name, view: this.viewAt, lost: this.isLost, attempts: this.attempts, rejoined: this.rejoined,
      sound: { state: this.sound.state, played: this.sound.played, last: this.sound.last, lastShot: this.lastShot },
      status: el('status').textContent, notes: this.notes, ammoShown: el('ammo').textContent !== '',
      respawnText: el('respawn').textContent,
      menu: { open: this.menu.open, help: el('help').textContent, settings: this.menu.settings, fov: this.menu.fov() },
      connected: pk.phase === 'connected' && !this.isLost, rtt_ms: st.net.rttMs, pos: self.pos, yaw: self.yaw, pitch: self.pitch,
      health: self.health, team: st.team, alive: !self.dead, kills: st.score.kills, deaths: st.score.deaths,
      prediction_error_m: st.net.predictionErrorM,
    };
  }
}

// deathView places the death camera: from near the killer (standing at
// feet k), on the corpse's side (eye e) and above, looking at the killer,
// pulled in where a box stands in the way, so the killer is in sight.
function deathView(k: Vec3, e: Vec3, boxes: Box[]): { pos: Vec3; target: Vec3 } {
  const target: Vec3 = [k[0], k[1], k[2] + 1.1];
  let ux = e[0] - k[0], uy = e[1] - k[1];
  const n = Math.hypot(ux, uy);
  if (n < 1e-3) [ux, uy] = [1, 0]; else [ux, uy] = [ux / n, uy / n];
  const dist = Math.min(3.5, Math.max(1.5, n));
  const want: Vec3 = [k[0] + ux * dist, k[1] + uy * dist, k[2] + 2.4];
  const from: Vec3 = [k[0], k[1], k[2] + 1.6];
  const t = firstHit(boxes, from, want);
  const len = Math.hypot(want[0] - from[0], want[1] - from[1], want[2] - from[2]);
  const f = t >= 1 ? 1 : Math.max(0, t - 0.3 / len);
  return { pos: [from[0] + (want[0] - from[0]) * f, from[1] + (want[1] - from[1]) * f, from[2] + (want[2] - from[2]) * f], target };
}

// firstHit is the fraction of the segment from a to b before it first
// enters one of boxes (1: it enters none).
export function firstHit(boxes: Box[], a: Vec3, b: Vec3): number {
  let best = 1;
  const d = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
  for (const box of boxes) {
    let lo = 0, hi = best;
    for (let i = 0; i < 3 && lo <= hi; i++) {
      if (Math.abs(d[i]) < 1e-9) {
        if (a[i] < box.min[i] || a[i] > box.max[i]) hi = -1;
        continue;
      }
      let t0 = (box.min[i] - a[i]) / d[i], t1 = (box.max[i] - a[i]) / d[i];
      if (t0 > t1) [t0, t1] = [t1, t0];
      lo = Math.max(lo, t0);
      hi = Math.min(hi, t1);
    }
    if (lo <= hi && lo < best) best = lo;
  }
  return best;
}

const noInfos: CoreState[] = [];
const noProjectiles: Projectile[] = [];

// startStudy plays the page as a study's participant holding code: it
// joins each round's match by code and shows the study's overlay between
// rounds (study.ts), polling the study's status every half second.
async function startStudy(game: Game, code: string, api: Record<string, unknown>): Promise<void> {
  const study = new Study(code);
  // A participant sees nothing of the condition: the net graph starts
  // hidden (the study's server mandates what is shown, feedback none
  // unless the schedule sets a feedback condition) and never names the
  // policy or the injected latency.
  hud.blind = true;
  game.lens({ netgraph: false });
  game.quietClose = true;
  game.credentials = async () => {
    const a = await study.join();
    return { token: a.token, name: a.name };
  };
  game.reconnects = false;
  study.linkClosed = () => game.lost(2000);
  study.sensitivity = () => game.menu.settings.sensitivity;
  game.onFrame = (dt, rttMs) => study.frame(dt, rttMs);
  study.onRound = async (a) => {
    game.core?.stop('the next round');
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
  // agree agrees to the consent text and resolves to the HTTP status.
  api.agree = () => study.agree();
  await study.poll();
  let busy = false;
  const timer = setInterval(() => {
    if (study.fatal) {
      clearInterval(timer);
      return;
    }
    if (busy) return;
    busy = true;
    study.poll().catch((e) => console.warn(`study: ${e?.message ?? e}`)).finally(() => { busy = false; });
  }, 500);
}

async function main(): Promise<void> {
  if (query.errors.length > 0) {
    // Nothing starts: a page that played on would not be what the
    // address asked for.
    showFatal('This page\'s address asks for what it cannot do', query.errors);
    hud.status('');
    (window as any).lagkit = { state: () => null, errors: () => query.errors };
    return;
  }
  if (query.spectate) {
    // A spectator joins no seat: no client core, no link.
    await startSpectator();
    return;
  }
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
    // lens({netgraph, impacts}) shows or hides the net graph and the
    // impacts, and returns what is shown.
    lens: (o: { netgraph?: boolean; impacts?: boolean } = {}) => game.lens(o),
    // rewindStep(n) shows the n-th older (n > 0) or newer rewind;
    // rewindList('mine' | 'onMe') switches between the player's own
    // shots and shots on the player (toggles without an argument).
    rewindStep: (n: number) => game.stepRewind(n),
    rewindList: (l?: 'mine' | 'onMe') => game.flipRewind(l),
    // reportSBC sends the report and resolves to '' or why it was not
    // sent, as the B key does.
    reportSBC: () => game.report(),
    // menu opens (true) or closes (false) the menu, or lets the pointer
    // lock decide again (null); it returns whether it is open.
    menu: (open?: boolean | null) => { if (open !== undefined) game.menu.force(open); game.menu.update(game.controls.locked); return game.menu.open; },
    // input sets the held input: any of forward, side, up (-1..1), yaw,
    // pitch (radians), fire, alt, jump, crouch, reload, sprint, weapon.
    input: (i: Partial<Input>) => { game.menu.scripted = true; game.controls.set(i); },
    // perf returns the mean time per frame in ms spent in the client
    // core's step, its state (interpolation) and drawing since the last
    // call, the frames drawn, each frame's time on the page's thread
    // (samples), and the most tracers a frame drew (tracers).
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
  setInterval(() => game.pump(), 4);
  setInterval(() => game.watch(), 100);
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
    showFatal('lagkit could not start', [String(e?.message ?? e)]);
  });
}

// serverSaid is the server's own reason in the core's closing reason,
// which words it "disconnected by server: …": the status line's lead
// says that already.
function serverSaid(reason: string): string {
  return reason.replace(/^disconnected by server: /, '');
}
