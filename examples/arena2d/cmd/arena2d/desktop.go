//go:build !js

package main

import (
	"context"
	"flag"
	"log"
	"os"
	"os/signal"
)

func main() {
	connect := flag.String("connect", "udp://127.0.0.1:4000", "play on the server at this URL (udp://host:port, ws://host:port or wss://host:port)")
	name := flag.String("name", "player", "your name")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := play(ctx, *connect, *name, nil); err != nil {
		log.Fatal(err)
	}
}
