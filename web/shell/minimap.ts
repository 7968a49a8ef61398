// minimap.ts draws the map from above on a Canvas2D: the boxes, the
// player and its facing, teammates, and enemies only when the server
// mandates every player on the minimap. The boxes are drawn once into a
// canvas of their own, copied under the players each frame.
import { Dead, type Packed } from './packed';
import type { CoreState, MapFile } from './types';

export class Minimap {
  private m: MapFile | null = null;
  private back: HTMLCanvasElement | null = null;

  constructor(private canvas: HTMLCanvasElement) {}

  setMap(m: MapFile): void {
    this.m = m;
    this.back = null;
  }

  // background draws the map's extent and boxes once.
  private background(scale: number, x: (v: number) => number, y: (v: number) => number): HTMLCanvasElement {
    if (this.back && this.back.width === this.canvas.width && this.back.height === this.canvas.height) return this.back;
    const m = this.m!;
    const c = document.createElement('canvas');
    c.width = this.canvas.width;
    c.height = this.canvas.height;
    const g = c.getContext('2d')!;
    const [min, max] = [m.bounds.min, m.bounds.max];
    g.fillStyle = '#000a';
    // Only the map's extent is shaded, so a wide map leaves no empty band.
    g.fillRect(0, c.height - (max[1] - min[1]) * scale, (max[0] - min[0]) * scale, (max[1] - min[1]) * scale);
    g.fillStyle = '#8a8f96';
    for (const b of m.boxes) g.fillRect(x(b.min[0]), y(b.max[1]), (b.max[0] - b.min[0]) * scale, (b.max[1] - b.min[1]) * scale);
    this.back = c;
    return c;
  }

  // draw draws the players of the packed frame pk; st says the team and
  // whether enemies are shown.
  draw(pk: Packed, st: CoreState): void {
    const g = this.canvas.getContext('2d');
    const m = this.m;
    if (!g || !m) return;
    const { width: w, height: h } = this.canvas;
    const [min, max] = [m.bounds.min, m.bounds.max];
    const scale = Math.min(w / (max[0] - min[0]), h / (max[1] - min[1]));
    // +Y is up on the map and down on the canvas.
    const x = (v: number) => (v - min[0]) * scale;
    const y = (v: number) => h - (v - min[1]) * scale;
    g.clearRect(0, 0, w, h);
    g.drawImage(this.background(scale, x, y), 0, 0);
    const dot = (px: number, py: number, colour: string) => {
      g.fillStyle = colour;
      g.beginPath();
      g.arc(x(px), y(py), 3, 0, 2 * Math.PI);
      g.fill();
    };
    // Each colour's dots are one path, filled once (team 0 red, the
    // others blue): a path and a fill for each of 63 players was most of
    // the minimap's time.
    for (const red of [true, false]) {
      g.fillStyle = red ? '#ff6b5e' : '#6ba8ff';
      g.beginPath();
      for (let i = 0; i < pk.players; i++) {
        const team = pk.team(i);
        if ((team === 0) !== red || pk.flags(i) & Dead || (team !== st.team && !st.minimap)) continue;
        const px = x(pk.x(i)), py = y(pk.y(i));
        g.moveTo(px + 3, py);
        g.arc(px, py, 3, 0, 2 * Math.PI);
      }
      g.fill();
    }
    if (pk.id < 0) return;
    const sx = pk.x(-1), sy = pk.y(-1), yaw = pk.yaw(-1);
    dot(sx, sy, '#ffffff');
    g.strokeStyle = '#ffffff';
    g.beginPath();
    g.moveTo(x(sx), y(sy));
    g.lineTo(x(sx) + 10 * Math.cos(yaw), y(sy) - 10 * Math.sin(yaw));
    g.stroke();
  }
}
