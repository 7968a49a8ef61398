package flood

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/lagkit/lagkit/wire"
)

// TestRunCountsAndEchoesWrongly floods a socket that answers each first
// Connect with a Challenge: the flood sends at its rate from its sources,
// counts the Challenges that came back, and answers them with Connects
// whose token is not the one issued.
func TestRunCountsAndEchoesWrongly(t *testing.T) {
	srv, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	const token = "0123456789abcdef"
	var mu sync.Mutex
	sources := map[string]bool{}
	var got, echoes, right int
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 2048)
		for {
			n, from, err := srv.ReadFromUDP(buf)
			if err != nil {
				return
			}
			mu.Lock()
			got++
			sources[from.String()] = true
			mu.Unlock()
			var c wire.Connect
			if wire.DecodeConnect(buf[:n], &c) != nil || c.Version != wire.Version {
				continue
			}
			switch c.Token {
			case "":
				b, _ := wire.AppendChallenge(nil, &wire.Challenge{Nonce: c.Nonce, Token: token})
				srv.WriteToUDP(b, from)
			case token:
				right++
			default:
				if len(c.Token) == len(token) {
					mu.Lock()
					echoes++
					mu.Unlock()
				}
			}
		}
	}()
	res, err := Run(context.Background(), Config{Target: srv.LocalAddr().String(), Rate: 5000, Duration: 400 * time.Millisecond, Sources: 8})
	srv.Close()
	<-done
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("%+v; the server got %d from %d sources, %d wrong echoes", res, got, len(sources), echoes)
	if res.Sent+res.SendErrors != 2000 || res.Sources != 8 || len(sources) != 8 {
		t.Errorf("sent %d (%d refused) from %d sources (the server saw %d), want 2000 from 8", res.Sent, res.SendErrors, res.Sources, len(sources))
	}
	if res.Replies["challenge"] == 0 || res.Replies["challenge"] != res.Received || res.Kinds["wrong_echo"] == 0 || echoes == 0 || right != 0 {
		t.Errorf("replies %v, kinds %v; the server saw %d wrong echoes, %d right", res.Replies, res.Kinds, echoes, right)
	}
	if res.Amplification() <= 0 || res.Amplification() > 1 {
		t.Errorf("amplification %.3f", res.Amplification())
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []Config{{}, {Target: "127.0.0.1:1", Rate: -1}, {Target: "127.0.0.1:1", Sources: 5000}, {Target: "127.0.0.1:1", Duration: -time.Second}} {
		if _, err := Run(context.Background(), c); err == nil {
			t.Errorf("config %+v taken", c)
		}
	}
}
