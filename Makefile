# The two commands of the README: `make demo` and `make test`.
GO ?= go
PLUGIN := fixtures/engines/.cache/javy-plugin-1.7.0.wasm
OUT := $(or $(TMPDIR),/tmp)/jsprof-demo

.PHONY: setup demo test bin

setup:
	./scripts/setup.sh

bin:
	$(GO) build -o bin/jsprof ./cmd/jsprof

# Build fixtures/js/fib.js into a static Javy module with a real Javy plugin,
# profile it, and print the per-opcode and per-function cost.
demo: setup bin
	mkdir -p $(OUT)
	./bin/jsprof build --plugin $(PLUGIN) fixtures/js/fib.js -o $(OUT)/fib.wasm
	./bin/jsprof run --report --top 10 -o $(OUT)/fib.pb.gz $(OUT)/fib.wasm
	@echo "profile: $(OUT)/fib.pb.gz (go tool pprof -top $(OUT)/fib.pb.gz; ./bin/jsprof report --by line $(OUT)/fib.pb.gz)"

# Test binaries of library packages carry no dependency versions in their
# build info (Go records them for main packages only), so wazero would key
# their compilation cache "dev" and cmd/jsprof's by its version, and every
# engine would be compiled twice. Naming wazero's version at link time
# gives every test binary one key: each engine is compiled once a machine.
WAZERO := github.com/tetratelabs/wazero
WAZERO_VERSION = $(shell $(GO) list -m -f '{{.Version}}' $(WAZERO))
TESTFLAGS ?=

# -vet=off: go test's own vet pass (a subset of go vet's analyzers) took
# 16 s of a fresh clone's run; .ci/run runs go vet ./... whole instead.
test: setup
	$(GO) test -vet=off -ldflags=-X=$(WAZERO)/internal/version.version=$(WAZERO_VERSION) -timeout 45m $(TESTFLAGS) ./...
