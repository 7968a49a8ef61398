package study

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/lagkit/lagkit/experiment"
	"github.com/lagkit/lagkit/record"
)

// SeatOrderRow is the order of techniques one seat played: its
// counterbalancing group's.
type SeatOrderRow struct {
	Seat   int    `json:"seat"`
	Person bool   `json:"person"`
	Group  int    `json:"group"`
	Design string `json:"design"`
	Order  string `json:"order"`
}

// NetworkRow is one seat's network in one round, injected beside
// measured (record.Network): the manipulation check.
type NetworkRow struct {
	record.Network
	Technique string `json:"technique"`
	Person    bool   `json:"person"`
}

// designTally keeps the seat orders and the network records.
type designTally struct {
	orders  []record.SeatOrder
	network []record.Network
	// clients are the client-side round trips the pages reported, by
	// round and seat (live rounds; a simulated round's network record
	// has its own).
	clients map[[2]int]record.Frames
	// frames are every page's frame reports, for the frame table.
	frames []record.Frames
}

func (t *designTally) put(r record.Record) bool {
	switch v := r.(type) {
	case record.SeatOrder:
		t.orders = append(t.orders, v)
	case record.Network:
		t.network = append(t.network, v)
	case record.Frames:
		t.frames = append(t.frames, v)
		if v.RTTSamples > 0 {
			if t.clients == nil {
				t.clients = map[[2]int]record.Frames{}
			}
			t.clients[[2]int{v.Round, v.Seat}] = v
		}
	default:
		return false
	}
	return true
}

// rows returns the seat orders and the network rows of rep's rounds:
// the people's alone when people played (bots apart, as every figure of
// the report), every seat's otherwise; by seat, and by round then seat.
func (t *designTally) rows(s *Summariser, bots bool) ([]SeatOrderRow, []NetworkRow) {
	person := map[int]bool{}
	for _, rt := range s.rounds {
		for seat, p := range rt.people {
			person[seat] = person[seat] || p
		}
	}
	keep := func(seat int) bool { return bots || person[seat] }
	var orders []SeatOrderRow
	for _, o := range t.orders {
		if keep(o.Seat) {
			orders = append(orders, SeatOrderRow{Seat: o.Seat, Person: person[o.Seat], Group: o.Group, Design: o.Design, Order: o.Order})
		}
	}
	slices.SortStableFunc(orders, func(a, b SeatOrderRow) int { return a.Seat - b.Seat })
	var net []NetworkRow
	for _, n := range t.network {
		if !keep(n.Seat) {
			continue
		}
		row := NetworkRow{Network: n, Person: person[n.Seat]}
		if f, ok := t.clients[[2]int{n.Round, n.Seat}]; ok && n.ClientSamples == 0 {
			row.ClientRTTMeanMS, row.ClientRTTJitterMS, row.ClientSamples = f.RTTMeanMS, f.RTTJitterMS, f.RTTSamples
		}
		if rt := s.byIndex[n.Round]; rt != nil {
			row.Technique, _ = s.sched.technique(rt.rec)
		}
		net = append(net, row)
	}
	slices.SortStableFunc(net, func(a, b NetworkRow) int {
		if a.Round != b.Round {
			return a.Round - b.Round
		}
		return a.Seat - b.Seat
	})
	return orders, net
}

// designResults adds the seat orders' and the network's tables to res.
func (r *Report) designResults(res *experiment.Results) {
	who := r.Subjects
	if len(r.SeatOrders) > 0 {
		t := experiment.Table{Name: "study_seat_orders", Title: fmt.Sprintf("The order of techniques each seat played (%s), by round", who),
			Columns: []string{"seat", "person", "counterbalance_group", "design", "technique_order"}}
		for _, o := range r.SeatOrders {
			t.Rows = append(t.Rows, []string{strconv.Itoa(o.Seat), strconv.FormatBool(o.Person), strconv.Itoa(o.Group), o.Design, o.Order})
		}
		res.Tables = append(res.Tables, t)
	}
	if len(r.Network) > 0 {
		t := experiment.Table{Name: "study_network", Title: fmt.Sprintf("Network per seat (%s) and round: injected beside measured (the manipulation check)", who),
			Columns: []string{"round", "technique", "seat", "target_rtt_ms", "injected_rtt_ms", "jitter_ms", "loss", "rtt_mean_ms", "rtt_p50_ms", "rtt_p95_ms",
				"rtt_jitter_ms", "rtt_samples", "client_rtt_mean_ms", "client_samples", "loss_up", "loss_down"}}
		for _, n := range r.Network {
			t.Rows = append(t.Rows, []string{strconv.Itoa(n.Round + 1), n.Technique, strconv.Itoa(n.Seat), num(n.TargetRTTMS), num(injectedRTT(n.Network)), num(n.JitterMS), num(n.Loss),
				num(n.RTTMeanMS), num(n.RTTP50MS), num(n.RTTP95MS), num(n.RTTJitterMS), strconv.Itoa(n.RTTSamples),
				num(n.ClientRTTMeanMS), strconv.Itoa(n.ClientSamples), num(n.LossUp), num(n.LossDown)})
		}
		res.Tables = append(res.Tables, t)
	}
}

// markdownDesign writes the seat orders and the network.
func (r *Report) markdownDesign(b *strings.Builder) {
	if len(r.SeatOrders) > 0 {
		fmt.Fprintf(b, "\n## Order of techniques\n\nEach seat's order of techniques by round (%s).\n\n", r.Subjects)
		b.WriteString("| seat | person | group | design | order |\n|---|---|---|---|---|\n")
		for _, o := range r.SeatOrders {
			fmt.Fprintf(b, "| %d | %v | %d | %s | %s |\n", o.Seat, o.Person, o.Group, cmp.Or(o.Design, "none"), o.Order)
		}
	}
	if len(r.Network) > 0 {
		fmt.Fprintf(b, "\n## Network: injected and measured\n\nPer seat (%s) and round: the round trip a target held (if any), the round trip injected "+
			"(twice the one-way latency; under a target, the mean the links applied) beside the server's "+
			"smoothed estimate sampled through the round (mean, median, 95th percentile, jitter) and the client's own; the share of datagrams the emulated link dropped each way.\n\n", r.Subjects)
		b.WriteString("| round | technique | seat | target RTT (ms) | injected RTT (ms) | measured RTT mean (ms) | p50 | p95 | jitter | samples | client RTT (ms) | loss up | loss down |\n" +
			"|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
		for _, n := range r.Network {
			target := "–"
			if n.TargetRTTMS > 0 {
				target = num(n.TargetRTTMS)
			}
			fmt.Fprintf(b, "| %d | %s | %d | %s | %s | %.1f | %.1f | %.1f | %.1f | %d | %.1f | %.3f | %.3f |\n", n.Round+1, n.Technique, n.Seat, target, num(injectedRTT(n.Network)),
				n.RTTMeanMS, n.RTTP50MS, n.RTTP95MS, n.RTTJitterMS, n.RTTSamples, n.ClientRTTMeanMS, n.LossUp, n.LossDown)
		}
	}
}

// injectedRTT is the round trip injected on a seat's link in a round:
// twice the schedule's one-way latency, or under a target (which moves
// with the seat's own round trip) the mean the links applied each way.
func injectedRTT(n record.Network) float64 {
	if n.TargetRTTMS > 0 {
		return n.DelayUpMS + n.DelayDownMS
	}
	return 2 * n.LatencyMS
}

// conditionRTT is the round trip a seat's latency condition names in a
// round, by which the report groups seats and tells low ping from high:
// the target it was held at, or twice the one-way latency injected (on
// a lab's network, which adds next to nothing of its own). Under a
// target the injected latency follows the seat's own round trip and
// says nothing of the condition: seats held at 80 and 200 ms were
// counted as low-ping seats at 0 ms.
func conditionRTT(p record.Participant) float64 {
	if p.TargetRTTMS > 0 {
		return p.TargetRTTMS
	}
	return 2 * p.LatencyMS
}
