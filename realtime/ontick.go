package realtime

import "github.com/lagkit/lagkit/server"

// gameView gathers, for MatchConfig.OnTick, what the core handed over
// between two ticks: the match takes a handover after every datagram
// (to send an Accept at once), so the game events clients sent, and
// the kills the game's own Damage made after the last tick, arrive in
// those and not in the tick's. OnTick gets them all in one Ready. Its
// buffers are reused: nothing is allocated once they have grown.
type gameView struct {
	r    server.Ready
	data []byte // the game events' Data, copied: the core's is reused
	ends []int  // where each game event's Data ends in data
}

// add keeps the parts of handover r a game reads.
func (g *gameView) add(r *server.Ready) {
	g.r.Shots = append(g.r.Shots, r.Shots...)
	g.r.Kills = append(g.r.Kills, r.Kills...)
	g.r.Log = append(g.r.Log, r.Log...)
	g.r.Reports = append(g.r.Reports, r.Reports...)
	g.r.Sightings = append(g.r.Sightings, r.Sightings...)
	g.r.Sessions = append(g.r.Sessions, r.Sessions...)
	for _, ev := range r.GameEvents {
		g.data = append(g.data, ev.Data...)
		ev.Data = nil // set by take, once data stops moving
		g.r.GameEvents = append(g.r.GameEvents, ev)
		g.ends = append(g.ends, len(g.data))
	}
	g.r.Ticks += r.Ticks
	g.r.Tick = r.Tick
}

// take returns what was gathered since the last take, valid until the
// next add.
func (g *gameView) take() *server.Ready {
	start := 0
	for i := range g.r.GameEvents {
		g.r.GameEvents[i].Data = g.data[start:g.ends[i]:g.ends[i]]
		start = g.ends[i]
	}
	return &g.r
}

// reset forgets what take returned.
func (g *gameView) reset() {
	g.r = server.Ready{
		Shots: g.r.Shots[:0], Kills: g.r.Kills[:0], Log: g.r.Log[:0], Reports: g.r.Reports[:0],
		Sessions: g.r.Sessions[:0], GameEvents: g.r.GameEvents[:0], Sightings: g.r.Sightings[:0],
	}
	g.data, g.ends = g.data[:0], g.ends[:0]
}
