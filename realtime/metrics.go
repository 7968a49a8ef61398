package realtime

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/lagkit/lagkit/wire"
)

// Drop reasons counted by Metrics.Dropped.
const (
	DropQueueFull = "queue_full"   // the match's inbound queue was full
	DropSend      = "send_failed"  // the transport refused a datagram
	DropMalformed = "malformed"    // the server core could not decode it
	DropEmulated  = "emulated"     // lost or tail-dropped by an emulated link
	DropNoPeer    = "unknown_peer" // from a peer the server has no session with
	DropToken     = "token"        // a connect refused for its connect token
	// DropForged: from a sealed session's address, but not opening
	// under its key (spoofed, replayed or corrupted).
	DropForged = "forged"
)

// Metrics are a host's Prometheus metrics, labelled by match. They are
// registered on a registry of the caller's (never the global one), and
// updated by each match's goroutine after every tick.
type Metrics struct {
	TickSeconds     *prometheus.HistogramVec
	TickLateness    *prometheus.HistogramVec
	TickOverruns    *prometheus.CounterVec
	Players         *prometheus.GaugeVec
	DatagramsIn     *prometheus.CounterVec
	DatagramsOut    *prometheus.CounterVec
	BytesIn         *prometheus.CounterVec
	BytesOut        *prometheus.CounterVec
	Dropped         *prometheus.CounterVec
	Rewinds         *prometheus.CounterVec
	RollbackMetres  *prometheus.HistogramVec
	SBCHits         *prometheus.CounterVec
	Appeals         *prometheus.CounterVec
	MatchesRunning  prometheus.Gauge
	ConnectsTotal   *prometheus.CounterVec
	DisconnectTotal *prometheus.CounterVec
	// Capacity: the most matches a host runs, each match's seats, and the
	// time each match's goroutine spends working.
	MatchesMax prometheus.Gauge
	Seats      *prometheus.GaugeVec
	CPUSeconds *prometheus.CounterVec
	// Panics counts matches ended by a panic in their goroutine; the
	// process and the other matches go on.
	Panics prometheus.Counter
	// Kicked counts the disconnects the server made, by reason: the
	// wire.DisconnectCode it sent (a limit gone over, a timeout).
	Kicked *prometheus.CounterVec
	// Handshakes counts what the host's front door did with handshakes
	// from addresses without a session, by transport and outcome:
	// challenged, admitted, or the reason it refused one (see
	// server.Gate and HandshakeLimits).
	Handshakes *prometheus.CounterVec
}

// NewMetrics creates the metrics and registers them on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := []string{"match"}
	tickBuckets := []float64{25e-6, 50e-6, 100e-6, 200e-6, 400e-6, 800e-6, 1.6e-3, 3.2e-3, 6.4e-3, 12.8e-3, 25.6e-3}
	lateBuckets := []float64{10e-6, 25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3}
	x := &Metrics{
		TickSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "lagkit_tick_duration_seconds", Help: "Wall time of each server tick.", Buckets: tickBuckets}, m),
		TickLateness: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "lagkit_tick_start_lateness_seconds", Help: "How late each tick started against its schedule.", Buckets: lateBuckets}, m),
		TickOverruns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "lagkit_tick_overruns_total", Help: "Ticks that took longer than the tick interval."}, m),
		Players: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "lagkit_players", Help: "Connected players."}, []string{"match", "kind"}),
		DatagramsIn: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "lagkit_datagrams_in_total", Help: "Datagrams received from clients."}, m),
		DatagramsOut: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "lagkit_datagrams_out_total", Help: "Datagrams sent to clients."}, m),
		BytesIn: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "lagkit_bytes_in_total", Help: "Payload bytes received from clients."}, m),
		BytesOut: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "lagkit_bytes_out_total", Help: "Payload bytes sent to clients."}, m),
		Dropped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "lagkit_datagrams_dropped_total", Help: "Datagrams dropped, by reason."}, []string{"match", "reason"}),
		Rewinds: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "lagkit_rewinds_total", Help: "Shots tested in the past by lag compensation."}, m),
		RollbackMetres: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "lagkit_rollback_distance_meters", Help: "How far rewound hits moved their victim back along the ground.",
			Buckets: []float64{0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5}}, m),
		SBCHits: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "lagkit_sbc_hits_total", Help: "Registered hits whose victim's client found them behind cover when they reached it (shots behind cover), counted when its judgment arrives."}, m),
		Appeals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "lagkit_appeals_total", Help: "Settled appeals of provisional hits, by outcome."}, []string{"match", "outcome"}),
		MatchesRunning: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "lagkit_matches", Help: "Matches running."}),
		ConnectsTotal: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "lagkit_connects_total", Help: "Players accepted."}, m),
		DisconnectTotal: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "lagkit_disconnects_total", Help: "Players gone."}, m),
		MatchesMax: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "lagkit_matches_max", Help: "The most matches this process runs at once."}),
		Seats: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "lagkit_seats", Help: "Seats of the match: the players it holds."}, m),
		CPUSeconds: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "lagkit_match_cpu_seconds_total",
			Help: "Time the match's goroutine spent running: ticks, datagrams, commands, and the spin before each tick; not its sleep."}, m),
		Panics: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "lagkit_match_panics_total", Help: "Matches ended by a panic in their goroutine (the process goes on)."}),
		Kicked: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "lagkit_server_disconnects_total", Help: "Players the server disconnected, by reason."}, []string{"match", "reason"}),
		Handshakes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "lagkit_handshakes_total",
			Help: "Datagrams and connections from addresses without a session, by transport and outcome: challenged, admitted, or why refused."}, []string{"transport", "outcome"}),
	}
	x.MatchesMax.Set(maxMatches)
	reg.MustRegister(x.TickSeconds, x.TickLateness, x.TickOverruns, x.Players, x.DatagramsIn, x.DatagramsOut,
		x.BytesIn, x.BytesOut, x.Dropped, x.Rewinds, x.RollbackMetres, x.SBCHits, x.Appeals, x.MatchesRunning,
		x.ConnectsTotal, x.DisconnectTotal, x.MatchesMax, x.Seats, x.CPUSeconds, x.Panics, x.Kicked, x.Handshakes)
	return x
}

// matchMetrics are one match's series, curried once so a tick does no
// label lookups.
type matchMetrics struct {
	tick, late, rollback                             prometheus.Observer
	overruns, dgIn, dgOut, bytesIn, bytesOut, rewind prometheus.Counter
	sbc, connects, disconnects, cpu                  prometheus.Counter
	humans, bots, seats                              prometheus.Gauge
	dropped                                          map[string]prometheus.Counter
	kicked                                           [wire.NumDisconnectCodes]prometheus.Counter
	appeals                                          *prometheus.CounterVec
	parent                                           *Metrics
	id                                               string
}

func (x *Metrics) forMatch(id string, seats int) *matchMetrics {
	mm := &matchMetrics{
		tick: x.TickSeconds.WithLabelValues(id), late: x.TickLateness.WithLabelValues(id),
		rollback: x.RollbackMetres.WithLabelValues(id), overruns: x.TickOverruns.WithLabelValues(id),
		dgIn: x.DatagramsIn.WithLabelValues(id), dgOut: x.DatagramsOut.WithLabelValues(id),
		bytesIn: x.BytesIn.WithLabelValues(id), bytesOut: x.BytesOut.WithLabelValues(id),
		rewind: x.Rewinds.WithLabelValues(id), sbc: x.SBCHits.WithLabelValues(id),
		connects: x.ConnectsTotal.WithLabelValues(id), disconnects: x.DisconnectTotal.WithLabelValues(id),
		humans: x.Players.WithLabelValues(id, "human"), bots: x.Players.WithLabelValues(id, "bot"),
		seats: x.Seats.WithLabelValues(id), cpu: x.CPUSeconds.WithLabelValues(id),
		dropped: map[string]prometheus.Counter{}, parent: x, id: id,
		appeals: x.Appeals.MustCurryWith(prometheus.Labels{"match": id}),
	}
	for _, r := range []string{DropQueueFull, DropSend, DropMalformed, DropEmulated, DropNoPeer, DropToken, DropForged} {
		mm.dropped[r] = x.Dropped.WithLabelValues(id, r)
	}
	mm.seats.Set(float64(seats))
	for code := range wire.NumDisconnectCodes {
		mm.kicked[code] = x.Kicked.WithLabelValues(id, code.String())
	}
	x.MatchesRunning.Inc()
	return mm
}

// remove forgets the match's series once it has ended, so a host that
// runs matches one after another keeps a bounded set of series.
func (mm *matchMetrics) remove() {
	x, id := mm.parent, mm.id
	l := prometheus.Labels{"match": id}
	for _, v := range []interface{ DeletePartialMatch(prometheus.Labels) int }{
		x.TickSeconds, x.TickLateness, x.RollbackMetres, x.Players, x.Seats,
	} {
		v.DeletePartialMatch(l)
	}
	for _, v := range []*prometheus.CounterVec{x.TickOverruns, x.DatagramsIn, x.DatagramsOut, x.BytesIn, x.BytesOut,
		x.Dropped, x.Rewinds, x.SBCHits, x.Appeals, x.ConnectsTotal, x.DisconnectTotal, x.CPUSeconds, x.Kicked} {
		v.DeletePartialMatch(l)
	}
	x.MatchesRunning.Dec()
}
