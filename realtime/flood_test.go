package realtime

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/flood"
	"github.com/lagkit/lagkit/internal/walltest"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/wire"
)

// floodChild names the environment variable that makes the test binary
// a flooder (floodChildMain): its value is TARGET,RATE,DURATION.
const floodChild = "LAGKIT_FLOOD_CHILD"

// floodChildMain floods the target its environment names and prints the
// result as one JSON line.
func floodChildMain() {
	parts := strings.Split(os.Getenv(floodChild), ",")
	if len(parts) != 3 {
		fmt.Fprintf(os.Stderr, "%s=%q: want TARGET,RATE,DURATION\n", floodChild, os.Getenv(floodChild))
		os.Exit(2)
	}
	rate, err1 := strconv.Atoi(parts[1])
	d, err2 := time.ParseDuration(parts[2])
	if err1 != nil || err2 != nil {
		fmt.Fprintln(os.Stderr, "bad flood settings:", err1, err2)
		os.Exit(2)
	}
	res, err := flood.Run(context.Background(), flood.Config{Target: parts[0], Rate: rate, Duration: d, Sources: 64, Seed: 1})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	json.NewEncoder(os.Stdout).Encode(res)
	os.Exit(0)
}

// startFlood starts a flooder in a process of its own (this test binary,
// run as floodChildMain) and returns a wait for its result.
func startFlood(t *testing.T, target string, rate int, d time.Duration) func() flood.Result {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s,%d,%v", floodChild, target, rate, d))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return func() flood.Result {
		t.Helper()
		var res flood.Result
		line, err := bufio.NewReader(out).ReadBytes('\n')
		if werr := cmd.Wait(); werr != nil || err != nil {
			t.Fatalf("flooder: %v %v", werr, err)
		}
		if err := json.Unmarshal(line, &res); err != nil {
			t.Fatalf("flooder printed %q: %v", line, err)
		}
		return res
	}
}

// TestFlood: while eight bots play, a separate process sends 10,000
// malformed or spoofed datagrams a second from 64 source ports at the
// match's UDP port (package flood: garbage, truncated messages, Connects
// of other versions, with forged tokens, echoing Challenges wrongly, and
// commands, appeals, reports and goodbyes from addresses with no
// session). The bots keep playing (snapshots arriving, their shots
// registered, nobody disconnected), ticks stay within budget at the 99th
// percentile, the live heap stays flat, drops are counted by reason, and
// the flooder gets back no more bytes than it sent (amplification at
// most 1). The short form floods for 3 s; LAGKIT_SOAK=long for 30 s.
func TestFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of wall time")
	}
	walltest.Lock(t)
	d := 3 * time.Second
	if longSoak() {
		d = 30 * time.Second
	}
	const rate, bots = 10000, 8
	srv := serveMatch(t, MatchConfig{Map: "arena", Mode: "tdm", Seats: 64})
	kit := newBotKit(t, "arena")
	ctx, cancel := context.WithTimeout(context.Background(), d+45*time.Second) // ended after the flood
	defer cancel()
	res := make([]botResult, bots)
	lives, wait := runEach(bots, func(i int, live *LiveStats) {
		res[i].stats, res[i].err = kit.play(ctx, srv.addr, fmt.Sprintf("bot%d", i), uint64(i+1), nil, live)
	})
	shots := func() (shots, kills int) {
		info, err := srv.m.Info()
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range info.Players {
			shots += p.Shots
			kills += p.Kills
		}
		return shots, kills
	}
	// The flood starts once the bots have joined and begun to fight
	// (they hold fire for the first seconds, under spawn protection).
	for begun := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if s, _ := shots(); s > 0 {
			break
		}
		if time.Now().After(begun) {
			t.Fatal("the bots fired no shot in 30 s")
		}
	}
	shots0, kills0 := shots()
	snaps0 := make([]int, bots)
	for i := range lives {
		snaps0[i] = lives[i].Get().Snapshots
	}
	heap0, rss0 := heapAfterGC(), rss()
	info, err := srv.m.Info()
	if err != nil {
		t.Fatal(err)
	}
	tick0 := int(info.Tick)

	flooded := startFlood(t, srv.addr, rate, d)
	// The memory once the flood is under way, against which its end is
	// compared as well: flat, not growing with the flood's length.
	time.Sleep(d / 3)
	heapMid, rssMid := heapAfterGC(), rss()
	result := flooded()

	heap1, rss1 := heapAfterGC(), rss()
	ticks, err := srv.m.TickStats(tick0)
	if err != nil {
		t.Fatal(err)
	}
	shots1, kills1 := shots()
	snaps := make([]int, bots)
	for i := range lives {
		snaps[i] = lives[i].Get().Snapshots - snaps0[i]
	}
	cancel()
	wait()
	drops := map[string]float64{}
	for _, r := range []string{DropQueueFull, DropMalformed, DropNoPeer, DropToken, DropSend, DropForged} {
		drops[r] = counter(t, srv.reg, "lagkit_datagrams_dropped_total", map[string]string{"reason": r})
	}
	refused := map[string]float64{}
	for _, r := range []string{server.RefuseMalformed, server.RefuseNotConnect, server.RefuseVersion, server.RefuseToken, server.RefuseUnsealed, "challenged", "admitted"} {
		refused[r] = counter(t, srv.reg, "lagkit_handshakes_total", map[string]string{"transport": "udp", "outcome": r})
	}
	t.Logf("flood %.1f s from %d sources: %d datagrams (%.0f/s, %d bytes) sent, %d (%d bytes) back, amplification %.4f; sent %v; replies %v",
		result.DurationS, result.Sources, result.Sent, result.Rate(), result.SentBytes, result.Received, result.ReceivedBytes, result.Amplification(), result.Kinds, result.Replies)
	t.Logf("drops %v; front door %v; listener %+v; ticks %+v; heap %d -> %d -> %d KiB, RSS %d -> %d -> %d MiB (before, a third into, after the flood), peak RSS %d MiB; the bots shot %d times, killed %d times during the flood",
		drops, refused, srv.l.Stats(), ticks, heap0>>10, heapMid>>10, heap1>>10, rss0>>20, rssMid>>20, rss1>>20, peakRSS()>>20, shots1-shots0, kills1-kills0)
	if result.ReceivedBytes > result.SentBytes {
		t.Errorf("the flood got back %d bytes for the %d it sent", result.ReceivedBytes, result.SentBytes)
	}
	if float64(result.Sent) < 0.8*rate*d.Seconds() {
		t.Errorf("only %d datagrams sent in %v", result.Sent, d)
	}
	if refused[server.RefuseMalformed] == 0 || refused[server.RefuseNotConnect] == 0 || refused[server.RefuseVersion] == 0 {
		t.Errorf("handshakes by outcome %v: want malformed, not-a-Connect and other-version refusals counted", refused)
	}
	if st := srv.l.Stats(); st.Peers > bots {
		t.Errorf("the listener holds %d sessions for %d bots: the flood's addresses got some", st.Peers, bots)
	}
	if result.Kinds["wrong_echo"] == 0 {
		t.Errorf("no Connect echoed a Challenge with a wrong token: replies %v", result.Replies)
	}
	for i, r := range res {
		if r.err != nil || r.stats.Code != wire.DisconnectUnspecified || strings.HasPrefix(r.stats.Reason, "disconnected") {
			t.Errorf("bot %d: %v, code %v, reason %q", i, r.err, r.stats.Code, r.stats.Reason)
		}
		// Snapshots throughout the flood, and a measured round trip: its
		// acknowledgements reached the server and back.
		if snaps[i] == 0 || r.stats.RTTms <= 0 {
			t.Errorf("bot %d: %d snapshots during the flood, round trip %.1f ms", i, snaps[i], r.stats.RTTms)
		}
	}
	if shots1 <= shots0 {
		t.Errorf("the bots fired no shot the server registered during the flood (%d before, %d after)", shots0, shots1)
	}
	t.Logf("tick p99 %.0f us against a %.0f us tick under the flood", ticks.P99US, us(srv.m.tick))
	if heap1 > heap0+heap0/2+8<<20 || heap1 > heapMid+heapMid/4+4<<20 {
		t.Errorf("live heap grew from %d KiB to %d KiB a third into the flood and %d KiB at its end", heap0>>10, heapMid>>10, heap1>>10)
	}
}
