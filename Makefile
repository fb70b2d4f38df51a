# The two commands of the README: run the demo, run the tests.
.PHONY: run test build fuzz bench

run:
	go run ./cmd/flagpole serve --demo

# Set FLAGPOLE_TEST_POSTGRES (postgres://...) and FLAGPOLE_TEST_REDIS
# (redis://...) to include the tests that need those services.
test:
	gofmt -l . | (! grep .) || (echo "gofmt: the files above need formatting" && false)
	go vet ./...
	go test -race -count=1 ./...

build:
	CGO_ENABLED=0 go build -trimpath -o flagpole ./cmd/flagpole

# Each fuzz target for FUZZTIME (CI calls this); the seed corpora run in
# plain `go test` too.
FUZZTIME ?= 15s
fuzz:
	go test ./httpapi -run '^$$' -fuzz '^FuzzQueryParams$$' -fuzztime $(FUZZTIME)
	go test ./memstore -run '^$$' -fuzz '^FuzzFold$$' -fuzztime $(FUZZTIME)
	go test ./loader -run '^$$' -fuzz '^FuzzParseRecord$$' -fuzztime $(FUZZTIME)
	go test ./loader -run '^$$' -fuzz '^FuzzImportLine$$' -fuzztime $(FUZZTIME) -parallel 1

# The benchmark of issue 4 (bench/run says what it does and its settings:
# BENCH_FLAGS, BENCH_DURATION, FLAGPOLE_TEST_POSTGRES, ...).
bench:
	bench/run
