// Drawing the players of the server's match views (the admin page's and
// the spectator's) between the last two polls.
import type { Part, Vec3 } from './types';

// A player as a match view carries it: enough to draw it moving.
export interface PolledPlayer {
  seat: number; pos: Vec3; yaw: number; dead: boolean; parts: Part[];
}

// betweenViews returns the players of view, polled at at, where the page
// draws them at now: between prev (polled at prevAt) and view, a player
// that moved more than 3 m between them (a respawn, a teleport) or
// changed its parts at its newest place.
export function betweenViews<P extends PolledPlayer>(prev: P[] | null, prevAt: number, view: P[], at: number, now: number): P[] {
  if (!prev || at <= prevAt) return view;
  const f = Math.max(0, Math.min(1, (now - at) / (at - prevAt)));
  const before = new Map(prev.map((x) => [x.seat, x]));
  const mix = (a: Vec3, b: Vec3): Vec3 => [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f, a[2] + (b[2] - a[2]) * f];
  return view.map((x) => {
    const o = before.get(x.seat);
    if (!o || o.dead !== x.dead || Math.hypot(x.pos[0] - o.pos[0], x.pos[1] - o.pos[1]) > 3 || o.parts.length !== x.parts.length) return x;
    let dy = x.yaw - o.yaw;
    dy -= 2 * Math.PI * Math.round(dy / (2 * Math.PI));
    return {
      ...x, pos: mix(o.pos, x.pos), yaw: o.yaw + dy * f,
      parts: x.parts.map((q, i) => ({ ...q, a: mix(o.parts[i].a, q.a), b: mix(o.parts[i].b, q.b) })),
    };
  });
}
