# lagkit's container image: one static binary on distroless.
#
#   docker build -t lagkit .                  # the server (lagkit serve)
#   docker build --target sweep -t lagkit-sweep .   # with a shell, for batch jobs
#
# The server must run on amd64 with GOAMD64 v1 or v2 (fused multiply-add
# on arm64 or GOAMD64=v3 rounds movement differently from the clients),
# so the image is amd64 whatever the build machine.

FROM --platform=$BUILDPLATFORM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# The browser client's WebAssembly core, built once and embedded, so the
# image needs no Go toolchain at run time.
RUN go generate ./web
RUN CGO_ENABLED=0 GOOS=linux GOARCH=amd64 GOAMD64=v1 \
    go build -trimpath -buildvcs=false -ldflags='-s -w' -o /out/lagkit ./cmd/lagkit

# sweep: the same binary with busybox's shell (/busybox/sh), which the
# Kubernetes Indexed Job in deploy/ needs to turn its 0-based completion
# index into lagkit's 1-based --shard k/n.
FROM --platform=linux/amd64 gcr.io/distroless/static-debian12:debug-nonroot AS sweep
COPY --from=build /out/lagkit /lagkit
USER 65532:65532
WORKDIR /results
ENTRYPOINT ["/lagkit"]
CMD ["experiment", "list"]

# The server: no shell, CA certificates only, user nonroot (65532).
FROM --platform=linux/amd64 gcr.io/distroless/static-debian12:nonroot AS server
COPY --from=build /out/lagkit /lagkit
USER 65532:65532
# 8443: the page and WebSocket over TCP, WebTransport over UDP; 7777: UDP
# for native clients and bots; 9090: /healthz and /metrics only, to anyone
# (Prometheus, health checks).
#
# The admin listener (the match API, connect tokens, /debug/pprof) stays
# on the container's loopback, 127.0.0.1:9091, and is not exposed. Reach
# it with `kubectl port-forward pod/NAME 9091` (port-forward connects to
# the pod's loopback), or, to open it to the network, run with
# `--admin 0.0.0.0:9091 --admin-token-file /run/secrets/lagkit-admin`
# (a token of at least 16 bytes, from a Secret); requests then carry
# `Authorization: Bearer TOKEN`. serve refuses a non-loopback --admin
# without a token.
EXPOSE 8443/tcp 8443/udp 7777/udp 9090/tcp
ENTRYPOINT ["/lagkit"]
CMD ["serve", "--listen", "0.0.0.0:8443", "--udp", "0.0.0.0:7777", "--http", "0.0.0.0:9090", "--admin", "127.0.0.1:9091", "--log-format", "json"]
