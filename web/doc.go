// Package web serves lagkit's browser client: a page that plays a live
// match in first person with three.js, running lagkit's own client core
// compiled to WebAssembly, so the browser predicts and interpolates with
// exactly the code the server, native clients and bots run. Handler
// serves the page, its script, the client core, the shipped maps and the
// page's connect tokens (HandlerWith, for a server that requires them);
// lagkit serve mounts it beside its WebTransport and WebSocket endpoints
// (/lagkit/wt, /lagkit/ws, /lagkit/cert), which the page connects to.
// With Options.Study the handler also serves a live study (package
// study's Control): a participant opens /?code=CODE, and the page joins
// each round's match by that code and shows the questionnaire, the ready
// button and the waits between rounds; the admin opens
// /admin#token=TOKEN (the fragment never reaches a server's logs) to see
// the seats, send the commands and spectate the round's match from
// above and with a free camera, every hit's rewind drawn. study.go lists
// the endpoints.
// The page runs the core and its link in a Web Worker started from its
// own script, so slow frames do not hold up ticks and datagrams; with
// ?worker=0 it runs them on its own thread.
//
// Everything is built with Go alone, so `go run ./cmd/lagkit serve` works
// on a fresh clone with nothing but the Go toolchain, and no compiled file
// is committed:
//
//   - The page's TypeScript (shell/) is bundled in process by esbuild's Go
//     API from sources embedded in the binary, the first time it is asked
//     for (a fraction of a second).
//   - three.js 0.187.0 is vendored under third_party/three (the npm
//     package's build/three.module.js and build/three.core.js with its MIT
//     licence; the package no longer ships a minified single file), since
//     a Go build can reach no npm registry; esbuild minifies it into the
//     bundle.
//   - The client core (web/wasm) is compiled by the Go toolchain with
//     GOOS=js GOARCH=wasm. A binary built from a source tree (go run, go
//     build, go test) finds that tree through its own source paths and
//     builds the core once into the user cache directory, named by a hash
//     of every file it is built from (the Go version, go.mod, go.sum and
//     the module's Go and embedded files it imports), so later starts reuse
//     it and any source change rebuilds it. The toolchain is $GOROOT/bin/go,
//     the go on PATH, or the one that built the binary, and wasm_exec.js
//     comes from the same GOROOT (lib/wasm since Go 1.24), so the two
//     always match. Release binaries instead run `go generate ./web`
//     first, which writes the core, its wasm_exec.js and its source hash
//     into dist/ (ignored by git) for go:embed; an embedded core is served
//     when the sources are absent or hash the same, and rebuilt when they
//     have changed since.
//
// The build starts when Handler is first called, so it is usually done
// before a browser asks; Prepare waits for it and reports its error.
package web
