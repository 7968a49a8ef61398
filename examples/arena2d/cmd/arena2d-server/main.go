// Command arena2d-server serves the arena, a top-down 2D game built on
// lagkit's netcode, over UDP, with bots that join over loopback:
//
//	arena2d-server -listen 127.0.0.1:4000 -bots 2
//
// With -web it also serves the arena in a browser: the page, the client
// built to WebAssembly (from -www, see package page) and the players'
// WebSocket sessions, over HTTP:
//
//	GOOS=js GOARCH=wasm go build -o dist/arena2d.wasm ./cmd/arena2d
//	cp "$(go env GOROOT)/lib/wasm/wasm_exec.js" dist/
//	arena2d-server -bots 2 -web 127.0.0.1:8080 -www dist
//
// It stops on an interrupt, printing what its referee saw.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"os"
	"os/signal"

	"github.com/lagkit/lagkit/examples/arena2d/arena"
	"github.com/lagkit/lagkit/examples/arena2d/page"
	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/transport"
	"github.com/prometheus/client_golang/prometheus"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:4000", "UDP address to serve on (host:port)")
	bots := flag.Int("bots", 0, "bots that join over loopback")
	seats := flag.Int("seats", 8, "players the match holds")
	web := flag.String("web", "", "also serve the game in a browser over HTTP and WebSocket at this address (host:port)")
	www := flag.String("www", "dist", "with -web: the directory holding the client built to WebAssembly (arena2d.wasm) and wasm_exec.js")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *listen, *bots, *seats, *web, *www); err != nil {
		log.Fatal(err)
	}
}

// run serves the arena until ctx ends, over UDP at addr and, unless web
// is empty, in a browser at web with the client in www.
func run(ctx context.Context, addr string, bots, seats int, web, www string) error {
	if bots < 0 || bots > seats {
		return fmt.Errorf("-bots %d: want 0 to -seats (%d)", bots, seats)
	}
	l, err := transport.ListenUDP(addr, transport.UDPOptions{})
	if err != nil {
		return err
	}
	defer l.Close()
	var pages *page.Web
	if web != "" {
		if pages, err = page.Listen(web, www); err != nil {
			return err
		}
		defer pages.Close()
	}
	host := realtime.NewHost(slog.Default(), realtime.NewMetrics(prometheus.NewRegistry()))
	ref := arena.NewReferee()
	if _, err := host.Start(arena.MatchConfig(seats, ref)); err != nil {
		return err
	}
	go host.Serve(ctx, l)
	if pages != nil {
		go host.Serve(ctx, pages)
		log.Printf("arena2d in a browser at %s", pages.URL())
	}
	for i := range bots {
		go func() {
			conn, err := transport.Dial(ctx, "udp://"+l.Addr(), transport.DialOptions{})
			if err != nil {
				log.Print(err)
				return
			}
			if _, err := realtime.RunClient(ctx, conn, realtime.ClientConfig{Client: arena.ClientConfig(fmt.Sprintf("bot%d", i)), Brain: &arena.Bot{}}); err != nil {
				log.Printf("bot%d: %v", i, err)
			}
		}()
	}
	log.Printf("arena2d on udp://%s", l.Addr())
	<-ctx.Done()
	r := ref.Record()
	log.Printf("%d shots, %d on the crate, broken by %d (a shot rewound %v), salutes %v; %d hits on players, %d kills",
		r.Shots, r.CrateHits, r.BrokenBy, r.BrokenRewind, r.GGs, r.PlayerHits, len(r.Kills))
	return host.Shutdown(context.Background(), "server shutting down")
}
