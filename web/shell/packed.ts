// packed.ts reads the client core's packed frame (bridge.Session.Pack):
// the local player, the remote players with their hitboxes and the
// projectiles in flight, as float32s the page draws from every frame
// without parsing or allocating. players() and self() build the plain
// objects of types.ts, for window.lagkit.state() and the rarer uses.
import type { Part, Player, Projectile, Vec3 } from './types';

// PackVersion is the layout of the packed frame this file reads:
// bridge.PackVersion in web/bridge/pack.go, which the core reports as
// lagkitCore.packVersion and writes first in every frame.
export const PackVersion = 1;

// checkPackVersion refuses a core that packs frames in another layout
// than this page reads (a page and a core of different builds, say one
// of them cached): every value drawn would be misread.
export function checkPackVersion(core: unknown): void {
  if (core === PackVersion) return;
  const have = typeof core === 'number' ? `version ${core}` : 'no version';
  throw new Error(`the client core packs frames in ${have}, this page reads version ${PackVersion}: the page and the core come from different builds (reload the page)`);
}

// The header's layout, as web/bridge/pack.go writes it.
const header = 16;
const partValues = 8;
const partKinds = ['head', 'torso', 'leg_l', 'leg_r'];
const phases = ['idle', 'connecting', 'connected', 'closed'] as const;

// packedLength is how many values of f a packed frame uses.
export function packedLength(f: Float32Array): number {
  return header + (f[1] + 1) * f[3] + f[2] * 5;
}

// Flags of a packed player.
export const Crouched = 1, Dead = 2, Protected = 4, Reloading = 8, Carrier = 16;

export class Packed {
  f = new Float32Array(header);

  get players(): number { return this.f[1]; }
  get projectiles(): number { return this.f[2]; }
  private get stride(): number { return this.f[3]; }
  get phase(): (typeof phases)[number] { return phases[this.f[4]] ?? 'idle'; }
  // pending counts the events waiting for the core's next info.
  get pending(): number { return this.f[5]; }
  get id(): number { return this.f[6]; }
  get ammo(): number { return this.f[7]; }
  get eye(): Vec3 { return [this.f[8], this.f[9], this.f[10]]; }
  get tick(): number { return this.f[11]; }

  // at is where player i's record starts: -1 is the local player, 0 to
  // players-1 the remote ones.
  at(i: number): number { return header + (i + 1) * this.stride; }
  playerID(i: number): number { return this.f[this.at(i)]; }
  team(i: number): number { return this.f[this.at(i) + 1]; }
  flags(i: number): number { return this.f[this.at(i) + 2]; }
  x(i: number): number { return this.f[this.at(i) + 4]; }
  y(i: number): number { return this.f[this.at(i) + 5]; }
  z(i: number): number { return this.f[this.at(i) + 6]; }
  yaw(i: number): number { return this.f[this.at(i) + 7]; }
  parts(): number { return (this.stride - 9) / partValues; }
  // part is where part k of player i starts: kind, a (3), b (3), r.
  part(i: number, k: number): number { return this.at(i) + 9 + k * partValues; }
  // find returns the index of the remote player with id, or -2.
  find(id: number): number {
    for (let i = 0; i < this.players; i++) if (this.playerID(i) === id) return i;
    return -2;
  }

  player(i: number): Player {
    const o = this.at(i), f = this.f, flags = f[o + 2];
    const parts: Part[] = [];
    for (let k = 0; k < this.parts(); k++) {
      const p = this.part(i, k);
      parts.push({ kind: partKinds[f[p]] ?? `part${f[p]}`, a: [f[p + 1], f[p + 2], f[p + 3]], b: [f[p + 4], f[p + 5], f[p + 6]], r: f[p + 7] });
    }
    return {
      id: f[o], team: f[o + 1], health: f[o + 3], pos: [f[o + 4], f[o + 5], f[o + 6]], yaw: f[o + 7], pitch: f[o + 8],
      crouched: (flags & Crouched) !== 0, dead: (flags & Dead) !== 0, protected: (flags & Protected) !== 0,
      reloading: (flags & Reloading) !== 0, carrier: (flags & Carrier) !== 0, parts,
    };
  }

  self(): Player { return this.player(-1); }

  playerList(): Player[] {
    const out: Player[] = [];
    for (let i = 0; i < this.players; i++) out.push(this.player(i));
    return out;
  }

  projectileList(): Projectile[] {
    const out: Projectile[] = [];
    const o = this.at(this.players);
    for (let i = 0; i < this.projectiles; i++) {
      const p = o + i * 5;
      out.push({ id: this.f[p], owner: this.f[p + 1], pos: [this.f[p + 2], this.f[p + 3], this.f[p + 4]] });
    }
    return out;
  }
}
