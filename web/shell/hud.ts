// hud.ts writes the overlay: health, weapon and ammunition, the score,
// a feed of hits and kills, hit markers and the damage direction, the
// scoreboard on Tab, and the net graph (round trip and its sparkline,
// jitter, loss, interpolation buffer and extrapolation, snapshot rate
// against the tick rate, bytes per second, prediction corrections, link):
// the feedback group of [taxonomy].
import type { CoreState, GameEvent, Rewind } from './types';
import { rewindColours } from './effects';

const $ = (id: string) => document.getElementById(id)!;

interface FeedLine { text: string; until: number }

// teamNames label the teams in the HUD and the scoreboard, in their
// colours (.team0, .team1).
export const teamNames = ['Red', 'Blue'];

function clock(s: number): string {
  return `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, '0')}`;
}

function escapeHTML(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]!));
}

export class Hud {
  // name is the local player's name; names every player's the server
  // gave (wire's name events, through the scoreboard's rows).
  name = 'you';
  names = new Map<number, string>();

  // nameOf is player id's name, or #id when the server named none.
  nameOf(id: number): string { return this.names.get(id) || `#${id}`; }
  private who(id: number): string { return escapeHTML(this.nameOf(id)); }
  // samples are the net graph's, oldest first; fps and frameMs the
  // page's frame rate and time per frame, as the page last measured.
  samples: Sample[] = [];
  fps = 0;
  frameMs = 0;
  graphOn = true;
  // blind is set on a study participant's page: the net graph, when a
  // feedback condition shows it, leaves out the server's policy, the
  // display mode and prediction, and the latency injected on the link,
  // which name the condition.
  blind = false;
  private chartAt = 0;
  private netAt = 0;
  private lastCmds: { n: number; at: number } | null = null;
  private cmdRate = 0;

  // netGraph shows or hides the net graph.
  netGraph(on: boolean): void {
    this.graphOn = on;
    $('netbox').style.display = on ? '' : 'none';
  }
  private feed: FeedLine[] = [];
  private feedShown = '';
  private hitUntil = 0;
  private hitShown = false;
  private rewindShown: { r: Rewind | null; on: boolean; list: string; back: number; n: number; conn: number } | null = null;
  private deadShown = '';
  private boardShown: { st: CoreState; shown: boolean } | null = null;

  status(text: string): void { $('status').textContent = text; }

  // note adds a line to the feed.
  note(text: string): void {
    this.feed.push({ text, until: performance.now() + 4000 });
    this.feed = this.feed.slice(-6);
  }

  // rewind writes the rewind view's panel: what the server did with the
  // hit drawn, in the colours of its wireframes.
  // list is the history shown (mine: the player's shots, onMe: shots on
  // it), back how far from its newest.
  // conn is the page's connection now: a rewind of an earlier one says
  // so, since its tick is another server's count.
  rewind(r: Rewind | null, on: boolean, list: 'mine' | 'onMe', back: number, history: { mine: Rewind[]; onMe: Rewind[] }, conn: number): void {
    const n = history.mine.length * 100 + history.onMe.length;
    const sh = this.rewindShown;
    if (sh && sh.r === r && sh.on === on && sh.list === list && sh.back === back && sh.n === n && sh.conn === conn) return;
    this.rewindShown = { r, on, list, back, n, conn };
    const el = $('rewind');
    el.style.display = on ? 'block' : 'none';
    if (!on) return;
    const l = history[list];
    const which = list === 'mine' ? 'your shots' : 'shots on you';
    const pos = l.length > 0 ? `${which} ${l.length - back}/${l.length}` : `${which}: none yet`;
    if (!r) {
      el.innerHTML = `rewind view · ${pos} · [ ] older/newer · \\ yours/on you`;
      return;
    }
    const c = (n: number) => '#' + n.toString(16).padStart(6, '0');
    const earlier = r.conn !== undefined && r.conn !== conn ? ' (an earlier connection)' : '';
    const head = `<b>rewind view</b> · ${pos} · tick ${r.shotTick}${earlier} · [ ] older/newer, \\ yours/on you<br>`;
    if (r.outcome === 'miss') {
      el.innerHTML = head +
        `your shot · <b>miss</b>${r.victim >= 0 ? ` near ${this.who(r.victim)}` : ''} (the server sends no account of misses)<br>` +
        `<span style="color:${c(rewindColours.tested)}">— the shot</span> ` +
        (r.victim >= 0 ? `<span style="color:${c(rewindColours.seen)}">■ ${this.who(r.victim)} as you saw it</span>` : '');
      return;
    }
    const shooter = this.who(r.shooter);
    const who = r.mine ? `your shot on ${this.who(r.victim)}` : `${shooter}'s shot on you (inset: along ${shooter}'s shot)`;
    el.innerHTML = head +
      `${who} · ${r.part} · ${r.outcome} · rewound ${r.rewindMs.toFixed(0)} ms · rollback ${r.rollbackM.toFixed(2)} m<br>` +
      `<span style="color:${c(rewindColours.tested)}">■ tested by the server</span> ` +
      (r.mine ? `<span style="color:${c(rewindColours.seen)}">■ seen when fired${r.seenOffM >= 0 ? ` (${(r.seenOffM * 100).toFixed(0)} cm off)` : ''}</span> ` : '') +
      `<span style="color:${c(rewindColours.now)}">■ ${r.mine ? 'target' : 'you'} when judged</span>`;
  }

  // board shows the scoreboard while shown is true, with a ping column
  // in free play, and under a study's feedback condition (which decides
  // what a participant sees of the network) only when the server
  // mandates it.
  board(st: CoreState, shown: boolean): void {
    const was = this.boardShown;
    if (was && was.shown === shown && (was.st === st || !shown)) return;
    // Hidden, a new info changes nothing: it used to write the board's
    // style and the body's class with every info.
    this.boardShown = { st, shown };
    const el = $('board');
    el.style.display = shown ? 'block' : 'none';
    // A narrow window has no room for both: the net graph steps aside.
    document.body.classList.toggle('board-open', shown);
    if (!shown) return;
    const ping = st.pingColumn || !st.feedback;
    const head = `<tr><th>player</th><th>team</th><th>kills</th><th>deaths</th>${ping ? '<th>ping</th>' : ''}</tr>`;
    const rows = [...st.score.rows].sort((x, y) => x.team - y.team || y.kills - x.kills || x.deaths - y.deaths).map((r) =>
      `<tr class="team${r.team}"><td>${r.id === st.id ? `${escapeHTML(this.name)} (you)` : this.who(r.id)}</td><td>${teamNames[r.team] ?? r.team}</td><td>${r.kills}</td><td>${r.deaths}</td>` +
      `${ping ? `<td>${r.pingMs} ms</td>` : ''}</tr>`).join('');
    const left = st.score.timeLeft > 0 ? ` · ${clock(st.score.timeLeft)} left` : '';
    el.innerHTML = `<div class="board-head">${st.mode ?? ''} · ${st.map}${left}</div><table>${head}${rows}</table>`;
  }

  // update writes what a new info says; shooterAt(id) is where player id
  // stands now ([x, y]), or null.
  // html sets element id's HTML when it changed: DOM writes at every
  // info would cost a style pass each.
  private written = new Map<string, string>();
  private html(id: string, html: string): void {
    if (this.written.get(id) === html) return;
    this.written.set(id, html);
    $(id).innerHTML = html;
  }

  // crosshair shows or hides the crosshair.
  private crosshairOn = true;
  crosshair(on: boolean): void {
    if (on === this.crosshairOn) return;
    this.crosshairOn = on;
    $('crosshair').style.display = on ? '' : 'none';
  }

  // dead shows the respawn countdown while dead, and hides the ammunition.
  dead(dead: boolean, respawnIn: number): void {
    const text = dead ? (respawnIn > 0 ? `respawn in ${Math.ceil(respawnIn)}` : 'respawning…') : '';
    if (text === this.deadShown) return;
    this.deadShown = text;
    $('respawn').textContent = text;
    if (dead) this.html('ammo', '');
  }

  private namedFrom: CoreState['score']['rows'] | null = null;
  update(st: CoreState, link: string, lost: boolean, shooterAt: (id: number) => [number, number] | null): void {
    const now = performance.now();
    // The rows of an info are often the last's (see parseInfo in main.ts).
    if (st.score.rows !== this.namedFrom) {
      this.namedFrom = st.score.rows;
      for (const r of st.score.rows) if (r.name) this.names.set(r.id, r.name);
    }
    for (const e of st.events) this.event(st, e, now, shooterAt);
    const self = st.self;
    const team = `<span class="team${st.team}">${teamNames[st.team] ?? 'team ' + st.team}</span>`;
    const killer = self.dead && st.killer >= 0 ? ` · killed by ${st.killer === st.id ? 'yourself' : this.who(st.killer)}` : '';
    this.html('vitals', self.dead ? `${team} · dead${killer}` : `${team} · ♥ ${Math.max(0, self.health)}${self.crouched ? ' · crouched' : ''}`);
    this.html('ammo', self.dead ? '' : `${st.weapon || '-'}  ${self.reloading ? 'reloading' : `${st.ammo} / ${st.magazine}`}`);
    // The server paused the game: nobody moves until it resumes.
    this.html('paused', st.paused ? 'PAUSED' : '');
    // The server mandates what the player sees of the network (a study's
    // feedback condition: nothing, a ping, the net graph or a placebo
    // ping); it overrides the player's own net graph toggle.
    const fb = st.feedback;
    if (fb && this.graphOn !== fb.graph) this.netGraph(fb.graph);
    this.html('ping', fb && fb.hasPing && !fb.graph ? `ping ${Math.round(fb.pingMs)} ms` : '');
    const [a, b] = st.score.teams;
    const left = st.score.timeLeft > 0 ? `${clock(st.score.timeLeft)}  ·  ` : '';
    this.html('score', `${left}<span class="team0">${teamNames[0]} ${a}</span> : <span class="team1">${b} ${teamNames[1]}</span>  ·  ${st.score.kills} kills ${st.score.deaths} deaths`);
    const n = st.net;
    const now2 = performance.now();
    if (!this.lastCmds || n.commands < this.lastCmds.n) this.lastCmds = { n: n.commands, at: now2 };
    if (now2 - this.lastCmds.at >= 1000) {
      this.cmdRate = (n.commands - this.lastCmds.n) / ((now2 - this.lastCmds.at) / 1000);
      this.lastCmds = { n: n.commands, at: now2 };
    }
    this.netLink = link || '-';
    this.netID = st.id >= 0 ? ` #${st.id}` : '';
    this.netPhase = st.phase;
    const sv = n.server;
    this.netRest =
      `  ${this.fps.toFixed(0)} fps ${this.frameMs.toFixed(1)} ms\n` +
      `rtt  ${n.rttMs.toFixed(1)} ms  jitter ${n.jitterMs.toFixed(1)}\n` +
      `loss in ${(n.loss * 100).toFixed(1)} %  out ${sv ? `${(sv.lossOut * 100).toFixed(1)} %` : '-'}\n` +
      `buf  ${n.bufferMs.toFixed(0)} ms  extrap ${n.extrapolatedMs.toFixed(0)}\n` +
      `snap ${n.snapshotRate}/s @ ${n.tickRate} Hz  cmd ${Math.round(this.cmdRate)}/s\n` +
      `in ${(n.bytesIn / 1024).toFixed(1)} KB/s  out ${(n.bytesOut / 1024).toFixed(1)}\n` +
      `corr ${n.corrections} (${(n.predictionErrorM * 100).toFixed(1)} cm)  bad ${n.malformed}\n` +
      (this.blind ? `interp ${n.interpMs.toFixed(0)} ms\n` : `${st.display} · interp ${n.interpMs.toFixed(0)} ms${st.prediction ? '' : ' · no prediction'}\n`) +
      `players ${st.score.rows.length}` +
      (sv ? `\nserver tick ${sv.tickMs.toFixed(2)} ms  late ${sv.tickLateMs.toFixed(2)} ms` +
        (this.blind ? '' : `\npolicy ${sv.policy}\n` +
        `injected up ${(sv.emulatedUpMs + sv.heldUpMs).toFixed(0)} ms  down ${(sv.emulatedDownMs + sv.heldDownMs).toFixed(0)}` +
        (sv.heldUpMs + sv.heldDownMs > 0 ? ` (held ${sv.heldUpMs.toFixed(0)}/${sv.heldDownMs.toFixed(0)})` : '')) : '');
    const text = this.netLine(lost);
    if (this.graphOn && now2 - this.netAt >= 250) {
      this.netAt = now2;
      $('net').textContent = text;
    }
    this.samples.push({
      t: now2, frameMs: this.frameMs, rttMs: n.rttMs, jitterMs: n.jitterMs, bufferMs: n.bufferMs, extrapolatedMs: n.extrapolatedMs,
      serverTickMs: sv?.tickMs ?? 0, serverLateMs: sv?.tickLateMs ?? 0,
    });
    while (this.samples.length > 0 && now2 - this.samples[0].t > graphSeconds * 1000) this.samples.shift();
    // Redrawn twice a second: text on a canvas is dear under software
    // rendering.
    if (this.graphOn && now2 - this.chartAt >= 500) {
      this.chartAt = now2;
      chart($('rtt') as HTMLCanvasElement, this.samples, now2);
    }
    // While the page reconnects, its own status line says why and when.
    if (st.phase === 'closed' && st.reason && !st.serverMap && !lost) this.status(st.reason);
  }

  // netLine is the net graph's text with the link's state: the phase,
  // "connection lost", or, once the server ended the session and the
  // page let go of its link, "closed by the server".
  private netLink = '';
  private netID = '';
  private netPhase = '';
  private netRest = '';
  private netLine(lost: boolean): string {
    const state = !lost ? this.netPhase : this.netPhase === 'closed' ? 'closed by the server' : 'connection lost';
    return `${this.netLink} ${state}${this.netID}${this.netRest}`;
  }

  // lost says at once, in the net graph, that the connection is lost
  // (or back): no info may come to say it.
  lost(lost: boolean): void {
    if (this.netLink && this.graphOn) $('net').textContent = this.netLine(lost);
  }

  // flash shows the player's muzzle flash from now for a few frames and
  // returns the instant it did.
  flash(now: number): number {
    this.flashUntil = now + 60;
    $('flash').classList.add('on');
    return performance.now();
  }
  private flashUntil = 0;

  // tick runs every frame: the hit marker and the feed's expiry.
  tick(now: number): void {
    if (this.flashUntil > 0 && now >= this.flashUntil) {
      this.flashUntil = 0;
      $('flash').classList.remove('on');
    }
    const hit = now < this.hitUntil;
    if (hit !== this.hitShown) {
      this.hitShown = hit;
      $('crosshair').classList.toggle('hit', hit);
      $('hitmarker').classList.toggle('on', hit);
    }
    if (this.feed.some((l) => l.until <= now)) this.feed = this.feed.filter((l) => l.until > now);
    const html = this.feed.map((l) => `<div>${l.text}</div>`).join('');
    if (html !== this.feedShown) {
      this.feedShown = html;
      $('feed').innerHTML = html;
    }
  }

  private event(st: CoreState, e: GameEvent, now: number, shooterAt: (id: number) => [number, number] | null): void {
    switch (e.kind) {
      case 'hit':
        this.hitUntil = now + 150;
        break;
      case 'hurt': {
        const el = $('hurt');
        el.style.transition = 'none';
        el.style.opacity = '1';
        requestAnimationFrame(() => { el.style.transition = 'opacity .4s'; el.style.opacity = '0'; });
        const from = shooterAt(e.other);
        if (st.hitIndicator && from) {
          // The shooter's bearing relative to where the player faces:
          // 0 is ahead (up on screen), positive to the left, so the
          // indicator turns the other way in CSS's clockwise degrees.
          const rel = Math.atan2(from[1] - st.self.pos[1], from[0] - st.self.pos[0]) - st.self.yaw;
          const dir = $('hurtdir');
          dir.style.transform = `rotate(${-rel}rad)`;
          dir.style.transition = 'none';
          dir.style.opacity = '1';
          requestAnimationFrame(() => { dir.style.transition = 'opacity 1s'; dir.style.opacity = '0'; });
        }
        break;
      }
      case 'kill': {
        const who = (id: number) => (id === st.id ? 'you' : this.who(id));
        const text = e.killer !== undefined && e.killer >= 0 ? `${who(e.killer)} ✕ ${who(e.other)}` : `${who(e.other)} died`;
        this.feed.push({ text, until: now + 5000 });
        this.feed = this.feed.slice(-6);
        break;
      }
    }
  }
}

// Series are the net graph's lines, in ms, over the last graphSeconds:
// the page's frame time, the round trip and its jitter, the
// interpolation buffer and the time extrapolated past it.
export const series = [
  { key: 'frameMs', label: 'frame', colour: '#ffffff' },
  { key: 'rttMs', label: 'rtt', colour: '#7fd67f' },
  { key: 'jitterMs', label: 'jitter', colour: '#ffd84a' },
  { key: 'bufferMs', label: 'buffer', colour: '#4ad2ff' },
  { key: 'extrapolatedMs', label: 'extrap', colour: '#ff6060' },
  { key: 'serverTickMs', label: 'srv tick', colour: '#c080ff' },
  { key: 'serverLateMs', label: 'srv late', colour: '#ff9a3c' },
] as const;
export type Sample = Record<(typeof series)[number]['key'], number> & { t: number };
export const graphSeconds = 10;

// chart draws the net graph's samples (oldest first) with labelled
// axes: time in seconds back along the bottom, ms up the left, scaled to
// the largest value shown (at least 20 ms), and a legend.
export function chart(c: HTMLCanvasElement, samples: Sample[], now: number): void {
  const g = c.getContext('2d');
  if (!g) return;
  const w = c.width, h = c.height, left = 30, bottom = 14, top = 30;
  g.clearRect(0, 0, w, h);
  g.fillStyle = '#000b';
  g.fillRect(0, 0, w, h);
  let max = 20;
  for (const s of samples) for (const k of series) max = Math.max(max, s[k.key]);
  max = niceCeil(max);
  const x = (t: number) => left + (1 - (now - t) / (graphSeconds * 1000)) * (w - left - 4);
  const y = (v: number) => h - bottom - (Math.min(v, max) / max) * (h - bottom - top);
  g.font = '9px ui-monospace, monospace';
  g.fillStyle = '#c9d2d9';
  g.strokeStyle = '#ffffff30';
  g.lineWidth = 1;
  g.textAlign = 'right';
  for (const v of [0, max / 2, max]) {
    g.fillText(String(Math.round(v)), left - 3, y(v) + 3);
    g.beginPath(); g.moveTo(left, y(v)); g.lineTo(w - 4, y(v)); g.stroke();
  }
  g.textAlign = 'center';
  for (let s = 2; s <= graphSeconds; s += 2) g.fillText(`-${s}s`, x(now - s * 1000), h - 3);
  g.textAlign = 'right';
  g.fillText('now', w - 2, h - 3);
  g.textAlign = 'left';
  g.fillText('ms', 2, top - 18);
  // The legend, in rows of what fits.
  let lx = left, ly = top - 18;
  for (const k of series) {
    const lw = g.measureText(k.label).width;
    if (lx + lw > w - 2) [lx, ly] = [left, ly + 10];
    g.fillStyle = k.colour;
    g.fillText(k.label, lx, ly);
    lx += lw + 8;
  }
  for (const k of series) {
    g.strokeStyle = k.colour;
    g.beginPath();
    samples.forEach((s, i) => { if (i === 0) g.moveTo(x(s.t), y(s[k.key])); else g.lineTo(x(s.t), y(s[k.key])); });
    g.stroke();
  }
}

function niceCeil(v: number): number {
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (v <= m * p) return m * p;
  return 10 * p;
}
