package web

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// Participant codes are short enough to type, so the study's endpoints
// bound how fast one address may try codes that fit no seat: each miss
// takes a token from the address's bucket, refilled at guessRate, and an
// address whose bucket is empty gets 429 for any code, until it refills.
const (
	guessBurst = 20
	guessRate  = 20.0 / 60 // misses per second allowed in the long run
	// maxGuessers bounds the addresses remembered; when it is reached,
	// full buckets are forgotten, and if that frees nothing, all are.
	maxGuessers = 4096
)

// guesses counts the code misses of each address.
type guesses struct {
	mu      sync.Mutex
	buckets map[string]*bucket
	now     func() time.Time
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newGuesses() *guesses {
	return &guesses{buckets: map[string]*bucket{}, now: time.Now}
}

// host is the address a request came from, without its port.
func host(r *http.Request) string {
	h, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return h
}

// refill returns addr's bucket brought up to now, or nil when addr has
// missed nothing lately.
func (g *guesses) refill(addr string) *bucket {
	b := g.buckets[addr]
	if b == nil {
		return nil
	}
	now := g.now()
	b.tokens = min(guessBurst, b.tokens+now.Sub(b.at).Seconds()*guessRate)
	b.at = now
	return b
}

// allowed reports whether r's address may try a code now.
func (g *guesses) allowed(r *http.Request) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	b := g.refill(host(r))
	return b == nil || b.tokens >= 1
}

// missed charges r's address for a code that fit no seat.
func (g *guesses) missed(r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	addr := host(r)
	b := g.refill(addr)
	if b == nil {
		if len(g.buckets) >= maxGuessers {
			for a, x := range g.buckets {
				if g.refill(a); x.tokens >= guessBurst {
					delete(g.buckets, a)
				}
			}
			if len(g.buckets) >= maxGuessers {
				clear(g.buckets)
			}
		}
		b = &bucket{tokens: guessBurst, at: g.now()}
		g.buckets[addr] = b
	}
	b.tokens = max(0, b.tokens-1)
}
