// admin.ts is a live study's admin page (/admin#token=TOKEN): the study's
// phase and time remaining, who is seated (code, team, connected, kills
// and deaths, round trip, questionnaire answered), the commands (start,
// pause, resume, skip, extend, end), and the spectator's view of the
// round's match: a top-down map of every player in team colours with the
// latest hits' rewinds drawn (where the server tested the victim, where
// the victim was, the shot's line), and a free camera in 3D. The admin
// token comes from the URL's fragment, which the browser never sends, so
// it stays out of server and proxy logs; the page sends it as a bearer
// token to the study's admin endpoints.
import { View } from './view';
import { betweenViews } from './between';
import { Effects } from './effects';
import type { MapFile, Part, Player, Rewind, Vec3 } from './types';

const $ = (id: string) => document.getElementById(id)!;
const api = '/lagkit/study/admin/';
// The token is kept for the tab's session, so a reload keeps working
// once the address bar no longer shows it.
const token = new URLSearchParams(location.hash.slice(1)).get('token') ?? sessionStorage.getItem('lagkit-admin-token') ?? '';

interface Seat {
  seat: number; code?: string; bot: boolean; connected: boolean; team: number;
  kills: number; deaths: number; rtt_ms: number; answered: boolean;
}
interface State {
  study: string; phase: string; round: number; rounds: number; round_name: string; technique: string;
  map: string; mode: string; remaining_s: number; match: string; seats: Seat[];
}
interface ViewPlayer {
  seat: number; name: string; bot: boolean; team: number; pos: Vec3; yaw: number; pitch: number;
  health: number; crouched: boolean; dead: boolean; protected: boolean; carrier: boolean;
  kills: number; deaths: number; rtt_ms: number; parts: Part[];
}
interface ViewRewind {
  seq: number; time_s: number; shooter: number; victim: number; part: string; outcome: string;
  rewind_ms: number; rollback_m: number; eye: Vec3; tested: Part[]; now: Part[];
}
interface MatchView {
  match: string; map: string; mode: string; tick: number; time_s: number; score: [number, number];
  time_left_s: number; players: ViewPlayer[]; rewinds: ViewRewind[];
}

// Colours shared with the player's rewind view (effects.ts).
const teamCss = ['#ff6b5e', '#6ba8ff'];
const testedCss = '#ffd23f', nowCss = '#ff4fd8';
// rewindShownS is how long a hit stays drawn on the map.
const rewindShownS = 4;

async function call(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(api + path, {
    ...init, cache: 'no-store',
    headers: { ...(init.headers ?? {}), Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
  });
}

async function failure(res: Response): Promise<string> {
  const text = await res.text();
  try { return JSON.parse(text).error ?? text; } catch { return text.trim() || `HTTP ${res.status}`; }
}

function fmtTime(s: number): string {
  if (!(s > 0)) return '–';
  const m = Math.floor(s / 60);
  return `${m}:${String(Math.floor(s % 60)).padStart(2, '0')}`;
}

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

class Admin {
  state: State | null = null;
  view: MatchView | null = null;
  // prev is the view before view; the page draws the players between
  // the two, one poll behind, so they move smoothly at any frame rate.
  private prev: { view: MatchView; at: number } | null = null;
  private at = 0;
  map: MapFile | null = null;
  private mapMatch = '';
  private since = 0;
  rewinds: ViewRewind[] = [];
  // drawn counts what the last map drawing showed: players and rewinds.
  drawn = { players: 0, rewinds: 0 };
  commands: { action: string; status: number; error: string }[] = [];
  private three: View | null = null;
  private effects: Effects | null = null;
  // cam is the free camera; follow the seat whose eyes it looks through
  // instead (-1: none), chosen by clicking the player on the map.
  cam = { pos: [0, 0, 30] as Vec3, yaw: 0, pitch: -0.9 };
  follow = -1;
  // mapScale maps world x, y to the map canvas's pixels (drawMap).
  private toCanvas: ((p: Vec3) => [number, number]) | null = null;
  private keys = new Set<string>();
  private endArmed = false;
  private lastFrame = performance.now();

  constructor() {
    // A seat's link button copies the participant's link, the page's
    // address with the code.
    $('seats').addEventListener('click', (e) => {
      const b = (e.target as HTMLElement).closest('button.link') as HTMLButtonElement | null;
      if (!b) return;
      const url = `${location.origin}/?code=${encodeURIComponent(b.dataset.code ?? '')}`;
      navigator.clipboard?.writeText(url).then(
        () => { $('message').textContent = `copied ${url}`; },
        () => { $('message').textContent = url; });
    });
    $('map').addEventListener('click', (e) => {
      const c = e.currentTarget as HTMLCanvasElement;
      const r = c.getBoundingClientRect();
      this.pick((e.clientX - r.left) * (c.width / r.width), (e.clientY - r.top) * (c.height / r.height));
    });
    for (const action of ['start', 'pause', 'resume', 'skip', 'extend', 'end']) {
      $(action).addEventListener('click', () => {
        const extend = action === 'extend' ? ($('extend-by') as HTMLInputElement).value.trim() : '';
        // End asks for a second click within 5 s (no modal dialog, which
        // would stall the page's polling and automation).
        if (action === 'end' && !this.endArmed) {
          this.endArmed = true;
          $('end').textContent = 'Click again to end';
          setTimeout(() => { this.endArmed = false; $('end').textContent = 'End study'; }, 5000);
          return;
        }
        this.command(action, extend);
      });
    }
    try {
      this.three = new View($('view3d'));
      this.effects = new Effects(this.three.scene);
      this.freeCamera(this.three.renderer.domElement);
    } catch (e) {
      // No WebGL: the map and the table still work.
      $('view3d').textContent = `no 3D view: ${(e as Error).message}`;
    }
  }

  async command(action: string, extend = ''): Promise<number> {
    const body = extend ? { action, extend } : { action };
    const res = await call('command', { method: 'POST', body: JSON.stringify(body) });
    const error = res.ok ? '' : await failure(res);
    const msg = $('message');
    msg.className = res.ok ? 'ok' : '';
    msg.textContent = res.ok ? `${action}: done` : `${action}: ${error}`;
    await this.poll();
    // Listed once the state it led to is shown.
    this.commands.push({ action, status: res.status, error });
    return res.status;
  }

  private polls = 0;
  private applied = 0;

  // poll reads the study's state; a reply overtaken by a later request's
  // is dropped, so a command's result is never undone on screen.
  async poll(): Promise<void> {
    const seq = ++this.polls;
    const res = await call('state');
    if (res.status === 401) {
      document.body.classList.add('noauth');
      return;
    }
    if (!res.ok) {
      $('message').textContent = `state: ${await failure(res)}`;
      return;
    }
    const st: State = await res.json();
    if (seq < this.applied) return;
    this.applied = seq;
    this.state = st;
    this.showState();
  }

  private showState(): void {
    const st = this.state!;
    $('study').textContent = st.study;
    const phase = $('phase');
    phase.textContent = st.phase;
    phase.className = st.phase;
    $('round').textContent = `round ${Math.min(st.round + 1, st.rounds)} of ${st.rounds}${st.round_name ? ` · ${st.round_name}` : ''}`;
    $('technique').textContent = [st.technique, st.map, st.mode].filter(Boolean).join(' · ');
    $('remaining').textContent = fmtTime(st.remaining_s);
    const p = st.phase;
    const enable: Record<string, boolean> = {
      start: p === 'waiting',
      pause: ['warmup', 'ready', 'countdown', 'playing'].includes(p),
      resume: p === 'paused',
      skip: !['waiting', 'ended', 'stopped'].includes(p),
      extend: ['warmup', 'playing', 'paused', 'questions', 'interval'].includes(p),
      end: !['ended', 'stopped'].includes(p),
    };
    for (const [id, on] of Object.entries(enable)) ($(id) as HTMLButtonElement).disabled = !on;
    $('seats').querySelector('tbody')!.innerHTML = st.seats.map((s) => {
      return `<tr class="${s.connected ? '' : 'off'}" data-seat="${s.seat}">` +
        `<td>${s.seat}</td><td class="code">${s.bot ? 'bot' : `${esc(s.code ?? '')} <button class="link" data-code="${esc(s.code ?? '')}" title="copy the participant's link">link</button>`}</td>` +
        `<td class="team${s.team}">${s.team === 0 ? 'red' : 'blue'}</td>` +
        `<td class="${s.connected ? 'yes' : 'no'}">${s.connected ? 'yes' : 'no'}</td>` +
        `<td>${s.kills}</td><td>${s.deaths}</td><td>${s.rtt_ms.toFixed(0)}</td>` +
        `<td class="${s.answered ? 'yes' : 'no'}">${s.bot ? '' : s.answered ? 'yes' : 'no'}</td></tr>`;
    }).join('');
  }

  // spectate fetches the round's match as the server has it now, with
  // the hits since the last fetch.
  async spectate(): Promise<void> {
    const match = this.state?.match ?? '';
    if (!match) {
      this.view = null;
      $('match').textContent = '(no round playing)';
      return;
    }
    if (match !== this.mapMatch) {
      const res = await call('map');
      if (!res.ok || res.status === 204) return; // 204: the round has just ended
      this.map = await res.json();
      this.mapMatch = match;
      this.since = 0;
      this.rewinds = [];
      this.three?.setMap(this.map!);
      const [min, max] = [this.map!.bounds.min, this.map!.bounds.max];
      // Start above the map's south edge, looking north and down.
      this.cam = { pos: [(min[0] + max[0]) / 2, min[1] - 4, 24], yaw: Math.PI / 2, pitch: -0.75 };
    }
    const res = await call(`spectate?since=${this.since}`);
    if (!res.ok || res.status === 204) return; // 204: the round has just ended
    const v: MatchView = await res.json();
    if (v.match !== this.mapMatch) return;
    this.prev = this.view && this.view.match === v.match ? { view: this.view, at: this.at } : null;
    this.view = v;
    this.at = performance.now();
    for (const r of v.rewinds) this.since = Math.max(this.since, r.seq);
    this.rewinds = [...this.rewinds, ...v.rewinds].slice(-32);
    $('match').textContent = `${v.match} · ${v.map} · ${v.score[0]}–${v.score[1]}`;
    this.showRewinds();
  }

  private recent(): ViewRewind[] {
    const now = this.view?.time_s ?? 0;
    return this.rewinds.filter((r) => now - r.time_s <= rewindShownS);
  }

  // players returns the players where the page draws them at now:
  // between the last two views, a player that moved more than 3 m
  // between them (a respawn, a teleport) at its newest place.
  players(now: number): ViewPlayer[] {
    const v = this.view;
    if (!v) return [];
    const p = this.prev;
    return betweenViews(p ? p.view.players : null, p ? p.at : 0, v.players, this.at, now);
  }

  // pick follows the living player drawn nearest the map's pixel (x, y),
  // within 14 pixels; elsewhere it frees the camera.
  pick(x: number, y: number): number {
    let best = -1, bestD = 14;
    for (const p of this.view?.players ?? []) {
      if (p.dead || !this.toCanvas) continue;
      const [px, py] = this.toCanvas(p.pos);
      const d = Math.hypot(px - x, py - y);
      if (d < bestD) [best, bestD] = [p.seat, d];
    }
    this.setFollow(best);
    return best;
  }

  setFollow(seat: number): void {
    if (this.follow >= 0 && seat < 0) {
      // Leave the followed eyes where they were.
      const p = this.view?.players.find((q) => q.seat === this.follow);
      if (p) this.cam = { pos: this.eye(p), yaw: p.yaw, pitch: p.pitch };
    }
    this.follow = seat;
    $('follow').textContent = seat >= 0 ? `following #${seat}: click the map elsewhere, drag or move to fly free` : '';
  }

  private eye(p: ViewPlayer): Vec3 {
    const head = p.parts.find((q) => q.kind === 'head');
    return head ? [...head.a] as Vec3 : [p.pos[0], p.pos[1], p.pos[2] + 1.6];
  }

  drawMap(players: ViewPlayer[]): void {
    const canvas = $('map') as HTMLCanvasElement;
    const g = canvas.getContext('2d');
    const m = this.map, v = this.view;
    if (!g) return;
    const { width: w, height: h } = canvas;
    if (!m || !v) {
      g.clearRect(0, 0, w, h);
      this.drawn = { players: 0, rewinds: 0 };
      return;
    }
    const [min, max] = [m.bounds.min, m.bounds.max];
    const scale = Math.min(w / (max[0] - min[0]), h / (max[1] - min[1]));
    const x = (px: number) => (px - min[0]) * scale;
    const y = (py: number) => h - (py - min[1]) * scale;
    this.toCanvas = (p) => [x(p[0]), y(p[1])];
    g.clearRect(0, 0, w, h);
    g.fillStyle = '#1c232a';
    g.fillRect(0, h - (max[1] - min[1]) * scale, (max[0] - min[0]) * scale, (max[1] - min[1]) * scale);
    for (const b of m.boxes) {
      g.fillStyle = b.max[2] > 1.2 ? '#6d747c' : '#4f5660'; // low cover lighter than walls
      g.fillRect(x(b.min[0]), y(b.max[1]), (b.max[0] - b.min[0]) * scale, (b.max[1] - b.min[1]) * scale);
    }
    const circle = (pos: Vec3, r: number, stroke: string, fill?: string) => {
      g.beginPath();
      g.arc(x(pos[0]), y(pos[1]), r, 0, 2 * Math.PI);
      if (fill) { g.fillStyle = fill; g.fill(); }
      g.strokeStyle = stroke;
      g.stroke();
    };
    const centre = (parts: Part[]): Vec3 => {
      const t = parts.find((p) => p.kind === 'torso') ?? parts[0];
      return t ? [(t.a[0] + t.b[0]) / 2, (t.a[1] + t.b[1]) / 2, (t.a[2] + t.b[2]) / 2] : [0, 0, 0];
    };
    const rewinds = this.recent();
    g.lineWidth = 1.5;
    for (const r of rewinds) {
      const tested = centre(r.tested), now = centre(r.now);
      g.strokeStyle = testedCss;
      g.setLineDash([4, 3]);
      g.beginPath();
      g.moveTo(x(r.eye[0]), y(r.eye[1]));
      g.lineTo(x(tested[0]), y(tested[1]));
      g.stroke();
      g.setLineDash([]);
      g.strokeStyle = nowCss;
      g.beginPath();
      g.moveTo(x(tested[0]), y(tested[1]));
      g.lineTo(x(now[0]), y(now[1]));
      g.stroke();
      circle(tested, 5, testedCss);
      circle(now, 5, nowCss);
    }
    g.font = '11px system-ui, sans-serif';
    for (const p of players) {
      const colour = teamCss[p.team] ?? '#cccccc';
      const px = x(p.pos[0]), py = y(p.pos[1]);
      if (p.dead) {
        g.strokeStyle = colour;
        g.beginPath();
        g.moveTo(px - 4, py - 4); g.lineTo(px + 4, py + 4);
        g.moveTo(px + 4, py - 4); g.lineTo(px - 4, py + 4);
        g.stroke();
      } else {
        circle(p.pos, p.crouched ? 4 : 5.5, p.protected ? '#ffffff' : '#0c1014', colour);
        g.strokeStyle = colour;
        g.beginPath();
        g.moveTo(px, py);
        g.lineTo(px + 12 * Math.cos(p.yaw), py - 12 * Math.sin(p.yaw));
        g.stroke();
      }
      if (p.seat === this.follow) circle(p.pos, 9, '#ffffff');
      g.fillStyle = '#e8ecef';
      g.fillText(`${p.seat}${p.bot ? '' : ' ' + p.name}`, px + 7, py - 6);
    }
    this.drawn = { players: players.length, rewinds: rewinds.length };
  }

  private showRewinds(): void {
    const rows = this.rewinds.slice(-5).reverse().map((r) =>
      `<span style="color:${testedCss}">#${r.shooter}→#${r.victim}</span> ${r.part} · ${r.outcome} · ` +
      `rewound ${r.rewind_ms.toFixed(0)} ms · rollback ${r.rollback_m.toFixed(2)} m`);
    $('rewinds').innerHTML = rows.length ? rows.join('<br>') : 'no hits yet';
  }

  // freeCamera binds the 3D view's camera: drag to look, WASD to fly
  // along the view, Q/E down and up, shift faster.
  private freeCamera(el: HTMLElement): void {
    let drag: { x: number; y: number } | null = null;
    el.addEventListener('pointerdown', (e) => { drag = { x: e.clientX, y: e.clientY }; el.setPointerCapture(e.pointerId); });
    el.addEventListener('pointerup', () => { drag = null; });
    el.addEventListener('pointermove', (e) => {
      if (!drag) return;
      if (this.follow >= 0) this.setFollow(-1);
      this.cam.yaw -= (e.clientX - drag.x) * 0.005;
      this.cam.pitch = Math.max(-1.55, Math.min(1.55, this.cam.pitch - (e.clientY - drag.y) * 0.005));
      drag = { x: e.clientX, y: e.clientY };
    });
    el.tabIndex = 0;
    el.addEventListener('keydown', (e) => {
      this.keys.add(e.code);
      if (this.follow >= 0 && ['KeyW', 'KeyA', 'KeyS', 'KeyD', 'KeyQ', 'KeyE'].includes(e.code)) this.setFollow(-1);
      e.preventDefault();
    });
    el.addEventListener('keyup', (e) => this.keys.delete(e.code));
    el.addEventListener('blur', () => this.keys.clear());
  }

  // frame draws the map, moves the free camera and draws the 3D view.
  frame(now: number): void {
    const dt = Math.min(0.1, (now - this.lastFrame) / 1000);
    this.lastFrame = now;
    const shown = this.players(now);
    this.drawMap(shown);
    if (!this.three || !this.map) return;
    const k = (c: string) => (this.keys.has(c) ? 1 : 0);
    const speed = (this.keys.has('ShiftLeft') || this.keys.has('ShiftRight') ? 24 : 8) * dt;
    const { yaw, pitch } = this.cam;
    const fwd = k('KeyW') - k('KeyS'), side = k('KeyD') - k('KeyA'), up = k('KeyE') - k('KeyQ');
    const c = Math.cos(pitch);
    const p = this.cam.pos;
    p[0] += speed * (fwd * c * Math.cos(yaw) + side * Math.sin(yaw));
    p[1] += speed * (fwd * c * Math.sin(yaw) - side * Math.cos(yaw));
    p[2] = Math.max(0.3, p[2] + speed * (fwd * Math.sin(pitch) + up));
    const players: Player[] = shown.map((v) => ({
      id: v.seat, team: v.team, pos: v.pos, yaw: v.yaw, pitch: v.pitch, health: v.health, crouched: v.crouched,
      dead: v.dead, protected: v.protected, reloading: false, carrier: v.carrier, parts: v.parts,
    }));
    this.three.setPlayers(players);
    const recent = this.recent();
    const r = recent[recent.length - 1];
    this.effects!.showRewind(r ? this.asRewind(r) : null, true);
    const followed = this.follow >= 0 ? shown.find((q) => q.seat === this.follow) : undefined;
    if (this.follow >= 0 && !followed && this.view && !this.view.players.some((q) => q.seat === this.follow)) this.setFollow(-1);
    if (followed) this.three.render(this.eye(followed), followed.yaw, followed.pitch, 90);
    else this.three.render(p, yaw, pitch, 75);
  }

  private shownRewind: { seq: number; r: Rewind } | null = null;

  // asRewind is a hit as the player's rewind view draws it (one object
  // per hit, so the view redraws only when the hit changes).
  private asRewind(v: ViewRewind): Rewind {
    if (this.shownRewind?.seq !== v.seq) {
      const t = v.tested.find((p) => p.kind === v.part) ?? v.tested[0];
      const impact: Vec3 = t ? [(t.a[0] + t.b[0]) / 2, (t.a[1] + t.b[1]) / 2, (t.a[2] + t.b[2]) / 2] : v.eye;
      this.shownRewind = {
        seq: v.seq,
        r: {
          mine: false, shooter: v.shooter, victim: v.victim, shotTick: 0, part: v.part, outcome: v.outcome,
          rewindMs: v.rewind_ms, rollbackM: v.rollback_m, seenOffM: -1, tested: v.tested, now: v.now, seen: [],
          eye: v.eye, impact,
        },
      };
    }
    return this.shownRewind.r;
  }
}

async function main(): Promise<void> {
  if (!token) {
    document.body.classList.add('noauth');
    return;
  }
  // Drop the token from the address bar, so it is not shown or shared.
  sessionStorage.setItem('lagkit-admin-token', token);
  history.replaceState(null, '', location.pathname + location.search);
  const admin = new Admin();
  (window as any).lagkit = {
    // admin returns the study's state, the spectated match, the hits
    // kept, what the map drew, and the commands sent with their status.
    admin: () => ({
      state: admin.state, view: admin.view, rewinds: admin.rewinds, drawn: admin.drawn, commands: admin.commands,
      camera: admin.cam, follow: admin.follow, bounds: admin.map?.bounds ?? null,
    }),
    // follow looks through seat's eyes in the 3D view (-1: free camera).
    follow: (seat: number) => admin.setFollow(seat),
    // command sends an admin command; it resolves to the HTTP status.
    command: (action: string, extend = '') => admin.command(action, extend),
  };
  await admin.poll();
  setInterval(() => {
    admin.poll().catch((e) => {
      // The server is gone (a stop, a crash): say so rather than show
      // the last phase seen; the resumed run serves this tab again.
      $('phase').textContent = 'server unreachable';
      $('phase').className = 'stopped';
      console.warn(`state: ${e}`);
    });
  }, 500);
  let busy = false;
  setInterval(() => {
    if (busy) return;
    busy = true;
    admin.spectate().catch((e) => console.warn(`spectate: ${e}`)).finally(() => { busy = false; });
  }, 100);
  const loop = (now: number) => { admin.frame(now); requestAnimationFrame(loop); };
  requestAnimationFrame(loop);
}

main().catch((e) => {
  console.error(e);
  $('message').textContent = `error: ${e?.message ?? e}`;
});
