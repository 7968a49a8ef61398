// minimap.ts draws the map from above on a Canvas2D: the boxes, the
// player and its facing, teammates, and enemies only when the server
// mandates every player on the minimap.
import type { CoreState, MapFile } from './types';

export class Minimap {
  private m: MapFile | null = null;

  constructor(private canvas: HTMLCanvasElement) {}

  setMap(m: MapFile): void { this.m = m; }

  draw(st: CoreState): void {
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
    g.fillStyle = '#000a';
    // Only the map's extent is shaded, so a wide map leaves no empty band.
    g.fillRect(0, h - (max[1] - min[1]) * scale, (max[0] - min[0]) * scale, (max[1] - min[1]) * scale);
    g.fillStyle = '#8a8f96';
    for (const b of m.boxes) g.fillRect(x(b.min[0]), y(b.max[1]), (b.max[0] - b.min[0]) * scale, (b.max[1] - b.min[1]) * scale);
    const dot = (px: number, py: number, colour: string) => {
      g.fillStyle = colour;
      g.beginPath();
      g.arc(x(px), y(py), 3, 0, 2 * Math.PI);
      g.fill();
    };
    for (const p of st.players) {
      if (p.dead || (p.team !== st.team && !st.minimap)) continue;
      dot(p.pos[0], p.pos[1], p.team === 0 ? '#ff6b5e' : '#6ba8ff');
    }
    if (st.id < 0) return;
    const s = st.self;
    dot(s.pos[0], s.pos[1], '#ffffff');
    g.strokeStyle = '#ffffff';
    g.beginPath();
    g.moveTo(x(s.pos[0]), y(s.pos[1]));
    g.lineTo(x(s.pos[0]) + 10 * Math.cos(s.yaw), y(s.pos[1]) - 10 * Math.sin(s.yaw));
    g.stroke();
  }
}
