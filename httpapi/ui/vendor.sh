#!/usr/bin/env sh
# Re-fetches the browser libraries under vendor/ from the npm registry with
# `npm pack` (no node_modules, no install scripts), checks each tarball
# against the integrity pinned below, and copies only the files the pages
# load. Bump a version: change it and its integrity (`npm view PKG@VER
# dist.integrity`), run this script, commit vendor/ and check the e2e tests.
set -eu
cd "$(dirname "$0")"

SWAGGER_UI_VERSION=5.35.0
SWAGGER_UI_INTEGRITY=sha512-U06rpMtW9V3XPGOBeamTUSr0Z09jMX4IJuANpE/EZbAhw0G8CgwrzU4YmXkn/h0wCDNsXdGarTNNHC3sU8yVUQ==
UPLOT_VERSION=1.6.32
UPLOT_INTEGRITY=sha512-KIMVnG68zvu5XXUbC4LQEPnhwOxBuLyW1AHtpm6IKTXImkbLgkMy+jabjLgSLMasNuGGzQm/ep3tOkyTxpiQIw==

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# fetch NAME VERSION INTEGRITY: npm pack NAME@VERSION into $tmp/NAME, verified.
fetch() {
  mkdir -p "$tmp/$1"
  (cd "$tmp/$1" && npm pack --silent "$1@$2" >/dev/null)
  tgz=$(ls "$tmp/$1"/*.tgz)
  got=$(node -e 'const c=require("crypto"),f=require("fs");process.stdout.write("sha512-"+c.createHash("sha512").update(f.readFileSync(process.argv[1])).digest("base64"))' "$tgz")
  if [ "$got" != "$3" ]; then
    echo "vendor.sh: $1@$2: integrity $got, want $3" >&2
    exit 1
  fi
  tar -xzf "$tgz" -C "$tmp/$1"
}

fetch swagger-ui-dist "$SWAGGER_UI_VERSION" "$SWAGGER_UI_INTEGRITY"
fetch uplot "$UPLOT_VERSION" "$UPLOT_INTEGRITY"

rm -rf vendor/swagger-ui vendor/uplot
mkdir -p vendor/swagger-ui vendor/uplot

p="$tmp/swagger-ui-dist/package"
cp "$p/swagger-ui-bundle.js" "$p/swagger-ui-bundle.js.LICENSE.txt" "$p/LICENSE" "$p/NOTICE" vendor/swagger-ui/
# The source map is not shipped; drop the comment that points at it.
grep -v 'sourceMappingURL=' "$p/swagger-ui.css" > vendor/swagger-ui/swagger-ui.css

p="$tmp/uplot/package"
cp "$p/dist/uPlot.iife.min.js" "$p/dist/uPlot.min.css" "$p/LICENSE" vendor/uplot/

cat > vendor/VERSION <<VERSIONS
swagger-ui-dist $SWAGGER_UI_VERSION $SWAGGER_UI_INTEGRITY
uplot $UPLOT_VERSION $UPLOT_INTEGRITY
VERSIONS
echo "vendor.sh: swagger-ui-dist@$SWAGGER_UI_VERSION and uplot@$UPLOT_VERSION in $(pwd)/vendor"
