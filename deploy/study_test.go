package deploy

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/study/online"
)

// mounts returns, for each mount path of container c in pod spec pod,
// the ConfigMap or Secret behind it ("configMap/NAME", "secret/NAME").
func mounts(t *testing.T, pod, c any) map[string]string {
	t.Helper()
	source := map[string]string{}
	for _, v := range at(t, pod, "volumes").([]any) {
		vol := v.(doc)
		name := vol["name"].(string)
		if cm, ok := vol["configMap"].(doc); ok {
			source[name] = "configMap/" + fmt.Sprint(cm["name"])
		}
		if s, ok := vol["secret"].(doc); ok {
			source[name] = "secret/" + fmt.Sprint(s["secretName"])
		}
	}
	out := map[string]string{}
	for _, m := range at(t, c, "volumeMounts").([]any) {
		out[at(t, m, "mountPath").(string)] = source[at(t, m, "name").(string)]
	}
	return out
}

// envSecrets returns container c's variables taken from Secrets, as
// "SECRET/KEY".
func envSecrets(t *testing.T, c any) map[string]string {
	t.Helper()
	out := map[string]string{}
	env, _ := at(t, c, "env").([]any)
	for _, e := range env {
		from, _ := e.(doc)["valueFrom"].(doc)
		if ref, ok := from["secretKeyRef"]; ok {
			out[at(t, e, "name").(string)] = at(t, ref, "name").(string) + "/" + at(t, ref, "key").(string)
		}
	}
	return out
}

// TestStudyLobby: deploy/study.yaml's lobby allocates from its Fleet:
// its --fleet is the Fleet's name, its service account may create
// GameServerAllocations and get, list, watch and delete GameServers
// (what online.Agones asks of the API), the lobby and the game servers
// read the same schedule and write to the same database, the GameServers
// expose the browsers' port under the name the lobby's links use and
// the prescreen's probe under the name the lobby lists, the game
// servers seal with the key of the lobby's own Secret, and both command
// lines parse.
func TestStudyLobby(t *testing.T) {
	const file = "study.yaml"
	sa, role, rb := find(t, file, "ServiceAccount"), find(t, file, "Role"), find(t, file, "RoleBinding")
	dep, svc, fleet := find(t, file, "Deployment"), find(t, file, "Service"), find(t, file, "Fleet")

	// The role covers what the allocator does.
	allowed := map[string]bool{}
	for _, r := range at(t, role, "rules").([]any) {
		for _, g := range strs(t, at(t, r, "apiGroups")) {
			for _, res := range strs(t, at(t, r, "resources")) {
				for _, v := range strs(t, at(t, r, "verbs")) {
					allowed[g+"/"+res+"/"+v] = true
				}
			}
		}
	}
	for _, need := range []string{
		online.AllocationResource.Group + "/" + online.AllocationResource.Resource + "/create",
		online.GameServerResource.Group + "/" + online.GameServerResource.Resource + "/get",
		online.GameServerResource.Group + "/" + online.GameServerResource.Resource + "/list",
		online.GameServerResource.Group + "/" + online.GameServerResource.Resource + "/watch",
		online.GameServerResource.Group + "/" + online.GameServerResource.Resource + "/delete",
	} {
		if !allowed[need] {
			t.Errorf("the lobby's Role does not allow %s", need)
		}
	}
	sub := at(t, rb, "subjects", 0)
	if at(t, sub, "kind") != "ServiceAccount" || at(t, sub, "name") != at(t, sa, "metadata", "name") ||
		at(t, rb, "roleRef", "kind") != "Role" || at(t, rb, "roleRef", "name") != at(t, role, "metadata", "name") {
		t.Errorf("the RoleBinding binds %v to %v", sub, at(t, rb, "roleRef"))
	}

	pod := at(t, dep, "spec", "template", "spec")
	if at(t, pod, "serviceAccountName") != at(t, sa, "metadata", "name") {
		t.Errorf("the lobby runs as %v, the Role is bound to %v", at(t, pod, "serviceAccountName"), at(t, sa, "metadata", "name"))
	}
	if at(t, dep, "spec", "replicas") != 1 || at(t, dep, "spec", "strategy", "type") != "Recreate" {
		t.Errorf("the lobby holds its participants in memory: want one replica, recreated (got %v, %v)",
			at(t, dep, "spec", "replicas"), at(t, dep, "spec", "strategy", "type"))
	}
	lc := at(t, pod, "containers", 0)
	largs := strs(t, at(t, lc, "args"))
	if len(largs) < 3 || largs[0] != "study" || largs[1] != "lobby" {
		t.Fatalf("lobby args %v", largs)
	}
	acceptsArgs(t, "lobby", largs)
	if a, _ := flag(largs, "allocator"); a != "agones" {
		t.Errorf("the lobby's --allocator is %q", a)
	}
	if f, _ := flag(largs, "fleet"); f != at(t, fleet, "metadata", "name") {
		t.Errorf("the lobby allocates from fleet %q, the Fleet is %v", f, at(t, fleet, "metadata", "name"))
	}
	// The Service reaches the lobby's --listen port.
	listen, _ := flag(largs, "listen")
	target := at(t, svc, "spec", "ports", 0, "targetPort")
	var lport any
	for _, p := range at(t, lc, "ports").([]any) {
		if at(t, p, "name") == target {
			lport = at(t, p, "containerPort")
		}
	}
	if lport != port(t, listen) {
		t.Errorf("the Service targets %v (container port %v), the lobby listens on %s", target, lport, listen)
	}
	for k, v := range at(t, svc, "spec", "selector").(doc) {
		if at(t, dep, "spec", "template", "metadata", "labels", k) != v {
			t.Errorf("the Service selects %s=%v, not the lobby's pods", k, v)
		}
	}
	lm := mounts(t, pod, lc)
	if secret, _ := flag(largs, "secret-file"); !strings.HasPrefix(lm[filepath.Dir(secret)], "secret/") {
		t.Errorf("--secret-file %s is not on a Secret (%v): a new lobby would make another key and refuse the old codes", secret, lm)
	}

	gs := at(t, fleet, "spec", "template", "spec")
	gpod := at(t, gs, "template", "spec")
	gc := at(t, gpod, "containers", 0)
	gargs := strs(t, at(t, gc, "args"))
	if len(gargs) < 3 || gargs[0] != "study" || gargs[1] != "run" || !slices.Contains(gargs, "--agones") {
		t.Fatalf("game server args %v: want study run --agones", gargs)
	}
	acceptsArgs(t, "game server", gargs)
	gm := mounts(t, gpod, gc)

	// One schedule and one database for both.
	if src := lm[filepath.Dir(largs[2])]; src == "" || src != gm[filepath.Dir(gargs[2])] || filepath.Base(largs[2]) != filepath.Base(gargs[2]) {
		t.Errorf("the lobby reads %s (%s), the game servers %s (%s)", largs[2], src, gargs[2], gm[filepath.Dir(gargs[2])])
	}
	ldb, _ := flag(largs, "db")
	gdb, _ := flag(gargs, "db")
	le, ge := envSecrets(t, lc), envSecrets(t, gc)
	name, ok := strings.CutPrefix(ldb, "$(")
	name = strings.TrimSuffix(name, ")")
	if !ok || ldb != gdb || le[name] == "" || le[name] != ge[name] {
		t.Errorf("the lobby's --db %s (%v), the game servers' %s (%v): want one database from one Secret", ldb, le, gdb, ge)
	}
	for _, f := range []string{"cert", "key"} {
		if v, _ := flag(gargs, f); !strings.HasPrefix(gm[filepath.Dir(v)], "secret/") {
			t.Errorf("--%s %s is not on a Secret", f, v)
		}
	}

	// The lobby's links name the port called web: the browsers' --listen.
	glisten, _ := flag(gargs, "listen")
	var web any
	for _, p := range at(t, gs, "ports").([]any) {
		if at(t, p, "name") == "web" {
			web = p
		}
	}
	if web == nil || at(t, web, "containerPort") != port(t, glisten) || at(t, web, "protocol") != "TCPUDP" {
		t.Errorf("the GameServer's port web is %v, the game server's --listen %s (TCP and UDP)", web, glisten)
	}
	// The probe listens on the port the lobby lists, and seals with the
	// lobby's key: the same Secret, at the path given.
	plisten, _ := flag(gargs, "agones-probe")
	var pport any
	for _, p := range at(t, gs, "ports").([]any) {
		if at(t, p, "name") == online.ProbePort {
			pport = p
		}
	}
	if pport == nil || plisten == "" || at(t, pport, "containerPort") != port(t, plisten) || at(t, pport, "protocol") != "TCPUDP" {
		t.Errorf("the GameServer's port %s is %v, the game server's --agones-probe %q (TCP and UDP)", online.ProbePort, pport, plisten)
	}
	lsecret, _ := flag(largs, "secret-file")
	gsecret, _ := flag(gargs, "agones-secret-file")
	if src := gm[filepath.Dir(gsecret)]; src == "" || src != lm[filepath.Dir(lsecret)] || filepath.Base(gsecret) != filepath.Base(lsecret) {
		t.Errorf("the game servers seal with %s (%s), the lobby's --secret-file is %s (%s)", gsecret, src, lsecret, lm[filepath.Dir(lsecret)])
	}
	period := time.Duration(at(t, gs, "health", "periodSeconds").(int)) * time.Second
	v, _ := flag(gargs, "agones-health")
	if ping, err := time.ParseDuration(v); err != nil || 2*ping > period || at(t, gs, "health", "disabled") == true {
		t.Errorf("--agones-health %q against a health period of %v: want health on and two pings a period", v, period)
	}
	for _, c := range []any{lc, gc} {
		if at(t, c, "securityContext", "runAsNonRoot") != true {
			t.Errorf("container %v may run as root", at(t, c, "name"))
		}
	}
}
