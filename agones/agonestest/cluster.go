package agonestest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/lagkit/lagkit/agones"
)

// Cluster stands in for the part of the Kubernetes API a matchmaker
// uses with Agones: creating a GameServerAllocation
// (allocation.agones.dev/v1) and reading and watching the GameServer it
// allocated (agones.dev/v1). Its GameServers are fake SDK servers
// (Server) that game servers under test talk to, so a GameServer is
// Ready when its game server said so, and an allocation changes what
// that game server's SDK server reports, as Agones' controller does.
// A GameServer whose game server asked for Shutdown is deleted; one
// deleted through the API is in state Shutdown on its SDK server.
// GameServers are listed by label (labelSelector KEY=VALUE,...), as a
// lobby lists a Fleet's Ready ones.
type Cluster struct {
	srv       *httptest.Server
	namespace string

	mu       sync.Mutex
	members  []*member
	contend  int
	requests []map[string]any
}

type member struct {
	sdk   *Server
	ports []agones.Port
}

// NewCluster starts a stand-in Kubernetes API server for namespace.
// Close it when done.
func NewCluster(namespace string) *Cluster {
	c := &Cluster{namespace: namespace}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /apis/allocation.agones.dev/v1/namespaces/{ns}/gameserverallocations", c.allocate)
	mux.HandleFunc("GET /apis/agones.dev/v1/namespaces/{ns}/gameservers/{name}", c.get)
	mux.HandleFunc("DELETE /apis/agones.dev/v1/namespaces/{ns}/gameservers/{name}", c.delete)
	mux.HandleFunc("GET /apis/agones.dev/v1/namespaces/{ns}/gameservers", c.watch)
	c.srv = httptest.NewServer(mux)
	return c
}

// URL returns the API server's address, for rest.Config's Host.
func (c *Cluster) URL() string { return c.srv.URL }

// Close shuts the server down, ending any watch.
func (c *Cluster) Close() {
	c.srv.CloseClientConnections()
	c.srv.Close()
}

// WriteKubeconfig writes a kubeconfig naming the server, its namespace
// the context's, to path.
func (c *Cluster) WriteKubeconfig(path string) error {
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: stand-in
  cluster:
    server: %s
contexts:
- name: stand-in
  context:
    cluster: stand-in
    namespace: %s
    user: stand-in
current-context: stand-in
users:
- name: stand-in
  user:
    token: stand-in
`, c.srv.URL, c.namespace)
	return os.WriteFile(path, []byte(cfg), 0o600)
}

// Add makes sdk's GameServer one of fleet's (the label agones.dev/fleet),
// exposing ports (its status's ports once allocated).
func (c *Cluster) Add(fleet string, sdk *Server, ports ...agones.Port) {
	sdk.mu.Lock()
	sdk.gs.ObjectMeta.Namespace = c.namespace
	sdk.gs.ObjectMeta.Labels["agones.dev/fleet"] = fleet
	sdk.gs.Status.Ports = slices.Clone(ports)
	sdk.notify()
	sdk.mu.Unlock()
	c.mu.Lock()
	c.members = append(c.members, &member{sdk: sdk, ports: ports})
	c.mu.Unlock()
}

// Contend makes the next n allocations answer Contention, as Agones
// does when other allocations took the GameServers it chose.
func (c *Cluster) Contend(n int) {
	c.mu.Lock()
	c.contend = n
	c.mu.Unlock()
}

// Allocations returns the GameServerAllocations created so far, as
// their requests' bodies.
func (c *Cluster) Allocations() []map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.requests)
}

// status answers as the API server does when it refuses a request.
func status(w http.ResponseWriter, code int, reason, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "reason": reason, "message": msg, "code": code})
}

// allocationSpec is the part of a GameServerAllocation the stand-in
// reads.
type allocationSpec struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Spec       struct {
		Selectors []struct {
			MatchLabels map[string]string `json:"matchLabels"`
		} `json:"selectors"`
		Metadata struct {
			Labels      map[string]string `json:"labels"`
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	} `json:"spec"`
}

func (c *Cluster) allocate(w http.ResponseWriter, r *http.Request) {
	if ns := r.PathValue("ns"); ns != c.namespace {
		status(w, http.StatusNotFound, "NotFound", fmt.Sprintf("namespace %q not found", ns))
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		status(w, http.StatusBadRequest, "BadRequest", err.Error())
		return
	}
	var raw map[string]any
	var a allocationSpec
	if err := json.Unmarshal(body, &raw); err != nil {
		status(w, http.StatusBadRequest, "BadRequest", err.Error())
		return
	}
	_ = json.Unmarshal(body, &a)
	if a.APIVersion != "allocation.agones.dev/v1" || a.Kind != "GameServerAllocation" {
		status(w, http.StatusBadRequest, "BadRequest", fmt.Sprintf("want a GameServerAllocation of allocation.agones.dev/v1, got %s %s", a.Kind, a.APIVersion))
		return
	}
	c.mu.Lock()
	c.requests = append(c.requests, raw)
	state := "UnAllocated"
	var chosen *member
	if c.contend > 0 {
		c.contend--
		state = "Contention"
	} else {
	find:
		// Agones tries the selectors in order and takes a Ready
		// GameServer matching one.
		for _, sel := range a.Spec.Selectors {
			for _, m := range c.members {
				gs := m.sdk.GameServer()
				if gs.Status.State != agones.StateReady {
					continue
				}
				ok := true
				for k, v := range sel.MatchLabels {
					ok = ok && gs.ObjectMeta.Labels[k] == v
				}
				if ok {
					chosen = m
					break find
				}
			}
		}
		if chosen != nil {
			state = "Allocated"
			chosen.sdk.AllocateWith(a.Spec.Metadata.Labels, a.Spec.Metadata.Annotations)
		}
	}
	c.mu.Unlock()
	st := map[string]any{"state": state}
	if chosen != nil {
		gs := chosen.sdk.GameServer()
		ports := make([]any, len(chosen.ports))
		for i, p := range chosen.ports {
			ports[i] = map[string]any{"name": p.Name, "port": p.Port}
		}
		st["gameServerName"], st["address"], st["ports"], st["nodeName"] = gs.ObjectMeta.Name, gs.Status.Address, ports, "stand-in"
	}
	raw["status"] = st
	meta, _ := raw["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		raw["metadata"] = meta
	}
	meta["namespace"] = c.namespace
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(raw)
}

// member returns the GameServer named name.
func (c *Cluster) member(name string) *member {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range c.members {
		if m.sdk.GameServer().ObjectMeta.Name == name {
			return m
		}
	}
	return nil
}

// object is GameServer gs (at version v) as the API server writes it.
func (m *member) object(gs agones.GameServer, v int) map[string]any {
	ports := make([]any, len(m.ports))
	for i, p := range m.ports {
		ports[i] = map[string]any{"name": p.Name, "port": p.Port}
	}
	return map[string]any{
		"apiVersion": "agones.dev/v1", "kind": "GameServer",
		"metadata": map[string]any{"name": gs.ObjectMeta.Name, "namespace": gs.ObjectMeta.Namespace,
			"labels": gs.ObjectMeta.Labels, "annotations": gs.ObjectMeta.Annotations, "resourceVersion": strconv.Itoa(v + 1)},
		"status": map[string]any{"state": gs.Status.State, "address": gs.Status.Address, "ports": ports},
	}
}

func (c *Cluster) get(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	m := c.member(name)
	if m == nil || r.PathValue("ns") != c.namespace {
		status(w, http.StatusNotFound, "NotFound", fmt.Sprintf("gameservers.agones.dev %q not found", name))
		return
	}
	gs, v, _ := m.sdk.state()
	if gs.Status.State == agones.StateShutdown {
		status(w, http.StatusNotFound, "NotFound", fmt.Sprintf("gameservers.agones.dev %q not found", name))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(m.object(gs, v))
}

func (c *Cluster) delete(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	m := c.member(name)
	if m == nil || r.PathValue("ns") != c.namespace || m.sdk.GameServer().Status.State == agones.StateShutdown {
		status(w, http.StatusNotFound, "NotFound", fmt.Sprintf("gameservers.agones.dev %q not found", name))
		return
	}
	m.sdk.mu.Lock()
	m.sdk.setState(agones.StateShutdown)
	m.sdk.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{}, "status": "Success"})
}

// watch streams one GameServer's changes after resourceVersion, as
// watch events; the GameServer's Shutdown is its deletion.
func (c *Cluster) watch(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("watch") != "true" {
		c.list(w, r)
		return
	}
	name, ok := strings.CutPrefix(q.Get("fieldSelector"), "metadata.name=")
	if !ok {
		status(w, http.StatusMethodNotAllowed, "MethodNotAllowed", "the stand-in watches one GameServer by metadata.name")
		return
	}
	m := c.member(name)
	if m == nil {
		status(w, http.StatusNotFound, "NotFound", fmt.Sprintf("gameservers.agones.dev %q not found", name))
		return
	}
	from, _ := strconv.Atoi(q.Get("resourceVersion"))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	enc := json.NewEncoder(w)
	for {
		gs, v, changed := m.sdk.state()
		if v+1 > from {
			from = v + 1
			typ := "MODIFIED"
			if gs.Status.State == agones.StateShutdown {
				typ = "DELETED"
			}
			if err := enc.Encode(map[string]any{"type": typ, "object": m.object(gs, v)}); err != nil {
				return
			}
			if fl != nil {
				fl.Flush()
			}
			if typ == "DELETED" {
				return
			}
		}
		select {
		case <-changed:
		case <-r.Context().Done():
			return
		}
	}
}

// list answers the GameServers (but those deleted) whose labels match
// the labelSelector's KEY=VALUE pairs.
func (c *Cluster) list(w http.ResponseWriter, r *http.Request) {
	if ns := r.PathValue("ns"); ns != c.namespace {
		status(w, http.StatusNotFound, "NotFound", fmt.Sprintf("namespace %q not found", ns))
		return
	}
	want := map[string]string{}
	if sel := r.URL.Query().Get("labelSelector"); sel != "" {
		for _, kv := range strings.Split(sel, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				status(w, http.StatusBadRequest, "BadRequest", fmt.Sprintf("the stand-in selects by KEY=VALUE labels, not %q", kv))
				return
			}
			want[k] = v
		}
	}
	c.mu.Lock()
	members := slices.Clone(c.members)
	c.mu.Unlock()
	items := []any{}
	for _, m := range members {
		gs, v, _ := m.sdk.state()
		if gs.Status.State == agones.StateShutdown {
			continue
		}
		ok := true
		for k, val := range want {
			ok = ok && gs.ObjectMeta.Labels[k] == val
		}
		if ok {
			items = append(items, m.object(gs, v))
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "agones.dev/v1", "kind": "GameServerList",
		"metadata": map[string]any{"resourceVersion": "1"}, "items": items})
}
