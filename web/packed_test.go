package web

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lagkit/lagkit/web/bridge"
)

// TestPageChecksPackVersion runs the page's packed.ts under node: the
// layout version it reads is the one bridge.Pack writes, and
// checkPackVersion, which the page calls with the version the client
// core reports before it starts a session, passes that version and
// refuses any other, or none, saying both versions.
func TestPageChecksPackVersion(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed; run report/browser/install.sh to enable this test")
	}
	fsys := fstest.MapFS{"shell/packedcheck.ts": {Data: []byte(`
import { PackVersion, checkPackVersion } from './packed';
const errors: string[] = [];
for (const v of [PackVersion, PackVersion + 1, undefined, String(PackVersion)]) {
  try { checkPackVersion(v); errors.push(''); } catch (e) { errors.push((e as Error).message); }
}
console.log(JSON.stringify({ version: PackVersion, errors }));
`)}}
	for _, name := range []string{"shell/packed.ts", "shell/types.ts"} {
		b, err := fs.ReadFile(files, name)
		if err != nil {
			t.Fatal(err)
		}
		fsys[name] = &fstest.MapFile{Data: b}
	}
	js, err := bundle(fsys, "shell/packedcheck.ts")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "packedcheck.mjs")
	if err := os.WriteFile(path, js, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(node, path).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var got struct {
		Version int
		Errors  []string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	if got.Version != bridge.PackVersion {
		t.Errorf("packed.ts reads layout version %d, bridge.Pack writes %d", got.Version, bridge.PackVersion)
	}
	if len(got.Errors) != 4 || got.Errors[0] != "" {
		t.Fatalf("checkPackVersion: %q; want the page's own version passed", got.Errors)
	}
	reads := fmt.Sprintf(", this page reads version %d", bridge.PackVersion)
	want := map[int]string{1: fmt.Sprintf("packs frames in version %d", bridge.PackVersion+1) + reads, 2: "packs frames in no version" + reads, 3: "no version" + reads}
	for i, w := range want {
		if !strings.Contains(got.Errors[i], w) || !strings.Contains(got.Errors[i], "reload the page") {
			t.Errorf("checkPackVersion case %d: %q, want it refused with %q", i, got.Errors[i], w)
		}
	}
}
