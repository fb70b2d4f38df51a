# The two commands of the README: run the demo, run the tests.
.PHONY: run test check build fuzz bench mutants

# The tools the checks install when they are missing (pinned: a newer
# staticcheck may find new things; v0.8.2 (release 2026.2.2) is one for Go 1.26).
STATICCHECK_VERSION := v0.8.2
GREMLINS_VERSION := v0.6.0
GOBIN := $(shell go env GOPATH)/bin
STATICCHECK := $(GOBIN)/staticcheck
GREMLINS := $(GOBIN)/gremlins

run:
	go run ./cmd/flagpole serve --demo

# Set FLAGPOLE_TEST_POSTGRES (postgres://...) and FLAGPOLE_TEST_REDIS
# (redis://...) to include the tests that need those services.
test: check
	go test -race -count=1 ./...

# The static checks: formatting, vet, a tidy go.mod, the Windows and macOS
# builds and vet (tests included: what only unix has sits in _unix files),
# staticcheck.
check: $(STATICCHECK)
	gofmt -l . | (! grep .) || (echo "gofmt: the files above need formatting" && false)
	go vet ./...
	go mod tidy -diff || (echo "go.mod/go.sum: run go mod tidy" && false)
	GOOS=windows GOARCH=amd64 go vet ./...
	GOOS=darwin GOARCH=arm64 go vet ./...
	$(STATICCHECK) ./...

$(STATICCHECK):
	go install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

$(GREMLINS):
	go install github.com/go-gremlins/gremlins/cmd/gremlins@$(GREMLINS_VERSION)

# The version and commit that flagpole version and flagpole_build_info
# report, from git (go build records them itself only with -buildvcs).
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null)
REVISION ?= $(shell git rev-parse HEAD 2>/dev/null)
build:
	CGO_ENABLED=0 go build -trimpath -ldflags "-X main.version=$(VERSION) -X main.revision=$(REVISION)" -o flagpole ./cmd/flagpole

# Each fuzz target beyond its seed corpus (which plain `go test` runs), CI
# calls this. A number of executions, about 10 s each on 2 cores, not a
# duration: Go 1.26's fuzz coordinator can fail a run that ends on a
# -fuzztime duration while a worker is busy ("context deadline exceeded",
# golang/go#75804, fixed in Go 1.27); a count has no deadline to race.
# FUZZ_X multiplies the counts (make fuzz FUZZ_X=10).
FUZZ_X ?= 1
fuzz:
	go test ./httpapi -run '^$$' -fuzz '^FuzzQueryParams$$' -fuzztime $$((20000 * $(FUZZ_X)))x
	go test ./memstore -run '^$$' -fuzz '^FuzzFold$$' -fuzztime $$((200000 * $(FUZZ_X)))x
	go test ./loader -run '^$$' -fuzz '^FuzzParseRecord$$' -fuzztime $$((100000 * $(FUZZ_X)))x
	go test ./loader -run '^$$' -fuzz '^FuzzImportLine$$' -fuzztime $$((4000 * $(FUZZ_X)))x -parallel 1

# The benchmark of issues 4, 14 and 22 (bench/run says what it does and its
# settings: BENCH_FLAGS, BENCH_DURATION, BENCH_ROUNDS, FLAGPOLE_TEST_POSTGRES, and
# FLAGPOLE_TEST_REDIS for the --redis and nginx modes, ...).
bench:
	bench/run

# Mutation testing (gremlins): each covered mutant of the code must make a
# test fail. Slow (httpapi most): one package with
# make mutants MUTANTS=./memstore, gremlins' flags in GREMLINS_FLAGS, e.g.
# GREMLINS_FLAGS='--workers 1 -E search -E query' (-E leaves out the files
# whose name within the package matches).
# gremlins sets each mutant's time limit from its first coverage run, which
# Go's test cache can answer at once (every mutant then "times out"):
# -count=1 makes that run real, and the coefficient leaves room for a
# busy machine.
MUTANTS ?= ./memstore ./httpapi
GREMLINS_FLAGS ?=
mutants: $(GREMLINS)
	@for p in $(MUTANTS); do echo "== gremlins unleash $$p"; GOFLAGS="$$GOFLAGS -count=1" $(GREMLINS) unleash --timeout-coefficient 10 $(GREMLINS_FLAGS) $$p || exit 1; done
