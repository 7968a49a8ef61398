// effects.ts draws what lag compensation and the weapons do: the rewind
// view (the hitboxes the server tested at the rewound time, in yellow,
// beside where this page drew the target when firing, in cyan, and where
// the target was when the server judged the shot, in magenta, as
// wireframes, with the shot's line), tracers, projectiles and explosions.
import * as THREE from 'three';
import type { Explosion, Part, Projectile, Rewind, Tracer, Vec3 } from './types';

// Colours of the rewind view's three poses, also used by its text panel.
export const rewindColours = { tested: 0xffd23f, seen: 0x3fd8ff, now: 0xff4fd8 };

interface Fading { obj: THREE.Object3D; born: number; life: number; mat: THREE.Material & { opacity: number } }

// ShotView is one shot as a spectator draws it, as Source's
// sv_showlagcompensation does: the player it was aimed at (the victim,
// or for a miss the player it passed nearest; none: empty parts) where
// the server tested the shot (tested, rewound when the policy rewinds)
// and where that player was when the server judged it (now, the
// server's present), and the shot's line from the shooter's eye.
export interface ShotView { eye: Vec3; to: Vec3; hit: boolean; tested: Part[]; now: Part[] }

// shotColours are the colours a spectator's shot is drawn in, also used
// by its legend: the player hit as tested, the player a miss passed
// nearest as tested, either one at the server's present, the line of a
// hit and of a miss, and the shooter's eye.
export const shotColours = {
  tested: rewindColours.tested, missed: 0x5fd0ff, now: rewindColours.now,
  hitLine: rewindColours.tested, missLine: 0xffffff, eye: 0xffffff,
};

export class Effects {
  private rewindGroup = new THREE.Group();
  private shotGroup = new THREE.Group();
  private fading: Fading[] = [];
  private projectiles = new Map<number, THREE.Mesh>();
  private shotGeom = new THREE.SphereGeometry(0.12, 8, 6);
  private blastGeom = new THREE.SphereGeometry(1, 16, 12);
  private wire = new Map<number, THREE.MeshBasicMaterial>();
  private geoms = new Map<string, THREE.BufferGeometry>();
  // shown is the rewind drawn, null when none is.
  shown: Rewind | null = null;

  constructor(private scene: THREE.Scene) {
    this.rewindGroup.renderOrder = 10;
    scene.add(this.rewindGroup);
    scene.add(this.shotGroup);
  }

  // showShot draws s (null: nothing) as sv_showlagcompensation does,
  // replacing the shot drawn before, and returns what it drew: the
  // wireframes and the colours of everything drawn.
  showShot(s: ShotView | null): { wireframes: number; colours: number[] } {
    for (const o of this.shotGroup.children) {
      if (o instanceof THREE.Line) {
        o.geometry.dispose();
        (o.material as THREE.Material).dispose();
      }
    }
    this.shotGroup.clear();
    if (!s) return { wireframes: 0, colours: [] };
    const colours = new Set<number>();
    const parts = (ps: Part[], colour: number, order: number) => {
      if (ps.length === 0) return;
      this.addParts(ps, colour, order, this.shotGroup);
      colours.add(colour);
    };
    // The present under the tested pose, which it often covers.
    parts(s.now, shotColours.now, 11);
    parts(s.tested, s.hit ? shotColours.tested : shotColours.missed, 12);
    const lineColour = s.hit ? shotColours.hitLine : shotColours.missLine;
    const line = new THREE.Line(
      new THREE.BufferGeometry().setFromPoints([new THREE.Vector3(...s.eye), new THREE.Vector3(...s.to)]),
      new THREE.LineBasicMaterial({ color: lineColour, depthTest: false }));
    line.renderOrder = 13;
    line.layers.set(Effects.rewindLayer);
    this.shotGroup.add(line);
    colours.add(lineColour);
    const eye = new THREE.Mesh(this.shotGeom, this.wireMaterial(shotColours.eye));
    eye.position.set(...s.eye);
    eye.renderOrder = 13;
    eye.layers.set(Effects.rewindLayer);
    this.shotGroup.add(eye);
    colours.add(shotColours.eye);
    return { wireframes: s.now.length + s.tested.length, colours: [...colours] };
  }

  private wireMaterial(colour: number): THREE.MeshBasicMaterial {
    let m = this.wire.get(colour);
    if (!m) {
      // Drawn through walls: the point is to see where the target was.
      m = new THREE.MeshBasicMaterial({ color: colour, wireframe: true, depthTest: false, transparent: true, opacity: 0.95 });
      this.wire.set(colour, m);
    }
    return m;
  }

  private capsule(r: number, len: number): THREE.BufferGeometry {
    const key = `${Math.round(r * 100)}:${Math.round(len * 100)}`;
    let g = this.geoms.get(key);
    if (!g) {
      g = len < 0.005 ? new THREE.SphereGeometry(r, 10, 6) : new THREE.CapsuleGeometry(r, len, 3, 8);
      this.geoms.set(key, g);
    }
    return g;
  }

  // rewindLayer is the camera layer the rewind view is drawn on: the
  // first-person camera shows it for the player's own shots, the inset's
  // vantage for shots on the player.
  static readonly rewindLayer = 1;

  // addParts draws parts as wireframes in colour, over those of a lower
  // order: the tested hitboxes over the seen ones, which they often
  // cover to the centimetre.
  private addParts(parts: Part[], colour: number, order: number, group = this.rewindGroup): void {
    const up = new THREE.Vector3(0, 1, 0);
    for (const p of parts) {
      const a = new THREE.Vector3(...p.a), b = new THREE.Vector3(...p.b);
      const axis = b.clone().sub(a);
      const len = axis.length();
      const mesh = new THREE.Mesh(this.capsule(p.r, len), this.wireMaterial(colour));
      mesh.position.copy(a).add(b).multiplyScalar(0.5);
      if (len > 1e-6) mesh.quaternion.setFromUnitVectors(up, axis.normalize());
      mesh.renderOrder = order;
      mesh.layers.set(Effects.rewindLayer);
      group.add(mesh);
    }
  }

  // showRewind draws r (null: nothing) when on.
  showRewind(r: Rewind | null, on: boolean): void {
    const want = on ? r : null;
    if (want === this.shown) return;
    this.rewindGroup.clear();
    this.shown = want;
    if (!want) return;
    this.addParts(want.now, rewindColours.now, 10);
    this.addParts(want.seen, rewindColours.seen, 11);
    this.addParts(want.tested, rewindColours.tested, 12);
    const line = new THREE.Line(
      new THREE.BufferGeometry().setFromPoints([new THREE.Vector3(...want.eye), new THREE.Vector3(...want.impact)]),
      new THREE.LineBasicMaterial({ color: rewindColours.tested, depthTest: false }));
    line.renderOrder = 13;
    line.layers.set(Effects.rewindLayer);
    this.rewindGroup.add(line);
  }

  // clearance is how close the shown rewind's wireframes and shot line
  // come to p, in metres (Infinity when none is shown).
  clearance(p: Vec3): number {
    const r = this.shown;
    if (!r) return Infinity;
    let d = segmentDistance(p, r.eye, r.impact);
    for (const part of [...r.now, ...r.seen, ...r.tested]) d = Math.min(d, segmentDistance(p, part.a, part.b) - part.r);
    return Math.max(0, d);
  }

  private fade(obj: THREE.Object3D, mat: THREE.Material & { opacity: number }, life: number, now: number): void {
    this.scene.add(obj);
    this.fading.push({ obj, born: now, life, mat });
    if (this.fading.length > 128) this.drop(this.fading.shift()!);
  }

  private drop(f: Fading): void {
    this.scene.remove(f.obj);
    f.mat.dispose();
    const g = (f.obj as THREE.Line).geometry;
    if (g !== this.blastGeom && g !== this.flashGeom && g !== this.impactGeom) g?.dispose();
  }

  // Tracers are one set of line segments, each fading by its vertices'
  // alpha, in buffers made once: a tracer used to be a line with its own
  // material and geometry, made and disposed with each shot, and 63
  // players' shots kept three.js compiling programs (when the last line
  // of a kind went, its program went with it), creating and deleting
  // buffers, and looking up a new material's program on every frame.
  private tracers = new TracerLines();
  // tracerCount is how many tracers are drawn.
  get tracerCount(): number { return this.tracers.count; }

  addTracers(ts: Tracer[], now: number): void {
    for (const t of ts) {
      const hit = t.kind === 'hit';
      const color = t.kind === 'own' ? 0xfff2a8 : hit ? 0xff8040 : 0xffd27a;
      const [fx, fy, fz] = t.from, [tx, ty, tz] = t.to;
      // A shot's tracer starts a little ahead of the eye, as from the muzzle.
      const d = Math.hypot(tx - fx, ty - fy, tz - fz);
      const k = hit ? 0 : Math.min(0.5, 0.4 / Math.max(0.4, d));
      this.tracers.add(fx + (tx - fx) * k, fy + (ty - fy) * k, fz + (tz - fz) * k, tx, ty, tz, color, now, t.kind === 'own' ? 180 : hit ? 500 : 250);
    }
    if (ts.length > 0 && !this.tracers.lines.parent) this.scene.add(this.tracers.lines);
  }

  // impactsOn is whether impacts are drawn, as Source's cl_showimpacts
  // draws them: a small red box where this page saw each of its shots
  // land, and a blue one where the server judged a hit, for 4 s.
  impactsOn = new URLSearchParams(location.search).get('impacts') === '1';
  impactCount = 0;
  private impactGeom = new THREE.BoxGeometry(0.08, 0.08, 0.08);
  private impactMats = [0xff3030, 0x3070ff].map((c) => new THREE.MeshBasicMaterial({ color: c, depthTest: false, transparent: true }));

  addImpacts(ts: Tracer[], rs: Rewind[], now: number): void {
    if (!this.impactsOn) return;
    const box = (p: Vec3, server: boolean) => {
      const mat = this.impactMats[server ? 1 : 0].clone();
      const m = new THREE.Mesh(this.impactGeom, mat);
      m.position.set(...p);
      m.renderOrder = 11;
      this.fade(m, mat, 4000, now);
      this.impactCount++;
    };
    for (const t of ts) if (t.kind === 'own') box(t.to, false);
    for (const r of rs) if (r.mine) box(r.impact, true);
  }

  // muzzle flashes another player's shot, fired from toward to.
  // The flashes are a few meshes reused, shown for 70 ms each: 63 bots
  // firing allocate nothing.
  muzzle(from: Vec3, to: Vec3, now: number): void {
    if (this.flashes.length === 0) {
      const mat = new THREE.MeshBasicMaterial({ color: 0xffe9a0 });
      for (let i = 0; i < 8; i++) {
        const m = new THREE.Mesh(this.flashGeom, mat);
        m.visible = false;
        this.scene.add(m);
        this.flashes.push({ m, until: 0 });
      }
    }
    const f = this.flashes[this.nextFlash++ % this.flashes.length];
    const a = new THREE.Vector3(...from), b = new THREE.Vector3(...to);
    f.m.position.copy(a.lerp(b, Math.min(0.5, 0.6 / Math.max(0.6, a.distanceTo(b)))));
    f.m.visible = true;
    f.until = now + 70;
  }
  private flashGeom = new THREE.SphereGeometry(0.14, 6, 4);
  private flashes: { m: THREE.Mesh; until: number }[] = [];
  private nextFlash = 0;

  addExplosions(es: Explosion[], now: number): void {
    for (const e of es) {
      const mat = new THREE.MeshBasicMaterial({ color: 0xff9a3c, transparent: true, opacity: 0.7, depthWrite: false });
      const m = new THREE.Mesh(this.blastGeom, mat);
      m.position.set(...(e.pos as Vec3));
      m.scale.setScalar(Math.max(0.4, e.radius));
      this.fade(m, mat, 450, now);
    }
  }

  // setProjectiles draws ps, replacing those drawn before. The meshes
  // share one material; a projectile not in ps this frame (its mark
  // older than the frame's) goes.
  setProjectiles(ps: Projectile[]): void {
    if (ps.length === 0 && this.projectiles.size === 0) return;
    const mark = ++this.projectileMark;
    for (const p of ps) {
      let m = this.projectiles.get(p.id);
      if (!m) {
        m = new THREE.Mesh(this.shotGeom, this.shotMat);
        this.projectiles.set(p.id, m);
        this.scene.add(m);
      }
      m.userData.mark = mark;
      m.position.set(p.pos[0], p.pos[1], p.pos[2]);
    }
    for (const [id, m] of this.projectiles) {
      if (m.userData.mark !== mark) {
        this.scene.remove(m);
        this.projectiles.delete(id);
      }
    }
  }
  private shotMat = new THREE.MeshBasicMaterial({ color: 0xffe066 });
  private projectileMark = 0;

  // update fades tracers and explosions; explosions also grow.
  update(now: number): void {
    for (const f of this.flashes) if (f.m.visible && now >= f.until) f.m.visible = false;
    this.tracers.update(now);
    // In place: a new array a frame for what is mostly the same list.
    const fading = this.fading;
    let j = 0;
    for (const f of fading) {
      const age = (now - f.born) / f.life;
      if (age >= 1) {
        this.drop(f);
        continue;
      }
      f.mat.opacity = (1 - age) * 0.9;
      fading[j++] = f;
    }
    fading.length = j;
  }
}

// maxTracers is how many tracers are drawn at once: a new one beyond
// them takes the oldest's place.
const maxTracers = 128;

// TracerLines draws up to maxTracers tracers as one set of line segments
// with a colour and alpha per vertex, the live ones first.
class TracerLines {
  readonly lines: THREE.LineSegments;
  private pos = new Float32Array(maxTracers * 6);
  private col = new Float32Array(maxTracers * 8);
  private born = new Float64Array(maxTracers);
  private life = new Float64Array(maxTracers);
  private n = 0;
  get count(): number { return this.n; }
  private posAttr: THREE.BufferAttribute;
  private colAttr: THREE.BufferAttribute;

  constructor() {
    const g = new THREE.BufferGeometry();
    this.posAttr = new THREE.BufferAttribute(this.pos, 3).setUsage(THREE.DynamicDrawUsage);
    this.colAttr = new THREE.BufferAttribute(this.col, 4).setUsage(THREE.DynamicDrawUsage);
    g.setAttribute('position', this.posAttr);
    g.setAttribute('color', this.colAttr);
    g.setDrawRange(0, 0);
    this.lines = new THREE.LineSegments(g, new THREE.LineBasicMaterial({ vertexColors: true, transparent: true }));
    // The buffers move every frame: no bounding sphere is kept for them.
    this.lines.frustumCulled = false;
  }

  add(fx: number, fy: number, fz: number, tx: number, ty: number, tz: number, colour: number, now: number, life: number): void {
    if (this.n === maxTracers) this.move(1, 0, maxTracers - 1);
    const i = this.n++, p = this.pos, c = this.col, o = 6 * i, k = 8 * i;
    p[o] = fx; p[o + 1] = fy; p[o + 2] = fz; p[o + 3] = tx; p[o + 4] = ty; p[o + 5] = tz;
    c[k] = c[k + 4] = ((colour >> 16) & 255) / 255;
    c[k + 1] = c[k + 5] = ((colour >> 8) & 255) / 255;
    c[k + 2] = c[k + 6] = (colour & 255) / 255;
    c[k + 3] = c[k + 7] = 0.9;
    this.born[i] = now;
    this.life[i] = life;
  }

  // move moves count tracers from slot from to slot to.
  private move(from: number, to: number, count: number): void {
    this.pos.copyWithin(6 * to, 6 * from, 6 * (from + count));
    this.col.copyWithin(8 * to, 8 * from, 8 * (from + count));
    this.born.copyWithin(to, from, from + count);
    this.life.copyWithin(to, from, from + count);
    this.n = to + count;
  }

  // update fades the tracers at now and drops those faded out.
  update(now: number): void {
    if (this.n === 0 && this.lines.geometry.drawRange.count === 0) return;
    let j = 0;
    for (let i = 0; i < this.n; i++) {
      const age = (now - this.born[i]) / this.life[i];
      if (age >= 1) continue;
      if (i !== j) {
        this.pos.copyWithin(6 * j, 6 * i, 6 * i + 6);
        this.col.copyWithin(8 * j, 8 * i, 8 * i + 8);
        this.born[j] = this.born[i];
        this.life[j] = this.life[i];
      }
      this.col[8 * j + 3] = this.col[8 * j + 7] = (1 - age) * 0.9;
      j++;
    }
    this.n = j;
    this.lines.geometry.setDrawRange(0, 2 * j);
    this.lines.visible = j > 0;
    // Only the live tracers' part of the buffers is uploaded.
    if (j > 0) {
      this.posAttr.clearUpdateRanges();
      this.posAttr.addUpdateRange(0, 6 * j);
      this.colAttr.clearUpdateRanges();
      this.colAttr.addUpdateRange(0, 8 * j);
      this.posAttr.needsUpdate = true;
      this.colAttr.needsUpdate = true;
    }
  }
}

// segmentDistance is the distance from p to the segment from a to b.
export function segmentDistance(p: Vec3, a: Vec3, b: Vec3): number {
  const ab = [b[0] - a[0], b[1] - a[1], b[2] - a[2]], ap = [p[0] - a[0], p[1] - a[1], p[2] - a[2]];
  const len2 = ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2];
  const t = len2 > 0 ? Math.max(0, Math.min(1, (ap[0] * ab[0] + ap[1] * ab[1] + ap[2] * ab[2]) / len2)) : 0;
  return Math.hypot(ap[0] - t * ab[0], ap[1] - t * ab[1], ap[2] - t * ab[2]);
}

// vantage is where the rewind view of a hit on the player is seen from:
// on the shot's line, a little above it, behind the shooter's eye for a
// near shot and insetReachM from the impact for a far one, looking along
// the shot to the impact, so that the player's own rewound hitboxes
// stand in front of the camera rather than around it, and fill it.
// insetReachM is the farthest the inset's camera stands from the
// impact it shows.
export const insetReachM = 6;

export function vantage(r: Rewind): { pos: Vec3; target: Vec3 } {
  const d = [r.impact[0] - r.eye[0], r.impact[1] - r.eye[1], r.impact[2] - r.eye[2]];
  const len = Math.max(1e-6, Math.hypot(d[0], d[1], d[2]));
  // From the impact back along the shot: 1.5 m behind the shooter's eye
  // for a near shot; for a far one, insetReachM from the impact, still
  // on the shot's line (which the shot crossed, so no wall stands in the
  // way). From behind the shooter at 41 m, the shooter's head filled a
  // third of the picture and the victim was a speck.
  // Beside the shot's line rather than behind its end, the camera rises
  // a metre above it, clear of the line drawn.
  const back = Math.min(len + 1.5, insetReachM), up = back < len + 1.5 ? 1 : 0.5;
  return {
    pos: [r.impact[0] - (d[0] / len) * back, r.impact[1] - (d[1] / len) * back, r.impact[2] - (d[2] / len) * back + up],
    target: r.impact,
  };
}
