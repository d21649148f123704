# The Makefile is sandmux's contract: CI runs `make test`.
GO       ?= go
BIN      ?= sandmux
FUZZTIME ?= 30s
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: build install run test check bench bench-scale fuzz clean

build:
	$(GO) build -buildvcs=auto -o $(BIN) .

# Into $(go env GOBIN), else $(go env GOPATH)/bin: put it on PATH.
install:
	$(GO) install -buildvcs=auto .

run: build
	./$(BIN)

# Race detector on; -count=1 so real processes, PTYs and servers run every time.
test:
	$(GO) test -race -count=1 -timeout 30m ./...
	cd third_party/vt10x && $(GO) test -race -count=1 ./...

check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem -count=1 ./...

# sandmux against tmux at scale (48 and 16 busy panes, throughput, echo,
# idle), one table; bench/scale.sh says what it runs and takes.
bench-scale: build
	SANDMUX=./$(BIN) bench/scale.sh

# Each fuzz target runs for FUZZTIME (go test allows one target per run).
FUZZ_TARGETS = \
	FuzzCollector:./session \
	FuzzRead:./asciicast \
	FuzzPlayKeys:./play \
	FuzzTemplateValuesCannotAddArguments:./providers/exec \
	FuzzPreparser:./session/vt \
	FuzzBulk:./session/vt \
	FuzzTextRun:./session/vt \
	FuzzUnpack:./record \
	FuzzClusterTable:./session/vt \
	FuzzMatcher:./session/vt \
	FuzzKeyframe:./session/vt \
	FuzzReflow:./session/vt \
	FuzzConfig:./config \
	FuzzParseByteSize:./config \
	FuzzExtract:./snapshot \
	FuzzEncodeKey:./keys/encode \
	FuzzEncodeKeyProtocols:./keys/encode \
	FuzzEncodeKeyNames:./keys/encode \
	FuzzNormalizeBinding:./keys \
	FuzzFrames:./attach \
	FuzzInputGuard:./server \
	FuzzParseKeys:./sshattach \
	FuzzIsTermName:./sshattach \
	FuzzPlan:./pagetrim \
	FuzzLogTail:./daemon \
	FuzzJSONString:./asciicast \
	FuzzDecodeRequest:./control \
	FuzzUnescape:./control \
	FuzzParseStat:./providers/local \
	FuzzParseUsage:./providers/local \
	FuzzString:./termsafe \
	FuzzDecode:./web \
	FuzzChangedSpan:./ui/term \
	FuzzScreenFastPath:./session/vt \
	FuzzScrollbackBlocks:./session/vt \
	FuzzBlockSkip:./session/vt

fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		name=$${t%%:*}; pkg=$${t#*:}; \
		echo "== $$name ($$pkg) for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) $$pkg; \
	done
	@echo "== FuzzFastPath (third_party/vt10x, a module of its own) for $(FUZZTIME)"
	cd third_party/vt10x && $(GO) test -run '^$$' -fuzz '^FuzzFastPath$$' -fuzztime $(FUZZTIME) .

clean:
	rm -f $(BIN)
