package client

import (
	"time"

	"github.com/lagkit/lagkit/internal/registry"
)

// Feedback decides what a player is shown of its network: nothing, a
// ping number, the full net graph, or a placebo ping unlike the real one
// (latency exposure as a condition: a study can then tell knowing about
// latency from having it, [halbhuber-quiet]). A server mandates it to
// every client as it does the display mode (wire.SettingsEvent.Feedback);
// a client without a mandate shows what its player chose. Feedbacks are
// chosen by name; adding one takes one file and one line in the
// registry.
type Feedback interface {
	// Name is the feedback's name in settings and records.
	Name() string
	// Show returns what the player is shown, from the client's measured
	// round trip and the placebo's settings.
	Show(rtt time.Duration, p Placebo) Shown
}

// Placebo is what a placebo ping shows: a fixed value (MS, when above 0)
// or the real round trip scaled by Scale.
type Placebo struct {
	MS    float64
	Scale float64
}

// Shown is what the player sees of the network: a ping (when HasPing)
// of PingMS, and whether the full net graph is on.
type Shown struct {
	Feedback string  `json:"feedback"`
	HasPing  bool    `json:"hasPing"`
	PingMS   float64 `json:"pingMs"`
	Graph    bool    `json:"graph"`
}

// Feedbacks is the registry of feedbacks, by name, in the order help
// lists them.
var Feedbacks = registry.New("feedback",
	registry.Entry[Feedback]{Name: feedbackNone{}.Name(), Item: feedbackNone{}},
	registry.Entry[Feedback]{Name: feedbackPing{}.Name(), Item: feedbackPing{}},
	registry.Entry[Feedback]{Name: feedbackNetGraph{}.Name(), Item: feedbackNetGraph{}},
	registry.Entry[Feedback]{Name: feedbackPlacebo{}.Name(), Item: feedbackPlacebo{}},
)

// DefaultPlaceboScale is what a placebo scales the real round trip by
// when the server sets neither a fixed value nor a scale: half.
const DefaultPlaceboScale = 0.5

// Feedback returns what the server mandates the player be shown of the
// network, and whether it mandates anything: without a mandate (or with
// a feedback this client does not know) the page shows what its player
// chose.
func (c *Client) Feedback() (Shown, bool) {
	f, err := Feedbacks.Lookup(c.settings.Feedback)
	if !c.hasSettings || c.settings.Feedback == "" || err != nil {
		return Shown{}, false
	}
	p := Placebo{MS: float64(c.settings.PlaceboMS), Scale: float64(c.settings.PlaceboPermille) / 1000}
	if p.MS == 0 && p.Scale == 0 {
		p.Scale = DefaultPlaceboScale
	}
	return f.Show(c.RTT(), p), true
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
