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
  // name is the local player's name.
  name = 'you';
  private feed: FeedLine[] = [];
  private feedShown = '';
  private hitUntil = 0;
  private hitShown = false;
  private rewindShown: { r: Rewind | null; on: boolean; list: string; back: number; n: number } | null = null;
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
  rewind(r: Rewind | null, on: boolean, list: 'mine' | 'onMe', back: number, history: { mine: Rewind[]; onMe: Rewind[] }): void {
    const n = history.mine.length * 100 + history.onMe.length;
    const sh = this.rewindShown;
    if (sh && sh.r === r && sh.on === on && sh.list === list && sh.back === back && sh.n === n) return;
    this.rewindShown = { r, on, list, back, n };
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
    const who = r.mine ? `your shot on #${r.victim}` : `#${r.shooter}'s shot on you (seen from behind #${r.shooter}, inset)`;
    el.innerHTML =
      `<b>rewind view</b> · ${pos} · tick ${r.shotTick}<br>${who} · ${r.part} · ${r.outcome}<br>` +
      `rewound ${r.rewindMs.toFixed(0)} ms · rollback ${r.rollbackM.toFixed(2)} m<br>` +
      `<span style="color:${c(rewindColours.tested)}">■ tested by the server</span> ` +
      (r.mine ? `<span style="color:${c(rewindColours.seen)}">■ seen when fired${r.seenOffM >= 0 ? ` (${(r.seenOffM * 100).toFixed(0)} cm off)` : ''}</span> ` : '') +
      `<span style="color:${c(rewindColours.now)}">■ ${r.mine ? 'target' : 'you'} when judged</span>`;
  }

  // board shows the scoreboard while shown is true, with the ping column
  // only when the server mandates it.
  board(st: CoreState, shown: boolean): void {
    if (this.boardShown?.st === st && this.boardShown.shown === shown) return;
    this.boardShown = { st, shown };
    const el = $('board');
    el.style.display = shown ? 'block' : 'none';
    if (!shown) return;
    const head = `<tr><th>player</th><th>team</th><th>kills</th><th>deaths</th>${st.pingColumn ? '<th>ping</th>' : ''}</tr>`;
    const rows = [...st.score.rows].sort((x, y) => x.team - y.team || y.kills - x.kills || x.deaths - y.deaths).map((r) =>
      `<tr class="team${r.team}"><td>${r.id === st.id ? `${escapeHTML(this.name)} (you)` : `player #${r.id}`}</td><td>${teamNames[r.team] ?? r.team}</td><td>${r.kills}</td><td>${r.deaths}</td>` +
      `${st.pingColumn ? `<td>${r.pingMs} ms</td>` : ''}</tr>`).join('');
    const left = st.score.timeLeft > 0 ? ` · ${clock(st.score.timeLeft)} left` : '';
    el.innerHTML = `<div class="board-head">${st.mode ?? ''} · ${st.map}${left}</div><table>${head}${rows}</table>`;
  }

  // update writes what a new info says; shooterAt(id) is where player id
  // stands now ([x, y]), or null.
  // dead shows the respawn countdown while dead, and hides the ammunition.
  dead(dead: boolean, respawnIn: number): void {
    const text = dead ? (respawnIn > 0 ? `respawn in ${Math.ceil(respawnIn)}` : 'respawning…') : '';
    if (text === this.deadShown) return;
    this.deadShown = text;
    $('respawn').textContent = text;
    if (dead) $('ammo').textContent = '';
  }

  update(st: CoreState, link: string, lost: boolean, shooterAt: (id: number) => [number, number] | null): void {
    const now = performance.now();
    for (const e of st.events) this.event(st, e, now, shooterAt);
    const self = st.self;
    const team = `<span class="team${st.team}">${teamNames[st.team] ?? 'team ' + st.team}</span>`;
    const killer = self.dead && st.killer >= 0 ? ` · killed by ${st.killer === st.id ? 'yourself' : '#' + st.killer}` : '';
    $('vitals').innerHTML = self.dead ? `${team} · dead${killer}` : `${team} · ♥ ${Math.max(0, self.health)}${self.crouched ? ' · crouched' : ''}`;
    $('ammo').textContent = self.dead ? '' : `${st.weapon || '-'}  ${self.reloading ? 'reloading' : `${st.ammo} / ${st.magazine}`}`;
    // The server paused the game: nobody moves until it resumes.
    $('paused').style.display = st.paused ? 'block' : 'none';
    const [a, b] = st.score.teams;
    const left = st.score.timeLeft > 0 ? `${clock(st.score.timeLeft)}  ·  ` : '';
    $('score').innerHTML = `${left}<span class="team0">${teamNames[0]} ${a}</span> : <span class="team1">${b} ${teamNames[1]}</span>  ·  ${st.score.kills} kills ${st.score.deaths} deaths`;
    const n = st.net;
    $('net').textContent =
      `${link || '-'} ${lost ? 'connection lost' : st.phase}${st.id >= 0 ? ' #' + st.id : ''}\n` +
      `rtt  ${n.rttMs.toFixed(1)} ms  jit ${n.jitterMs.toFixed(1)}\n` +
      `loss ${(n.loss * 100).toFixed(1)} %\n` +
      `buf  ${n.bufferMs.toFixed(0)} ms  ext ${n.extrapolatedMs.toFixed(0)}\n` +
      `snap ${n.snapshotRate}/s @ ${n.tickRate} Hz\n` +
      `in ${(n.bytesIn / 1024).toFixed(1)} KB/s out ${(n.bytesOut / 1024).toFixed(1)}\n` +
      `corr ${n.corrections}  bad ${n.malformed}\n` +
      `players ${st.score.rows.length}`;
    sparkline($('rtt') as HTMLCanvasElement, n.rttSamples ?? []);
    if (st.phase === 'closed' && st.reason && !st.serverMap) this.status(st.reason);
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
        const who = (id: number) => (id === st.id ? 'you' : `#${id}`);
        const text = e.killer !== undefined && e.killer >= 0 ? `${who(e.killer)} ✕ ${who(e.other)}` : `${who(e.other)} died`;
        this.feed.push({ text, until: now + 5000 });
        this.feed = this.feed.slice(-6);
        break;
      }
    }
  }
}

// sparkline draws the round-trip samples, scaled to their own maximum, so
// spikes stand out at any base latency.
function sparkline(c: HTMLCanvasElement, ms: number[]): void {
  const g = c.getContext('2d');
  if (!g) return;
  g.clearRect(0, 0, c.width, c.height);
  g.fillStyle = '#0008';
  g.fillRect(0, 0, c.width, c.height);
  if (ms.length < 2) return;
  const top = Math.max(1, ...ms) * 1.1;
  g.strokeStyle = '#7fd67f';
  g.beginPath();
  ms.forEach((v, i) => {
    const x = (i / (ms.length - 1)) * c.width;
    const y = c.height - (v / top) * c.height;
    if (i === 0) g.moveTo(x, y); else g.lineTo(x, y);
  });
  g.stroke();
}
