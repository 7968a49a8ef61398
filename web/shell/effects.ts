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

export class Effects {
  private rewindGroup = new THREE.Group();
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

  private addParts(parts: Part[], colour: number): void {
    const up = new THREE.Vector3(0, 1, 0);
    for (const p of parts) {
      const a = new THREE.Vector3(...p.a), b = new THREE.Vector3(...p.b);
      const axis = b.clone().sub(a);
      const len = axis.length();
      const mesh = new THREE.Mesh(this.capsule(p.r, len), this.wireMaterial(colour));
      mesh.position.copy(a).add(b).multiplyScalar(0.5);
      if (len > 1e-6) mesh.quaternion.setFromUnitVectors(up, axis.normalize());
      mesh.renderOrder = 10;
      this.rewindGroup.add(mesh);
    }
  }

  // showRewind draws r (null: nothing) when on.
  showRewind(r: Rewind | null, on: boolean): void {
    const want = on ? r : null;
    if (want === this.shown) return;
    this.rewindGroup.clear();
    this.shown = want;
    if (!want) return;
    this.addParts(want.now, rewindColours.now);
    this.addParts(want.seen, rewindColours.seen);
    this.addParts(want.tested, rewindColours.tested);
    const line = new THREE.Line(
      new THREE.BufferGeometry().setFromPoints([new THREE.Vector3(...want.eye), new THREE.Vector3(...want.impact)]),
      new THREE.LineBasicMaterial({ color: rewindColours.tested, depthTest: false }));
    line.renderOrder = 10;
    this.rewindGroup.add(line);
  }

  private fade(obj: THREE.Object3D, mat: THREE.Material & { opacity: number }, life: number, now: number): void {
    this.scene.add(obj);
    this.fading.push({ obj, born: now, life, mat });
    if (this.fading.length > 128) this.drop(this.fading.shift()!);
  }

  private drop(f: Fading): void {
    this.scene.remove(f.obj);
    f.mat.dispose();
    if ((f.obj as THREE.Line).geometry !== this.blastGeom) (f.obj as THREE.Line).geometry?.dispose();
  }

  addTracers(ts: Tracer[], now: number): void {
    for (const t of ts) {
      const hit = t.kind === 'hit';
      const color = t.kind === 'own' ? 0xfff2a8 : hit ? 0xff8040 : 0xffd27a;
      const mat = new THREE.LineBasicMaterial({ color, transparent: true, opacity: 0.9 });
      const from = new THREE.Vector3(...t.from);
      // A shot's tracer starts a little ahead of the eye, as from the muzzle.
      const to = new THREE.Vector3(...t.to);
      if (!hit) from.lerp(to, Math.min(0.5, 0.4 / Math.max(0.4, from.distanceTo(to))));
      this.fade(new THREE.Line(new THREE.BufferGeometry().setFromPoints([from, to]), mat), mat, t.kind === 'own' ? 180 : hit ? 500 : 250, now);
    }
  }

  addExplosions(es: Explosion[], now: number): void {
    for (const e of es) {
      const mat = new THREE.MeshBasicMaterial({ color: 0xff9a3c, transparent: true, opacity: 0.7, depthWrite: false });
      const m = new THREE.Mesh(this.blastGeom, mat);
      m.position.set(...(e.pos as Vec3));
      m.scale.setScalar(Math.max(0.4, e.radius));
      this.fade(m, mat, 450, now);
    }
  }

  setProjectiles(ps: Projectile[]): void {
    const seen = new Set<number>();
    for (const p of ps) {
      seen.add(p.id);
      let m = this.projectiles.get(p.id);
      if (!m) {
        m = new THREE.Mesh(this.shotGeom, new THREE.MeshBasicMaterial({ color: 0xffe066 }));
        this.projectiles.set(p.id, m);
        this.scene.add(m);
      }
      m.position.set(...(p.pos as Vec3));
    }
    for (const [id, m] of this.projectiles) {
      if (!seen.has(id)) {
        this.scene.remove(m);
        (m.material as THREE.Material).dispose();
        this.projectiles.delete(id);
      }
    }
  }

  // update fades tracers and explosions; explosions also grow.
  update(now: number): void {
    this.fading = this.fading.filter((f) => {
      const age = (now - f.born) / f.life;
      if (age >= 1) {
        this.drop(f);
        return false;
      }
      f.mat.opacity = (1 - age) * 0.9;
      return true;
    });
  }
}
