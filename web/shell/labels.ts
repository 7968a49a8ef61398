// labels.ts writes a label over the heads of the players nearest the
// camera and in front of it (at most maxLabels, within maxRange;
// enemies only when in sight): the
// player's name where the page knows it, else its slot, in its team's
// colour, with a marker for the player who killed you. The labels are a
// few absolutely placed elements reused every frame.
import * as THREE from 'three';
import { Dead, type Packed } from './packed';

const maxLabels = 12;
const maxRange = 40;

export class Labels {
  private els: HTMLDivElement[] = [];
  private shown: string[] = [];
  private v = new THREE.Vector3();
  private near: { i: number; d: number }[] = [];
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
      el.style.transform = `translate(${((this.v.x + 1) / 2) * w}px, ${((1 - this.v.y) / 2) * h}px) translate(-50%, -100%)`;
      el.style.display = '';
      n++;
    }
    for (let k = n; k < maxLabels; k++) {
      if (this.els[k].style.display !== 'none') this.els[k].style.display = 'none';
    }
  }
}
