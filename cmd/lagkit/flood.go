package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/lagkit/lagkit/flood"
)

// floodOptions are lagkit flood's flags.
type floodOptions struct {
	target   string
	rate     int
	duration time.Duration
	sources  int
	seed     uint64
	mode     string
	spoof    string
	asJSON   bool
}

func newFloodCmd() *cobra.Command {
	var o floodOptions
	cmd := &cobra.Command{
		Use:   "flood",
		Short: "Send a server's UDP port malformed and spoofed datagrams, and count the replies",
		Long: `flood attacks a lagkit server you run, to test it: it sends --rate datagrams a
second for --duration at the UDP address --target (HOST:PORT or udp://HOST:PORT)
from --sources sockets, each a source port of its own, standing in for
spoofed addresses. The datagrams are garbage of every size, truncated
messages, Connects of other protocol versions, Connects with forged address
and connect tokens, Connects that echo the server's Challenge with a wrong
token, and well-formed commands, appeals, reports and goodbyes from
addresses that have no session. It prints what it sent, by kind, and what
came back, by message type, with the amplification: reply bytes per byte
sent, at most 1 for a server that gives an unproven address nothing more
than it received. Run bots against the server meanwhile (lagkit bots
--server) to see that they keep playing and its ticks stay on time.

--mode half-open sends only Connects, each from a new socket (a new source
port) that never answers the server's Challenge, as sources forged by the
thousand would: a server that keeps nothing for an unproven address lets
newcomers in all the while. --mode spoof --spoof-from HOST:PORT forges the
mixed datagrams to come from a playing client's address, through a raw
socket (root or CAP_NET_RAW; IPv4): a server that seals its sessions drops
every one, and the client plays on.
Only flood servers you are allowed to test.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			target, err := floodTarget(o.target)
			if err != nil {
				return usagef("%v", err)
			}
			if o.rate < 1 || o.rate > 1_000_000 {
				return usagef("--rate %d: want 1 to 1000000 datagrams a second", o.rate)
			}
			if o.duration <= 0 {
				return usagef("--duration %v: want a positive duration", o.duration)
			}
			if o.sources < 1 || o.sources > 4096 {
				return usagef("--sources %d: want 1 to 4096", o.sources)
			}
			mode := flood.Mode(o.mode)
			if !slices.Contains(flood.Modes, mode) {
				return usagef("--mode %q: want mixed, half-open or spoof", o.mode)
			}
			if (mode == flood.Spoof) != (o.spoof != "") {
				return usagef("--spoof-from goes with --mode spoof, and --mode spoof needs it")
			}
			res, err := flood.Run(ctx, flood.Config{Target: target, Rate: o.rate, Duration: o.duration, Sources: o.sources, Seed: o.seed, Mode: mode, SpoofFrom: o.spoof})
			if err != nil {
				return err
			}
			if o.asJSON {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(res)
			}
			res.WriteText(cmd.OutOrStdout())
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.target, "target", "", "the server's UDP address: HOST:PORT or udp://HOST:PORT")
	f.IntVar(&o.rate, "rate", 10000, "datagrams per second (1-1000000)")
	f.DurationVar(&o.duration, "duration", 10*time.Second, "how long to flood")
	f.IntVar(&o.sources, "sources", 64, "source sockets, each a source address of its own (1-4096)")
	f.Uint64Var(&o.seed, "seed", 1, "random seed of the payloads")
	f.StringVar(&o.mode, "mode", "mixed", "mixed (every kind), half-open (Connects from new source ports, never completed) or spoof (forged from --spoof-from)")
	f.StringVar(&o.spoof, "spoof-from", "", "with --mode spoof: the IPv4 HOST:PORT to forge datagrams from (a playing client's address)")
	f.BoolVar(&o.asJSON, "json", false, "print one JSON object")
	_ = cmd.MarkFlagRequired("target")
	return cmd
}

// floodTarget returns addr as HOST:PORT, taking a udp:// URL too.
func floodTarget(addr string) (string, error) {
	if u, err := url.Parse(addr); err == nil && u.Scheme != "" && u.Host != "" {
		if u.Scheme != "udp" {
			return "", fmt.Errorf("--target %q: only UDP can be flooded (udp://HOST:PORT)", addr)
		}
		return u.Host, nil
	}
	if addr == "" {
		return "", fmt.Errorf("--target is required")
	}
	return addr, nil
}
