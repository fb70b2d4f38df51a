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

fuzz:
	go test ./httpapi -run '^$$' -fuzz FuzzQueryParams -fuzztime 60s

# The benchmark of issue 4 (bench/run says what it does and its settings:
# BENCH_FLAGS, BENCH_DURATION, FLAGPOLE_TEST_POSTGRES, ...).
bench:
	bench/run
