// labels.ts writes a label over the heads of the players nearest the
// camera and in front of it (at most maxLabels, within maxRange;
// enemies only when in sight): the
// player's name where the page knows it, else its slot, in its team's
// colour, with a marker for the player who killed you. The labels are a
// few absolutely placed elements reused every frame.
//
// Players close together, or one behind another, would pile their
// labels into one unreadable heap: the nearest player's label is placed
// first, and each farther one that would overlap a label placed already
// moves a row up or down (two at most) or, where every row is taken, is
// not shown. Nearer players win because they matter
// more (and hide the farther ones on screen anyway).
import * as THREE from 'three';
import { Dead, type Packed } from './packed';

const maxLabels = 12;
const maxRange = 40;
// rows are the rows a label tries, in order, to clear the labels of
// nearer players: its own place over the head, then a row up, a row
// down, two up, two down (negative is up); gap is the space kept
// between labels, in px.
const rows = [0, -1, 1, -2, 2];
const gap = 2;

export class Labels {
  private els: HTMLDivElement[] = [];
  private shown: string[] = [];
  private v = new THREE.Vector3();
  private near: { i: number; d: number }[] = [];
  // widths caches each label's width in px by its text (measured once,
  // when a label first shows it); height is a label's, measured once.
  private widths = new Map<string, number>();
  private height = 0;
  // placed are the boxes of the labels placed this frame.
  private placed: { x0: number; y0: number; x1: number; y1: number }[] = [];
  // resolved counts the labels the last frame showed, and what it did
  // with those that overlapped nearer ones: moved a row or two, or not
  // shown.
  resolved = { shown: 0, moved: 0, hidden: 0 };
  private pool: { i: number; d: number }[] = [];
  on = true;
  // sights caches whether each player was in sight, for a few frames.
  private sights = new Map<number, { seen: boolean; frames: number }>();

  private sight(id: number, test: () => boolean): boolean {
    let c = this.sights.get(id);
    if (!c) {
      c = { seen: false, frames: 0 };
      this.sights.set(id, c);
    }
    if (--c.frames <= 0) {
      c.seen = test();
      c.frames = 4;
    }
    return c.seen;
  }

  constructor(private root: HTMLElement) {
    for (let i = 0; i < maxLabels; i++) {
      const el = document.createElement('div');
      el.className = 'label';
      el.style.display = 'none';
      root.appendChild(el);
      this.els.push(el);
      this.shown.push('');
    }
  }

  // draw places the labels for the packed frame seen through camera;
  // name(id) is a player's name, or '' when unknown; killer the id of
  // who killed the local player (-1: none); team the local player's:
  // an enemy is labelled only when seen(x, y, z), its head in sight, so
  // that labels give away nobody hidden.
  draw(pk: Packed, camera: THREE.PerspectiveCamera, w: number, h: number, name: (id: number) => string, killer: number,
    team: number, seen: (x: number, y: number, z: number) => boolean): void {
    const near = this.near;
    near.length = 0;
    const c = camera.position;
    if (this.on) {
      // The entries are kept from frame to frame: 63 players made 63
      // objects a frame.
      const pool = this.pool;
      for (let i = 0; i < pk.players; i++) {
        if (pk.flags(i) & Dead) continue;
        const d = Math.hypot(pk.x(i) - c.x, pk.y(i) - c.y);
        if (d > maxRange) continue;
        if (pool.length === near.length) pool.push({ i: 0, d: 0 });
        const e = pool[near.length];
        e.i = i;
        e.d = d;
        near.push(e);
      }
      near.sort((a, b) => a.d - b.d);
    }
    let n = 0;
    const placed = this.placed;
    placed.length = 0;
    const r = this.resolved;
    r.moved = r.hidden = 0;
    for (const { i } of near) {
      if (n === maxLabels) break;
      this.v.set(pk.x(i), pk.y(i), pk.z(i) + 2.1).project(camera);
      if (this.v.z > 1 || Math.abs(this.v.x) > 1 || Math.abs(this.v.y) > 1) continue;
      if (pk.team(i) !== team && !this.sight(pk.playerID(i), () => seen(pk.x(i), pk.y(i), pk.z(i) + 1.6))) continue;
      const id = pk.playerID(i), el = this.els[n];
      const text = `${name(id) || '#' + id}${id === killer ? ' ☠' : ''}|${pk.team(i)}`;
      if (this.shown[n] !== text) {
        this.shown[n] = text;
        el.textContent = text.slice(0, text.lastIndexOf('|'));
        el.className = `label team${pk.team(i)}`;
      }
      // The label's box, centred over the player's head, its bottom at
      // the head, in the first of its rows that clears the labels placed.
      const lw = this.width(el, text), lh = this.labelHeight(el);
      const x = ((this.v.x + 1) / 2) * w, ya = ((1 - this.v.y) / 2) * h;
      let y1 = NaN;
      for (const row of rows) {
        const y = ya + row * (lh + gap);
        if (!placed.some((b) => b.x0 < x + lw / 2 + gap && x - lw / 2 - gap < b.x1 && b.y0 < y + gap && y - lh - gap < b.y1)) {
          y1 = y;
          break;
        }
      }
      if (Number.isNaN(y1)) {
        r.hidden++;
        continue;
      }
      if (y1 !== ya) r.moved++;
      placed.push({ x0: x - lw / 2, y0: y1 - lh, x1: x + lw / 2, y1 });
      el.style.transform = `translate(${x}px, ${y1}px) translate(-50%, -100%)`;
      el.style.display = '';
      n++;
    }
    r.shown = n;
    for (let k = n; k < maxLabels; k++) {
      if (this.els[k].style.display !== 'none') this.els[k].style.display = 'none';
    }
  }

  // width is a label's width showing text (its name|team key), measured
  // the first time a label shows it: shown, so that it has a layout.
  private width(el: HTMLDivElement, text: string): number {
    let lw = this.widths.get(text);
    if (lw === undefined) {
      el.style.display = '';
      lw = el.offsetWidth;
      if (this.widths.size > 256) this.widths.clear(); // names come and go
      this.widths.set(text, lw);
    }
    return lw;
  }

  private labelHeight(el: HTMLDivElement): number {
    if (this.height === 0) {
      el.style.display = '';
      this.height = el.offsetHeight;
    }
    return this.height;
  }
}
