// probe.ts measures the page's round trip to game server hosts before
// any match, for an online study's prescreen: it opens the link as the
// game does (net.ts's open: WebTransport datagrams, else WebSocket), names
// itself by the lobby's ticket, and echoes the host's pings (wire.Probe).
// The host times them and keeps the round trip: the page only learns it.
// A host the lobby does not run (an Agones Fleet's game server) seals its
// result instead, and the page hands the seal on to the lobby, which
// keeps the figure only if the seal holds.
import { decodeHash, open } from './net';

// Host is a game server host the lobby names: its HOST:PORT and the
// SHA-256 of its certificate (hex), which pins it for WebTransport.
export interface Host {
  host: string;
  cert_sha256?: string;
}

export interface Measured {
  host: string;
  kind?: string;
  rtt_ms?: number;
  // rtt_us and seal: the host's figure to the microsecond and its seal
  // on it, from a host that seals (the lobby's POST /lobby/probe).
  rtt_us?: number;
  seal?: string;
  error?: string;
}

const msgProbe = 13; // wire.MsgProbe
const timeoutMs = 20000;

// probe layout (wire.Probe): type 8 | Seq 32 LE | Done 8 | RTT uvarint
// µs (Done only) | ticket length 8 | ticket bytes.
function encode(seq: number, ticket = ''): Uint8Array {
  const t = new TextEncoder().encode(ticket);
  const b = new Uint8Array(7 + t.length);
  b[0] = msgProbe;
  new DataView(b.buffer).setUint32(1, seq, true);
  b[6] = t.length;
  b.set(t, 7);
  return b;
}

function decode(b: Uint8Array): { seq: number; done: boolean; rttUs: number; seal: string } {
  if (b.length < 7 || b[0] !== msgProbe) throw new Error('not a probe datagram');
  const seq = new DataView(b.buffer, b.byteOffset, b.byteLength).getUint32(1, true);
  let rttUs = 0;
  let i = 6;
  if (b[5] === 1) {
    for (let shift = 1; i < b.length; shift *= 128) {
      const v = b[i++];
      rttUs += (v & 0x7f) * shift;
      if (!(v & 0x80)) break;
    }
  }
  // The Done probe's ticket field carries the host's seal, if it seals.
  const n = i < b.length ? b[i] : 0;
  if (i + 1 + n > b.length) throw new Error('probe datagram cut short');
  const seal = new TextDecoder().decode(b.subarray(i + 1, i + 1 + n));
  return { seq, done: b[5] === 1, rttUs, seal };
}

// measure measures one host: the round trip its server kept, in ms.
export async function measure(h: Host, ticket: string, want: string | null = null): Promise<Measured> {
  let hello: ReturnType<typeof setInterval> | undefined;
  let link: Awaited<ReturnType<typeof open>> | undefined;
  try {
    return await new Promise<Measured>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer in ${timeoutMs / 1000} s`)), timeoutMs);
      const done = (m: Measured) => { clearTimeout(timer); resolve(m); };
      open(h.host, want, (b) => {
        let m;
        try { m = decode(b); } catch (e) { reject(e); return; }
        if (m.done) {
          done({ host: h.host, kind: link?.kind, rtt_ms: m.rttUs / 1000, rtt_us: m.rttUs, ...(m.seal ? { seal: m.seal } : {}) });
          return;
        }
        clearInterval(hello);
        link?.send(encode(m.seq));
      }, h.cert_sha256 ? [decodeHash(h.cert_sha256)] : undefined).then((l) => {
        link = l;
        // The ticket goes again until the first ping shows it arrived:
        // a datagram may be lost.
        l.send(encode(0, ticket));
        hello = setInterval(() => l.send(encode(0, ticket)), 500);
        l.closed.then((why) => { clearTimeout(timer); reject(new Error(why)); });
      }, reject);
    });
  } catch (e) {
    return { host: h.host, kind: link?.kind, error: (e as Error).message };
  } finally {
    clearInterval(hello);
    link?.close('measured');
  }
}

// measureAll measures each host in turn (not at once: one's pings would
// queue behind another's).
export async function measureAll(hosts: Host[], ticket: string, want: string | null = null): Promise<Measured[]> {
  const out: Measured[] = [];
  for (const h of hosts) out.push(await measure(h, ticket, want));
  return out;
}
