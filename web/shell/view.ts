// view.ts draws the first-person view with three.js: the map's boxes, and
// every other player as its hitbox parts (the capsules the server's hit
// registration tests) in its team's colour. lagkit's world is +Z up in
// metres, and so is this scene: the camera's up is +Z.
import * as THREE from 'three';
import type { MapFile, Part, Player } from './types';

const teamColours = [0xd9483b, 0x2f6fd6, 0x3aa655, 0xc9a227];
const kindColours: Record<string, number> = {
  wall: 0x8a9199, cover: 0x9c7a4f, pillar: 0x6d747c, platform: 0x7d8f7a, step: 0x8f8a7d,
};

export class View {
  readonly renderer: THREE.WebGLRenderer;
  readonly scene = new THREE.Scene();
  readonly camera: THREE.PerspectiveCamera;
  private world = new THREE.Group();
  private players = new Map<number, THREE.Group>();
  private geoms = new Map<string, THREE.BufferGeometry>();
  private mats = new Map<string, THREE.Material>();

  // parent is the element the view fills.
  constructor(private parent: HTMLElement) {
    this.renderer = new THREE.WebGLRenderer({ antialias: false, powerPreference: 'high-performance' });
    this.renderer.setPixelRatio(Math.min(window.devicePixelRatio, 1.5));
    parent.appendChild(this.renderer.domElement);
    this.camera = new THREE.PerspectiveCamera(90, 1, 0.05, 500);
    this.camera.up.set(0, 0, 1);
    this.scene.background = new THREE.Color(0x9fc3e0);
    this.scene.fog = new THREE.Fog(0x9fc3e0, 40, 140);
    this.scene.add(new THREE.HemisphereLight(0xe8f0ff, 0x554433, 1.6));
    // Faces turned from the sun stay readable.
    this.scene.add(new THREE.AmbientLight(0xffffff, 0.9));
    const sun = new THREE.DirectionalLight(0xffffff, 1.8);
    sun.position.set(30, 20, 60);
    this.scene.add(sun);
    this.scene.add(this.world);
    this.resize();
    window.addEventListener('resize', () => this.resize());
  }

  resize(): void {
    const w = this.parent.clientWidth || window.innerWidth, h = this.parent.clientHeight || window.innerHeight;
    this.renderer.setSize(w, h, false);
    this.camera.aspect = w / Math.max(1, h);
    this.camera.updateProjectionMatrix();
  }

  // setMap replaces the world with map m's ground and boxes.
  setMap(m: MapFile): void {
    this.world.clear();
    const [min, max] = [m.bounds.min, m.bounds.max];
    const ground = new THREE.Mesh(
      new THREE.PlaneGeometry(max[0] - min[0], max[1] - min[1]),
      new THREE.MeshLambertMaterial({ color: 0x5c6b55 }));
    ground.position.set((min[0] + max[0]) / 2, (min[1] + max[1]) / 2, 0);
    this.world.add(ground);
    const grid = new THREE.GridHelper(Math.max(max[0] - min[0], max[1] - min[1]), Math.round(Math.max(max[0] - min[0], max[1] - min[1]) / 2), 0x44503f, 0x4d5a47);
    grid.rotation.x = Math.PI / 2;
    grid.position.set(ground.position.x, ground.position.y, 0.005);
    this.world.add(grid);
    // One mesh per box kind and one set of lines for every edge: a few
    // draw calls for the whole map, which software rendering needs.
    const byKind = new Map<string, MapFile['boxes']>();
    for (const b of m.boxes) byKind.set(b.kind, [...(byKind.get(b.kind) ?? []), b]);
    for (const [kind, boxes] of byKind) {
      this.world.add(new THREE.Mesh(boxesGeometry(boxes), this.material(`box:${kind}`, kindColours[kind] ?? 0x888888, 1)));
    }
    this.world.add(new THREE.LineSegments(edgesGeometry(m.boxes), new THREE.LineBasicMaterial({ color: 0x2a2e33 })));
  }

  private material(key: string, colour: number, opacity: number): THREE.Material {
    let m = this.mats.get(key);
    if (!m) {
      m = new THREE.MeshLambertMaterial({ color: colour, transparent: opacity < 1, opacity });
      this.mats.set(key, m);
    }
    return m;
  }

  // partGeometry is a capsule of radius r and axis length len along +Y
  // (a sphere for len 0), shared by every part of the same size to the
  // centimetre.
  private partGeometry(r: number, len: number): THREE.BufferGeometry {
    const key = `${Math.round(r * 100)}:${Math.round(len * 100)}`;
    let g = this.geoms.get(key);
    if (!g) {
      g = len < 0.005 ? new THREE.SphereGeometry(r, 16, 12) : new THREE.CapsuleGeometry(r, len, 6, 12);
      this.geoms.set(key, g);
    }
    return g;
  }

  // setPlayers draws the remote players; players not listed are removed.
  setPlayers(players: Player[]): void {
    const seen = new Set<number>();
    const up = new THREE.Vector3(0, 1, 0);
    for (const p of players) {
      seen.add(p.id);
      let g = this.players.get(p.id);
      if (!g) {
        g = new THREE.Group();
        this.players.set(p.id, g);
        this.scene.add(g);
      }
      g.visible = !p.dead;
      const colour = teamColours[p.team] ?? 0xaaaaaa;
      const mat = this.material(`team:${p.team}:${p.protected}`, colour, p.protected ? 0.45 : 1);
      while (g.children.length < p.parts.length) g.add(new THREE.Mesh());
      p.parts.forEach((part: Part, i: number) => {
        const mesh = g!.children[i] as THREE.Mesh;
        const a = new THREE.Vector3(...part.a), b = new THREE.Vector3(...part.b);
        const axis = b.clone().sub(a);
        const len = axis.length();
        mesh.geometry = this.partGeometry(part.r, len);
        mesh.material = part.kind === 'head' ? this.material(`head:${p.team}:${p.protected}`, 0xf0c8a0, p.protected ? 0.45 : 1) : mat;
        mesh.position.copy(a).add(b).multiplyScalar(0.5);
        if (len > 1e-6) mesh.quaternion.setFromUnitVectors(up, axis.normalize());
      });
    }
    for (const [id, g] of this.players) {
      if (!seen.has(id)) {
        this.scene.remove(g);
        this.players.delete(id);
      }
    }
  }

  // render draws the view from eye looking along yaw and pitch (radians;
  // yaw 0 along +X, counter-clockwise from above; pitch up).
  render(eye: [number, number, number], yaw: number, pitch: number, fovDeg: number): void {
    if (fovDeg > 0 && Math.abs(this.camera.fov - fovDeg) > 0.01) {
      this.camera.fov = fovDeg;
      this.camera.updateProjectionMatrix();
    }
    this.camera.position.set(eye[0], eye[1], eye[2]);
    const c = Math.cos(pitch);
    this.camera.lookAt(eye[0] + c * Math.cos(yaw), eye[1] + c * Math.sin(yaw), eye[2] + Math.sin(pitch));
    this.renderer.render(this.scene, this.camera);
  }
}

type Box = MapFile['boxes'][number];

// boxesGeometry merges boxes into one indexed geometry.
function boxesGeometry(boxes: Box[]): THREE.BufferGeometry {
  const pos: number[] = [], norm: number[] = [], index: number[] = [];
  for (const b of boxes) {
    const g = new THREE.BoxGeometry(b.max[0] - b.min[0], b.max[1] - b.min[1], b.max[2] - b.min[2]);
    g.translate((b.min[0] + b.max[0]) / 2, (b.min[1] + b.max[1]) / 2, (b.min[2] + b.max[2]) / 2);
    const base = pos.length / 3;
    pos.push(...(g.getAttribute('position').array as Float32Array));
    norm.push(...(g.getAttribute('normal').array as Float32Array));
    for (const i of g.getIndex()!.array as Uint16Array) index.push(base + i);
    g.dispose();
  }
  const out = new THREE.BufferGeometry();
  out.setAttribute('position', new THREE.Float32BufferAttribute(pos, 3));
  out.setAttribute('normal', new THREE.Float32BufferAttribute(norm, 3));
  out.setIndex(index);
  return out;
}

// edgesGeometry is the twelve edges of every box, as line segments.
function edgesGeometry(boxes: Box[]): THREE.BufferGeometry {
  const pos: number[] = [];
  for (const { min: a, max: b } of boxes) {
    const c = (i: number): number[] => [i & 1 ? b[0] : a[0], i & 2 ? b[1] : a[1], i & 4 ? b[2] : a[2]];
    for (let i = 0; i < 8; i++) {
      for (const bit of [1, 2, 4]) {
        if (!(i & bit)) pos.push(...c(i), ...c(i | bit));
      }
    }
  }
  const out = new THREE.BufferGeometry();
  out.setAttribute('position', new THREE.Float32BufferAttribute(pos, 3));
  return out;
}
