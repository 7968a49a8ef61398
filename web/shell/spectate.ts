// spectate.ts is the page as a spectator's (/?spectate=1): it joins no
// seat but polls the server's view of the match a new page joins
// (/lagkit/spectate: every player where the server has it, and each
// hitscan shot the server judged), and draws it in 3D from a free camera
// or through a player's eyes.
//
// The shots of the span picked (the last 2, 5, 10 or 30 s of the match
// as shown) are listed, every one of them, newest last, with the
// shooter's and victim's names. One shot is drawn at a time, as Source's
// sv_showlagcompensation draws it: the player it was aimed at where the
// server tested the shot (rewound when the policy rewinds; yellow for
// the victim of a hit, blue for the player a miss passed nearest) and
// where that player was at the server's present (magenta), with the
// shot's line from the shooter's eye. Live, that is the newest shot;
// paused (P), the list and the players stop, and the arrow keys or the
// panel's buttons step through the span shot by shot. The page keeps at
// most maxShotsKept shots, and none older than the longest span.
import { View } from './view';
import { betweenViews } from './between';
import { Effects, shotColours, type ShotView } from './effects';
import type { MapFile, Part, Player, Vec3 } from './types';

const $ = (id: string) => document.getElementById(id)!;

interface ViewPlayer {
  seat: number; name: string; bot: boolean; team: number; pos: Vec3; yaw: number; pitch: number;
  health: number; crouched: boolean; dead: boolean; protected: boolean; carrier: boolean; parts: Part[];
}
interface ViewShot {
  seq: number; time_s: number; shooter: number; victim: number; part?: string; outcome: string;
  rewind_ms: number; eye: Vec3; dir: Vec3; rewound: { seat: number; team: number; parts: Part[] }[];
  near: number; now?: Part[];
}
// Shot is a shot as the page keeps it: the poses of the player it was
// aimed at only (the others' are dropped on arrival), its line's end,
// and the names of the shooter and the player aimed at.
interface Shot {
  seq: number; time_s: number; shooter: number; victim: number; near: number; part: string; outcome: string;
  rewind_ms: number; eye: Vec3; to: Vec3; tested: Part[]; now: Part[]; shooterName: string; nearName: string;
}
interface MatchView {
  match: string; map: string; mode: string; time_s: number; score: [number, number];
  players: ViewPlayer[]; rewinds: { seq: number }[]; shots: ViewShot[];
  // delay_s is how far in the past the server shows the match
  // (--spectate-delay); starts_in_s, while the match is younger than
  // that, how long until it shows anything.
  delay_s?: number; starts_in_s?: number;
}

// spans are the spans of the match a spectator can list the shots of,
// in seconds of server time; the page keeps shots for the longest.
export const spans = [2, 5, 10, 30];
const defaultSpan = 5;
// maxShotsKept bounds the shots the page keeps (each with two poses of
// one player): 30 s of 64 players firing 10 shots a second would be
// 19,200; past the cap the oldest go first.
export const maxShotsKept = 5000;
// missLength is how far a miss's line is drawn, in metres.
const missLength = 60;

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const hex = (c: number) => `#${c.toString(16).padStart(6, '0')}`;

// legend is what the panel's legend says of each colour a shot is drawn
// in.
const legend: [number, string][] = [
  [shotColours.tested, 'the player hit, where the server tested the shot (rewound)'],
  [shotColours.missed, 'the player a miss passed nearest, where tested'],
  [shotColours.now, 'that player at the server\'s present'],
  [shotColours.hitLine, 'a hit\'s line'],
  [shotColours.missLine, 'a miss\'s line, from the shooter\'s eye (○)'],
];

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
  // shots are the shots kept, oldest first (at most maxShotsKept).
  shots: Shot[] = [];
  // names are the players' names by seat, as the views named them last.
  private names = new Map<number, string>();
  // span is the span listed, in seconds; paused, the server time the
  // list stopped at (null: live); selected, the shot drawn (its seq; -1:
  // the newest, live).
  span = defaultSpan;
  paused: { time: number; players: ViewPlayer[]; view: MatchView } | null = null;
  selected = -1;
  // received counts the shots and polls received; drawn what the last
  // frame drew: the shot, its wireframes and colours, the players.
  received = { shots: 0, polls: 0 };
  drawn = { shot: -1, wireframes: 0, colours: [] as number[], players: 0 };
  private shownKey = '';
  cam = { pos: [0, 0, 30] as Vec3, yaw: 0, pitch: -0.9 };
  follow = -1;
  private keys = new Set<string>();
  private lastFrame = performance.now();
  private list = $('shotlist');
  private tags = [$('shotshooter'), $('shotvictim')];

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
      else if (e.code === 'KeyP') this.pause(!this.paused);
      else if (e.code === 'ArrowLeft' || e.code === 'Comma') this.step(-1);
      else if (e.code === 'ArrowRight' || e.code === 'Period') this.step(1);
      else if (e.code === 'KeyT') this.setSpan(spans[(spans.indexOf(this.span) + 1) % spans.length]);
      else if (e.code === 'KeyG') this.lookAtShot();
      else this.keys.add(e.code);
      if (this.follow >= 0 && ['KeyW', 'KeyA', 'KeyS', 'KeyD', 'KeyQ', 'KeyE'].includes(e.code)) this.setFollow(-1);
    });
    addEventListener('keyup', (e) => this.keys.delete(e.code));
    addEventListener('blur', () => this.keys.clear());
    // The panel's buttons and the list's rows, by what they carry.
    const click = (e: Event) => {
      const t = (e.target as HTMLElement).closest('[data-act],[data-seq],[data-span]') as HTMLElement | null;
      if (!t) return;
      if (t.dataset.span) this.setSpan(Number(t.dataset.span));
      else if (t.dataset.seq) this.select(Number(t.dataset.seq));
      else if (t.dataset.act === 'pause') this.pause(!this.paused);
      else if (t.dataset.act === 'prev') this.step(-1);
      else if (t.dataset.act === 'next') this.step(1);
      else if (t.dataset.act === 'look') this.lookAtShot();
    };
    $('spectator').addEventListener('click', click);
    this.list.addEventListener('click', click);
    // A press on the list stops it first: live, its rows are rewritten
    // at every poll, and a row replaced under the press takes no click.
    this.list.addEventListener('pointerdown', () => this.pause(true));
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
    if (this.view && this.view.match !== v.match) {
      this.shots = []; // another match: its shots' seats are others'
      this.pause(false);
    }
    this.prev = this.view && this.view.match === v.match ? { view: this.view, at: this.at } : null;
    this.view = v;
    this.at = performance.now();
    for (const p of v.players) this.names.set(p.seat, p.name);
    for (const r of v.rewinds) this.since = Math.max(this.since, r.seq);
    for (const s of v.shots) {
      this.shotsSince = Math.max(this.shotsSince, s.seq);
      this.shots.push(this.keep(s));
    }
    // Older than the longest span (from where the list stands), or past
    // the cap: dropped, oldest first.
    const from = (this.paused?.time ?? v.time_s) - spans[spans.length - 1];
    let drop = Math.max(0, this.shots.length - maxShotsKept);
    while (drop < this.shots.length && this.shots[drop].time_s < from) drop++;
    if (drop > 0) this.shots.splice(0, drop);
    this.received.shots += v.shots.length;
    this.received.polls++;
  }

  // keep returns the shot as the page keeps it.
  private keep(s: ViewShot): Shot {
    const name = (seat: number) => (seat >= 0 ? this.names.get(seat) || `#${seat}` : '');
    const tested = s.near >= 0 ? s.rewound.find((p) => p.seat === s.near)?.parts ?? [] : [];
    let to: Vec3 = [s.eye[0] + s.dir[0] * missLength, s.eye[1] + s.dir[1] * missLength, s.eye[2] + s.dir[2] * missLength];
    const part = s.victim >= 0 ? tested.find((q) => q.kind === s.part) ?? tested[0] : undefined;
    if (part) {
      // A hit's line ends where it passes the part hit.
      const c = [(part.a[0] + part.b[0]) / 2 - s.eye[0], (part.a[1] + part.b[1]) / 2 - s.eye[1], (part.a[2] + part.b[2]) / 2 - s.eye[2]];
      const t = c[0] * s.dir[0] + c[1] * s.dir[1] + c[2] * s.dir[2];
      to = [s.eye[0] + s.dir[0] * t, s.eye[1] + s.dir[1] * t, s.eye[2] + s.dir[2] * t];
    }
    return {
      seq: s.seq, time_s: s.time_s, shooter: s.shooter, victim: s.victim, near: s.near, part: s.part ?? '', outcome: s.outcome,
      rewind_ms: s.rewind_ms, eye: s.eye, to, tested, now: s.now ?? [], shooterName: name(s.shooter), nearName: name(s.near),
    };
  }

  // listed returns the shots of the span, oldest first: the span before
  // the newest view, or before the instant the list was paused at.
  listed(): Shot[] {
    const end = this.paused?.time ?? this.view?.time_s ?? 0;
    return this.shots.filter((s) => s.time_s > end - this.span && s.time_s <= end);
  }

  // current returns the shot drawn: the one selected, else the newest
  // listed.
  current(list = this.listed()): Shot | null {
    return list.find((s) => s.seq === this.selected) ?? list[list.length - 1] ?? null;
  }

  // pause stops (on) the list and the players where they are, or goes
  // live again.
  pause(on: boolean): void {
    if (on === !!this.paused) return;
    if (on && this.view) {
      const cur = this.current();
      this.paused = { time: this.view.time_s, players: this.players(performance.now()), view: this.view };
      this.selected = cur?.seq ?? -1;
    } else {
      this.paused = null;
      this.selected = -1;
    }
  }

  // step selects the shot d shots after the one drawn (before, when d
  // is negative), pausing first, and turns the camera to it.
  step(d: number): void {
    this.pause(true);
    const list = this.listed();
    if (list.length === 0) return;
    const i = list.findIndex((s) => s.seq === this.current(list)?.seq);
    this.select(list[Math.max(0, Math.min(list.length - 1, i + d))].seq);
  }

  // select draws shot seq, pausing first, and turns the camera to it.
  select(seq: number): void {
    this.pause(true);
    if (!this.listed().some((s) => s.seq === seq)) return;
    this.selected = seq;
    this.lookAtShot();
  }

  setSpan(sp: number): void {
    if (spans.includes(sp)) this.span = sp;
  }

  // lookAtShot puts the free camera behind and above the shooter, to
  // one side, looking at where its shot went: the player aimed at as
  // tested, or the line's middle.
  lookAtShot(): void {
    const s = this.current();
    if (!s) return;
    this.setFollow(-1);
    const c = s.tested.length > 0 ? centre(s.tested) : [(s.eye[0] + s.to[0]) / 2, (s.eye[1] + s.to[1]) / 2, (s.eye[2] + s.to[2]) / 2];
    const d = [c[0] - s.eye[0], c[1] - s.eye[1]];
    const len = Math.hypot(d[0], d[1]) || 1;
    const [ux, uy] = [d[0] / len, d[1] / len];
    const pos: Vec3 = [s.eye[0] - ux * 4 - uy * 2, s.eye[1] - uy * 4 + ux * 2, s.eye[2] + 2.5];
    const to = [c[0] - pos[0], c[1] - pos[1], c[2] - pos[2]];
    this.cam = { pos, yaw: Math.atan2(to[1], to[0]), pitch: Math.atan2(to[2], Math.hypot(to[0], to[1])) };
  }

  // players returns the players between the last two views (one poll
  // behind), a player that moved more than 3 m (a respawn, a teleport)
  // at its newest place; paused, where they were.
  private players(now: number): ViewPlayer[] {
    if (this.paused) return this.paused.players;
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
    const list = this.listed();
    const cur = this.current(list);
    const key = cur ? String(cur.seq) : '';
    if (key !== this.shownKey) {
      this.shownKey = key;
      const v: ShotView | null = cur ? { eye: cur.eye, to: cur.to, hit: cur.victim >= 0, tested: cur.tested, now: cur.now } : null;
      const d = this.effects.showShot(v);
      this.drawn.shot = cur?.seq ?? -1;
      this.drawn.wireframes = d.wireframes;
      this.drawn.colours = d.colours;
    }
    this.drawn.players = players.length;
    if (followed) this.three.render(this.eye(followed), followed.yaw, followed.pitch, 90, Effects.rewindLayer);
    else this.three.render(p, yaw, pitch, 75, Effects.rewindLayer);
    this.nameTags(cur);
    this.panel(followed, list, cur);
  }

  // nameTags writes the shooter's name over its eye and the name of the
  // player aimed at over its tested pose, where they are on screen.
  private nameTags(s: Shot | null): void {
    const w = innerWidth, h = innerHeight;
    const at: [Vec3 | null, string, string][] = [
      [s ? [s.eye[0], s.eye[1], s.eye[2] + 0.45] : null, s?.shooterName ?? '', 'shooter'],
      [s && s.tested.length > 0 ? top(s.tested) : null, s?.nearName ?? '', s && s.victim >= 0 ? 'victim' : 'nearest'],
    ];
    at.forEach(([p, name, role], i) => {
      const el = this.tags[i];
      const v = p ? this.three.project(p) : null;
      if (!v || v[2] > 1 || Math.abs(v[0]) > 1 || Math.abs(v[1]) > 1) {
        el.style.display = 'none';
        return;
      }
      const text = `${name} (${role})`;
      if (el.textContent !== text) el.textContent = text;
      el.style.transform = `translate(${((v[0] + 1) / 2) * w}px, ${((1 - v[1]) / 2) * h}px) translate(-50%, -100%)`;
      el.style.display = 'block';
    });
  }

  private panelShown = '';
  private listShown = '';
  // panelParts are the panel's parts, built once so that its buttons
  // stay the same elements (a button replaced between the press and the
  // release takes no click): the match line, the controls, the shot
  // drawn, and the span buttons and pause button to update.
  private panelParts: { head: HTMLElement; count: HTMLElement; shot: HTMLElement; spans: HTMLElement[]; pause: HTMLElement } | null = null;

  private buildPanel(): NonNullable<Spectator['panelParts']> {
    const root = $('spectator');
    root.innerHTML =
      `<div class="head"></div>` +
      `<div>shots of the last ${spans.map((sp) => `<button data-span="${sp}">${sp} s</button>`).join('')} ` +
      `<button data-act="prev" title="previous shot (←)">◀</button><button data-act="pause" title="pause (P)"></button>` +
      `<button data-act="next" title="next shot (→)">▶</button><button data-act="look" title="look at the shot (G)">look</button> ` +
      `<span class="count"></span></div>` +
      `<div class="shot"></div>` +
      `<div class="legend">${legend.map(([c, t]) => `<span class="swatch" data-colour="${hex(c)}" style="background:${hex(c)}"></span>${t}`).join(' ')}</div>` +
      `<div class="keys">drag to look · WASD Q E to fly · F / shift+F follow the next / last player · Space free camera · P pause · ← → step · T span · G look at the shot</div>`;
    const q = (sel: string) => root.querySelector(sel) as HTMLElement;
    return {
      head: q('.head'), count: q('.count'), shot: q('.shot'), pause: q('[data-act="pause"]'),
      spans: [...root.querySelectorAll('[data-span]')] as HTMLElement[],
    };
  }

  private panel(followed: ViewPlayer | undefined, list: Shot[], cur: Shot | null): void {
    const v = this.paused?.view ?? this.view;
    if (!v) return;
    const parts = this.panelParts ??= this.buildPanel();
    const name = (seat: number) => esc(this.names.get(seat) || `#${seat}`);
    const what = (s: Shot) => s.victim >= 0 ? `${esc(s.shooterName)} → ${esc(s.nearName)} ${esc(s.part)} · ${esc(s.outcome)}` :
      `${esc(s.shooterName)} → miss${s.near >= 0 ? ` (nearest ${esc(s.nearName)})` : ''}`;
    const head =
      `<b>spectating</b>${v.delay_s ? ` (delayed ${v.delay_s} s)` : ''} ${esc(v.map)} · ${esc(v.mode)} · <span class="team0">${v.score[0]}</span> : <span class="team1">${v.score[1]}</span> · ` +
      `${followed ? `following ${name(followed.seat)}` : 'free camera'}${this.paused ? ` · <b>paused</b> at ${this.paused.time.toFixed(1)} s` : ''}`;
    const shot = cur ? `${what(cur)} · rewound ${cur.rewind_ms.toFixed(0)} ms · at ${cur.time_s.toFixed(2)} s` : 'no shot in the span';
    const count = `${list.length} listed${cur ? `, shot ${list.indexOf(cur) + 1}` : ''}`;
    const key = `${head}|${shot}|${count}|${this.span}|${!!this.paused}`;
    if (key !== this.panelShown) {
      this.panelShown = key;
      parts.head.innerHTML = head;
      parts.shot.innerHTML = shot;
      parts.count.textContent = count;
      parts.pause.textContent = this.paused ? '▶ live' : '❚❚ pause';
      for (const b of parts.spans) b.classList.toggle('on', Number(b.dataset.span) === this.span);
    }
    const rows = list.map((s) => `<div data-seq="${s.seq}"${s === cur ? ' class="on"' : ''}>${s.time_s.toFixed(2)} s · ${what(s)} · ${s.rewind_ms.toFixed(0)} ms</div>`).join('');
    if (rows !== this.listShown) {
      this.listShown = rows;
      const stick = this.list.scrollTop + this.list.clientHeight >= this.list.scrollHeight - 4;
      const top = this.list.scrollTop;
      this.list.innerHTML = rows;
      // Live, the list stays at its newest; paused, at the shot drawn.
      if (!this.paused && stick) this.list.scrollTop = this.list.scrollHeight;
      else this.list.scrollTop = top;
      if (this.paused) this.list.querySelector('.on')?.scrollIntoView({ block: 'nearest' });
    }
  }

  // neighbour is the kept shot d places from s, as state() reports it.
  private neighbour(s: Shot | undefined, d: number): { seq: number; time_s: number } | null {
    const i = s ? this.shots.indexOf(s) + d : -1;
    const n = i >= 0 && i < this.shots.length ? this.shots[i] : null;
    return n && { seq: n.seq, time_s: n.time_s };
  }

  // state is what window.lagkit.state() returns while spectating.
  state(): Record<string, unknown> {
    const v = this.view;
    const list = this.listed();
    const cur = this.current(list);
    const tags = this.tags.filter((el) => el.style.display === 'block').map((el) => el.textContent);
    return {
      spectating: true, match: v?.match ?? '', map: v?.map ?? '', players: v?.players.length ?? 0, time_s: v?.time_s ?? 0,
      delay_s: v?.delay_s ?? 0, starts_in_s: this.startsIn, status: $('status').textContent,
      received: this.received, drawn: this.drawn, follow: this.follow, camera: this.cam,
      span_s: this.span, paused: this.paused ? this.paused.time : null, kept: this.shots.length, cap: maxShotsKept,
      shots: list.map((s) => ({ seq: s.seq, time_s: s.time_s, shooter: s.shooter, victim: s.victim, near: s.near, outcome: s.outcome, shooterName: s.shooterName, nearName: s.nearName })),
      shot: cur ? { seq: cur.seq, shooter: cur.shooterName, near: cur.nearName, victim: cur.victim, outcome: cur.outcome, tested: cur.tested.length, now: cur.now.length } : null,
      // before is the kept shot just before those listed, after the
      // newest kept (null: none).
      before: this.neighbour(list[0], -1), after: this.neighbour(list[list.length - 1], 1),
      tags, legend: legend.map(([c]) => hex(c)),
      // grid is the box the ground's grid spans, bounds the map's.
      grid: this.three.gridBox(), bounds: this.bounds,
    };
  }
}

// centre is the middle of parts' ends.
function centre(parts: Part[]): Vec3 {
  const c: Vec3 = [0, 0, 0];
  for (const p of parts) for (let i = 0; i < 3; i++) c[i] += (p.a[i] + p.b[i]) / (2 * parts.length);
  return c;
}

// top is a point just over parts' highest end.
function top(parts: Part[]): Vec3 {
  let t: Vec3 = parts[0].a;
  for (const p of parts) for (const q of [p.a, p.b]) if (q[2] > t[2]) t = q;
  return [t[0], t[1], t[2] + 0.5];
}

// startSpectator runs the page as a spectator's: it polls ten times a
// second and draws every frame.
export async function startSpectator(): Promise<void> {
  const s = new Spectator();
  (window as any).lagkit = {
    state: () => s.state(),
    // follow looks through seat's eyes (-1: the free camera).
    follow: (seat: number) => s.setFollow(seat),
    // pause stops the shots' list (true) or goes live (false); step
    // draws the shot n shots on (back when negative); span lists the
    // shots of the last sp seconds (one of spans).
    pause: (on: boolean) => s.pause(on),
    step: (n: number) => s.step(n),
    span: (sp: number) => s.setSpan(sp),
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
