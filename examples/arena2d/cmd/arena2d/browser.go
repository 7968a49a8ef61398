//go:build js

package main

import (
	"context"
	"encoding/json"
	"log"
	"net/url"
	"sync/atomic"
	"syscall/js"
)

// main plays on the server that served the page, over WebSocket: wss://
// for a page served over https (ws:// for http), at the page's host;
// the page's ?name= names the player ("browser" if none). It exposes
// arena2d.state() to the page's scripts: the client's State as JSON
// (null until the first tick), and arena2d.error, the reason play
// ended, if it did.
func main() {
	loc := js.Global().Get("location")
	page, err := url.Parse(loc.Get("href").String())
	if err != nil {
		log.Fatalf("arena2d: the page's address: %v", err)
	}
	scheme := "wss"
	if page.Scheme == "http" {
		scheme = "ws"
	}
	name := page.Query().Get("name")
	if name == "" {
		name = "browser"
	}
	var last atomic.Pointer[string]
	api := js.Global().Get("Object").New()
	api.Set("state", js.FuncOf(func(js.Value, []js.Value) any {
		if p := last.Load(); p != nil {
			return *p
		}
		return js.Null()
	}))
	js.Global().Set("arena2d", api)
	onTick := func(st State) {
		b, err := json.Marshal(st)
		if err != nil {
			return // a State always marshals
		}
		s := string(b)
		last.Store(&s)
	}
	if err := play(context.Background(), scheme+"://"+page.Host, name, onTick); err != nil {
		api.Set("error", err.Error())
		log.Print(err)
	}
}
