# The two commands of the README: `make demo` and `make test`.
GO ?= go
PLUGIN := fixtures/engines/.cache/javy-plugin-1.7.0.wasm
OUT := $(or $(TMPDIR),/tmp)/jsprof-demo

.PHONY: setup demo test bin

setup:
	./scripts/setup.sh

bin:
	$(GO) build -o bin/jsprof ./cmd/jsprof

# Build fixtures/js/fib.js into a static Javy module with a real Javy plugin
# and run it under jsprof.
demo: setup bin
	mkdir -p $(OUT)
	./bin/jsprof build --plugin $(PLUGIN) fixtures/js/fib.js -o $(OUT)/fib.wasm
	./bin/jsprof run $(OUT)/fib.wasm

test: setup
	$(GO) test ./...
