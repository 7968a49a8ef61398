package realtime

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMapsByName(t *testing.T) {
	arena, err := os.ReadFile("../world/maps/arena.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	yard := strings.Replace(string(arena), `"name": "arena"`, `"name": "yard"`, 1)
	if err := os.WriteFile(filepath.Join(dir, "yard.json"), []byte(yard), 0o644); err != nil {
		t.Fatal(err)
	}
	ms, err := LoadMaps(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ms.Names(), ","); got != "arena,courtyard,metro,yard" {
		t.Errorf("names %s", got)
	}
	for _, name := range []string{"yard", "metro"} {
		if m, err := ms.Load(name); err != nil || m.Name != name {
			t.Errorf("Load(%s): %v, %v", name, m, err)
		}
	}
	// A path is refused before the file system is consulted: the file
	// exists, and is a good map.
	for _, name := range []string{filepath.Join(dir, "yard.json"), "yard.json", "../yard", `..\yard`, "a/b"} {
		_, err := ms.Load(name)
		if err == nil || !strings.Contains(err.Error(), "is a file path, not a map's name: want one of arena, courtyard, metro, yard") {
			t.Errorf("Load(%q): %v", name, err)
		}
	}
	// A configuration file may name the directory's maps.
	cfg := filepath.Join(dir, "serve.toml")
	if err := os.WriteFile(cfg, []byte("[[match]]\nmap = \"yard\"\nmode = \"ffa\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := LoadFileMaps(cfg, ms)
	if err != nil || f.Matches[0].World == nil || f.Matches[0].World.Name != "yard" {
		t.Fatalf("LoadFileMaps: %+v, %v", f, err)
	}
	if _, err := LoadFile(cfg); err == nil || !strings.Contains(err.Error(), `no shipped map "yard"`) {
		t.Errorf("LoadFile without the maps: %v", err)
	}
}

func TestDecodeTokenRequest(t *testing.T) {
	if p, err := DecodeTokenRequest("body", []byte(`{"player": "alice"}`)); err != nil || p != "alice" {
		t.Fatalf("%q, %v", p, err)
	}
	for body, want := range map[string]string{
		`null`:                        "body:1:1: want an object, got null",
		`{"player": ""}`:              "body:1:12: player: missing",
		`{"player": "alice", "x": 1}`: "x: unknown field",
		`{"player": "` + strings.Repeat("é", 17) + `"}`: "player: 34 bytes, want 1 to 32",
		`{"player": "a\nb"}`:                            "has a control character",
		`{"player": "a"} {}`:                            "unexpected data after the end of the top-level value",
	} {
		if _, err := DecodeTokenRequest("body", []byte(body)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", body, err, want)
		}
	}
}
