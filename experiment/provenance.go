package experiment

import (
	"runtime"
	"runtime/debug"
)

// Provenance says what produced a results file, so a figure can be
// traced to the code and the command that made it.
type Provenance struct {
	// Version is lagkit's module version: a release tag, a pseudo-version,
	// or "(devel)" for a build inside the module's own tree.
	Version string `json:"lagkit_version"`
	// Revision is the VCS commit the binary was built from, and Modified
	// whether the tree had uncommitted changes; empty when the build
	// carries no VCS information (go run, go test).
	Revision  string `json:"vcs_revision,omitempty"`
	Modified  bool   `json:"vcs_modified,omitempty"`
	GoVersion string `json:"go_version"`
	OS        string `json:"goos"`
	Arch      string `json:"goarch"`
	// Command is the command line that wrote the file, program name
	// included.
	Command []string `json:"command,omitempty"`
}

// Build returns the running binary's provenance, without a command line.
func Build() Provenance {
	p := Provenance{Version: "unknown", GoVersion: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return p
	}
	if info.Main.Version != "" {
		p.Version = info.Main.Version
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			p.Revision = s.Value
		case "vcs.modified":
			p.Modified = s.Value == "true"
		}
	}
	return p
}

// Describe says which build b is, as lagkit --version prints it: the
// module version, the VCS revision it was built from, the Go version
// and the platform.
func (b Provenance) Describe() string {
	s := b.Version
	if b.Revision != "" {
		s += ", revision " + b.Revision
		if b.Modified {
			s += " (modified)"
		}
	} else {
		s += ", revision unknown (the build carries no VCS information)"
	}
	return s + ", " + b.GoVersion + " " + b.OS + "/" + b.Arch
}
