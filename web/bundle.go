package web

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

// entry is the page script's entry point within files, adminEntry the
// admin page's, probeEntry the round-trip probe's (ProbeScript).
const (
	entry      = "shell/main.ts"
	adminEntry = "shell/admin.ts"
	probeEntry = "shell/probe.ts"
)

// Bundle bundles the page's TypeScript and three.js, embedded in the
// binary, into one minified ES2020 script with esbuild, reading nothing
// from disk: imports resolve within the embedded files, and "three" names
// the vendored three.js.
func Bundle() ([]byte, error) {
	return bundle(files, entry)
}

func bundle(fsys fs.FS, entry string) ([]byte, error) {
	embedded := api.Plugin{
		Name: "embedded",
		Setup: func(b api.PluginBuild) {
			b.OnResolve(api.OnResolveOptions{Filter: ".*"}, func(a api.OnResolveArgs) (api.OnResolveResult, error) {
				switch {
				case a.Kind == api.ResolveEntryPoint:
					return api.OnResolveResult{Path: a.Path, Namespace: "embedded"}, nil
				case a.Path == "three":
					return api.OnResolveResult{Path: "third_party/three/three.module.js", Namespace: "embedded"}, nil
				case strings.HasPrefix(a.Path, "./") || strings.HasPrefix(a.Path, "../"):
					p := path.Join(path.Dir(a.Importer), a.Path)
					if path.Ext(p) == "" {
						p += ".ts"
					}
					return api.OnResolveResult{Path: p, Namespace: "embedded"}, nil
				}
				return api.OnResolveResult{}, fmt.Errorf("import %q: only relative imports and \"three\" are bundled", a.Path)
			})
			b.OnLoad(api.OnLoadOptions{Filter: ".*", Namespace: "embedded"}, func(a api.OnLoadArgs) (api.OnLoadResult, error) {
				data, err := fs.ReadFile(fsys, path.Clean(a.Path))
				if err != nil {
					return api.OnLoadResult{}, err
				}
				text := string(data)
				loader := api.LoaderJS
				if strings.HasSuffix(a.Path, ".ts") {
					loader = api.LoaderTS
				}
				return api.OnLoadResult{Contents: &text, Loader: loader}, nil
			})
		},
	}
	res := api.Build(api.BuildOptions{
		EntryPoints:       []string{entry},
		Bundle:            true,
		Write:             false,
		Outfile:           "lagkit.js",
		Format:            api.FormatESModule,
		Target:            api.ES2020,
		MinifyWhitespace:  true,
		MinifyIdentifiers: true,
		MinifySyntax:      true,
		LegalComments:     api.LegalCommentsEndOfFile,
		Plugins:           []api.Plugin{embedded},
		LogLevel:          api.LogLevelSilent,
	})
	if len(res.Errors) > 0 {
		msgs := make([]string, len(res.Errors))
		for i, e := range res.Errors {
			msgs[i] = e.Text
			if e.Location != nil {
				msgs[i] = fmt.Sprintf("%s:%d:%d: %s", e.Location.File, e.Location.Line, e.Location.Column, e.Text)
			}
		}
		return nil, fmt.Errorf("web: bundling the page: %s", strings.Join(msgs, "; "))
	}
	if len(res.OutputFiles) != 1 {
		return nil, errors.New("web: bundling the page gave no single output")
	}
	return res.OutputFiles[0].Contents, nil
}
