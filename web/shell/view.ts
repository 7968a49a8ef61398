// view.ts draws the first-person view with three.js: the map's boxes, and
// every other player as its hitbox parts (the capsules the server's hit
// registration tests) in its team's colour. lagkit's world is +Z up in
// metres, and so is this scene: the camera's up is +Z.
import * as THREE from 'three';
import type { MapFile, Player, Vec3 } from './types';

const teamColours = [0xd9483b, 0x2f6fd6, 0x3aa655, 0xc9a227];
const headColour = 0xf0c8a0;
const up = new THREE.Vector3(0, 1, 0);

// Batch is the instances of one part size and opacity: n of cap used.
interface Batch { mesh: THREE.InstancedMesh; cap: number; n: number }
const kindColours: Record<string, number> = {
  wall: 0x8a9199, cover: 0x9c7a4f, pillar: 0x6d747c, platform: 0x7d8f7a, step: 0x8f8a7d,
};

export class View {
  readonly renderer: THREE.WebGLRenderer;
  readonly scene = new THREE.Scene();
  readonly camera: THREE.PerspectiveCamera;
  private world = new THREE.Group();
  private geoms = new Map<string, THREE.BufferGeometry>();
  private mats = new Map<string, THREE.Material>();

  // parent is the element the view fills.
  constructor(private parent: HTMLElement) {
    this.renderer = new THREE.WebGLRenderer({ antialias: false, powerPreference: 'high-performance' });
    this.renderer.setPixelRatio(Math.min(window.devicePixelRatio, 1.5));
    parent.appendChild(this.renderer.domElement);
    this.camera = new THREE.PerspectiveCamera(90, 1, 0.05, 500);
    this.camera.up.set(0, 0, 1);
    this.renderer.autoClear = true;
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

  // size is the view's size in CSS pixels, as of the last resize.
  size: [number, number] = [1, 1];

  resize(): void {
    const w = this.parent.clientWidth || window.innerWidth, h = this.parent.clientHeight || window.innerHeight;
    this.size = [w, h];
    this.renderer.setSize(w, h, false);
    this.camera.aspect = w / Math.max(1, h);
    this.camera.updateProjectionMatrix();
  }

  // project returns where p is on screen as the last render saw it, in
  // normalised device coordinates (z over 1: behind the camera).
  private projected = new THREE.Vector3();
  project(p: Vec3): [number, number, number] {
    const v = this.projected.set(p[0], p[1], p[2]).project(this.camera);
    return [v.x, v.y, v.z];
  }

  // grid is the ground's grid; gridBox returns the box it spans.
  private grid: THREE.Object3D | null = null;
  gridBox(): { min: number[]; max: number[] } | null {
    if (!this.grid) return null;
    const b = new THREE.Box3().setFromObject(this.grid);
    return { min: b.min.toArray(), max: b.max.toArray() };
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
    // A 2 m grid over the ground and no farther: a square grid as wide
    // as the map's longer side hung past the walls of an oblong map.
    const lines: number[] = [];
    for (let x = min[0]; x <= max[0] + 1e-6; x += 2) lines.push(x, min[1], 0.005, x, max[1], 0.005);
    for (let y = min[1]; y <= max[1] + 1e-6; y += 2) lines.push(min[0], y, 0.005, max[0], y, 0.005);
    const gridGeom = new THREE.BufferGeometry();
    gridGeom.setAttribute('position', new THREE.Float32BufferAttribute(lines, 3));
    this.grid = new THREE.LineSegments(gridGeom, new THREE.LineBasicMaterial({ color: 0x4d5a47 }));
    this.world.add(this.grid);
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

  // Players are drawn as instances: one InstancedMesh for each part
  // size (to the centimetre) and opacity, each instance coloured by its
  // team (or as a head), so that 64 players take a few draw calls, not
  // one per part, and a frame allocates nothing.
  private batches = new Map<number, Batch>();
  private m4 = new THREE.Matrix4();
  private q = new THREE.Quaternion();
  private va = new THREE.Vector3();
  private vb = new THREE.Vector3();
  private one = new THREE.Vector3(1, 1, 1);
  private colour = new THREE.Color();
  private frustum = new THREE.Frustum();
  private bound = new THREE.Sphere();
  private cull = false;

  // beginParts starts a frame's players; add each part with part, then
  // call endParts.
  beginParts(): void {
    for (const b of this.batches.values()) b.n = 0;
  }

  // part adds a hitbox: a capsule from a to b of radius r, of a player of
  // team (its head drawn in skin colour), see-through when protected.
  part(team: number, isProtected: boolean, head: boolean, ax: number, ay: number, az: number, bx: number, by: number, bz: number, r: number): void {
    const a = this.va.set(ax, ay, az), axis = this.vb.set(bx - ax, by - ay, bz - az);
    const len = axis.length();
    if (this.cull) {
      this.bound.center.copy(a).addScaledVector(axis, 0.5);
      this.bound.radius = len / 2 + r;
      if (!this.frustum.intersectsSphere(this.bound)) return;
    }
    const key = ((Math.round(r * 100) * 1000 + Math.round(len * 100)) << 1) | (isProtected ? 1 : 0);
    let b = this.batches.get(key);
    if (!b || b.n === b.cap) b = this.grow(key, b, r, len, isProtected);
    if (len > 1e-6) this.q.setFromUnitVectors(up, axis.divideScalar(len));
    else this.q.identity();
    a.addScaledVector(axis, len / 2);
    this.m4.compose(a, this.q, this.one);
    b.mesh.setMatrixAt(b.n, this.m4);
    b.mesh.setColorAt(b.n, this.colour.setHex(head ? headColour : teamColours[team] ?? 0xaaaaaa));
    b.n++;
  }

  // endParts draws the parts added since beginParts.
  endParts(): void {
    for (const b of this.batches.values()) {
      b.mesh.count = b.n;
      b.mesh.visible = b.n > 0;
      if (b.n === 0) continue;
      b.mesh.instanceMatrix.needsUpdate = true;
      if (b.mesh.instanceColor) b.mesh.instanceColor.needsUpdate = true;
    }
  }

  // grow returns a batch for key with room for one more part.
  private grow(key: number, old: Batch | undefined, r: number, len: number, isProtected: boolean): Batch {
    const cap = old ? old.cap * 2 : 64;
    const mat = this.material(`part:${isProtected}`, 0xffffff, isProtected ? 0.45 : 1);
    const mesh = new THREE.InstancedMesh(this.partGeometry(r, len), mat, cap);
    // Instances move every frame; their bounds are not worth keeping.
    mesh.frustumCulled = false;
    const b: Batch = { mesh, cap, n: 0 };
    if (old) {
      for (let i = 0; i < old.n; i++) {
        old.mesh.getMatrixAt(i, this.m4);
        mesh.setMatrixAt(i, this.m4);
        old.mesh.getColorAt(i, this.colour);
        mesh.setColorAt(i, this.colour);
      }
      b.n = old.n;
      this.scene.remove(old.mesh);
      old.mesh.dispose();
    }
    mesh.count = cap;
    this.batches.set(key, b);
    this.scene.add(mesh);
    return b;
  }

  // setPlayers draws the remote players; players not listed are removed.
  setPlayers(players: Player[]): void {
    this.beginParts();
    for (const p of players) {
      if (p.dead) continue;
      for (const part of p.parts) {
        this.part(p.team, p.protected, part.kind === 'head', part.a[0], part.a[1], part.a[2], part.b[0], part.b[1], part.b[2], part.r);
      }
    }
    this.endParts();
  }

  // aim points the camera from eye along yaw and pitch (radians; yaw 0
  // along +X, counter-clockwise from above; pitch up). Parts added after
  // it and before render are left out when outside the view, so that
  // software rendering does not shade the players behind the camera.
  aim(eye: [number, number, number], yaw: number, pitch: number, fovDeg: number): void {
    if (fovDeg > 0 && Math.abs(this.camera.fov - fovDeg) > 0.01) {
      this.camera.fov = fovDeg;
      this.camera.updateProjectionMatrix();
    }
    this.camera.position.set(eye[0], eye[1], eye[2]);
    const c = Math.cos(pitch);
    this.camera.lookAt(eye[0] + c * Math.cos(yaw), eye[1] + c * Math.sin(yaw), eye[2] + Math.sin(pitch));
    this.camera.updateMatrixWorld();
    this.m4.multiplyMatrices(this.camera.projectionMatrix, this.camera.matrixWorldInverse);
    this.frustum.setFromProjectionMatrix(this.m4);
    this.cull = true;
  }

  // render draws the view from eye looking along yaw and pitch (see aim),
  // with the objects on layer when it is not 0.
  render(eye: [number, number, number], yaw: number, pitch: number, fovDeg: number, layer = 0): void {
    this.aim(eye, yaw, pitch, fovDeg);
    this.camera.layers.set(0);
    if (layer) this.camera.layers.enable(layer);
    this.renderer.render(this.scene, this.camera);
    this.cull = false;
  }

  // inset is the camera of the picture in picture; insetRect where it
  // was last drawn (CSS pixels: x, y from the top left, width, height).
  readonly inset = new THREE.PerspectiveCamera(70, 16 / 9, 0.05, 500);
  insetRect: [number, number, number, number] | null = null;

  // renderInset draws a picture in picture in the lower right corner,
  // from pos looking at target, with the objects on layer: the rewind
  // view of a hit on the player, seen from a vantage. null hides it.
  renderInset(pos: [number, number, number] | null, target: [number, number, number], layer: number): void {
    if (!pos) {
      if (this.insetRect) document.getElementById('inset')?.style.setProperty('display', 'none');
      this.insetRect = null;
      return;
    }
    if (!this.insetRect) document.getElementById('inset')?.style.setProperty('display', 'block');
    const size = this.renderer.getSize(new THREE.Vector2());
    const w = Math.round(Math.min(size.x * 0.36, (size.y - 280) * 16 / 9)), h = Math.round(w * 9 / 16);
    // Above the ammunition with room for the caption below, under the
    // net graph.
    const x = size.x - w - 8, y = 72;
    const cam = this.inset;
    cam.up.set(0, 0, 1);
    cam.aspect = w / h;
    // Zoomed in as through a scope, so that 3 m around the target fill
    // the picture's height at any distance.
    const dist = Math.hypot(target[0] - pos[0], target[1] - pos[1], target[2] - pos[2]);
    cam.fov = Math.max(12, Math.min(70, 2 * Math.atan(1.5 / Math.max(0.1, dist)) * 180 / Math.PI));
    cam.updateProjectionMatrix();
    cam.position.set(...pos);
    cam.lookAt(...target);
    cam.layers.set(0);
    cam.layers.enable(layer);
    const r = this.renderer;
    r.setScissorTest(true);
    r.setScissor(x, y, w, h);
    r.setViewport(x, y, w, h);
    r.render(this.scene, cam);
    r.setScissorTest(false);
    r.setViewport(0, 0, size.x, size.y);
    this.insetRect = [x, size.y - y - h, w, h];
    const frame = document.getElementById('inset');
    if (frame) {
      frame.style.left = `${x - 2}px`;
      frame.style.top = `${size.y - y - h - 2}px`;
      frame.style.width = `${w}px`;
      frame.style.height = `${h}px`;
    }
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
