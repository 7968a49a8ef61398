// types.ts describes what the client core (web/wasm, web/bridge) hands
// the page, and the map file the server serves.

export type Vec3 = [number, number, number];

export interface Part { kind: string; a: Vec3; b: Vec3; r: number }

export interface Player {
  id: number; team: number; pos: Vec3; yaw: number; pitch: number;
  health: number; crouched: boolean; dead: boolean; protected: boolean;
  reloading: boolean; carrier: boolean; parts: Part[];
}

export interface GameEvent {
  kind: 'hit' | 'hurt' | 'kill'; other: number; killer?: number;
  part?: string; damage?: number; outcome?: string; sbc?: boolean;
}

export interface Net {
  rttMs: number; tickRate: number; snapshotRate: number; snapshots: number;
  corrections: number; malformed: number; commands: number;
  jitterMs: number; loss: number; bufferMs: number; extrapolatedMs: number;
  bytesIn: number; bytesOut: number; rttSamples: number[]; predictionErrorM: number; interpMs: number;
  // server is what the server measured over its last second (absent
  // until it says).
  server?: {
    tickMs: number; tickLateMs: number; emulatedUpMs: number; emulatedDownMs: number;
    heldUpMs: number; heldDownMs: number; lossOut: number; policy: string;
  };
}

// Rewind is the server's account of one hit (the rewind view): the
// victim's hitboxes it tested at the rewound time, where this page drew
// the victim when firing (own shots), and where the victim was when the
// shot was judged.
export interface Rewind {
  mine: boolean; shooter: number; victim: number; shotTick: number; part: string; outcome: string;
  rewindMs: number; rollbackM: number; seenOffM: number;
  tested: Part[]; now: Part[]; seen: Part[]; eye: Vec3; impact: Vec3;
  // conn is the page's own mark: which of its connections the rewind
  // came on (shot ticks start again with a restarted server).
  conn?: number;
}

export interface Tracer { kind: 'own' | 'hit' | 'shot'; from: Vec3; to: Vec3 }
export interface Projectile { id: number; owner: number; pos: Vec3 }
export interface Explosion { pos: Vec3; radius: number }

export interface CoreState {
  phase: 'idle' | 'connecting' | 'connected' | 'closed'; reason?: string;
  map: string; serverMap?: string; id: number; team: number; tick: number; mode?: string; fov?: number;
  minimap: boolean; pingColumn: boolean; hitIndicator: boolean;
  paused: boolean; prediction: boolean; display: string;
  // feedback is what the server mandates the player be shown of the
  // network (absent: the player's own choice).
  feedback?: { feedback: string; hasPing: boolean; pingMs: number; graph: boolean };
  self: Player; eye: Vec3; weapon: string; ammo: number; magazine: number;
  players: Player[]; events: GameEvent[]; net: Net;
  rewinds: Rewind[]; tracers: Tracer[]; projectiles: Projectile[]; explosions: Explosion[];
  killer: number; reports: number;
  loadout: string[]; place: { count: number; yaw: number; pitch: number }; respawnMs: number;
  score: {
    teams: [number, number]; kills: number; deaths: number; timeLeft: number;
    rows: { name: string; id: number; team: number; kills: number; deaths: number; pingMs: number }[];
  };
}

// Input is the held input: move intents in [-1, 1], view angles in
// radians, buttons, and the weapon slot (0-based).
export interface Input {
  forward: number; side: number; up: number; yaw: number; pitch: number;
  fire: boolean; alt: boolean; jump: boolean; crouch: boolean; reload: boolean; sprint: boolean;
  weapon: number;
  // placed is how many of the server's placements yaw and pitch have
  // turned to: until the page draws the frame that tells of one, the
  // core aims its commands the way the placement faces.
  placed: number;
}

export interface Session {
  connect(now: number): void;
  disconnect(reason: string): void;
  step(now: number, b: Uint8Array): string;
  // tick and frame take the input as numbers (buttons: see buttons in
  // core.ts).
  tick(now: number, forward: number, side: number, up: number, yaw: number, pitch: number, buttons: number, weapon: number, placed: number): void;
  frame(now: number, forward: number, side: number, up: number, yaw: number, pitch: number, buttons: number, weapon: number, placed: number): void;
  tickMs(): number;
  outbox(): Uint8Array[];
  // pack writes the packed frame at now into buf (packSize() bytes) and
  // returns the bytes written; info returns the rest as JSON.
  pack(now: number, buf: Uint8Array): number;
  packSize(): number;
  info(now: number): string;
  reportSBC(): string;
}

export interface MapFile {
  name: string;
  bounds: { min: Vec3; max: Vec3 };
  boxes: { kind: string; min: Vec3; max: Vec3 }[];
}
