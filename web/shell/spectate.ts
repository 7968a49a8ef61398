// spectate.ts is the page as a spectator's (/?spectate=1): it joins no
// seat but polls the server's view of the match a new page joins
// (/lagkit/spectate: every player where the server has it, and each shot
// the server judged), and draws it in 3D from a free camera or through a
// player's eyes, with every player's hitboxes where the server tested
// each recent shot, as Source's sv_showlagcompensation draws them: the
// victim's in yellow, the others' in blue, the shot's line from the
// shooter's eye.
import { View } from './view';
import { betweenViews } from './between';
import { Effects, type ShotView } from './effects';
import type { MapFile, Part, Player, Vec3 } from './types';

const $ = (id: string) => document.getElementById(id)!;

interface ViewPlayer {
  seat: number; name: string; bot: boolean; team: number; pos: Vec3; yaw: number; pitch: number;
  health: number; crouched: boolean; dead: boolean; protected: boolean; carrier: boolean; parts: Part[];
}
interface ViewShot {
  seq: number; time_s: number; shooter: number; victim: number; part?: string; outcome: string;
  rewind_ms: number; eye: Vec3; dir: Vec3; rewound: { seat: number; team: number; parts: Part[] }[];
}
interface MatchView {
  match: string; map: string; mode: string; time_s: number; score: [number, number];
  players: ViewPlayer[]; rewinds: { seq: number }[]; shots: ViewShot[];
  // delay_s is how far in the past the server shows the match
  // (--spectate-delay); starts_in_s, while the match is younger than
  // that, how long until it shows anything.
  delay_s?: number; starts_in_s?: number;
}

// shotsShownS is how long a shot's hitboxes stay drawn, in server time;
// at most maxShotsShown are drawn at once.
const shotsShownS = 2;
const maxShotsShown = 12;
// missLength is how far a miss's line is drawn, in metres.
const missLength = 60;

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export class Spectator {
  view: MatchView | null = null;
  private prev: { view: MatchView; at: number } | null = null;
  private at = 0;
  private three: View;
  private bounds: MapFile['bounds'] | null = null;
  private effects: Effects;
  private mapName = '';
  private since = 0;
  private shotsSince = 0;
  // startsIn is the last poll's starts_in_s: 0 once the view shows the
  // match.
  startsIn = 0;
  shots: ViewShot[] = [];
  // received counts the shots and polls received; drawn what the last
  // frame drew: the shots and their wireframes.
  received = { shots: 0, polls: 0 };
  drawn = { shots: 0, wireframes: 0, players: 0 };
  private shownKey = '';
  cam = { pos: [0, 0, 30] as Vec3, yaw: 0, pitch: -0.9 };
  follow = -1;
  private keys = new Set<string>();
  private lastFrame = performance.now();

  constructor() {
    document.body.classList.add('spectating');
    this.three = new View($('view'));
    this.effects = new Effects(this.three.scene);
    const el = this.three.renderer.domElement;
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
    addEventListener('keydown', (e) => {
      if (e.code === 'KeyF') this.next(e.shiftKey ? -1 : 1);
      else if (e.code === 'Space') this.setFollow(-1);
      else this.keys.add(e.code);
      if (this.follow >= 0 && ['KeyW', 'KeyA', 'KeyS', 'KeyD', 'KeyQ', 'KeyE'].includes(e.code)) this.setFollow(-1);
    });
    addEventListener('keyup', (e) => this.keys.delete(e.code));
    addEventListener('blur', () => this.keys.clear());
  }

  // poll fetches the match as the server has it now, with the shots
  // since the last poll.
  async poll(): Promise<void> {
    const res = await fetch(`/lagkit/spectate?since=${this.since}&shots=${this.shotsSince}`, { cache: 'no-store' });
    if (res.status === 204) {
      $('status').textContent = 'no match is running';
      return;
    }
    if (!res.ok) throw new Error(`spectate: HTTP ${res.status}: ${(await res.text()).trim()}`);
    const v: MatchView = await res.json();
    v.shots ??= []; // none kept yet
    if (v.map !== this.mapName) {
      const m = await fetch(`/lagkit/map/${encodeURIComponent(v.map)}`);
      if (!m.ok) throw new Error(`map ${v.map}: HTTP ${m.status}`);
      const map: MapFile = await m.json();
      this.three.setMap(map);
      this.bounds = map.bounds;
      this.mapName = v.map;
      const [min, max] = [map.bounds.min, map.bounds.max];
      // Start above the map's south edge, looking north and down.
      this.cam = { pos: [(min[0] + max[0]) / 2, min[1] - 4, 24], yaw: Math.PI / 2, pitch: -0.75 };
    }
    this.startsIn = v.starts_in_s ?? 0;
    if (this.startsIn > 0) {
      $('status').textContent = `spectating starts in ${Math.ceil(this.startsIn)} s (the view is delayed ${v.delay_s ?? 0} s)`;
      return;
    }
    $('status').textContent = '';
    this.prev = this.view && this.view.match === v.match ? { view: this.view, at: this.at } : null;
    this.view = v;
    this.at = performance.now();
    for (const r of v.rewinds) this.since = Math.max(this.since, r.seq);
    for (const s of v.shots) this.shotsSince = Math.max(this.shotsSince, s.seq);
    this.shots = [...this.shots, ...v.shots].filter((s) => v.time_s - s.time_s <= shotsShownS).slice(-maxShotsShown);
    this.received.shots += v.shots.length;
    this.received.polls++;
  }

  // players returns the players between the last two views (one poll
  // behind), a player that moved more than 3 m (a respawn, a teleport)
  // at its newest place.
  private players(now: number): ViewPlayer[] {
    const v = this.view;
    if (!v) return [];
    const p = this.prev;
    return betweenViews(p ? p.view.players : null, p ? p.at : 0, v.players, this.at, now);
  }

  // next follows the next (d = 1) or previous (-1) living player.
  next(d: number): void {
    const alive = (this.view?.players ?? []).filter((p) => !p.dead).map((p) => p.seat).sort((a, b) => a - b);
    if (alive.length === 0) return;
    const i = alive.indexOf(this.follow);
    this.setFollow(alive[((i < 0 ? (d > 0 ? -1 : 0) : i) + d + alive.length) % alive.length]);
  }

  setFollow(seat: number): void {
    if (this.follow >= 0 && seat < 0) {
      const p = this.view?.players.find((q) => q.seat === this.follow);
      if (p) this.cam = { pos: this.eye(p), yaw: p.yaw, pitch: p.pitch };
    }
    this.follow = seat;
  }

  private eye(p: ViewPlayer): Vec3 {
    const head = p.parts.find((q) => q.kind === 'head');
    return head ? [...head.a] as Vec3 : [p.pos[0], p.pos[1], p.pos[2] + 1.6];
  }

  // shotViews are the recent shots as the effects draw them.
  private shotViews(): ShotView[] {
    return this.shots.map((s) => {
      let to: Vec3 = [s.eye[0] + s.dir[0] * missLength, s.eye[1] + s.dir[1] * missLength, s.eye[2] + s.dir[2] * missLength];
      const victim = s.rewound.find((p) => p.seat === s.victim);
      const part = victim?.parts.find((q) => q.kind === s.part) ?? victim?.parts[0];
      if (part) {
        // The line ends where it passes the part hit.
        const c = [(part.a[0] + part.b[0]) / 2 - s.eye[0], (part.a[1] + part.b[1]) / 2 - s.eye[1], (part.a[2] + part.b[2]) / 2 - s.eye[2]];
        const t = c[0] * s.dir[0] + c[1] * s.dir[1] + c[2] * s.dir[2];
        to = [s.eye[0] + s.dir[0] * t, s.eye[1] + s.dir[1] * t, s.eye[2] + s.dir[2] * t];
      }
      return { eye: s.eye, to, victim: s.victim, rewound: s.rewound };
    });
  }

  frame(now: number): void {
    const dt = Math.min(0.1, (now - this.lastFrame) / 1000);
    this.lastFrame = now;
    const shown = this.players(now);
    const k = (c: string) => (this.keys.has(c) ? 1 : 0);
    const speed = (this.keys.has('ShiftLeft') || this.keys.has('ShiftRight') ? 24 : 8) * dt;
    const { yaw, pitch } = this.cam;
    const fwd = k('KeyW') - k('KeyS'), side = k('KeyD') - k('KeyA'), up = k('KeyE') - k('KeyQ');
    const c = Math.cos(pitch), p = this.cam.pos;
    p[0] += speed * (fwd * c * Math.cos(yaw) + side * Math.sin(yaw));
    p[1] += speed * (fwd * c * Math.sin(yaw) - side * Math.cos(yaw));
    p[2] = Math.max(0.3, p[2] + speed * (fwd * Math.sin(pitch) + up));
    const followed = this.follow >= 0 ? shown.find((q) => q.seat === this.follow) : undefined;
    if (this.follow >= 0 && (!followed || followed.dead)) this.setFollow(-1);
    const players: Player[] = shown.filter((v) => v.seat !== this.follow).map((v) => ({
      id: v.seat, team: v.team, pos: v.pos, yaw: v.yaw, pitch: v.pitch, health: v.health, crouched: v.crouched,
      dead: v.dead, protected: v.protected, reloading: false, carrier: v.carrier, parts: v.parts,
    }));
    this.three.setPlayers(players);
    const key = this.shots.map((s) => s.seq).join(',');
    if (key !== this.shownKey) {
      this.shownKey = key;
      this.drawn.wireframes = this.effects.showShots(this.shotViews());
      this.drawn.shots = this.shots.length;
    }
    this.drawn.players = players.length;
    if (followed) this.three.render(this.eye(followed), followed.yaw, followed.pitch, 90, Effects.rewindLayer);
    else this.three.render(p, yaw, pitch, 75, Effects.rewindLayer);
    this.panel(followed);
  }

  private panelShown = '';
  private panel(followed: ViewPlayer | undefined): void {
    const v = this.view;
    if (!v) return;
    const name = (seat: number) => esc(v.players.find((q) => q.seat === seat)?.name || `#${seat}`);
    const last = this.shots[this.shots.length - 1];
    const html =
      `<b>spectating</b>${v.delay_s ? ` (delayed ${v.delay_s} s)` : ''} ${esc(v.map)} · ${esc(v.mode)} · <span class="team0">${v.score[0]}</span> : <span class="team1">${v.score[1]}</span> · ` +
      `${followed ? `following ${name(followed.seat)}` : 'free camera'}<br>` +
      `${this.shots.length} shots drawn as the server tested them: <span style="color:#ffd23f">■ the player hit</span> ` +
      `<span style="color:#5fd0ff">■ the others, rewound</span>` +
      (last ? `<br>last: ${name(last.shooter)} → ${last.victim >= 0 ? `${name(last.victim)} ${esc(last.part ?? '')} · ${esc(last.outcome)}` : 'miss'} · rewound ${last.rewind_ms.toFixed(0)} ms` : '') +
      `<br><span class="keys">drag to look · WASD Q E to fly · F / shift+F follow the next / last player · Space free camera</span>`;
    if (html !== this.panelShown) {
      this.panelShown = html;
      $('spectator').innerHTML = html;
    }
  }

  // state is what window.lagkit.state() returns while spectating.
  state(): Record<string, unknown> {
    const v = this.view;
    return {
      spectating: true, match: v?.match ?? '', map: v?.map ?? '', players: v?.players.length ?? 0,
      delay_s: v?.delay_s ?? 0, starts_in_s: this.startsIn, status: $('status').textContent,
      received: this.received, drawn: this.drawn, follow: this.follow, camera: this.cam,
      shots: this.shots.map((s) => ({ seq: s.seq, shooter: s.shooter, victim: s.victim, outcome: s.outcome, rewound: s.rewound.length })),
      // grid is the box the ground's grid spans, bounds the map's.
      grid: this.three.gridBox(), bounds: this.bounds,
    };
  }
}

// startSpectator runs the page as a spectator's: it polls ten times a
// second and draws every frame.
export async function startSpectator(): Promise<void> {
  const s = new Spectator();
  (window as any).lagkit = {
    state: () => s.state(),
    // follow looks through seat's eyes (-1: the free camera).
    follow: (seat: number) => s.setFollow(seat),
  };
  let busy = false;
  setInterval(() => {
    if (busy) return;
    busy = true;
    s.poll().catch((e) => { $('status').textContent = `${e?.message ?? e}`; }).finally(() => { busy = false; });
  }, 100);
  const loop = (now: number) => { s.frame(now); requestAnimationFrame(loop); };
  requestAnimationFrame(loop);
}
