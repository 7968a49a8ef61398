package online

import (
	"context"
	"fmt"
	"maps"
	"net"
	"slices"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Under Agones the prescreen's round trip is measured to the Fleet's
// game server hosts, not to the lobby's: each game server, while Ready,
// serves the probe (package probe) on its GameServer port named
// ProbePort, seals each measurement with the key it shares with the
// lobby (probe.Seal), and says its certificate's hash in the annotation
// ProbeCertAnnotation. The lobby names pages a few of the Ready
// GameServers' probes (Agones.ProbeHosts), and takes a round trip only
// with a seal that opens (Server's POST /lobby/probe).
const (
	ProbePort           = "probe"
	ProbeCertKey        = "lagkit-probe-cert"
	ProbeCertAnnotation = "agones.dev/sdk-" + ProbeCertKey
)

// MaxFleetProbes bounds the hosts a page measures under Agones: one
// game server per node address, this many addresses at most (each
// measurement takes its pings' round trips, one host after another).
const MaxFleetProbes = 4

// ProbeHosts lists the Fleet's Ready GameServers (with the Selector's
// labels) that serve the probe, and returns one probe per node address,
// MaxFleetProbes at most, ordered by address: HOST:PORT the address and
// the port named ProbePort.
func (a *Agones) ProbeHosts(ctx context.Context) ([]ProbeHost, error) {
	sel := FleetLabel + "=" + a.Fleet
	for _, k := range slices.Sorted(maps.Keys(a.Selector)) {
		sel += "," + k + "=" + a.Selector[k]
	}
	list, err := a.Client.Resource(GameServerResource).Namespace(a.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return nil, fmt.Errorf("online: listing the game servers of fleet %s in namespace %s: %w", a.Fleet, a.Namespace, err)
	}
	byAddr := map[string]ProbeHost{}
	for _, gs := range list.Items {
		h, ok := probeHost(&gs)
		if !ok {
			continue
		}
		addr, _, _ := unstructured.NestedString(gs.Object, "status", "address")
		// Several game servers on one node measure the same path: the
		// first by name stands for them all.
		if old, dup := byAddr[addr]; !dup || h.Host < old.Host {
			byAddr[addr] = h
		}
	}
	addrs := slices.Sorted(maps.Keys(byAddr))
	out := make([]ProbeHost, 0, min(len(addrs), MaxFleetProbes))
	for _, ad := range addrs[:min(len(addrs), MaxFleetProbes)] {
		out = append(out, byAddr[ad])
	}
	return out, nil
}

// probeHost is GameServer gs's probe, if it is Ready and serves one.
func probeHost(gs *unstructured.Unstructured) (ProbeHost, bool) {
	state, _, _ := unstructured.NestedString(gs.Object, "status", "state")
	addr, _, _ := unstructured.NestedString(gs.Object, "status", "address")
	hash := gs.GetAnnotations()[ProbeCertAnnotation]
	if state != "Ready" || addr == "" || hash == "" {
		return ProbeHost{}, false
	}
	ports, _, _ := unstructured.NestedSlice(gs.Object, "status", "ports")
	for _, p := range ports {
		pm, _ := p.(map[string]any)
		if name, _, _ := unstructured.NestedString(pm, "name"); name != ProbePort {
			continue
		}
		n, _, _ := unstructured.NestedInt64(pm, "port")
		if n < 1 || n > 65535 {
			return ProbeHost{}, false
		}
		return ProbeHost{Host: net.JoinHostPort(addr, strconv.FormatInt(n, 10)), CertHash: hash}, true
	}
	return ProbeHost{}, false
}

// FollowProbes lists the Fleet's probes (ProbeHosts) every period and
// hands each list to set, until ctx ends; a failed listing is logged and
// set keeps the last list. A GameServer allocated or gone drops out at
// the next listing: its seals stay good for the lobby's freshness (see
// Server.SetProbes), so a measurement under way is not lost.
func (a *Agones) FollowProbes(ctx context.Context, period time.Duration, set func([]ProbeHost)) {
	a.once.Do(a.defaults)
	t := time.NewTicker(period)
	defer t.Stop()
	failures, last := 0, -1
	for {
		hosts, err := a.ProbeHosts(ctx)
		switch {
		case err != nil && ctx.Err() != nil:
			return
		case err != nil:
			if failures++; failures == 1 || failures%30 == 0 {
				a.Log.Warn("probes", "err", err)
			}
		default:
			if len(hosts) != last {
				a.Log.Info("probes", "hosts", len(hosts))
			}
			failures, last = 0, len(hosts)
			set(hosts)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
