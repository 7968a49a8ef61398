package realtime

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lagkit/lagkit/world"
)

// Maps are the maps a server plays by name: the shipped maps (package
// world) and those loaded from a directory at start (lagkit serve
// --maps). Loading one by name never touches the file system: the
// directory's files are read and checked once, by LoadMaps.
type Maps struct {
	files map[string][]byte // a loaded map's name: its checked map file
	names []string          // every name, shipped and loaded, sorted
}

// LoadMaps returns the shipped maps and every *.json file in dir, each
// checked as a map file whose name (its "name" field) is its file name
// without .json. A file that is not a good map, or that takes a shipped
// map's name, is an error naming it. With dir "" the maps are the
// shipped ones.
func LoadMaps(dir string) (*Maps, error) {
	ms := &Maps{files: map[string][]byte{}, names: world.Names()}
	if dir == "" {
		return ms, nil
	}
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		if _, err := os.Stat(dir); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%s: no map files (*.json)", dir)
	}
	for _, p := range paths {
		data, err := readMapFile(p)
		if err != nil {
			return nil, err
		}
		m, err := world.Parse(p, data)
		if err != nil {
			return nil, err
		}
		name := strings.TrimSuffix(filepath.Base(p), ".json")
		switch {
		case m.Name != name:
			return nil, fmt.Errorf("%s: the map is called %q: want %q, its file's name", p, m.Name, name)
		case slices.Contains(ms.names, name):
			return nil, fmt.Errorf("%s: %s is a shipped map's name: give the file another", p, name)
		}
		ms.files[name] = data
		ms.names = append(ms.names, name)
	}
	slices.Sort(ms.names)
	return ms, nil
}

// readMapFile reads path up to one byte past world.MaxFileSize, for
// world.Parse to refuse a larger file.
func readMapFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, world.MaxFileSize+1))
}

// Names returns every map's name, sorted.
func (ms *Maps) Names() []string { return slices.Clone(ms.names) }

// Loaded reports whether name is a map LoadMaps loaded from its
// directory (not a shipped one).
func (ms *Maps) Loaded(name string) bool {
	_, ok := ms.files[name]
	return ok
}

// Load returns a fresh copy of the map called name, shipped or loaded.
// It refuses anything else, a file path among them, without looking at
// the file system.
func (ms *Maps) Load(name string) (*world.Map, error) {
	if data, ok := ms.files[name]; ok {
		return world.Parse(name+".json", data)
	}
	if slices.Contains(ms.names, name) {
		return world.Load(name)
	}
	if LooksLikePath(name) {
		return nil, fmt.Errorf("%q is a file path, not a map's name: want one of %s", name, strings.Join(ms.names, ", "))
	}
	return nil, fmt.Errorf("no map %q: want one of %s", name, strings.Join(ms.names, ", "))
}

// LooksLikePath reports whether a map's name is rather a file's path:
// it holds a path separator or "..", or ends in .json.
func LooksLikePath(name string) bool {
	return strings.ContainsAny(name, `/\`) || strings.Contains(name, "..") || strings.HasSuffix(name, ".json")
}
