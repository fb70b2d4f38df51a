# flagpole: a static binary on a minimal, non-root base image.
#   docker build -t flagpole .
#   docker run -p 8080:8080 -p 127.0.0.1:9090:9090 -e FLAGPOLE_DB=postgres://... flagpole
# The admin port (metrics, pprof) is published on the host's loopback only.
# See docs/deploy.md.

FROM golang:1.26-bookworm AS build
# What flagpole version and flagpole_build_info report (.git stays out of
# the build context): docker build --build-arg VERSION=$(git describe
# --tags --always --dirty) --build-arg REVISION=$(git rev-parse HEAD) .
ARG VERSION=""
ARG REVISION=""
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -X main.version=${VERSION} -X main.revision=${REVISION}" -o /out/flagpole ./cmd/flagpole

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/flagpole /flagpole
COPY config.yaml /etc/flagpole/config.yaml
WORKDIR /data
ENV FLAGPOLE_CONFIG=/etc/flagpole/config.yaml \
    FLAGPOLE_ADDR=0.0.0.0:8080 \
    FLAGPOLE_ADMIN_ADDR=0.0.0.0:9090 \
    FLAGPOLE_DB=sqlite:/data/flagpole.db
EXPOSE 8080 9090
USER nonroot:nonroot
# Healthy once ready (/readyz: the first load is in); unhealthy again from
# SIGTERM on. The start period covers a first load of a million flags.
HEALTHCHECK --interval=10s --timeout=3s --start-period=2m --retries=3 CMD ["/flagpole", "healthcheck"]
ENTRYPOINT ["/flagpole"]
CMD ["serve"]
